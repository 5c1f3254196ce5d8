/* merge.h: `overlapscope merge`: joining the traces of several nodes of one job into one trace,
 * with every host's clock aligned on the first input's.
 *
 * Each input after the first gets a clock offset estimated from the NCCL collectives it shares
 * with the first (clock_align.h); its rows are appended with that offset (store_append_trace).
 * meta records, for input i >= 1: clock_offset_ns.i, clock_bound_ns.i, clock_matches.i and
 * clock_method.i; a warning (code clock-alignment) says when an offset rests on no collective or
 * its bound exceeds MERGE_BOUND_WARNING_NS. An input whose collective times disagree with its kernel
 * times (MERGE_CLOCK_DISAGREEMENT_NS) is refused: the offset would move its kernels wrong. Inputs are only
 * read (attached read-only); rows that cannot be carried are counted and warned about, never dropped
 * silently. The output is written as output_file.h says. */
#ifndef OVERLAPSCOPE_MERGE_H
#define OVERLAPSCOPE_MERGE_H

#include "clock_align.h"
#include "error.h"
#include "store.h"

/* Above this spread the alignment is reported as unreliable: 100 us is longer than the skew of
 * collective completion on a healthy network and shorter than the kernels it would reorder. */
#define MERGE_BOUND_WARNING_NS 100000

/* An input whose collectives end further than this outside its kernels' times holds two clocks
 * and is refused: a minute is longer than any collective outlives its kernels, and far shorter
 * than the offsets a forged or damaged trace brings. */
#define MERGE_CLOCK_DISAGREEMENT_NS 60000000000LL

struct merge_options {
    int force;                    /* replace an existing output */
    store_finishing_step *finish; /* may be NULL: run on the finalized trace (store.h) */
    /* May be NULL: called once per input and kind of row that could not be carried (their process
     * or name id names nothing), with a one-line message that also goes into the trace's warnings. */
    void (*warn)(void *context, const char *message);
    void *warn_context;
};

/* Merges inputs into output_path. alignments (may be NULL) receives input_count entries; entry 0
 * is the reference (offset 0, bound 0). An offset beyond STORE_MAX_ABS_TIME_NS is no clock's and
 * is refused. Returns 0, or -1 with err naming the file and problem. */
int merge_run(const char *output_path, char *const *inputs, int input_count,
              const struct merge_options *options, struct clock_alignment *alignments, error_info *err);

#endif
