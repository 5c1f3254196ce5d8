/* cmd_export.c: `overlapscope export TRACE --chrome OUT.json`: a trace for Perfetto and
 * chrome://tracing. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "chrome_export.h"
#include "cli.h"
#include "store.h"

int cmd_export(int argc, char **argv)
{
    static const struct option options[] = {{"chrome", required_argument, 0, 'c'},
                                            {"force", no_argument, 0, 'f'},
                                            {0, 0, 0, 0}};
    const char *chrome_path = NULL;
    int force = 0;
    optind = 1;
    int option;
    while ((option = getopt_long(argc, argv, "c:f", options, NULL)) != -1) {
        switch (option) {
        case 'c': chrome_path = optarg; break;
        case 'f': force = 1; break;
        default: return cli_usage_error(argv[0], "unknown option");
        }
    }
    if (argc - optind != 1)
        return cli_usage_error(argv[0], "expected one trace file");
    if (!chrome_path)
        return cli_usage_error(argv[0], "missing --chrome OUT.json (the only export format)");
    error_info err;
    store *trace = store_open(argv[optind], 1, &err);
    if (!trace)
        return cli_error(argv[0], "%s", err.message);
    struct chrome_export_counts counts;
    int status = chrome_export_write(trace, chrome_path, force, &counts, &err);
    store_close(trace, NULL);
    if (status != 0)
        return cli_error(argv[0], "%s", err.message);
    if (chrome_path[0] != '-' || chrome_path[1] != '\0')
        printf("%s: %" PRId64 " slices, %" PRId64 " instants, %" PRId64 " launch arrows (open in ui.perfetto.dev)\n",
               chrome_path, counts.complete_events, counts.instant_events, counts.flow_events / 2);
    return CLI_EXIT_OK;
}
