/* json_stream.c: chunked JSON reading with one small tree per trace event (see json_stream.h).
 *
 * The grammar is RFC 8259's, checked strictly (a fuzzer feeds it garbage): tokens may straddle
 * chunk boundaries, so strings and numbers are gathered in a scratch buffer before they are
 * copied into the arena. Nesting is limited to JSON_MAX_DEPTH so hostile input cannot exhaust
 * the stack. */
#include "json_stream.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "input_file.h"
#include "text_safe.h"

#define JSON_CHUNK_BYTES (1u << 20)
#define JSON_MAX_DEPTH 64
#define JSON_MAX_NUMBER_CHARS 256
#define ARENA_BLOCK_BYTES (64u << 10)

struct arena_block {
    struct arena_block *next;
    size_t size, used;
    _Alignas(16) char data[];
};

struct arena {
    struct arena_block *head, *current;
    size_t tree_bytes; /* handed out since the last reset: one event's tree */
};

struct json_stream {
    char *name;
    gzFile file;                 /* NULL when reading memory */
    uint64_t file_bytes;         /* on disk, for progress */
    const unsigned char *buffer; /* current chunk */
    unsigned char *owned_buffer;
    size_t position, length;
    uint64_t chunk_offset; /* uncompressed offset of buffer[0] */
    int at_end;
    char *scratch;
    size_t scratch_length, scratch_capacity;
    struct arena arena;
    const struct json_stream_handlers *handlers;
    void *context;
    error_info *err;
};

/* --- arena --- */

static void *arena_alloc(struct arena *arena, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    while (arena->current && arena->current->used + size > arena->current->size) {
        if (!arena->current->next)
            break;
        arena->current = arena->current->next;
        arena->current->used = 0;
    }
    if (!arena->current || arena->current->used + size > arena->current->size) {
        size_t block_size = size > ARENA_BLOCK_BYTES ? size : ARENA_BLOCK_BYTES;
        struct arena_block *block = malloc(sizeof *block + block_size);
        if (!block)
            return NULL;
        block->next = NULL;
        block->size = block_size;
        block->used = 0;
        if (arena->current)
            arena->current->next = block;
        else
            arena->head = block;
        arena->current = block;
    }
    void *memory = arena->current->data + arena->current->used;
    arena->current->used += size;
    arena->tree_bytes += size;
    return memory;
}

static void arena_reset(struct arena *arena)
{
    arena->current = arena->head;
    arena->tree_bytes = 0;
    if (arena->current)
        arena->current->used = 0;
}

static void arena_free(struct arena *arena)
{
    struct arena_block *block = arena->head;
    while (block) {
        struct arena_block *next = block->next;
        free(block);
        block = next;
    }
    arena->head = arena->current = NULL;
}

/* --- input --- */

static json_stream *stream_alloc(const char *name, error_info *err)
{
    json_stream *stream = calloc(1, sizeof *stream);
    if (stream)
        stream->name = strdup(name);
    if (!stream || !stream->name) {
        free(stream);
        error_set(err, "%s: out of memory", name);
        return NULL;
    }
    return stream;
}

json_stream *json_stream_open(const char *path, error_info *err)
{
    struct stat info;
    if (input_file_stat(path, &info, err) != 0)
        return NULL;
    json_stream *stream = stream_alloc(path, err);
    if (!stream)
        return NULL;
    stream->file_bytes = (uint64_t)info.st_size;
    stream->file = gzopen(path, "rb");
    stream->owned_buffer = malloc(JSON_CHUNK_BYTES);
    if (!stream->file || !stream->owned_buffer) {
        error_set(err, "cannot open '%s': %s", path, stream->file ? "out of memory" : strerror(errno));
        json_stream_close(stream);
        return NULL;
    }
    gzbuffer(stream->file, 256u << 10);
    stream->buffer = stream->owned_buffer;
    return stream;
}

json_stream *json_stream_open_memory(const void *data, size_t size, const char *name, error_info *err)
{
    json_stream *stream = stream_alloc(name, err);
    if (!stream)
        return NULL;
    stream->buffer = data;
    stream->length = size;
    stream->file_bytes = size;
    stream->at_end = 1;
    return stream;
}

