/* units.h: turning integer nanoseconds and byte counts into text a person reads, at the edges
 * of the program (reports, pictures). Everything inside stays int64_t nanoseconds and bytes. */
#ifndef OVERLAPSCOPE_UNITS_H
#define OVERLAPSCOPE_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* "0 ns", "850 ns", "12.3 us", "1.84 ms", "2.500 s": three significant digits or more. Returns
 * buffer. */
char *units_format_duration(char *buffer, size_t size, int64_t nanoseconds);

/* "1 process", "2 processes", "0 kernels": count and noun (given in the singular; the plural adds
 * "es" after s, x, ch or sh, else "s") into buffer. Returns buffer. */
char *units_format_count(char *buffer, size_t size, int64_t count, const char *singular);

/* "512 B", "64.0 KiB", "1.50 MiB", "2.00 GiB". Returns buffer. */
char *units_format_bytes(char *buffer, size_t size, int64_t bytes);

/* 1 when the length bytes at word are a unit these functions write after a figure ("ns", "us",
 * "ms", "s", "B", "KiB" ... "TiB") or a bandwidth's ("GB/s"), else 0: wrapped text keeps a figure
 * and its unit on one line (common/text_wrap.h). */
int units_is_unit(const char *word, size_t length);

#endif
