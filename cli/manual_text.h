/* manual_text.h: a manual page (docs/overlapscope-*.md, read by manual_markdown.h) as terminal
 * text, for `overlapscope help CMD` and `CMD --help`: headings of level 1 and 2 in capitals,
 * paragraphs reflowed to the width, list items with a hanging indent, code blocks kept as
 * written (4 columns in), tables aligned in columns when they fit the width and otherwise one row
 * per entry (first cell, then the others 4 columns in), inline `code` and **bold** marks dropped.
 * Widths count characters (UTF-8 code points), not bytes. A word longer than a line gets a line
 * of its own and is not cut. */
#ifndef OVERLAPSCOPE_MANUAL_TEXT_H
#define OVERLAPSCOPE_MANUAL_TEXT_H

#include <stdio.h>

/* Writes markdown as terminal text at most width columns wide (widths under 20 count as 20) to
 * out. Returns 0, or -1 when out of memory or when out reports a write error. */
int manual_text_write(const char *markdown, int width, FILE *out);

#endif
