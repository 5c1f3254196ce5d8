/* engine.h: the what-if replay's discrete-event engine: replays the model (model.h) with a set of
 * fixes and returns its span. The buffers of one device's replays are kept between them (struct
 * replay_scratch, engine_scratch_new/free). Private to analyzer/whatif/. */
#ifndef OVERLAPSCOPE_WHATIF_ENGINE_H
#define OVERLAPSCOPE_WHATIF_ENGINE_H

#include "model.h"

struct replay_scratch;

/* The buffers a device's replays share, none taken yet; NULL when out of memory. Free with
 * engine_scratch_free (NULL is a no-op). */
struct replay_scratch *engine_scratch_new(void);
void engine_scratch_free(struct replay_scratch *scratch);

/* Replays with the fixes (FIX_BIT set); returns the span (first start to last end), or -1 when out
 * of memory; *together gets the time two or more kernels ran at once in it (each at its alone
 * speed: what a fix that puts kernels side by side may overstate). */
int64_t engine_replay_span(const struct replay *replay, unsigned fixes, struct replay_scratch *scratch,
                           int64_t *together);

#endif
