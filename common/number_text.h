/* number_text.h: the one rule for a number a user types (a bound, a threshold, a duration, a
 * count): plain decimal, as a person writes it, so that what is read is what was meant.
 *
 * strtod and strtoll alone accept more than anyone means on a command line: hexadecimal
 * ("0x10" = 16), "inf" and "nan", leading spaces, a 16-digit hex float; each then stood for a
 * number the user did not write. These functions take [+-]digits[.digits][e[+-]digits] (and
 * "digits." or ".digits") and nothing else, the whole text. Nothing here prints. */
#ifndef OVERLAPSCOPE_NUMBER_TEXT_H
#define OVERLAPSCOPE_NUMBER_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Length of the plain decimal number text begins with (0 when none): the caller checks what
 * follows (a unit). */
size_t number_text_decimal_length(const char *text);

/* text, whole, as a finite plain decimal number. Returns 0, or -1 (value untouched). */
int number_text_double(const char *text, double *value);

/* text, whole, as a plain decimal integer within int64_t (no fraction, no exponent). Returns 0,
 * or -1 (value untouched). */
int number_text_int64(const char *text, int64_t *value);

#endif
