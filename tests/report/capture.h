/* capture.h: the report tests' one way to read what a writer printed: the text summary or its
 * Markdown twin of a result, into a string. */
#ifndef OVERLAPSCOPE_TEST_CAPTURE_H
#define OVERLAPSCOPE_TEST_CAPTURE_H

#include <stdio.h>

#include "report.h"

/* The text (markdown 0) or the Markdown report; a string the caller frees. */
static inline char *capture_report(const struct analysis_result *result, const struct report_context *context,
                                   int markdown)
{
    char *buffer = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buffer, &size);
    if (!out)
        return NULL;
    if (markdown)
        report_write_markdown(out, result, context);
    else
        report_write_text(out, result, context);
    fclose(out);
    return buffer;
}

#endif