void json_stream_close(json_stream *stream)
{
    if (!stream)
        return;
    if (stream->file)
        gzclose(stream->file);
    free(stream->owned_buffer);
    free(stream->scratch);
    arena_free(&stream->arena);
    free(stream->name);
    free(stream);
}

uint64_t json_stream_offset(const json_stream *stream)
{
    return stream->chunk_offset + stream->position;
}

static int fail(json_stream *stream, const char *message)
{
    return error_set(stream->err, "%s: byte %llu: %s", stream->name,
                     (unsigned long long)json_stream_offset(stream), message);
}

/* Reads the next chunk. Returns 1 when bytes are available, 0 at the end, -1 on a read error. */
static int refill(json_stream *stream)
{
    if (stream->at_end)
        return 0;
    stream->chunk_offset += stream->length;
    stream->position = stream->length = 0;
    int got = gzread(stream->file, stream->owned_buffer, JSON_CHUNK_BYTES);
    if (got < 0) {
        int code = 0;
        const char *message = gzerror(stream->file, &code);
        error_set(stream->err, "%s: byte %llu: corrupt gzip data (%s)", stream->name,
                  (unsigned long long)stream->chunk_offset, message ? message : "read error");
        return -1;
    }
    if (got == 0) {
        int code = 0;
        gzerror(stream->file, &code);
        stream->at_end = 1;
        if (code == Z_BUF_ERROR) {
            error_set(stream->err, "%s: byte %llu: gzip stream is truncated", stream->name,
                      (unsigned long long)stream->chunk_offset);
            return -1;
        }
        return 0;
    }
    stream->length = (size_t)got;
    if (stream->handlers && stream->handlers->progress && stream->file_bytes > 0) {
        double fraction = (double)gzoffset(stream->file) / (double)stream->file_bytes;
        stream->handlers->progress(stream->context, fraction > 1 ? 1 : fraction);
    }
    return 1;
}

/* The next byte without consuming it; -1 at the end, -2 after a read error (err filled). */
static inline int peek_byte(json_stream *stream)
{
    if (stream->position < stream->length)
        return stream->buffer[stream->position];
    int status = refill(stream);
    if (status <= 0)
        return status == 0 ? -1 : -2;
    return stream->buffer[stream->position];
}

static int skip_space(json_stream *stream)
{
    for (;;) {
        while (stream->position < stream->length) {
            unsigned char c = stream->buffer[stream->position];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
                return c;
            stream->position++;
        }
        int status = refill(stream);
        if (status <= 0)
            return status == 0 ? -1 : -2;
    }
}

/* Fails with "unexpected end of input" or keeps the read error already in err. */
static int fail_at_end(json_stream *stream, int c, const char *message)
{
    if (c == -2)
        return -1;
    return fail(stream, c == -1 ? "unexpected end of input (truncated file?)" : message);
}

/* The limits (json_stream.h) fail with one line naming the file, the place and the limit. */
static int fail_limit(json_stream *stream, const char *what, size_t limit)
{
    return error_set(stream->err, "%s: byte %llu: %s over the limit of %zu MiB (docs/security.md)",
                     stream->name, (unsigned long long)json_stream_offset(stream), what, limit >> 20);
}

static int scratch_append(json_stream *stream, const void *bytes, size_t count)
{
    if (count == 0)
        return 0;
    if (stream->scratch_length + count > JSON_MAX_STRING_BYTES)
        return fail_limit(stream, "a string", JSON_MAX_STRING_BYTES);
    if (stream->scratch_length + count + 1 > stream->scratch_capacity) {
        size_t capacity = stream->scratch_capacity ? stream->scratch_capacity : 256;
        while (capacity < stream->scratch_length + count + 1)
            capacity *= 2;
        char *grown = realloc(stream->scratch, capacity);
        if (!grown)
            return fail(stream, "out of memory");
        stream->scratch = grown;
        stream->scratch_capacity = capacity;
    }
    memcpy(stream->scratch + stream->scratch_length, bytes, count);
    stream->scratch_length += count;
    return 0;
}

/* Memory for the current tree, within JSON_MAX_TREE_BYTES. */
static void *tree_alloc(json_stream *stream, size_t size)
{
    if (stream->arena.tree_bytes + size > JSON_MAX_TREE_BYTES) {
        fail_limit(stream, "one trace event (or top-level member)", JSON_MAX_TREE_BYTES);
        return NULL;
    }
    void *memory = arena_alloc(&stream->arena, size);
    if (!memory)
        fail(stream, "out of memory");
    return memory;
}

