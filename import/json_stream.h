/* json_stream.h: a streaming reader for Chrome-trace JSON files too large to hold in memory.
 *
 * It reads a file (plain or gzip, through zlib's gzread) or a memory buffer in chunks and hands
 * the caller one small value tree at a time: each top-level member of the root object except
 * "traceEvents", and each element of the "traceEvents" array (or of a root array, the older
 * Chrome trace form). A tree lives in an arena that is reset after the handler returns, so memory
 * is bounded by the largest single event, never by the file.
 *
 * Numbers keep their decimal text: json_decimal_scaled converts "4458677009853.422" microseconds
 * to 4458677009853422 nanoseconds exactly, without going through a double.
 *
 * Memory is bounded whatever the input (docs/security.md): one string (a name, a key, an args
 * value) holds at most JSON_MAX_STRING_BYTES, one event's tree (or one top-level member's) at
 * most JSON_MAX_TREE_BYTES; past either the parse fails with one line naming the file, the byte
 * and the limit. Nothing else grows with the input: a gzip bomb costs time, not memory.
 *
 * Owns: the gzFile, the read buffer, the arena. Errors name the file and the byte offset in the
 * uncompressed text: "trace.json: byte 1234: expected ':' after an object key". */
#ifndef OVERLAPSCOPE_JSON_STREAM_H
#define OVERLAPSCOPE_JSON_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define JSON_MAX_STRING_BYTES ((size_t)4 << 20)
#define JSON_MAX_TREE_BYTES ((size_t)64 << 20)

enum json_type { JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json_value {
    enum json_type type;
    const char *key;          /* member name when this value sits in an object, else NULL */
    const char *text;         /* JSON_STRING: the unescaped text (NUL-terminated; a \u0000 is
                                 written as the four characters \x00);
                                 JSON_NUMBER: the number as written */
    size_t length;            /* of text */
    struct json_value *first; /* first element or member of an array or object */
    struct json_value *next;  /* next sibling */
    size_t count;             /* number of elements or members */
};

typedef struct json_stream json_stream;

/* Called for each top-level member other than traceEvents (index is the member's position) and
 * for each traceEvents element (key is NULL, index counts from 0). Return 0 to go on, non-zero to
 * stop; the stream then fails with whatever the handler wrote into err. */
struct json_stream_handlers {
    int (*member)(void *context, const char *key, const struct json_value *value, error_info *err);
    int (*event)(void *context, uint64_t index, const struct json_value *value, error_info *err);
    /* Optional: called after each chunk is read with the share of the input consumed (0..1). */
    void (*progress)(void *context, double fraction);
};

/* Opens path (gzip or plain; zlib tells them apart by the magic). Returns NULL with err filled. */
json_stream *json_stream_open(const char *path, error_info *err);
/* Reads from memory the caller keeps alive until json_stream_close; name appears in messages. */
json_stream *json_stream_open_memory(const void *data, size_t size, const char *name, error_info *err);
void json_stream_close(json_stream *stream);

/* Parses the whole input, calling the handlers. Returns 0, or -1 with err filled ("NAME: byte N:
 * problem" for malformed or truncated JSON, or the handler's message). */
int json_stream_parse_trace(json_stream *stream, const struct json_stream_handlers *handlers, void *context,
                            error_info *err);

/* Uncompressed bytes consumed so far (the offset errors cite). */
uint64_t json_stream_offset(const json_stream *stream);

/* Member of an object by name, or NULL when object is not an object or lacks it. A key given twice
 * means its last value, as Python's json module and Perfetto read it (RFC 8259 leaves it open). */
const struct json_value *json_get(const struct json_value *object, const char *key);

/* The decimal number text (JSON grammar: -?digits[.digits][e[+-]digits]) times 10^scale, rounded
 * to the nearest integer (halves away from zero), into *out. scale 3 turns microseconds into
 * nanoseconds. Returns 0, or -1 when the text is not a number or the result overflows int64. */
int json_decimal_scaled(const char *text, size_t length, int scale, int64_t *out);

/* A JSON_NUMBER value scaled as above; -1 when value is NULL or not a number. */
int json_number_scaled(const struct json_value *value, int scale, int64_t *out);

/* 1 when a JSON_NUMBER value has no fractional part (7, -7, 7.0, 1.5e1, 70e-1), 0 when it has one
 * (1.5, 15e-2) or value is no number. */
int json_number_is_integral(const struct json_value *value);

/* The string's text when value is a JSON_STRING, else NULL. */
const char *json_string(const struct json_value *value);

#endif
