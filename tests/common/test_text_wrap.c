/* The one rule for wrapping text on a terminal (common/text_wrap.h), line by line: words whole, a
 * figure with its unit and a name with its number on one line, a word wider than a line broken
 * after its best place (a '/', a '(', an '='), never inside a \xNN escape, and nothing cut. The
 * long words are the report's own: a Python source of tests/data/gpu-h100/torch_sync_loop.db and
 * the Kineto record instruction of docs/metrics.md, "Could not be checked". */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "text_wrap.h"

static char *wrapped(const char *text, const char *prefix, int indent, int width)
{
    char *buffer = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buffer, &size);
    if (!out)
        return NULL;
    text_wrap_write(out, text, prefix, indent, width);
    fclose(out);
    return buffer;
}

struct expected {
    const char *text, *prefix;
    int indent, width;
    const char *lines;
};

static const struct expected table[] = {
    /* between words, runs of spaces as one */
    {"one two  three four", "", 0, 9, "one two\nthree\nfour\n"},
    /* "(477" would fit the first line, but not with its unit */
    {"aaaa bbbb (477 us per gap)", "", 0, 15, "aaaa bbbb\n(477 us per\ngap)\n"},
    {"copy HtoD 32.0 MiB (pageable)", "  ", 4, 16, "  copy HtoD\n    32.0 MiB\n    (pageable)\n"},
    /* a name stays with its number */
    {"abcdefgh stream 13) after", "", 0, 15, "abcdefgh\nstream 13)\nafter\n"},
    /* ... and a figure after the name with its unit ("per device 7.05 ms") */
    {"ab per device 7.05 ms to 8 ms", "", 0, 18, "ab per\ndevice 7.05 ms to\n8 ms\n"},
    /* a path wider than the line breaks after its last '/' that fits */
    {"/opt/torch/.venv/lib/python3.12/site-packages/torch/cuda/__init__.py:1162 synchronize", "      at ", 9,
     80,
     "      at /opt/torch/.venv/lib/python3.12/site-packages/torch/cuda/\n"
     "         __init__.py:1162 synchronize\n"},
    /* a call wider than the line starts where the line has room, broken after its '=' */
    {"to get it: torch.profiler.profile(..., "
     "experimental_config=torch._C._profiler._ExperimentalConfig(enable_cuda_sync_events=True))",
     "", 6, 80,
     "to get it: torch.profiler.profile(..., experimental_config=\n"
     "      torch._C._profiler._ExperimentalConfig(enable_cuda_sync_events=True))\n"},
    /* no place to break: where the line ends, but not inside an escape */
    {"\\x1b\\x1b\\x1b", "", 0, 10, "\\x1b\\x1b\n\\x1b\n"},
    {"abcdefghijkl", "", 0, 5, "abcde\nfghij\nkl\n"},
    /* a Latin letter with an accent is one column */
    {"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9", "", 0, 5,
     "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\n\xc3\xa9\xc3\xa9\n"},
    /* a CJK character takes two: three of them fill 6 of 7 columns (counted as one each, the line
       held seven and stuck out by seven) */
    {"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xe6\x97\xa5\xe6\x9c\xac", "", 0, 7,
     "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\n\xe6\x97\xa5\xe6\x9c\xac\n"},
    /* a word of them wider than the line breaks before the character that would stick out */
    {"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe6\x97\xa5", "", 0, 5,
     "\xe6\x97\xa5\xe6\x9c\xac\n\xe8\xaa\x9e\xe6\x97\xa5\n"},
    /* so does an emoji (U+1F525, two columns) */
    {"ab \xf0\x9f\x94\xa5\xf0\x9f\x94\xa5 cd", "", 0, 6, "ab\n\xf0\x9f\x94\xa5\xf0\x9f\x94\xa5\ncd\n"},
};

/* Columns as a terminal shows them (text_width.h), LANG=C or not. */
static void columns(void)
{
    struct {
        const char *text;
        int columns;
    } rows[] = {
        {"kernel", 6},
        {"\xc3\xa9", 1},                 /* e acute */
        {"e\xcc\x81", 1},                /* e + a combining acute: one column */
        {"\xe6\x97\xa5\xe6\x9c\xac", 4}, /* two CJK ideographs */
        {"\xed\x95\x9c", 2},             /* a Hangul syllable */
        {"\xef\xbc\xa1", 2},             /* a fullwidth A */
        {"\xf0\x9f\x94\xa5", 2},         /* an emoji */
        {"\xe2\x9c\x85", 2},             /* U+2705, an emoji in the BMP */
        {"\xe2\x9d\xa4\xef\xb8\x8f", 1}, /* U+2764 + VS16: the selector takes none */
        {"a\xe2\x80\x8b"
         "b",
         2},         /* a zero-width space */
        {"\xff", 1}, /* a byte that starts no character */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        CHECK_INT(text_wrap_columns(rows[i].text, strlen(rows[i].text)), rows[i].columns);
}

int main(void)
{
    columns();
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        char *lines = wrapped(table[i].text, table[i].prefix, table[i].indent, table[i].width);
        CHECK_STR(lines, table[i].lines);
        free(lines);
    }
    return check_finish();
}
