/* cmd_import.c: `overlapscope import FILE|DIR ... -o TRACE [--force] [--jobs N]`: Kineto JSON and
 * Nsight Systems SQLite into an overlapscope trace. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "describe.h"
#include "import.h"
#include "number_text.h"
#include "overview.h"
#include "progress.h"
#include "store.h"
#include "text_safe.h"
#include "units.h"

/* The warnings a user must see at once: nothing to analyze, or causes the trace cannot prove
 * (the rest, `info` lists). */
static int print_notable_warning(void *context, const struct store_warning *row, int64_t pid)
{
    (void)context;
    (void)pid;
    if (strcmp(row->code, "import-no-gpu-activity") == 0 || strcmp(row->code, "cause-not-checkable") == 0 ||
        strcmp(row->code, "import-folder-skipped") == 0) {
        printf("  warning: %s: ", row->code);
        text_safe_fputs(row->message, TEXT_SAFE_TERMINAL, stdout);
        putchar('\n');
    }
    return 0;
}

static void print_summary(const char *output_path, int file_count)
{
    error_info err;
    store *trace = store_open(output_path, 1, &err);
    if (!trace)
        return;
    static const struct {
        enum store_table table;
        const char *noun;
    } counts[] = {{STORE_TABLE_PROCESSES, "process"},      {STORE_TABLE_KERNELS, "kernel"},
                  {STORE_TABLE_MEMCPYS, "memcpy"},         {STORE_TABLE_MEMSETS, "memset"},
                  {STORE_TABLE_API_CALLS, "API call"},     {STORE_TABLE_NVTX, "NVTX range"},
                  {STORE_TABLE_COLLECTIVES, "collective"}, {STORE_TABLE_OS_CALLS, "OS runtime wait"},
                  {STORE_TABLE_WARNINGS, "warning"}};
    char count[64];
    cli_print_safe(stdout, "%s: %s", output_path,
                   units_format_count(count, sizeof count, file_count, "file"));
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        int64_t rows = store_count_rows(trace, counts[i].table);
        if (rows > 0 || counts[i].table != STORE_TABLE_OS_CALLS) /* only nsys exports hold them */
            printf(", %s", units_format_count(count, sizeof count, rows, counts[i].noun));
    }
    putchar('\n');
    store_each_warning(trace, print_notable_warning, NULL, &err);
    store_close(trace, NULL);
}

/* -o TRACE, --force and --jobs N (files read at once; default: one per processor). */
static int parse_options(int argc, char **argv, const char **output_path,
                         struct import_options *import_options)
{
    static const struct option options[] = {{"output", required_argument, 0, 'o'},
                                            {"force", no_argument, 0, 'f'},
                                            {"jobs", required_argument, 0, 'j'},
                                            {0, 0, 0, 0}};
    int jobs_given = 0, option;
    optind = 1;
    while ((option = getopt_long(argc, argv, "o:fj:", options, NULL)) != -1) {
        int64_t jobs = 0;
        if (option == 'o') {
            *output_path = optarg;
        } else if (option == 'f') {
            import_options->force = 1;
        } else if (option == 'j') {
            if (jobs_given++)
                return cli_usage_error(argv[0], "--jobs given twice: give it once");
            if (number_text_int64(optarg, &jobs) != 0 || jobs < 1 || jobs > 1024)
                return cli_usage_error(
                    argv[0], "--jobs wants a number of files read at once, 1 to 1024, not '%s'", optarg);
            import_options->jobs = (int)jobs;
        } else {
            return cli_usage_error(argv[0], "unknown option or missing value: '%s'", argv[optind - 1]);
        }
    }
    if (!*output_path)
        return cli_usage_error(argv[0], "missing -o TRACE (the trace to write)");
    return 0;
}

int cmd_import(int argc, char **argv)
{
    const char *output_path = NULL;
    struct import_options import_options = {.finish = overview_build_or_warn};
    if (parse_options(argc, argv, &output_path, &import_options) != 0)
        return CLI_EXIT_ERROR;
    if (optind >= argc)
        return cli_usage_error(argv[0], "expected at least one FILE or DIR to import");
    struct cli_progress progress;
    if (cli_progress_init(&progress, "importing")) {
        import_options.progress = cli_progress_update;
        import_options.progress_context = &progress;
    }
    /* OVERLAPSCOPE_TIMING=1: each phase's time to stderr (phase_timing.h; docs/scale.md). */
    const char *timing_wanted = getenv("OVERLAPSCOPE_TIMING");
    struct phase_timing timing = {0};
    if (timing_wanted && strcmp(timing_wanted, "1") == 0)
        import_options.timing = &timing;
    error_info err;
    int imported = import_run(output_path, argv + optind, argc - optind, &import_options, &err);
    cli_progress_finish(&progress);
    if (import_options.timing)
        phase_timing_write(&timing, import_options.jobs, stderr);
    if (imported < 0)
        return cli_error(argv[0], "%s", err.message);
    print_summary(output_path, imported);
    return CLI_EXIT_OK;
}
