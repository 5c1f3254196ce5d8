/* merge.c: several traces into one, clocks aligned (see merge.h). Owns: the output store while it
 * is being written and the alignment array. */
#include "merge.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "output_file.h"
#include "overview.h"
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

static int record_alignment(store *output, const char *input, int index, const struct clock_alignment *alignment,
                            error_info *err)
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
        snprintf(message, sizeof message,
                 "%s shares no NCCL collective with the first trace: its clock was not aligned (offset 0 assumed)",
                 input);
    else if (alignment->bound_ns > MERGE_BOUND_WARNING_NS)
        snprintf(message, sizeof message,
                 "%s: clock offset %" PRId64 " ns is uncertain by up to %" PRId64
                 " ns (%" PRId64 " collectives matched): cross-host timing below that is not meaningful",
                 input, alignment->offset_ns, alignment->bound_ns, alignment->matches);
    else
        return 0;
    struct store_warning warning = {.process_id = STORE_NULL, .time_ns = STORE_NULL, .code = "clock-alignment",
                                    .message = message};
    if (store_begin(output, err) != 0 || store_insert_warning(output, &warning, err) != 0)
        return -1;
    return store_commit(output, err);
}

static int write_merged(store *output, char *const *inputs, int input_count, const struct clock_alignment *alignments,
                        error_info *err)
{
    for (int i = 0; i < input_count; i++) {
        if (store_append_trace(output, inputs[i], alignments[i].offset_ns, err) != 0)
            return -1;
        if (i > 0 && record_alignment(output, inputs[i], i, &alignments[i], err) != 0)
            return -1;
    }
    char count[16];
    snprintf(count, sizeof count, "%d", input_count);
    if (store_set_meta(output, "source", "merge", err) || store_set_meta(output, "merge_inputs", count, err) ||
        store_set_meta(output, "clock", "aligned on NCCL collective ends (docs/clock-alignment.md)", err))
        return -1;
    if (store_finalize(output, err) != 0)
        return -1;
    return overview_build_or_warn(output, err); /* whole-job pictures without a scan */
}

int merge_run(const char *output_path, char *const *inputs, int input_count, int force,
              struct clock_alignment *alignments, error_info *err)
{
    if (input_count < 1)
        return error_set(err, "nothing to merge");
    struct clock_alignment *estimated = calloc((size_t)input_count, sizeof *estimated);
    if (!estimated)
        return error_set(err, "out of memory");
    int status = estimate_offsets(inputs, input_count, estimated, err);
    char *temporary = status == 0 ? output_file_begin(output_path, force, err) : NULL;
    if (status == 0 && !temporary)
        status = -1;
    store *output = status == 0 ? store_create(temporary, STORE_OVERWRITE | STORE_FAST_UNSAFE, err) : NULL;
    if (status == 0 && !output)
        status = -1;
    if (status == 0)
        status = write_merged(output, inputs, input_count, estimated, err);
    if (output && store_close(output, status == 0 ? err : NULL) != 0)
        status = -1;
    if (temporary) {
        if (status == 0)
            status = output_file_commit(temporary, output_path, err);
        else
            output_file_discard(temporary);
    }
    if (status == 0 && alignments)
        for (int i = 0; i < input_count; i++)
            alignments[i] = estimated[i];
    free(temporary);
    free(estimated);
    return status;
}
