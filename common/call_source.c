/* call_source.c: see call_source.h. */
#include "call_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_name.h"
#include "python_source.h"

/* Where "+0xOFFSET" starts in a native caller's source, or NULL when source does not have the
 * collector's shape (collector/native_caller.c): a symbol, "+0x", lower-case hex digits, then the
 * end or " (MODULE)". */
static const char *offset_of(const char *source)
{
    for (const char *plus = strstr(source, "+0x"); plus; plus = strstr(plus + 1, "+0x")) {
        const char *p = plus + 3;
        size_t digits = strspn(p, "0123456789abcdef");
        if (plus == source || digits == 0)
            continue;
        p += digits;
        size_t rest = strlen(p);
        if (rest == 0 || (rest > 3 && strncmp(p, " (", 2) == 0 && p[rest - 1] == ')'))
            return plus;
    }
    return NULL;
}

char *call_source_readable(const char *source, enum call_source_form form)
{
    if (!source)
        return strdup("");
    const char *offset = offset_of(source);
    /* Only a mangled C++ symbol reads differently; "main+0x336" and "libfoo.so+0x1f0" do not. */
    if (!offset)
        return strdup(python_source_shown(source));
    if (strncmp(source, "_Z", 2) != 0)
        return strdup(source);
    char *symbol = strndup(source, (size_t)(offset - source));
    char *demangled = symbol ? kernel_name_demangle(symbol) : NULL;
    if (!demangled || strcmp(demangled, symbol) == 0) { /* out of memory, or not a C++ symbol */
        free(symbol);
        free(demangled);
        return strdup(source);
    }
    char short_name[256];
    const char *shown =
        form == CALL_SOURCE_SHORT ? kernel_name_short(demangled, short_name, sizeof short_name) : demangled;
    size_t size = strlen(shown) + strlen(offset) + 1;
    char *readable = malloc(size);
    if (readable)
        snprintf(readable, size, "%s%s", shown, offset);
    free(symbol);
    free(demangled);
    return readable;
}

int call_source_is_anonymous(const char *source)
{
    const char *plus = source ? offset_of(source) : NULL;
    return plus && plus[3 + strspn(plus + 3, "0123456789abcdef")] == '\0';
}
