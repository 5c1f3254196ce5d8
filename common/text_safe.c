/* text_safe.c: see text_safe.h. One walk over the text, character by character, feeding a
 * sink that is either a bounded buffer, a counter or a stream. */
#include "text_safe.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD in UTF-8 */

size_t text_utf8_decode(const char *text, size_t length, uint32_t *code_point)
{
    const unsigned char *bytes = (const unsigned char *)text;
    unsigned char lead = bytes[0];
    if (lead < 0x80) {
        *code_point = lead;
        return 1;
    }
    size_t size;
    uint32_t value, minimum;
    if (lead >= 0xc2 && lead <= 0xdf) {
        size = 2, value = lead & 0x1f, minimum = 0x80;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        size = 3, value = lead & 0x0f, minimum = 0x800;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        size = 4, value = lead & 0x07, minimum = 0x10000;
    } else {
        return 0; /* a continuation byte, an overlong lead (C0, C1) or beyond U+10FFFF (F5..FF) */
    }
    if (size > length)
        return 0;
    for (size_t i = 1; i < size; i++) {
        if ((bytes[i] & 0xc0) != 0x80)
            return 0;
        value = value << 6 | (bytes[i] & 0x3f);
    }
    if (value < minimum || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff))
        return 0;
    *code_point = value;
    return size;
}

/* The valid UTF-8 character at text, or 0: text is NUL-terminated, and NUL is never a
 * continuation byte, so the decoder stops at the end whatever it is told the length is. */
static int utf8_character(const unsigned char *text, uint32_t *code_point)
{
    return (int)text_utf8_decode((const char *)text, 4, code_point);
}

static int is_word_character(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* 1 when the ASCII character at p (inside text from start) would be read as Markdown in a GFM
 * table cell: a cell's end ('|'), a raw HTML tag or an entity ('<', '>', '&': GitHub drops
 * "<module>"), a code span ('`'), emphasis ('*', '~', and '_' unless inside a word: "__init__"
 * reads as a bold "init"), a link ('[', ']': "operator[](int)" is a link), or the backslash that
 * escapes them. Each takes a backslash (CommonMark, "Backslash escapes"). */
static int markdown_special(const unsigned char *start, const unsigned char *p)
{
    if (*p == '_') {
        int word_before = p > start && is_word_character(p[-1]), word_after = is_word_character(p[1]);
        return !(word_before && word_after);
    }
    return *p && strchr("|<>&`*~[]\\", *p) != NULL;
}

static int is_control(uint32_t code_point)
{
    return code_point < 0x20 || (code_point >= 0x7f && code_point <= 0x9f);
}

/* Where the result goes: a buffer (cut between whole pieces), or a stream; `needed` counts the
 * whole result either way. */
struct sink {
    char *buffer;
    size_t size, used, needed;
    int cut;
    FILE *stream;
    int failed;
};

static void put(struct sink *sink, const char *piece, size_t length)
{
    sink->needed += length;
    if (sink->stream) {
        if (!sink->failed && fwrite(piece, 1, length, sink->stream) != length)
            sink->failed = 1;
        return;
    }
    if (!sink->buffer || sink->cut)
        return;
    if (sink->used + length >= sink->size) {
        sink->cut = 1; /* never half an escape or half a character */
        return;
    }
    memcpy(sink->buffer + sink->used, piece, length);
    sink->used += length;
}

/* A run of plain characters may be cut anywhere. */
static void put_run(struct sink *sink, const char *run, size_t length)
{
    if (sink->stream || !sink->buffer || sink->cut || sink->used + length < sink->size) {
        put(sink, run, length);
        return;
    }
    size_t room = sink->size - 1 - sink->used;
    memcpy(sink->buffer + sink->used, run, room);
    sink->used += room;
    sink->needed += length;
    sink->cut = 1;
}

static void put_escaped_bytes(struct sink *sink, const unsigned char *bytes, int length)
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < length; i++) {
        char escape[4] = {'\\', 'x', hex[bytes[i] >> 4], hex[bytes[i] & 15]};
        put(sink, escape, sizeof escape);
    }
}

