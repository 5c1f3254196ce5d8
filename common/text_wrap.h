/* text_wrap.h: the one rule for wrapping prose on a terminal, for the report's lines and the
 * manuals' paragraphs alike:
 *   - lines break between words (runs of spaces, tabs or newlines), never inside one, counting the
 *     columns a terminal shows (text_width.h: a CJK character or an emoji takes 2);
 *   - a figure and its unit stay on one line ("477 us", "32.0 MiB": units_is_unit);
 *   - a word wider than a whole line (a path, a C++ signature, a Python call) breaks after the
 *     last '/', '(', ',', ';' or '=' that fits, else after a '.', ':', '<', '>' or '&', else after
 *     a '_' or '-', else where the line ends; never inside a UTF-8 character or a \xNN escape.
 *     Nothing is cut. */
#ifndef OVERLAPSCOPE_TEXT_WRAP_H
#define OVERLAPSCOPE_TEXT_WRAP_H

#include <stddef.h>
#include <stdio.h>

/* Columns that length bytes of UTF-8 take on a terminal (text_width_columns). */
int text_wrap_columns(const char *text, size_t length);

/* text past its leading spaces. */
const char *text_wrap_skip_spaces(const char *text);

/* Where the first line of text (which starts at a word) ends when lines hold columns (at least
 * 1): after the last whole word that fits, or inside a word wider than the line, as the rules
 * above say. Returns text itself only when text is empty. The next line starts at the returned
 * pointer, past its spaces. */
const char *text_wrap_line_end(const char *text, int columns);

/* Writes the bytes from text to end with each run of spaces as one space; returns the columns
 * written. */
int text_wrap_put(FILE *out, const char *text, const char *end);

/* Writes first_prefix, then text's words, wrapped so that lines end before column width;
 * continuation lines start with indent spaces. Ends with a newline. text must already be safe to
 * print (common/text_safe.h). */
void text_wrap_write(FILE *out, const char *text, const char *first_prefix, int indent, int width);

#endif
