/* demangle.c: see demangle.h. */
#include "demangle.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static void copy_span(char *buffer, size_t size, const char *text, size_t length)
{
    if (size == 0)
        return;
    if (length >= size)
        length = size - 1;
    memcpy(buffer, text, length);
    buffer[length] = '\0';
}

/* Reads one <source-name> (<decimal length><identifier>) at *cursor. Returns 0 and the span, or
 * -1 when the text there is not one. */
static int read_source_name(const char **cursor, const char **identifier, size_t *length)
{
    const char *p = *cursor;
    if (!isdigit((unsigned char)*p))
        return -1;
    size_t count = 0;
    while (isdigit((unsigned char)*p)) {
        count = count * 10 + (size_t)(*p - '0');
        if (count > 4096)
            return -1;
        p++;
    }
    if (count == 0 || strnlen(p, count) < count)
        return -1;
    *identifier = p;
    *length = count;
    *cursor = p + count;
    return 0;
}

/* _Z [L] <source-name> ...  or  _Z N [qualifiers] (<source-name> | St)+ [I...] E ...: the last
 * identifier of the (possibly nested) name, which for a kernel is the function's own name. */
static int demangle_itanium(const char *name, char *buffer, size_t size)
{
    const char *p = name + 2;
    if (*p == 'L')
        p++;
    const char *identifier = NULL;
    size_t length = 0;
    if (*p != 'N')
        return read_source_name(&p, &identifier, &length) == 0
                   ? (copy_span(buffer, size, identifier, length), 0)
                   : -1;
    p++;
    while (*p == 'K' || *p == 'V' || *p == 'r')
        p++;
    if (p[0] == 'S' && p[1] == 't')
        p += 2;
    while (*p && *p != 'E' && *p != 'I') {
        if (*p == 'L')
            p++;
        if (read_source_name(&p, &identifier, &length) != 0)
            break;
    }
    if (!identifier)
        return -1;
    copy_span(buffer, size, identifier, length);
    return 0;
}

static int is_name_character(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/* A demangled signature "void at::native::kernel<4, F>(int, F)": the text at bracket depth 0
 * before the parameter list, then its last identifier (return type and namespaces dropped).
 * "(anonymous namespace)" is part of a name, not a parameter list. */
static void shorten_signature(const char *name, char *buffer, size_t size)
{
    static const char anonymous[] = "(anonymous namespace)";
    size_t name_length = strlen(name);
    const char *last_start = NULL;
    size_t last_length = 0;
    int depth = 0;
    for (size_t i = 0; i < name_length;) {
        char c = name[i];
        if (depth == 0 && strncmp(name + i, anonymous, sizeof anonymous - 1) == 0) {
            i += sizeof anonymous - 1;
            continue;
        }
        if (c == '<' || c == '{' || c == '[' || (c == '(' && depth > 0)) {
            depth++;
        } else if (c == '>' || c == '}' || c == ']' || (c == ')' && depth > 0)) {
            depth--;
        } else if (c == '(' && depth == 0 && last_start) {
            break;
        } else if (depth == 0 && is_name_character(c)) {
            size_t start = i;
            while (i < name_length && is_name_character(name[i]))
                i++;
            last_start = name + start;
            last_length = i - start;
            continue;
        }
        i++;
    }
    if (last_start)
        copy_span(buffer, size, last_start, last_length);
    else
        copy_span(buffer, size, name, name_length);
}

char *demangle_short_name(const char *name, char *buffer, size_t size)
{
    if (size == 0)
        return buffer;
    if (!name) {
        buffer[0] = '\0';
        return buffer;
    }
    if (strncmp(name, "_Z", 2) == 0 && demangle_itanium(name, buffer, size) == 0)
        return buffer;
    shorten_signature(name, buffer, size);
    return buffer;
}
