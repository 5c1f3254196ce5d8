/* units.c: see units.h. */
#include "units.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *significant(double value)
{
    return value < 10 ? "%.2f %s" : value < 100 ? "%.1f %s" : "%.0f %s";
}

char *units_format_duration(char *buffer, size_t size, int64_t nanoseconds)
{
    double magnitude = nanoseconds < 0 ? -(double)nanoseconds : (double)nanoseconds;
    double value = (double)nanoseconds;
    if (magnitude < 1000)
        snprintf(buffer, size, "%" PRId64 " ns", nanoseconds);
    else if (magnitude < 1e6)
        snprintf(buffer, size, significant(magnitude / 1e3), value / 1e3, "us");
    else if (magnitude < 1e9)
        snprintf(buffer, size, significant(magnitude / 1e6), value / 1e6, "ms");
    else
        snprintf(buffer, size, "%.3f s", value / 1e9);
    return buffer;
}

static const char *const byte_units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
static const char *const other_units[] = {"ns", "us", "ms", "s", "GB/s"};

char *units_format_bytes(char *buffer, size_t size, int64_t bytes)
{
    double value = (double)bytes;
    int unit = 0;
    while ((value >= 1024 || value <= -1024) && unit < 4) {
        value /= 1024;
        unit++;
    }
    if (unit == 0)
        snprintf(buffer, size, "%" PRId64 " B", bytes);
    else
        snprintf(buffer, size, significant(value < 0 ? -value : value), value, byte_units[unit]);
    return buffer;
}

char *units_format_count(char *buffer, size_t size, int64_t count, const char *singular)
{
    size_t length = strlen(singular);
    const char *tail = length >= 2 ? singular + length - 2 : singular;
    int sibilant = length > 0 && (singular[length - 1] == 's' || singular[length - 1] == 'x' ||
                                  strcmp(tail, "ch") == 0 || strcmp(tail, "sh") == 0);
    snprintf(buffer, size, "%" PRId64 " %s%s", count, singular, count == 1 ? "" : sibilant ? "es" : "s");
    return buffer;
}

static int in(const char *const *units, size_t count, const char *word, size_t length)
{
    for (size_t i = 0; i < count; i++)
        if (strlen(units[i]) == length && memcmp(units[i], word, length) == 0)
            return 1;
    return 0;
}

int units_is_unit(const char *word, size_t length)
{
    return in(byte_units, sizeof byte_units / sizeof byte_units[0], word, length) ||
           in(other_units, sizeof other_units / sizeof other_units[0], word, length);
}
