/* merge.c: several traces into one, clocks aligned (see merge.h). Owns: the output store while it
 * is being written and the alignment array. */
#include "merge.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "import.h"
#include "output_file.h"
#include "queries_merge.h"
#include "store.h"

/* Estimates every input's offset against inputs[0]. */
static int estimate_offsets(char *const *inputs, int input_count, struct clock_alignment *alignments,
                            error_info *err)
{
    store *reference = store_open(inputs[0], 1, err);
    if (!reference)
        return -1;
    alignments[0] = (struct clock_alignment){.offset_ns = 0, .bound_ns = 0, .matches = 0, .by_sequence = 0};
    int status = 0;
    for (int i = 1; status == 0 && i < input_count; i++) {
        store *other = store_open(inputs[i], 1, err);
        if (!other) {
            status = -1;
            break;
        }
        status = clock_align_estimate(store_db(reference), store_db(other), &alignments[i], err);
        store_close(other, NULL);
    }
    store_close(reference, NULL);
    return status;
}

static int set_meta_int(store *output, const char *key, int index, int64_t value, error_info *err)
{
    char name[64], text[32];
    snprintf(name, sizeof name, "%s.%d", key, index);
    snprintf(text, sizeof text, "%" PRId64, value);
    return store_set_meta(output, name, text, err);
}

static int record_alignment(store *output, const char *input, int index,
                            const struct clock_alignment *alignment, error_info *err)
{
    char name[64];
    snprintf(name, sizeof name, "clock_method.%d", index);
    const char *method = alignment->matches == 0 ? "none" : alignment->by_sequence ? "sequence" : "order";
    if (set_meta_int(output, "clock_offset_ns", index, alignment->offset_ns, err) ||
        set_meta_int(output, "clock_bound_ns", index, alignment->bound_ns, err) ||
        set_meta_int(output, "clock_matches", index, alignment->matches, err) ||
        store_set_meta(output, name, method, err))
        return -1;
    char message[1024];
    if (alignment->matches == 0)
        snprintf(
            message, sizeof message,
            "%s shares no NCCL collective with the first trace: its clock was not aligned (offset 0 assumed)",
            input);
    else if (alignment->bound_ns > MERGE_BOUND_WARNING_NS)
        snprintf(message, sizeof message,
                 "%s: clock offset %" PRId64 " ns is uncertain by up to %" PRId64 " ns (%" PRId64
                 " collectives matched): cross-host timing below that is not meaningful",
                 input, alignment->offset_ns, alignment->bound_ns, alignment->matches);
    else
        return 0;
    struct store_warning warning = {
        .process_id = STORE_NULL, .time_ns = STORE_NULL, .code = "clock-alignment", .message = message};
    if (store_begin(output, err) != 0 || store_insert_warning(output, &warning, err) != 0)
        return -1;
    return store_commit(output, err);
}

/* Stores a warning row for each kind of row input could not carry, and passes it on. */
static int warn_losses(store *output, const char *input, const struct store_append_losses *losses,
                       const struct merge_options *options, error_info *err)
{
    for (int i = 0; i < losses->count; i++) {
        char message[1024];
        snprintf(message, sizeof message,
                 "%s: %" PRId64
                 " rows of %s not carried: their process or name id names nothing in that trace",
                 input, losses->kinds[i].rows, losses->kinds[i].table);
        struct store_warning warning = {
            .process_id = STORE_NULL, .time_ns = STORE_NULL, .code = "merge-dropped", .message = message};
        if (store_begin(output, err) != 0 || store_insert_warning(output, &warning, err) != 0 ||
            store_commit(output, err) != 0)
            return -1;
        if (options->warn)
            options->warn(options->warn_context, message);
    }
    return 0;
}

