/* number_text.c: plain decimal numbers from a command line (see number_text.h). */
#include "number_text.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

static size_t digits(const char *text)
{
    size_t length = 0;
    while (isdigit((unsigned char)text[length]))
        length++;
    return length;
}

size_t number_text_decimal_length(const char *text)
{
    size_t at = text[0] == '+' || text[0] == '-' ? 1 : 0;
    size_t whole = digits(text + at), fraction = 0;
    at += whole;
    if (text[at] == '.') {
        fraction = digits(text + at + 1);
        if (whole + fraction > 0)
            at += 1 + fraction;
    }
    if (whole + fraction == 0)
        return 0;
    if (text[at] == 'e' || text[at] == 'E') {
        size_t sign = text[at + 1] == '+' || text[at + 1] == '-' ? 1 : 0;
        size_t exponent = digits(text + at + 1 + sign);
        if (exponent > 0)
            at += 1 + sign + exponent;
    }
    return at;
}

int number_text_double(const char *text, double *value)
{
    size_t length = number_text_decimal_length(text);
    if (length == 0 || text[length] != '\0')
        return -1;
    errno = 0;
    double parsed = strtod(text, NULL);
    if (errno != 0 || !isfinite(parsed))
        return -1;
    *value = parsed;
    return 0;
}

int number_text_int64(const char *text, int64_t *value)
{
    size_t at = text[0] == '+' || text[0] == '-' ? 1 : 0;
    size_t length = digits(text + at);
    if (length == 0 || text[at + length] != '\0')
        return -1;
    errno = 0;
    long long parsed = strtoll(text, NULL, 10);
    if (errno != 0)
        return -1;
    *value = parsed;
    return 0;
}
