/* analyze.c: opening a trace file and analyzing it, for the subcommands that report on one
 * trace (report, check, diff). */
#include "report.h"
#include "store.h"

struct analysis_result *report_analyze_file(const char *path, const struct analysis_options *options,
                                            error_info *err)
{
    return report_analyze_file_named(path, path, options, err);
}

struct analysis_result *report_analyze_file_named(const char *path, const char *name,
                                                  const struct analysis_options *options, error_info *err)
{
    store *trace = store_open(path, 1, err);
    if (!trace)
        return NULL;
    struct analysis_result *result = analysis_run(trace, options, err);
    if (!result && store_work_exceeded(trace, err) == 0)
        error_prefix(err, "%s", name);
    store_close(trace, NULL);
    return result;
}
