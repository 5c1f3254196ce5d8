/* csv.h: the fields every CSV writer of overlapscope shares (report --csv, stats --format csv),
 * so that one rule quotes them: RFC 4180, a field holding a comma, a double quote, CR or LF
 * enclosed in double quotes with its quotes doubled, lines ended by CRLF, and text that is not
 * UTF-8 repaired (U+FFFD) so that the document is valid UTF-8 whatever the trace holds. The
 * writers print only to the FILE* they are given. */
#ifndef OVERLAPSCOPE_REPORT_CSV_H
#define OVERLAPSCOPE_REPORT_CSV_H

#include <stdio.h>

/* "\r\n": RFC 4180's line end. */
#define REPORT_CSV_EOL "\r\n"

/* Writes text as one field, quoted when it must be (NULL writes an empty field). */
void report_csv_field(FILE *out, const char *text);
/* Writes a real as the JSON reports write it (cJSON), so that a CSV figure equals the JSON's. */
void report_csv_real(FILE *out, double value);

#endif
