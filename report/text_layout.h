/* text_layout.h: the text report's tables in its terminal's width (report/text.c, accounting.c).
 * A table whose titles and cells fit on one line is printed as is; else each title wraps onto at
 * most two lines over its column (the lines end at its bottom), and the columns that still do not
 * fit continue in a second band (a third ...) under the first, each band repeating the key
 * columns (rank, device) so that every row reads on its own. No cell is cut. */
#ifndef OVERLAPSCOPE_REPORT_TEXT_LAYOUT_H
#define OVERLAPSCOPE_REPORT_TEXT_LAYOUT_H

#include <stddef.h>
#include <stdio.h>

struct text_table {
    int column_count;
    int key_count;             /* the first key_count columns name the row: repeated in each band */
    const char *const *titles; /* column_count titles */
    size_t row_count;
    const char *cells; /* row-major, row_count * column_count cells of cell_size bytes,
                          each safe for a terminal (common/text_safe.h) */
    size_t cell_size;
    int indent; /* spaces before each line */
};

/* Writes the table to fit width columns (a band of the keys and one column wider than width is
 * written anyway). */
void text_table_write(FILE *out, const struct text_table *table, int width);

/* A call source (common/call_source.h) for a line of the text report, safe for a terminal: its
 * native symbol demangled in full when that takes at most room columns, else with the function's
 * short name. A newly allocated string the caller frees, or NULL when out of memory. */
char *text_layout_source(const char *source, int room);

#endif
