/* error.c: see error.h. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int error_set(error_info *err, const char *format, ...)
{
    if (!err)
        return -1;
    va_list args;
    va_start(args, format);
    vsnprintf(err->message, sizeof err->message, format, args);
    va_end(args);
    return -1;
}

int error_prefix(error_info *err, const char *format, ...)
{
    if (!err)
        return -1;
    char prefix[512];
    va_list args;
    va_start(args, format);
    vsnprintf(prefix, sizeof prefix, format, args);
    va_end(args);
    char old[sizeof err->message];
    memcpy(old, err->message, sizeof old);
    snprintf(err->message, sizeof err->message, "%s: %s", prefix, old);
    return -1;
}
