/* text_width.h: how many terminal columns text takes, the way wcwidth(3) counts them (Markus
 * Kuhn's rules, the ones glibc, xterm and GNOME's VTE follow), whatever the user's locale: a
 * Chinese, Japanese or Korean character and an emoji take 2 (Unicode's East Asian Width W and F),
 * a combining mark, a variation selector and a zero-width joiner 0, everything else 1. The text is
 * decoded as UTF-8 by common/text_safe.h's decoder, never by the C library (under LANG=C it would
 * count every byte). A byte that starts no valid character counts 1 (text_safe writes such bytes
 * as \xNN before anything measures them). */
#ifndef OVERLAPSCOPE_TEXT_WIDTH_H
#define OVERLAPSCOPE_TEXT_WIDTH_H

#include <stddef.h>
#include <stdint.h>

/* Columns of one character (0, 1 or 2); a control character counts 1 (the caller escaped it). */
int text_width_character(uint32_t code);

/* Columns of length bytes of UTF-8 text. */
int text_width_columns(const char *text, size_t length);

/* The bytes of the character at text (1 to 4, 1 for an invalid byte; at most length) and its
 * columns in *columns. length is at least 1. */
size_t text_width_next(const char *text, size_t length, int *columns);

#endif
