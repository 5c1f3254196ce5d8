/* manual_text.c: see manual_text.h. */
#include "manual_text.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "manual_markdown.h"
#include "text_wrap.h"

enum { TABLE_MAX_COLUMNS = 16, CODE_INDENT = 4, TABLE_GAP = 2, MIN_WIDTH = 20 };

struct writer {
    FILE *out;
    int width;
    int blocks;
    enum manual_block_kind previous;
    int failed;
};

/* Characters in a UTF-8 text: every byte that does not continue a sequence. */
/* A malloc'd copy of text without its inline marks (the caller frees), or NULL. */
static char *plain_copy(const char *text, size_t length)
{
    char *plain = malloc(length + 1);
    if (plain)
        manual_markdown_plain(text, length, plain, length + 1);
    return plain;
}

static void spaces(FILE *out, int count)
{
    for (int i = 0; i < count; i++)
        fputc(' ', out);
}

static void write_wrapped(struct writer *writer, const char *text, size_t length, const char *prefix,
                          int indent)
{
    char *plain = plain_copy(text, length);
    if (!plain) {
        writer->failed = 1;
        return;
    }
    text_wrap_write(writer->out, plain, prefix, indent, writer->width);
    free(plain);
}

static void write_heading(struct writer *writer, const struct manual_block *block)
{
    char *plain = plain_copy(block->text, block->length);
    if (!plain) {
        writer->failed = 1;
        return;
    }
    if (block->level <= 2)
        for (char *c = plain; *c; c++)
            *c = (char)toupper((unsigned char)*c);
    text_wrap_write(writer->out, plain, "", 0, writer->width);
    free(plain);
}

static void write_list_item(struct writer *writer, const struct manual_block *block)
{
    char prefix[64];
    int indent = 2 * block->depth;
    snprintf(prefix, sizeof prefix, "%*s%s ", indent, "", block->marker);
    write_wrapped(writer, block->text, block->length, prefix, indent + (int)strlen(block->marker) + 1);
}

static void write_code_line(const char *text, size_t length, void *context)
{
    struct writer *writer = context;
    if (length > 0)
        spaces(writer->out, CODE_INDENT);
    fwrite(text, 1, length, writer->out);
    fputc('\n', writer->out);
}

/* A table's cells, plain, row by row. */
struct table {
    char **cells; /* rows * TABLE_MAX_COLUMNS, NULL where a row has fewer cells */
    int rows;
    int capacity; /* rows the cells have room for */
    int column_count;
    int widths[TABLE_MAX_COLUMNS];
    int failed;
};

static void add_cell(const char *text, size_t length, int index, void *context)
{
    struct table *table = context;
    if (index >= TABLE_MAX_COLUMNS)
        return;
    char *plain = plain_copy(text, length);
    if (!plain) {
        table->failed = 1;
        return;
    }
    table->cells[(size_t)table->rows * TABLE_MAX_COLUMNS + (size_t)index] = plain;
    int width = text_wrap_columns(plain, strlen(plain));
    if (width > table->widths[index])
        table->widths[index] = width;
    if (index + 1 > table->column_count)
        table->column_count = index + 1;
}

static void read_table_line(const char *text, size_t length, void *context)
{
    struct table *table = context;
    manual_markdown_table_cells(text, length, add_cell, table);
    table->rows++;
}

static int read_table(const struct manual_block *block, struct table *table)
{
    int lines = 1;
    for (size_t i = 0; i < block->length; i++)
        lines += block->text[i] == '\n';
    table->cells = calloc((size_t)lines * TABLE_MAX_COLUMNS, sizeof *table->cells);
    if (!table->cells)
        return -1;
    table->capacity = lines;
    manual_markdown_each_line(block, read_table_line, table);
    return table->failed ? -1 : 0;
}

static const char *cell(const struct table *table, int row, int column)
{
    const char *text = table->cells[(size_t)row * TABLE_MAX_COLUMNS + (size_t)column];
    return text ? text : "";
}

static void write_table_columns(struct writer *writer, const struct table *table)
{
    for (int row = 0; row < table->rows; row++) {
        int pending = 0; /* spaces owed before the next cell: none at the end of a line */
        for (int column = 0; column < table->column_count; column++) {
            const char *text = cell(table, row, column);
            spaces(writer->out, pending);
            fputs(text, writer->out);
            pending = table->widths[column] - text_wrap_columns(text, strlen(text)) + TABLE_GAP;
        }
        fputc('\n', writer->out);
        if (row == 0) {
            int rule = 0;
            for (int column = 0; column < table->column_count; column++)
                rule += table->widths[column] + (column > 0 ? TABLE_GAP : 0);
            for (int i = 0; i < rule; i++)
                fputc('-', writer->out);
            fputc('\n', writer->out);
        }
    }
}

static void write_table_entries(struct writer *writer, const struct table *table)
{
    char indent[CODE_INDENT + 1];
    memset(indent, ' ', CODE_INDENT);
    indent[CODE_INDENT] = '\0';
    for (int row = 0; row < table->rows; row++) {
        text_wrap_write(writer->out, cell(table, row, 0), "", 0, writer->width);
        for (int column = 1; column < table->column_count; column++)
            if (cell(table, row, column)[0])
                text_wrap_write(writer->out, cell(table, row, column), indent, CODE_INDENT, writer->width);
    }
}

static void write_table(struct writer *writer, const struct manual_block *block)
{
    struct table table = {0};
    if (read_table(block, &table) == 0) {
        int total = 0;
        for (int column = 0; column < table.column_count; column++)
            total += table.widths[column] + (column > 0 ? TABLE_GAP : 0);
        if (total <= writer->width)
            write_table_columns(writer, &table);
        else
            write_table_entries(writer, &table);
    } else {
        writer->failed = 1;
    }
    if (table.cells)
        for (size_t i = 0; i < (size_t)table.capacity * TABLE_MAX_COLUMNS; i++)
            free(table.cells[i]);
    free(table.cells);
}

/* One blank line between blocks, except under a heading (when text follows) and between the
 * items of one list. */
static int wants_blank_line(const struct writer *writer, const struct manual_block *block)
{
    if (writer->blocks == 0 || (writer->previous == MANUAL_HEADING && block->kind != MANUAL_HEADING))
        return 0;
    return !(block->kind == MANUAL_LIST_ITEM && writer->previous == MANUAL_LIST_ITEM && !block->after_blank);
}

static int write_block(const struct manual_block *block, void *context)
{
    struct writer *writer = context;
    if (wants_blank_line(writer, block))
        fputc('\n', writer->out);
    switch (block->kind) {
    case MANUAL_HEADING:
        write_heading(writer, block);
        break;
    case MANUAL_PARAGRAPH:
        write_wrapped(writer, block->text, block->length, "", 0);
        break;
    case MANUAL_LIST_ITEM:
        write_list_item(writer, block);
        break;
    case MANUAL_CODE:
        manual_markdown_each_line(block, write_code_line, writer);
        break;
    case MANUAL_TABLE:
        write_table(writer, block);
        break;
    }
    writer->previous = block->kind;
    writer->blocks++;
    return writer->failed ? -1 : 0;
}

int manual_text_write(const char *markdown, int width, FILE *out)
{
    struct writer writer = {.out = out, .width = width < MIN_WIDTH ? MIN_WIDTH : width};
    if (manual_markdown_walk(markdown, write_block, &writer) != 0)
        return -1;
    return ferror(out) ? -1 : 0;
}
