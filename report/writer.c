/* writer.c: the small writing helpers every report writer shares (text, JSON, Markdown, diff and
 * the accounting sections): prose wrapped for a terminal, text and call sources as JSON strings.
 * Their own file so that the writers depend on it, not on each other. */
#include "writer.h"

#include <stdlib.h>

#include "call_source.h"
#include "text_safe.h"
#include "text_wrap.h"

void report_json_add_text(cJSON *object, const char *key, const char *text)
{
    if (text_safe_is_clean(text ? text : "", TEXT_SAFE_UTF8)) {
        cJSON_AddStringToObject(object, key, text ? text : "");
        return;
    }
    char *repaired = text_safe_dup(text, TEXT_SAFE_UTF8);
    cJSON_AddStringToObject(object, key, repaired ? repaired : "");
    free(repaired);
}

void report_json_add_source(cJSON *object, const char *source)
{
    if (!source || !source[0]) {
        cJSON_AddNullToObject(object, "source");
        cJSON_AddNullToObject(object, "source_demangled");
        return;
    }
    report_json_add_text(object, "source", source);
    char *demangled = call_source_readable(source, CALL_SOURCE_FULL);
    report_json_add_text(object, "source_demangled", demangled ? demangled : source);
    free(demangled);
}

/* At least this many columns of text beside the indent, however narrow the terminal. */
#define MIN_TEXT_COLUMNS 20

void report_write_wrapped(FILE *out, const char *prose, const char *first_prefix, int indent, int width)
{
    if (width < indent + MIN_TEXT_COLUMNS)
        width = indent + MIN_TEXT_COLUMNS;
    char *safe = text_safe_dup(prose, TEXT_SAFE_TERMINAL);
    if (!safe) {
        fputs(first_prefix, out);
        text_safe_fputs(prose, TEXT_SAFE_TERMINAL, out);
        fputc('\n', out);
        return;
    }
    text_wrap_write(out, safe, first_prefix, indent, width);
    free(safe);
}

int report_json_write(FILE *out, cJSON *root, error_info *err)
{
    char *text = root ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!text)
        return error_set(err, "out of memory writing JSON");
    fputs(text, out);
    fputc('\n', out);
    free(text);
    return 0;
}
