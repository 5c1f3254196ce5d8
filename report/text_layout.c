/* text_layout.c: see text_layout.h. */
#include "text_layout.h"

#include <stdlib.h>
#include <string.h>

#include "call_source.h"
#include "text_safe.h"
#include "text_wrap.h"

enum { GAP = 2, MAX_TITLE_LINES = 2 };

static const char *cell(const struct text_table *table, size_t row, int column)
{
    return table->cells + (row * (size_t)table->column_count + (size_t)column) * table->cell_size;
}

static int columns_of(const char *text)
{
    return text_wrap_columns(text, strlen(text));
}

/* The lines title takes wrapped at width (text_wrap's rule), their starts and ends in lines. */
static int title_lines(const char *title, int width, const char *starts[], const char *ends[], int most)
{
    int count = 0;
    for (const char *p = text_wrap_skip_spaces(title); *p; p = text_wrap_skip_spaces(p)) {
        const char *end = text_wrap_line_end(p, width);
        if (count < most) {
            starts[count] = p;
            ends[count] = end;
        }
        count++;
        p = end;
    }
    return count;
}

/* The narrowest width, from at least, at which title takes MAX_TITLE_LINES lines or fewer, its
 * words whole. */
static int title_width(const char *title, int at_least)
{
    const char *starts[MAX_TITLE_LINES], *ends[MAX_TITLE_LINES];
    int width = at_least > 1 ? at_least : 1;
    for (const char *p = text_wrap_skip_spaces(title); *p; p = text_wrap_skip_spaces(p)) {
        const char *word = p;
        while (*p && *p != ' ')
            p++;
        int columns = text_wrap_columns(word, (size_t)(p - word));
        width = columns > width ? columns : width;
    }
    while (width < columns_of(title) &&
           title_lines(title, width, starts, ends, MAX_TITLE_LINES) > MAX_TITLE_LINES)
        width++;
    return width;
}

/* Appends text, then spaces up to width columns, to line at *used (trailing spaces trimmed when the
 * line is written). */
static void append(char *line, size_t *used, const char *text, size_t length, int width)
{
    memcpy(line + *used, text, length);
    *used += length;
    for (int pad = width - text_wrap_columns(text, length); pad > 0; pad--)
        line[(*used)++] = ' ';
}

static void write_line(FILE *out, char *line, size_t used)
{
    while (used > 0 && line[used - 1] == ' ')
        used--;
    fwrite(line, 1, used, out);
    fputc('\n', out);
}

/* One band: the keys, then columns first .. last - 1. */
static void write_band(FILE *out, const struct text_table *table, const int *widths, int first, int last,
                       int wrapped, char *line)
{
    int band[table->column_count], count = 0;
    for (int c = 0; c < table->key_count; c++)
        band[count++] = c;
    for (int c = first; c < last; c++)
        band[count++] = c;
    int height = 1;
    for (int i = 0; wrapped && i < count; i++) {
        const char *starts[MAX_TITLE_LINES], *ends[MAX_TITLE_LINES];
        int lines = title_lines(table->titles[band[i]], widths[band[i]], starts, ends, MAX_TITLE_LINES);
        height = lines > height ? lines : height;
    }
    height = height > MAX_TITLE_LINES ? MAX_TITLE_LINES : height;
    for (int h = 0; h < height; h++) {
        size_t used = 0;
        append(line, &used, "", 0, table->indent);
        for (int i = 0; i < count; i++) {
            const char *title = table->titles[band[i]], *starts[MAX_TITLE_LINES], *ends[MAX_TITLE_LINES];
            int lines = wrapped ? title_lines(title, widths[band[i]], starts, ends, MAX_TITLE_LINES) : 1;
            if (!wrapped) {
                starts[0] = title;
                ends[0] = title + strlen(title);
            }
            lines = lines > MAX_TITLE_LINES ? MAX_TITLE_LINES : lines;
            int k = h - (height - lines); /* titles end at the bottom line, over the cells */
            const char *text = k >= 0 ? starts[k] : "";
            size_t length = k >= 0 ? (size_t)(ends[k] - starts[k]) : 0;
            append(line, &used, text, length, widths[band[i]] + (i + 1 < count ? GAP : 0));
        }
        write_line(out, line, used);
    }
    for (size_t row = 0; row < table->row_count; row++) {
        size_t used = 0;
        append(line, &used, "", 0, table->indent);
        for (int i = 0; i < count; i++) {
            const char *text = cell(table, row, band[i]);
            append(line, &used, text, strlen(text), widths[band[i]] + (i + 1 < count ? GAP : 0));
        }
        write_line(out, line, used);
    }
}

/* The column after the last of a band that starts at column first (one column at least). */
static int band_end(const struct text_table *table, const int *widths, int keys, int first, int width)
{
    int last = first + 1, used = keys + (table->key_count ? GAP : 0) + widths[first];
    while (last < table->column_count && used + GAP + widths[last] <= width)
        used += GAP + widths[last++];
    return last;
}

static int band_count(const struct text_table *table, const int *widths, int keys, int width)
{
    int count = 0;
    for (int first = table->key_count; first < table->column_count; count++)
        first = band_end(table, widths, keys, first, width);
    return count;
}

void text_table_write(FILE *out, const struct text_table *table, int width)
{
    int n = table->column_count, cells[n], widths[n];
    int one_line = table->indent;
    size_t line_size = (size_t)table->indent + 1;
    for (int c = 0; c < n; c++) {
        cells[c] = 0;
        for (size_t row = 0; row < table->row_count; row++) {
            int w = columns_of(cell(table, row, c));
            cells[c] = w > cells[c] ? w : cells[c];
        }
        int title = columns_of(table->titles[c]);
        widths[c] = title > cells[c] ? title : cells[c];
        one_line += widths[c] + (c ? GAP : 0);
        /* bytes, not columns: a cell's UTF-8 characters take up to 4 */
        line_size += strlen(table->titles[c]) + table->cell_size + (size_t)widths[c] + GAP;
    }
    char *line = malloc(line_size);
    if (!line)
        return;
    if (one_line <= width) {
        write_band(out, table, widths, table->key_count, n, 0, line);
        free(line);
        return;
    }
    int keys = table->indent;
    for (int c = 0; c < n; c++) {
        widths[c] = title_width(table->titles[c], cells[c]);
        if (c < table->key_count)
            keys += widths[c] + (c ? GAP : 0);
    }
    /* As few bands as fit, then as even as they can be: the narrowest limit that needs no more
     * bands than width does. */
    int bands = band_count(table, widths, keys, width);
    int limit = width;
    while (limit > keys && band_count(table, widths, keys, limit - 1) == bands)
        limit--;
    for (int first = table->key_count; first < n;) {
        int last = band_end(table, widths, keys, first, limit);
        if (first > table->key_count)
            fputc('\n', out);
        write_band(out, table, widths, first, last, 1, line);
        first = last;
    }
    free(line);
}

char *text_layout_source(const char *source, int room)
{
    char *full = call_source_readable(source, CALL_SOURCE_FULL);
    char *safe = full ? text_safe_dup(full, TEXT_SAFE_TERMINAL) : NULL;
    free(full);
    if (!safe || columns_of(safe) <= room)
        return safe;
    free(safe);
    char *short_form = call_source_readable(source, CALL_SOURCE_SHORT);
    safe = short_form ? text_safe_dup(short_form, TEXT_SAFE_TERMINAL) : NULL;
    free(short_form);
    return safe;
}
