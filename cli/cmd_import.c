/* cmd_import.c: `overlapscope import FILE|DIR ... -o TRACE [--force]`: Kineto JSON and Nsight
 * Systems SQLite into an overlapscope trace. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "describe.h"
#include "import.h"
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
    printf("%s: %s", output_path, units_format_count(count, sizeof count, file_count, "file"));
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        int64_t rows = store_count_rows(trace, counts[i].table);
        if (rows > 0 || counts[i].table != STORE_TABLE_OS_CALLS) /* only nsys exports hold them */
            printf(", %s", units_format_count(count, sizeof count, rows, counts[i].noun));
    }
    putchar('\n');
    store_each_warning(trace, print_notable_warning, NULL, &err);
    store_close(trace, NULL);
}

int cmd_import(int argc, char **argv)
{
    const char *output_path = NULL;
    struct import_options import_options = {.finish = overview_build_or_warn};
    if (cli_parse_output_options(argc, argv, "the trace to write", &output_path, &import_options.force) != 0)
        return CLI_EXIT_ERROR;
    if (optind >= argc)
        return cli_usage_error(argv[0], "expected at least one FILE or DIR to import");
    struct cli_progress progress;
    if (cli_progress_init(&progress, "importing")) {
        import_options.progress = cli_progress_update;
        import_options.progress_context = &progress;
    }
    error_info err;
    int imported = import_run(output_path, argv + optind, argc - optind, &import_options, &err);
    cli_progress_finish(&progress);
    if (imported < 0)
        return cli_error(argv[0], "%s", err.message);
    print_summary(output_path, imported);
    return CLI_EXIT_OK;
}
