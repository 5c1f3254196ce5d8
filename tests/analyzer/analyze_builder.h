/* analyze_builder.h: a hand-built trace (trace_builder.h) finished and analyzed in one call, for
 * the tests that link the analyzer (trace_builder.h alone serves the importer and export tests). */
#ifndef OVERLAPSCOPE_ANALYZE_BUILDER_H
#define OVERLAPSCOPE_ANALYZE_BUILDER_H

#include <stdio.h>

#include "analysis.h"
#include "trace_builder.h"

/* Finishes the trace, analyzes all of it and closes it. NULL (with the reason printed) when the
 * analysis fails; *status is set to -1 when the trace could not be finished. */
static inline struct analysis_result *builder_analyze(struct builder *b, int *status)
{
    *status = builder_finish(b);
    error_info err = {{0}};
    struct analysis_result *result = analysis_run(b->trace, NULL, &err);
    if (!result)
        fprintf(stderr, "analysis failed: %s\n", err.message);
    builder_close(b);
    return result;
}

#endif
