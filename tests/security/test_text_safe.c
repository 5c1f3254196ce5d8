/* text_safe: the exact bytes each output style writes for hostile text (common/text_safe.h).
 * Each row: the input, then what a terminal, a Markdown cell, JSON and a picture receive. */
#include <stdlib.h>

#include "check.h"
#include "text_safe.h"

struct expected {
    const char *input, *terminal, *markdown, *json, *picture;
};

static const struct expected table[] = {
    {"sgemm_128x64", "sgemm_128x64", "sgemm_128x64", "sgemm_128x64", "sgemm_128x64"},
    /* a colour escape and an OSC window-title sequence ended by BEL */
    {"a\x1b[31mb\x1b]0;pwn\x07", "a\\x1b[31mb\\x1b]0;pwn\\x07", "a\\x1b\\[31mb\\x1b\\]0;pwn\\x07",
     "a\\u001b[31mb\\u001b]0;pwn\\u0007", "a\xef\xbf\xbd[31mb\xef\xbf\xbd]0;pwn\xef\xbf\xbd"},
    /* a forged second line, a carriage return, a tab, DEL */
    {"x\nFAIL\ry\tz\x7f", "x\\x0aFAIL\\x0dy\\x09z\\x7f", "x\\x0aFAIL\\x0dy\\x09z\\x7f",
     "x\\u000aFAIL\\u000dy\\u0009z\x7f",
     "x\xef\xbf\xbd"
     "FAIL\xef\xbf\xbdy\xef\xbf\xbdz\xef\xbf\xbd"},
    /* C1 CSI (U+009B, two bytes in UTF-8) next to a real non-ASCII letter and a CJK one */
    {"\xc3\xa9\xc2\x9b"
     "2J\xe6\x97\xa5",
     "\xc3\xa9\\xc2\\x9b"
     "2J\xe6\x97\xa5",
     "\xc3\xa9\\xc2\\x9b"
     "2J\xe6\x97\xa5",
     "\xc3\xa9\xc2\x9b"
     "2J\xe6\x97\xa5",
     "\xc3\xa9\xef\xbf\xbd"
     "2J\xe6\x97\xa5"},
    /* invalid UTF-8: a lone 8-bit CSI byte, a stray continuation, an overlong '/', a surrogate, a cut
       sequence */
    {"\x9b"
     "a\x80"
     "b\xc0\xaf"
     "c\xed\xa0\x80"
     "d\xe6\x97",
     "\\x9ba\\x80b\\xc0\\xafc\\xed\\xa0\\x80d\\xe6\\x97", "\\x9ba\\x80b\\xc0\\xafc\\xed\\xa0\\x80d\\xe6\\x97",
     "\xef\xbf\xbd"
     "a\xef\xbf\xbd"
     "b\xef\xbf\xbd\xef\xbf\xbd"
     "c\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
     "d\xef\xbf\xbd\xef\xbf\xbd",
     "\xef\xbf\xbd"
     "a\xef\xbf\xbd"
     "b\xef\xbf\xbd\xef\xbf\xbd"
     "c\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
     "d\xef\xbf\xbd\xef\xbf\xbd"},
    /* table and string delimiters */
    {"a|b\"c\\d", "a|b\"c\\d", "a\\|b\"c\\\\d", "a|b\\\"c\\\\d", "a|b\"c\\d"},
    /* Python call sites and C++ names GFM would read as markup: a tag, bold, a link, a code span,
       an entity, strikethrough; '_' inside a word stays */
    {"x.py:3 <module>", "x.py:3 <module>", "x.py:3 \\<module\\>", "x.py:3 <module>", "x.py:3 <module>"},
    {"a.py:9 __init__ a_b", "a.py:9 __init__ a_b", "a.py:9 \\_\\_init\\_\\_ a_b", "a.py:9 __init__ a_b",
     "a.py:9 __init__ a_b"},
    {"operator[](int*)`&amp;~x", "operator[](int*)`&amp;~x", "operator\\[\\](int\\*)\\`\\&amp;\\~x",
     "operator[](int*)`&amp;~x", "operator[](int*)`&amp;~x"},
};

static const char *style_result(const struct expected *row, enum text_safe_style style)
{
    return style == TEXT_SAFE_TERMINAL   ? row->terminal
           : style == TEXT_SAFE_MARKDOWN ? row->markdown
           : style == TEXT_SAFE_JSON     ? row->json
                                         : row->picture;
}

int main(void)
{
    static const enum text_safe_style styles[] = {TEXT_SAFE_TERMINAL, TEXT_SAFE_MARKDOWN, TEXT_SAFE_JSON,
                                                  TEXT_SAFE_PICTURE};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        for (size_t s = 0; s < sizeof styles / sizeof styles[0]; s++) {
            const char *expected = style_result(&table[i], styles[s]);
            char *copy = text_safe_dup(table[i].input, styles[s]);
            CHECK_STR(copy, expected);
            free(copy);
            CHECK_INT(text_safe_copy(NULL, 0, table[i].input, styles[s]), strlen(expected));
            CHECK_INT(text_safe_is_clean(table[i].input, styles[s]), strcmp(table[i].input, expected) == 0);
            /* The stream writer writes the same bytes. */
            char *streamed = NULL;
            size_t streamed_size = 0;
            FILE *out = open_memstream(&streamed, &streamed_size);
            CHECK_INT(text_safe_fputs(table[i].input, styles[s], out), 0);
            fclose(out);
            CHECK_STR(streamed, expected);
            free(streamed);
        }

    /* UTF8 (report --json through cJSON) only repairs: controls stay for cJSON to escape. */
    char *repaired = text_safe_dup("a\x1b\xff", TEXT_SAFE_UTF8);
    CHECK_STR(repaired, "a\x1b\xef\xbf\xbd");
    free(repaired);

    /* A bounded copy is cut between whole escapes and whole characters, never inside one. */
    char small[8];
    CHECK_INT(text_safe_copy(small, sizeof small,
                             "ab\x1b"
                             "cd",
                             TEXT_SAFE_TERMINAL),
              8);
    CHECK_STR(small, "ab\\x1bc");
    CHECK_INT(text_safe_copy(small, 6,
                             "ab\x1b"
                             "cd",
                             TEXT_SAFE_TERMINAL),
              8);
    CHECK_STR(small, "ab");
    CHECK_INT(text_safe_copy(small, 4, "a\xe6\x97\xa5", TEXT_SAFE_PICTURE), 4);
    CHECK_STR(small, "a");
    CHECK_INT(text_safe_copy(small, sizeof small, NULL, TEXT_SAFE_TERMINAL), 0);
    CHECK_STR(small, "");
    return check_finish();
}
