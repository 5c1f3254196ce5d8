/* stream_set.h: the streams an importer saw GPU work on, with how long each category of work ran
 * there, written to the store's streams table at the end, labelled with the role the analyzer
 * would give them (store_stream_role: "nccl", "compute", "copy", "mixed", "default"), with how they
 * were created when the trace says (flags, priority, the legacy NULL stream). Shared by the Kineto
 * and Nsight Systems importers. Owns its array; free with stream_set_free. */
#ifndef OVERLAPSCOPE_STREAM_SET_H
#define OVERLAPSCOPE_STREAM_SET_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "key_index.h"
#include "op_category.h"
#include "store.h"

struct stream_set_entry {
    int64_t process_id, device_id, context_id, stream_id;
    int64_t busy_ns[ANALYSIS_CATEGORY_COUNT]; /* summed durations per category */
    /* As created (stream_set_describe): else flags 0 (unknown) and priority NULL. */
    int is_legacy_default;
    int64_t priority, flags;
};

struct stream_set {
    struct stream_set_entry *entries;
    size_t count, capacity;
    struct key_index index; /* an input can put every kernel on a stream of its own */
    size_t last_hit;        /* consecutive activities mostly hit the same stream */
};

/* Records that work of category ran on the stream from start_ns to end_ns (a NULL context counts
 * as context 0). Returns 0, or -1 when out of memory. */
int stream_set_note(struct stream_set *set, int64_t process_id, int64_t device_id, int64_t context_id,
                    int64_t stream_id, enum analysis_category category, int64_t start_ns, int64_t end_ns);

/* Records how the stream was created, as the trace describes it (nsys: TARGET_INFO_CUDA_STREAM):
 * the legacy default (NULL) stream, its priority and CUpti_ActivityStreamFlag (STORE_NULL when not
 * said; a later description fills what an earlier one left unknown). A stream described but never
 * used is written too, without a label, as recordings write every created stream. Returns 0, or
 * -1 when out of memory. */
int stream_set_describe(struct stream_set *set, int64_t process_id, int64_t device_id, int64_t context_id,
                        int64_t stream_id, int is_legacy_default, int64_t priority, int64_t flags);

/* Inserts one streams row per entry, labelled with the role the report gives it ("default" for the
 * legacy default stream). Returns 0 or -1 with err filled. */
int stream_set_write(const struct stream_set *set, store *s, error_info *err);

void stream_set_free(struct stream_set *set);

#endif