static struct json_value *new_value(json_stream *stream, enum json_type type)
{
    struct json_value *value = tree_alloc(stream, sizeof *value);
    if (!value)
        return NULL;
    memset(value, 0, sizeof *value);
    value->type = type;
    return value;
}

/* Copies the scratch buffer into the arena, NUL-terminated. */
static const char *scratch_to_arena(json_stream *stream)
{
    char *text = tree_alloc(stream, stream->scratch_length + 1);
    if (!text)
        return NULL;
    if (stream->scratch_length > 0)
        memcpy(text, stream->scratch, stream->scratch_length);
    text[stream->scratch_length] = '\0';
    return text;
}

static int hex_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int read_hex4(json_stream *stream, unsigned *code)
{
    *code = 0;
    for (int i = 0; i < 4; i++) {
        int c = peek_byte(stream);
        int digit = c >= 0 ? hex_value(c) : -1;
        if (digit < 0)
            return fail_at_end(stream, c, "bad \\u escape in a string");
        stream->position++;
        *code = *code << 4 | (unsigned)digit;
    }
    return 0;
}

static int append_utf8(json_stream *stream, unsigned code)
{
    unsigned char bytes[4];
    return scratch_append(stream, bytes, text_utf8_encode(code, bytes));
}

/* \uXXXX, with a following \uXXXX when the first is a high surrogate (RFC 8259 section 7).
 * A lone surrogate becomes U+FFFD rather than an error: real traces carry truncated names. */
static int read_unicode_escape(json_stream *stream)
{
    unsigned code;
    if (read_hex4(stream, &code) != 0)
        return -1;
    if (code >= 0xD800 && code <= 0xDBFF && peek_byte(stream) == '\\') {
        stream->position++;
        if (peek_byte(stream) != 'u')
            return fail(stream, "bad escape after a high surrogate");
        stream->position++;
        unsigned low;
        if (read_hex4(stream, &low) != 0)
            return -1;
        if (low >= 0xDC00 && low <= 0xDFFF)
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        else if (append_utf8(stream, 0xFFFD) != 0)
            return -1;
        else
            code = low;
    }
    if (code >= 0xD800 && code <= 0xDFFF)
        code = 0xFFFD;
    /* A C string ends at NUL: "a\u0000b" would be stored as "a". It is kept as the escape every
     * other control gets on a terminal (text_safe.h), so the name stays whole and visible. */
    if (code == 0)
        return scratch_append(stream, "\\x00", 4);
    return append_utf8(stream, code);
}

static int read_escape(json_stream *stream)
{
    int c = peek_byte(stream);
    if (c < 0)
        return fail_at_end(stream, c, "");
    stream->position++;
    char plain;
    switch (c) {
    case '"':
        plain = '"';
        break;
    case '\\':
        plain = '\\';
        break;
    case '/':
        plain = '/';
        break;
    case 'b':
        plain = '\b';
        break;
    case 'f':
        plain = '\f';
        break;
    case 'n':
        plain = '\n';
        break;
    case 'r':
        plain = '\r';
        break;
    case 't':
        plain = '\t';
        break;
    case 'u':
        return read_unicode_escape(stream);
    default:
        return fail(stream, "bad escape in a string");
    }
    return scratch_append(stream, &plain, 1);
}

/* Reads a string whose opening quote is next into the scratch buffer. */
static int read_string(json_stream *stream)
{
    stream->position++; /* the quote */
    stream->scratch_length = 0;
    for (;;) {
        size_t start = stream->position;
        const unsigned char *buffer = stream->buffer;
        size_t end = stream->length, position = start;
        while (position < end && buffer[position] != '"' && buffer[position] != '\\' &&
               buffer[position] >= 0x20)
            position++;
        stream->position = position;
        if (position > start && scratch_append(stream, buffer + start, position - start) != 0)
            return -1;
        if (position == end) {
            int status = refill(stream);
            if (status <= 0)
                return status == 0 ? fail(stream, "unterminated string (truncated file?)") : -1;
            continue;
        }
        unsigned char c = buffer[position];
        stream->position++;
        if (c == '"')
            return 0;
        if (c != '\\') {
            stream->position--;
            return fail(stream, "control character inside a string");
        }
        if (read_escape(stream) != 0)
            return -1;
    }
}

