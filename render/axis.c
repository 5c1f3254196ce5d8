/* axis.c: see axis.h. */
#include "axis.h"

#include <stdio.h>
#include <stdlib.h>

int64_t axis_tick_step_ns(int64_t span_ns, int max_ticks)
{
    static const int64_t mantissas[3] = {1, 2, 5};
    if (max_ticks < 1)
        max_ticks = 1;
    for (int64_t power = 1; power <= INT64_MAX / 10; power *= 10) {
        for (int i = 0; i < 3; i++) {
            int64_t step = mantissas[i] * power;
            if (span_ns / step < max_ticks)
                return step;
        }
    }
    return INT64_MAX / 10;
}

static int decimal_exponent(int64_t value)
{
    int exponent = 0;
    for (value = llabs(value); value >= 10; value /= 10)
        exponent++;
    return exponent;
}

char *axis_format_tick(char *buffer, size_t size, int64_t value_ns, int64_t step_ns, int64_t largest_ns)
{
    static const struct {
        int exponent;
        const char *name;
    } units[] = {{9, "s"}, {6, "ms"}, {3, "us"}, {0, "ns"}};
    size_t unit = 0;
    int largest_exponent = decimal_exponent(largest_ns);
    while (unit + 1 < sizeof units / sizeof units[0] && largest_exponent < units[unit].exponent)
        unit++;
    /* A step of m * 10^k ns shown in 10^j ns units needs j - k decimals to tell ticks apart. */
    int decimals = units[unit].exponent - decimal_exponent(step_ns);
    if (decimals < 0)
        decimals = 0;
    double divisor = 1;
    for (int i = 0; i < units[unit].exponent; i++)
        divisor *= 10;
    if (value_ns == 0)
        snprintf(buffer, size, "0");
    else
        snprintf(buffer, size, "%.*f %s", decimals, (double)value_ns / divisor, units[unit].name);
    return buffer;
}
