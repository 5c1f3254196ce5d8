/* manual_man.h: a manual page (docs/overlapscope-*.md, read by manual_markdown.h) as a roff man
 * page of section 1 (man(7) macros), which the build writes for `cmake --install` through
 * `overlapscope help --man CMD`: the level-1 heading becomes .TH and the NAME section, level 2
 * .SH, level 3 .SS, list items .IP (nested in .RS), code blocks .nf, table rows .TP (first cell
 * as the tag), `code` and **bold** in bold. */
#ifndef OVERLAPSCOPE_MANUAL_MAN_H
#define OVERLAPSCOPE_MANUAL_MAN_H

#include <stdio.h>

/* Writes the .TH line of page (e.g. "overlapscope-import") and its NAME section, whose line is
 * "page \- summary". */
void manual_man_header(const char *page, const char *summary, const char *version, FILE *out);

/* Writes roff text: escapes what roff would read as a request or an escape, and sets `code` and
 * **bold** in bold. Line breaks are kept, the indentation after them dropped. */
void manual_man_inline(const char *text, size_t length, FILE *out);

/* Writes the header and then markdown (its level-1 heading left out) as a man page to out.
 * Returns 0, or -1 when out reports a write error. */
int manual_man_write(const char *markdown, const char *page, const char *summary, const char *version,
                     FILE *out);
/* The same in another section of the manual ("7" for overlapscope-metrics(7)). */
int manual_man_write_section(const char *markdown, const char *page, const char *section, const char *summary,
                             const char *version, FILE *out);

#endif
