/* text_wrap.c: wrapping prose between words (text_wrap.h). */
#include "text_wrap.h"

#include <string.h>

int text_wrap_columns(const char *text, size_t length)
{
    int count = 0;
    for (size_t i = 0; i < length; i++)
        if (((unsigned char)text[i] & 0xC0) != 0x80)
            count++;
    return count;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

void text_wrap_write(FILE *out, const char *text, const char *first_prefix, int indent, int width)
{
    fputs(first_prefix, out);
    int column = text_wrap_columns(first_prefix, strlen(first_prefix));
    int line_start_column = column;
    const char *p = text;
    for (;;) {
        while (*p && is_space(*p))
            p++;
        if (!*p)
            break;
        const char *word = p;
        while (*p && !is_space(*p))
            p++;
        int word_columns = text_wrap_columns(word, (size_t)(p - word));
        if (column > line_start_column && column + 1 + word_columns > width) {
            fprintf(out, "\n%*s", indent, "");
            column = line_start_column = indent;
        } else if (column > line_start_column) {
            fputc(' ', out);
            column++;
        }
        fwrite(word, 1, (size_t)(p - word), out);
        column += word_columns;
    }
    fputc('\n', out);
}
