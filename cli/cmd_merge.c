/* cmd_merge.c: `overlapscope merge NODE.db ... -o JOB.db [--force]`: the traces of several nodes
 * as one, clocks aligned on NCCL collective ends. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "merge.h"
#include "overview.h"
#include "units.h"

static void print_warning(void *command, const char *message)
{
    cli_print_safe(stderr, "overlapscope: %s: warning: %s\n", (const char *)command, message);
}

int cmd_merge(int argc, char **argv)
{
    const char *output_path = NULL;
    struct merge_options merge_options = {
        .finish = overview_build_or_warn, .warn = print_warning, .warn_context = argv[0]};
    if (cli_parse_output_options(argc, argv, "the merged trace to write", &output_path,
                                 &merge_options.force) != 0)
        return CLI_EXIT_ERROR;
    int input_count = argc - optind;
    if (input_count < 1)
        return cli_usage_error(argv[0], "expected the traces to merge");
    struct clock_alignment *alignments = calloc((size_t)input_count, sizeof *alignments);
    if (!alignments)
        return cli_error(argv[0], "out of memory");
    error_info err;
    if (merge_run(output_path, argv + optind, input_count, &merge_options, alignments, &err) != 0) {
        free(alignments);
        return cli_error(argv[0], "%s", err.message);
    }
    char merged[32];
    cli_print_safe(stdout, "%s: %s merged; clocks aligned on %s\n", output_path,
                   units_format_count(merged, sizeof merged, input_count, "trace"), argv[optind]);
    for (int i = 1; i < input_count; i++) {
        const struct clock_alignment *a = &alignments[i];
        if (a->matches == 0)
            cli_print_safe(stdout, "  %s: no collective in common, not aligned (offset 0)\n",
                           argv[optind + i]);
        else
            cli_print_safe(stdout,
                           "  %s: offset %+" PRId64 " ns, bound %" PRId64 " ns, %" PRId64
                           " collectives matched by %s%s\n",
                           argv[optind + i], a->offset_ns, a->bound_ns, a->matches,
                           a->by_sequence ? "sequence" : "order",
                           a->bound_ns > MERGE_BOUND_WARNING_NS ? " (uncertain: see warnings)" : "");
    }
    free(alignments);
    return CLI_EXIT_OK;
}