static void walk(struct sink *sink, const char *text, enum text_safe_style style)
{
    if (!text)
        return;
    const unsigned char *p = (const unsigned char *)text;
    const int escapes = style == TEXT_SAFE_TERMINAL || style == TEXT_SAFE_MARKDOWN;
    const unsigned char *start = p;
    while (*p) {
        /* Plain printable ASCII, the usual case, goes in runs. */
        const unsigned char *run = p;
        while (*p >= 0x20 && *p < 0x7f && !(style == TEXT_SAFE_MARKDOWN && markdown_special(start, p)) &&
               !((*p == '"' || *p == '\\') && style == TEXT_SAFE_JSON))
            p++;
        if (p > run)
            put_run(sink, (const char *)run, (size_t)(p - run));
        if (!*p)
            break;
        uint32_t code_point = 0;
        int length = utf8_character(p, &code_point);
        /* The run stops at Markdown's punctuation only in MARKDOWN and at '"' or '\\' only in
         * JSON: either way a backslash before it. */
        if (length == 1 && *p >= 0x20 && *p < 0x7f) {
            char escape[2] = {'\\', (char)*p};
            put(sink, escape, 2);
        } else if (length == 1 && *p < 0x20 && style == TEXT_SAFE_JSON) {
            char escape[8];
            snprintf(escape, sizeof escape, "\\u%04x", *p);
            put(sink, escape, 6);
        } else if (length == 0) {
            if (escapes)
                put_escaped_bytes(sink, p, 1);
            else
                put(sink, REPLACEMENT, 3);
            length = 1;
        } else if (is_control(code_point) && style != TEXT_SAFE_UTF8 && style != TEXT_SAFE_JSON) {
            if (escapes)
                put_escaped_bytes(sink, p, length);
            else
                put(sink, REPLACEMENT, 3);
        } else {
            put(sink, (const char *)p, (size_t)length);
        }
        p += length;
    }
}

size_t text_safe_copy(char *out, size_t size, const char *text, enum text_safe_style style)
{
    struct sink sink = {.buffer = out, .size = size};
    walk(&sink, text, style);
    if (out && size > 0)
        out[sink.used] = '\0';
    return sink.needed;
}

int text_safe_fputs(const char *text, enum text_safe_style style, FILE *out)
{
    struct sink sink = {.stream = out};
    walk(&sink, text, style);
    return sink.failed ? -1 : 0;
}

char *text_safe_dup(const char *text, enum text_safe_style style)
{
    size_t length = text_safe_copy(NULL, 0, text, style);
    char *copy = malloc(length + 1);
    if (copy)
        text_safe_copy(copy, length + 1, text, style);
    return copy;
}

int text_safe_is_clean(const char *text, enum text_safe_style style)
{
    if (!text)
        return 1;
    size_t length = strlen(text);
    struct sink sink = {0};
    walk(&sink, text, style);
    /* Every change lengthens (a byte becomes a 4-byte escape or a 3-byte U+FFFD, a C1's two bytes
     * become 8 or 3, '|' becomes 2): the same length means nothing changed. */
    return sink.needed == length;
}

size_t text_utf8_encode(uint32_t code, unsigned char bytes[4])
{
    if (code < 0x80) {
        bytes[0] = (unsigned char)code;
        return 1;
    }
    if (code < 0x800) {
        bytes[0] = (unsigned char)(0xC0 | code >> 6);
        bytes[1] = (unsigned char)(0x80 | (code & 0x3F));
        return 2;
    }
    if (code < 0x10000) {
        bytes[0] = (unsigned char)(0xE0 | code >> 12);
        bytes[1] = (unsigned char)(0x80 | ((code >> 6) & 0x3F));
        bytes[2] = (unsigned char)(0x80 | (code & 0x3F));
        return 3;
    }
    bytes[0] = (unsigned char)(0xF0 | code >> 18);
    bytes[1] = (unsigned char)(0x80 | ((code >> 12) & 0x3F));
    bytes[2] = (unsigned char)(0x80 | ((code >> 6) & 0x3F));
    bytes[3] = (unsigned char)(0x80 | (code & 0x3F));
    return 4;
}

int text_safe_markdown_code(const char *text, FILE *out)
{
    text = text ? text : "";
    /* CommonMark, "Code spans": no escape works inside one, so the fence is one backtick longer
     * than the longest run inside, and a space pads text that starts or ends with a backtick or a
     * space (one is stripped on each side). */
    size_t longest = 0, run = 0, length = strlen(text);
    for (const char *p = text; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    int pad = length > 0 && (strchr("` ", text[0]) || strchr("` ", text[length - 1]));
    int failed = 0;
    for (size_t i = 0; i <= longest; i++)
        failed |= fputc('`', out) == EOF;
    if (pad)
        failed |= fputc(' ', out) == EOF;
    failed |= text_safe_fputs(text, TEXT_SAFE_TERMINAL, out) != 0;
    if (pad)
        failed |= fputc(' ', out) == EOF;
    for (size_t i = 0; i <= longest; i++)
        failed |= fputc('`', out) == EOF;
    return failed ? -1 : 0;
}