static int write_merged(store *output, char *const *inputs, int input_count,
                        const struct clock_alignment *alignments, const struct merge_options *options,
                        error_info *err)
{
    for (int i = 0; i < input_count; i++) {
        struct store_append_losses losses;
        if (store_append_trace(output, inputs[i], alignments[i].offset_ns, &losses, err) != 0 ||
            warn_losses(output, inputs[i], &losses, options, err) != 0)
            return -1;
        if (i > 0 && record_alignment(output, inputs[i], i, &alignments[i], err) != 0)
            return -1;
    }
    char count[16];
    snprintf(count, sizeof count, "%d", input_count);
    if (store_set_meta(output, "source", "merge", err) ||
        store_set_meta(output, "merge_inputs", count, err) ||
        store_set_meta(output, "clock", "aligned on NCCL collective ends (docs/clock-alignment.md)", err))
        return -1;
    if (store_finalize(output, err) != 0)
        return -1;
    return options->finish ? options->finish(output, err) : 0;
}

/* The offset is estimated on collective ends and applied to every row: it aligns the kernels only
 * when an input's collectives happen while its kernels run. Collectives outside its kernels' span
 * by more than MERGE_CLOCK_DISAGREEMENT_NS mean two clocks in one file (a damaged or forged
 * trace): merged, its kernels would land anywhere (500,000,000 s apart), so it is refused. */
static int refuse_disagreeing_clocks(const char *input, error_info *err)
{
    store *trace = store_open(input, 1, err);
    if (!trace)
        return -1;
    struct store_time_span kernels, collectives;
    int status = store_clock_spans(store_db(trace), input, &kernels, &collectives, err);
    store_close(trace, NULL);
    if (status != 0 || kernels.count == 0 || collectives.count == 0)
        return status;
    int64_t before = kernels.first_ns - collectives.first_ns, after = collectives.last_ns - kernels.last_ns;
    int64_t outside = before > after ? before : after;
    if (outside > MERGE_CLOCK_DISAGREEMENT_NS)
        return error_set(err,
                         "%s: its collectives end up to %" PRId64
                         " ns outside its kernels' times: collective and kernel clocks disagree, so no"
                         " offset estimated on collectives aligns its kernels (not merged)",
                         input, outside);
    return 0;
}

/* An offset no two clocks of real hosts can be apart: the inputs' times are damaged. */
static int refuse_implausible_offsets(char *const *inputs, int input_count,
                                      const struct clock_alignment *alignments, error_info *err)
{
    for (int i = 1; i < input_count; i++)
        if (alignments[i].offset_ns > STORE_MAX_ABS_TIME_NS ||
            alignments[i].offset_ns < -STORE_MAX_ABS_TIME_NS)
            return error_set(err,
                             "%s: clock offset %" PRId64 " ns against %s is beyond any clock (over %" PRId64
                             " ns): the collective times of one of them are damaged",
                             inputs[i], alignments[i].offset_ns, inputs[0], STORE_MAX_ABS_TIME_NS);
    return 0;
}

int merge_run(const char *output_path, char *const *inputs, int input_count,
              const struct merge_options *options, struct clock_alignment *alignments, error_info *err)
{
    if (input_count < 1)
        return error_set(err, "nothing to merge");
    if (import_refuse_same_file((const char *const *)inputs, (size_t)input_count, err) != 0)
        return -1;
    struct clock_alignment *estimated = calloc((size_t)input_count, sizeof *estimated);
    if (!estimated)
        return error_set(err, "out of memory");
    /* The output is checked first: a refused name must not cost the inputs' scan. */
    output_file *out =
        output_file_begin(output_path, options->force, (const char *const *)inputs, input_count, err);
    int status = out ? estimate_offsets(inputs, input_count, estimated, err) : -1;
    if (status == 0)
        status = refuse_implausible_offsets(inputs, input_count, estimated, err);
    for (int i = 0; status == 0 && i < input_count; i++)
        status = refuse_disagreeing_clocks(inputs[i], err);
    store *output = status == 0
                        ? store_create(output_file_temporary(out), STORE_OVERWRITE | STORE_FAST_UNSAFE, err)
                        : NULL;
    if (status == 0 && !output)
        status = -1;
    if (status == 0)
        status = write_merged(output, inputs, input_count, estimated, options, err);
    if (output && store_close(output, status == 0 ? err : NULL) != 0)
        status = -1;
    if (out) {
        if (status == 0)
            status = output_file_commit(out, err);
        else
            output_file_fail(out, err);
    }
    if (status == 0 && alignments)
        for (int i = 0; i < input_count; i++)
            alignments[i] = estimated[i];
    free(estimated);
    return status;
}
