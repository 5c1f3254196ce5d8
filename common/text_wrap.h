/* text_wrap.h: the one rule for wrapping prose on a terminal: break between words (runs of
 * spaces, tabs or newlines), never inside one, counting a UTF-8 character as one column. The
 * report's evidence and cause lines and the manuals' paragraphs all wrap through it. */
#ifndef OVERLAPSCOPE_TEXT_WRAP_H
#define OVERLAPSCOPE_TEXT_WRAP_H

#include <stddef.h>
#include <stdio.h>

/* Columns that length bytes of UTF-8 take (continuation bytes do not count). */
int text_wrap_columns(const char *text, size_t length);

/* Writes first_prefix, then text's words, wrapped so that lines end before column width (a word
 * longer than a line stands alone on its line); continuation lines start with indent spaces. Ends
 * with a newline. text must already be safe to print (common/text_safe.h). */
void text_wrap_write(FILE *out, const char *text, const char *first_prefix, int indent, int width);

#endif
