/* writer.h: the writing helpers the report writers share (report/writer.c): prose wrapped for a
 * terminal, text and call sources as JSON strings. Private to report/: json.c, text.c, diff.c
 * and accounting.c each include this, never each other. */
#ifndef OVERLAPSCOPE_REPORT_WRITER_H
#define OVERLAPSCOPE_REPORT_WRITER_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "error.h"

/* Writes prose for a terminal (controls escaped first, so only spaces separate what is wrapped),
 * wrapped between words at width (common/text_wrap); the first line starts with first_prefix, the
 * next ones with indent spaces. */
void report_write_wrapped(FILE *out, const char *prose, const char *first_prefix, int indent, int width);

/* Adds text (from a trace or a command line) as a JSON string, its invalid UTF-8 replaced by
 * U+FFFD (text_safe.h) so the document stays valid JSON. NULL text adds "". */
void report_json_add_text(cJSON *object, const char *key, const char *text);
/* Adds where in the program a call was made: "source" as the trace stores it and
 * "source_demangled" as people read it (common/call_source.h, in full), both null when source is
 * NULL or "" (the trace cannot know). */
void report_json_add_source(cJSON *object, const char *source);
/* Prints root (NULL: out of memory before it was built) as one JSON document and a newline, and
 * frees it. Returns 0, or -1 with err filled when out of memory. */
int report_json_write(FILE *out, cJSON *root, error_info *err);

#endif