static int is_number_char(int c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* RFC 8259 section 6: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int number_is_valid(const char *text, size_t length)
{
    size_t i = 0;
    if (i < length && text[i] == '-')
        i++;
    if (i >= length)
        return 0;
    if (text[i] == '0') {
        i++;
    } else if (text[i] >= '1' && text[i] <= '9') {
        while (i < length && text[i] >= '0' && text[i] <= '9')
            i++;
    } else {
        return 0;
    }
    if (i < length && text[i] == '.') {
        i++;
        size_t digits = i;
        while (i < length && text[i] >= '0' && text[i] <= '9')
            i++;
        if (i == digits)
            return 0;
    }
    if (i < length && (text[i] == 'e' || text[i] == 'E')) {
        i++;
        if (i < length && (text[i] == '+' || text[i] == '-'))
            i++;
        size_t digits = i;
        while (i < length && text[i] >= '0' && text[i] <= '9')
            i++;
        if (i == digits)
            return 0;
    }
    return i == length;
}

static struct json_value *read_number(json_stream *stream)
{
    uint64_t start_offset = json_stream_offset(stream);
    stream->scratch_length = 0;
    for (;;) {
        int c = peek_byte(stream);
        if (c == -2)
            return NULL;
        if (c < 0 || !is_number_char(c))
            break;
        char byte = (char)c;
        if (stream->scratch_length >= JSON_MAX_NUMBER_CHARS) {
            fail(stream, "number too long");
            return NULL;
        }
        if (scratch_append(stream, &byte, 1) != 0)
            return NULL;
        stream->position++;
    }
    if (!number_is_valid(stream->scratch, stream->scratch_length)) {
        error_set(stream->err, "%s: byte %llu: malformed number", stream->name,
                  (unsigned long long)start_offset);
        return NULL;
    }
    struct json_value *value = new_value(stream, JSON_NUMBER);
    if (!value)
        return NULL;
    value->length = stream->scratch_length;
    value->text = scratch_to_arena(stream);
    return value->text ? value : NULL;
}

static struct json_value *read_literal(json_stream *stream, const char *word, enum json_type type)
{
    for (const char *p = word; *p; p++) {
        int c = peek_byte(stream);
        if (c != *p) {
            fail_at_end(stream, c, "unexpected character (expected a JSON value)");
            return NULL;
        }
        stream->position++;
    }
    return new_value(stream, type);
}

static struct json_value *read_value(json_stream *stream, int depth);

/* Reads "key" : and leaves the stream at the value. Returns the key in the arena. */
static const char *read_member_key(json_stream *stream)
{
    int c = skip_space(stream);
    if (c != '"') {
        fail_at_end(stream, c, "expected a string key in an object");
        return NULL;
    }
    if (read_string(stream) != 0)
        return NULL;
    const char *key = scratch_to_arena(stream);
    if (!key)
        return NULL;
    c = skip_space(stream);
    if (c != ':') {
        fail_at_end(stream, c, "expected ':' after an object key");
        return NULL;
    }
    stream->position++;
    return key;
}

/* Reads an array or an object (the stream at its '[' or '{'): elements, or "key": value members,
 * separated by ',' up to the closing bracket. One loop for both, so both follow one rule. */
static struct json_value *read_container(json_stream *stream, int depth, enum json_type type)
{
    int is_object = type == JSON_OBJECT;
    char close = is_object ? '}' : ']';
    struct json_value *container = new_value(stream, type);
    if (!container)
        return NULL;
    stream->position++; /* [ or { */
    struct json_value **tail = &container->first;
    int c = skip_space(stream);
    if (c == close) {
        stream->position++;
        return container;
    }
    for (;;) {
        const char *key = NULL;
        if (is_object && !(key = read_member_key(stream)))
            return NULL;
        struct json_value *element = read_value(stream, depth + 1);
        if (!element)
            return NULL;
        element->key = key;
        *tail = element;
        tail = &element->next;
        container->count++;
        c = skip_space(stream);
        if (c == ',') {
            stream->position++;
            continue;
        }
        if (c == close) {
            stream->position++;
            return container;
        }
        fail_at_end(stream, c,
                    is_object ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array");
        return NULL;
    }
}

static struct json_value *read_value(json_stream *stream, int depth)
{
    if (depth > JSON_MAX_DEPTH) {
        fail(stream, "nesting deeper than 64 levels");
        return NULL;
    }
    int c = skip_space(stream);
    switch (c) {
    case '{':
        return read_container(stream, depth, JSON_OBJECT);
    case '[':
        return read_container(stream, depth, JSON_ARRAY);
    case '"': {
        if (read_string(stream) != 0)
            return NULL;
        struct json_value *value = new_value(stream, JSON_STRING);
        if (!value)
            return NULL;
        value->length = stream->scratch_length;
        value->text = scratch_to_arena(stream);
        return value->text ? value : NULL;
    }
    case 't':
        return read_literal(stream, "true", JSON_TRUE);
    case 'f':
        return read_literal(stream, "false", JSON_FALSE);
    case 'n':
        return read_literal(stream, "null", JSON_NULL);
    default:
        if (c == '-' || (c >= '0' && c <= '9'))
            return read_number(stream);
        fail_at_end(stream, c, "unexpected character (expected a JSON value)");
        return NULL;
    }
}

/* The elements of traceEvents (or of a root array), one tree at a time. */
static int read_event_array(json_stream *stream)
{
    stream->position++; /* [ */
    uint64_t index = 0;
    int c = skip_space(stream);
    if (c == ']') {
        stream->position++;
        return 0;
    }
    for (;;) {
        arena_reset(&stream->arena);
        struct json_value *event = read_value(stream, 1);
        if (!event)
            return -1;
        if (stream->handlers->event &&
            stream->handlers->event(stream->context, index, event, stream->err) != 0)
            return -1;
        index++;
        c = skip_space(stream);
        if (c == ',') {
            stream->position++;
            continue;
        }
        if (c == ']') {
            stream->position++;
            return 0;
        }
        return fail_at_end(stream, c, "expected ',' or ']' between trace events");
    }
}

static int read_root_object(json_stream *stream)
{
    stream->position++; /* { */
    int c = skip_space(stream);
    if (c == '}') {
        stream->position++;
        return 0;
    }
    for (;;) {
        arena_reset(&stream->arena);
        const char *key = read_member_key(stream);
        if (!key)
            return -1;
        if (strcmp(key, "traceEvents") == 0 && skip_space(stream) == '[') {
            if (read_event_array(stream) != 0)
                return -1;
        } else {
            struct json_value *value = read_value(stream, 1);
            if (!value)
                return -1;
            if (stream->handlers->member &&
                stream->handlers->member(stream->context, key, value, stream->err) != 0)
                return -1;
        }
        c = skip_space(stream);
        if (c == ',') {
            stream->position++;
            continue;
        }
        if (c == '}') {
            stream->position++;
            return 0;
        }
        return fail_at_end(stream, c, "expected ',' or '}' between top-level members");
    }
}

int json_stream_parse_trace(json_stream *stream, const struct json_stream_handlers *handlers, void *context,
                            error_info *err)
{
    stream->handlers = handlers;
    stream->context = context;
    stream->err = err;
    int c = skip_space(stream);
    /* A UTF-8 byte order mark is tolerated at the very start. */
    if (c == 0xEF && json_stream_offset(stream) == 0 && stream->length - stream->position >= 3 &&
        memcmp(stream->buffer + stream->position, "\xEF\xBB\xBF", 3) == 0) {
        stream->position += 3;
        c = skip_space(stream);
    }
    int status;
    if (c == '{')
        status = read_root_object(stream);
    else if (c == '[')
        status = read_event_array(stream);
    else if (c == -1 && json_stream_offset(stream) == 0)
        return error_set(err, "%s: empty file", stream->name);
    else
        return fail_at_end(stream, c, "not a JSON trace (expected '{' or '[')");
    if (status != 0)
        return -1;
    c = skip_space(stream);
    if (c == -2)
        return -1;
    if (c != -1)
        return fail(stream, "unexpected data after the end of the JSON document");
    return 0;
}

/* --- values --- */

const struct json_value *json_get(const struct json_value *object, const char *key)
{
    if (!object || object->type != JSON_OBJECT)
        return NULL;
    const struct json_value *found = NULL;
    for (const struct json_value *member = object->first; member; member = member->next)
        if (strcmp(member->key, key) == 0)
            found = member;
    return found;
}

const char *json_string(const struct json_value *value)
{
    return value && value->type == JSON_STRING ? value->text : NULL;
}

#define MAX_SIGNIFICANT_DIGITS 40

int json_decimal_scaled(const char *text, size_t length, int scale, int64_t *out)
{
    if (!number_is_valid(text, length))
        return -1;
    size_t i = 0;
    int negative = text[0] == '-';
    if (negative)
        i++;
    /* Significant digits (leading zeros dropped) and the position of the decimal point. */
    char digits[MAX_SIGNIFICANT_DIGITS];
    int digit_count = 0, point = 0, seen_point = 0;
    long exponent = 0;
    for (; i < length; i++) {
        char c = text[i];
        if (c == '.') {
            seen_point = 1;
        } else if (c == 'e' || c == 'E') {
            i++;
            int exponent_negative = 0;
            if (text[i] == '+' || text[i] == '-')
                exponent_negative = text[i++] == '-';
            for (; i < length; i++)
                if (exponent < 100000)
                    exponent = exponent * 10 + (text[i] - '0');
            if (exponent_negative)
                exponent = -exponent;
            break;
        } else if (digit_count == 0 && c == '0') {
            if (seen_point)
                point--; /* 0.00123: each zero after the point moves it left */
        } else {
            if (!seen_point)
                point++;
            if (digit_count < MAX_SIGNIFICANT_DIGITS)
                digits[digit_count++] = c; /* later digits cannot change a rounding to int64 */
        }
    }
    if (digit_count == 0) {
        *out = 0;
        return 0;
    }
    /* value = 0.d1d2d3... x 10^(point + exponent + scale): the first `whole` digits are the integer. */
    long whole = point + exponent + scale;
    if (whole > 19)
        return -1;
    uint64_t magnitude = 0;
    for (long d = 0; d < whole; d++) {
        unsigned digit = d < digit_count ? (unsigned)(digits[d] - '0') : 0;
        if (magnitude > (UINT64_MAX - digit) / 10)
            return -1;
        magnitude = magnitude * 10 + digit;
    }
    long rounding_index = whole < 0 ? -1 : whole;
    if (whole == 0 || (rounding_index >= 0 && rounding_index < digit_count && digits[rounding_index] >= '5'))
        magnitude += (whole == 0 ? digits[0] >= '5' : 1);
    if (magnitude > (uint64_t)INT64_MAX + (negative ? 1u : 0u))
        return -1;
    *out = negative ? (int64_t)(0 - magnitude) : (int64_t)magnitude;
    return 0;
}

int json_number_is_integral(const struct json_value *value)
{
    if (!value || value->type != JSON_NUMBER)
        return 0;
    /* The power of ten of the last non-zero digit, plus the exponent, must not be negative. */
    const char *text = value->text;
    size_t length = value->length, i = 0, integer_digits = 0;
    for (; i < length && text[i] != '.' && text[i] != 'e' && text[i] != 'E'; i++)
        integer_digits += text[i] >= '0' && text[i] <= '9';
    long lowest = LONG_MAX; /* power of ten of the last non-zero digit; LONG_MAX: none (zero) */
    long power = (long)integer_digits - 1;
    for (size_t k = 0; k < i; k++)
        if (text[k] >= '0' && text[k] <= '9') {
            if (text[k] != '0')
                lowest = power;
            power--;
        }
    if (i < length && text[i] == '.')
        for (i++; i < length && text[i] >= '0' && text[i] <= '9'; i++) {
            if (text[i] != '0')
                lowest = power;
            power--;
        }
    if (lowest == LONG_MAX)
        return 1;
    long exponent = 0;
    if (i < length && (text[i] == 'e' || text[i] == 'E')) {
        int negative = ++i < length && text[i] == '-';
        if (i < length && (text[i] == '-' || text[i] == '+'))
            i++;
        for (; i < length && text[i] >= '0' && text[i] <= '9'; i++)
            if (exponent < 100000)
                exponent = exponent * 10 + (text[i] - '0');
        if (negative)
            exponent = -exponent;
    }
    return lowest + exponent >= 0;
}

int json_number_scaled(const struct json_value *value, int scale, int64_t *out)
{
    if (!value || value->type != JSON_NUMBER)
        return -1;
    return json_decimal_scaled(value->text, value->length, scale, out);
}
