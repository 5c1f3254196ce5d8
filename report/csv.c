/* csv.c: CSV fields (csv.h): the quoting every CSV writer shares. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "text_safe.h"

void report_csv_field(FILE *out, const char *text)
{
    char *clean = text_safe_dup(text ? text : "", TEXT_SAFE_UTF8);
    const char *value = clean ? clean : "";
    if (strpbrk(value, ",\"\r\n")) {
        fputc('"', out);
        for (const char *p = value; *p; p++) {
            if (*p == '"')
                fputc('"', out);
            fputc(*p, out);
        }
        fputc('"', out);
    } else {
        fputs(value, out);
    }
    free(clean);
}

/* cJSON's own printing, so that the text is the JSON report's to the digit (it writes 15
 * significant digits when they read back within an epsilon: the JSON's own precision). */
void report_csv_real(FILE *out, double value)
{
    cJSON *number = cJSON_CreateNumber(value);
    char *text = number ? cJSON_PrintUnformatted(number) : NULL;
    if (text)
        fputs(text, out);
    else
        fprintf(out, "%.17g", value);
    free(text);
    cJSON_Delete(number);
}
