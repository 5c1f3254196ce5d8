/* text_safe.h: the one place that makes text from a trace safe to show. Names, messages and
 * command lines come from files other programs (or other people) wrote: a kernel name can hold
 * ESC [ ... or an OSC sequence that rewrites the user's terminal, a newline that forges a line
 * of a report, a '|' that ends a Markdown table cell, or bytes that are not UTF-8 (which make
 * JSON invalid and Cairo refuse to draw). Every output passes such text through here, in the
 * style of its format (docs/security.md):
 *
 *   TEXT_SAFE_TERMINAL  text and stderr: C0 controls (tab and newline included), DEL, the C1
 *                       controls U+0080..U+009F and every byte of invalid UTF-8 are written as
 *                       \xNN (one per byte, lower-case hex); everything else is kept.
 *   TEXT_SAFE_MARKDOWN  as TERMINAL, and a backslash before each character GFM would read as
 *                       markup in a table cell: | < > & ` * ~ [ ] \ and a '_' that is not
 *                       between two letters or digits ("\<module\>", "\_\_init\_\_").
 *   TEXT_SAFE_UTF8      JSON: each byte of invalid UTF-8 replaced by U+FFFD; controls
 *                       kept (the JSON writer escapes them as \u00NN).
 *   TEXT_SAFE_JSON      the inside of a JSON string literal written by hand: as UTF8, and '"',
 *                       '\\' and the C0 controls escaped as JSON wants (\", \\, \u00NN).
 *   TEXT_SAFE_PICTURE   pictures: invalid UTF-8 and every C0/C1 control and DEL replaced by
 *                       U+FFFD (Cairo would draw nothing, or refuse the whole string).
 *
 * Valid UTF-8 follows RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF. */
#ifndef OVERLAPSCOPE_TEXT_SAFE_H
#define OVERLAPSCOPE_TEXT_SAFE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum text_safe_style {
    TEXT_SAFE_TERMINAL,
    TEXT_SAFE_MARKDOWN,
    TEXT_SAFE_UTF8,
    TEXT_SAFE_JSON,
    TEXT_SAFE_PICTURE
};

/* code (at most U+10FFFF) as UTF-8 into bytes; returns how many (1 to 4). For writers that build
 * text from code points (a JSON \u escape, a CPython string read as UCS-2 or UCS-4). */
size_t text_utf8_encode(uint32_t code, unsigned char bytes[4]);

/* The valid UTF-8 character (RFC 3629, as above) at text, at most length bytes (at least 1): its
 * length (1 to 4) with its code point in *code_point, or 0 when the bytes there start none. The one
 * UTF-8 decoder of the project (text widths use it too: text_width.h). */
size_t text_utf8_decode(const char *text, size_t length, uint32_t *code_point);

/* Writes text (NULL: nothing) in the given style into out (size bytes, NUL-terminated when
 * size > 0), cutting only between whole characters or escapes. Returns the length the whole
 * result needs (without the NUL), as snprintf does: a result >= size means it was cut. */
size_t text_safe_copy(char *out, size_t size, const char *text, enum text_safe_style style);

/* Writes text (NULL: nothing) in the given style to out, whatever its length. Returns 0, or -1
 * when the stream reports an error. */
int text_safe_fputs(const char *text, enum text_safe_style style, FILE *out);

/* A malloc'd copy of text (NULL: "") in the given style; the caller frees. NULL when out of
 * memory. */
char *text_safe_dup(const char *text, enum text_safe_style style);

/* Writes text (NULL: "") as a Markdown code span (a path in a heading), escaped as TERMINAL, with
 * a fence no backtick inside can end. Returns 0, or -1 when the stream reports an error. */
int text_safe_markdown_code(const char *text, FILE *out);

/* 1 when text is already what the style would write (no copy needed), else 0. */
int text_safe_is_clean(const char *text, enum text_safe_style style);

#endif
