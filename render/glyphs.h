/* glyphs.h: text a picture can show with the font it got. A GPU node or a container often has no
 * fontconfig configuration and no fonts: Cairo then draws with its built-in font, which has ASCII
 * only, and every '·' of our titles became a box (issue 19, Must 6). Before text is drawn, each
 * character the chosen font has no glyph for is replaced: the punctuation overlapscope writes by
 * its ASCII form (the one table below, in glyphs.c), anything else (a user's title, a kernel's
 * name) by '?', so the picture reads the same wherever it is drawn. */
#ifndef OVERLAPSCOPE_GLYPHS_H
#define OVERLAPSCOPE_GLYPHS_H

#include <cairo.h>
#include <stddef.h>

/* The ASCII form of a character overlapscope writes into pictures ('·' -> "-", '…' -> "...",
 * '×' -> "x", '–' -> "-", ...), or NULL for any other code point. */
const char *glyphs_ascii_form(unsigned long codepoint);

/* Copies text (valid UTF-8) into out (size bytes, always terminated), replacing each character
 * that the current font of cr has no glyph for by its ASCII form, or '?'. Returns the number of
 * characters replaced. */
int glyphs_fallback(cairo_t *cr, const char *text, char *out, size_t size);

#endif
