/* text_wrap.c: wrapping prose between words (text_wrap.h). */
#include "text_wrap.h"

#include <ctype.h>
#include <string.h>

#include "text_width.h"
#include "units.h"

int text_wrap_columns(const char *text, size_t length)
{
    return text_width_columns(text, length);
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

const char *text_wrap_skip_spaces(const char *text)
{
    while (*text && is_space(*text))
        text++;
    return text;
}

static const char *word_end(const char *text)
{
    while (*text && !is_space(*text))
        text++;
    return text;
}

/* A unit word, whatever punctuation follows it ("us)", "MiB,"). */
static int is_unit_word(const char *word, const char *end)
{
    while (end > word && strchr(").,;:]", end[-1]))
        end--;
    return end > word && units_is_unit(word, (size_t)(end - word));
}

/* A word that names a thing by its number ("stream 13", "rank 0"). */
static int is_numbered_name(const char *word, const char *end)
{
    static const char *const names[] = {"stream", "device", "rank", "pid", "step", "event", "thread"};
    while (end > word && *word == '(')
        word++;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == (size_t)(end - word) && memcmp(names[i], word, (size_t)(end - word)) == 0)
            return 1;
    return 0;
}

/* The end of what must stay on one line from text (at a word): the word, and the unit after it
 * when the word is a figure ("(477" "us"), or the number after it when it names a thing by its
 * number ("stream" "13)"). */
static const char *group_end(const char *text)
{
    const char *end = word_end(text);
    const char *next = text_wrap_skip_spaces(end);
    const char *next_end = word_end(next);
    if (next_end == next)
        return end;
    if (end > text && isdigit((unsigned char)end[-1]) && is_unit_word(next, next_end))
        return next_end;
    if (is_numbered_name(text, end) && isdigit((unsigned char)*next)) {
        /* "device 7.05 ms" ("per device 7.05 ms to ..."): the figure keeps its unit too. */
        const char *unit = text_wrap_skip_spaces(next_end);
        const char *unit_end = word_end(unit);
        if (unit_end > unit && isdigit((unsigned char)next_end[-1]) && is_unit_word(unit, unit_end))
            return unit_end;
        return next_end;
    }
    return end;
}

/* Columns of text..end with each run of spaces counted as one. */
static int spaced_columns(const char *text, const char *end)
{
    int count = 0;
    while (text < end) {
        if (is_space(*text)) {
            count++;
            text = text_wrap_skip_spaces(text);
            continue;
        }
        const char *word = text;
        text = word_end(text);
        if (text > end)
            text = end;
        count += text_wrap_columns(word, (size_t)(text - word));
    }
    return count;
}

/* How good a place to break a long word right after c is: 3 (the end of a path component, an
 * opening parenthesis, a list item, an assignment) down to 1 (inside an identifier), 0 none. */
static int break_rank(char c)
{
    if (strchr("/(,;=", c))
        return 3;
    if (strchr(".:<>&", c))
        return 2;
    return c == '_' || c == '-' ? 1 : 0;
}

/* Where to break a group from text to end that is wider than columns: after the best place to
 * break that leaves at least min_chunk columns on the line, else (when hard) where the line ends;
 * NULL when there is no such place and hard is 0. */
static const char *break_inside(const char *text, const char *end, int columns, int min_chunk, int hard)
{
    const char *best[4] = {NULL, NULL, NULL, NULL};
    const char *limit = text; /* the end of the last character that fits */
    int used = 0;
    for (const char *p = text; p < end && used < columns;) {
        int width;
        const char *next = p + text_width_next(p, (size_t)(end - p), &width);
        if (used + width > columns && used > 0)
            break; /* a wide character that would stick out */
        used += width;
        limit = next;
        int rank = break_rank(*p);
        if (rank && used >= min_chunk)
            best[rank] = next;
        p = next;
    }
    for (int rank = 3; rank >= 1; rank--)
        if (best[rank])
            return best[rank];
    if (!hard)
        return NULL;
    /* No such place: where the line ends, but not inside an escape ("\x1b"), which
     * text_safe wrote as one character. */
    for (const char *p = limit - 1; p > text && p >= limit - 3; p--)
        if (p[0] == '\\' && p + 1 < end && p[1] == 'x' && p + 4 > limit)
            return p;
    return limit > text ? limit : end;
}

/* A line that ends in a word wider than a whole line keeps its start when that word breaks well
 * in what is left of the line, this much at least. */
#define MIN_FILLED_CHUNK 8

const char *text_wrap_line_end(const char *text, int columns)
{
    if (columns < 1)
        columns = 1;
    const char *line_end = text;
    int used = 0;
    for (const char *p = text_wrap_skip_spaces(text); *p; p = text_wrap_skip_spaces(p)) {
        const char *end = group_end(p);
        int width = spaced_columns(p, end);
        if (used + (used ? 1 : 0) + width <= columns) {
            used += (used ? 1 : 0) + width;
            line_end = p = end;
            continue;
        }
        if (used > 0) {
            const char *fill =
                width > columns ? break_inside(p, end, columns - used - 1, MIN_FILLED_CHUNK, 0) : NULL;
            return fill ? fill : line_end;
        }
        return break_inside(p, end, columns, (columns + 1) / 2, 1);
    }
    return line_end;
}

int text_wrap_put(FILE *out, const char *text, const char *end)
{
    int columns = 0;
    while (text < end) {
        if (is_space(*text)) {
            fputc(' ', out);
            columns++;
            while (text < end && is_space(*text))
                text++;
            continue;
        }
        const char *word = text;
        while (text < end && !is_space(*text))
            text++;
        fwrite(word, 1, (size_t)(text - word), out);
        columns += text_wrap_columns(word, (size_t)(text - word));
    }
    return columns;
}

void text_wrap_write(FILE *out, const char *text, const char *first_prefix, int indent, int width)
{
    fputs(first_prefix, out);
    int room = width - text_wrap_columns(first_prefix, strlen(first_prefix));
    int first = 1;
    for (const char *p = text_wrap_skip_spaces(text); *p; p = text_wrap_skip_spaces(p), first = 0) {
        if (!first) {
            fprintf(out, "\n%*s", indent, "");
            room = width - indent;
        }
        const char *end = text_wrap_line_end(p, room);
        text_wrap_put(out, p, end);
        p = end;
    }
    fputc('\n', out);
}
