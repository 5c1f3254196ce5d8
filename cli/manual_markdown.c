/* manual_markdown.c: see manual_markdown.h. */
#include "manual_markdown.h"

#include <string.h>

static const char *line_end(const char *line)
{
    const char *end = strchr(line, '\n');
    return end ? end : line + strlen(line);
}

static const char *next_line(const char *end)
{
    return *end ? end + 1 : end;
}

static int leading_spaces(const char *line, const char *end)
{
    int count = 0;
    while (line + count < end && line[count] == ' ')
        count++;
    return count;
}

static int is_blank(const char *line, const char *end)
{
    for (; line < end; line++)
        if (*line != ' ' && *line != '\t' && *line != '\r')
            return 0;
    return 1;
}

static int is_fence(const char *line, const char *end)
{
    int indent = leading_spaces(line, end);
    return indent < 4 && end - line >= indent + 3 && strncmp(line + indent, "```", 3) == 0;
}

/* The heading's level (1..6) when the line is "#... text", else 0. */
static int heading_level(const char *line, const char *end)
{
    int level = 0;
    while (line + level < end && line[level] == '#')
        level++;
    if (level == 0 || level > 6 || line + level >= end || line[level] != ' ')
        return 0;
    return level;
}

/* The length of the list marker and its space ("- " 2, "12. " 4) after the indentation, else 0. */
static int list_marker_length(const char *line, const char *end)
{
    const char *p = line + leading_spaces(line, end);
    if (end - p >= 2 && p[0] == '-' && p[1] == ' ')
        return 2;
    const char *digits = p;
    while (p < end && *p >= '0' && *p <= '9')
        p++;
    if (p == digits || p - digits > 3 || end - p < 2 || p[0] != '.' || p[1] != ' ')
        return 0;
    return (int)(p - digits) + 2;
}

static int is_table_line(const char *line, const char *end)
{
    int indent = leading_spaces(line, end);
    return indent < 4 && line + indent < end && line[indent] == '|';
}

/* A line that starts a block of its own, and so ends the paragraph or list item before it. */
static int starts_block(const char *line, const char *end)
{
    return heading_level(line, end) || list_marker_length(line, end) || is_table_line(line, end) ||
           is_fence(line, end);
}

/* Extends a block over the lines from *p for which continues(line, end) holds; returns where the
 * last of them ends and leaves *p at the line after it. */
static const char *extend(const char **p, int (*continues)(const char *, const char *), const char *block_end)
{
    while (**p) {
        const char *end = line_end(*p);
        if (!continues(*p, end))
            break;
        block_end = end;
        *p = next_line(end);
    }
    return block_end;
}

static int continues_text(const char *line, const char *end)
{
    return !is_blank(line, end) && !starts_block(line, end);
}

static int continues_indented_code(const char *line, const char *end)
{
    return !is_blank(line, end) && leading_spaces(line, end) >= 4;
}

/* Fills block from the line at *p (not blank) and moves *p past the block. */
static void read_block(const char **p, struct manual_block *block)
{
    const char *line = *p, *end = line_end(line);
    int indent = leading_spaces(line, end);
    *p = next_line(end);
    if (is_fence(line, end)) {
        block->kind = MANUAL_CODE;
        block->level = indent;
        block->text = *p;
        const char *close = *p;
        while (*close && !is_fence(close, line_end(close)))
            close = next_line(line_end(close));
        block->length = (size_t)(close - block->text);
        if (block->length > 0 && block->text[block->length - 1] == '\n')
            block->length--;
        *p = *close ? next_line(line_end(close)) : close;
        return;
    }
    if (indent >= 4) {
        block->kind = MANUAL_CODE;
        block->level = indent;
        block->text = line;
        block->length = (size_t)(extend(p, continues_indented_code, end) - line);
        return;
    }
    int level = heading_level(line, end);
    if (level) {
        block->kind = MANUAL_HEADING;
        block->level = level;
        block->text = line + level + 1;
        block->length = (size_t)(end - block->text);
        return;
    }
    if (is_table_line(line, end)) {
        block->kind = MANUAL_TABLE;
        block->text = line;
        block->length = (size_t)(extend(p, is_table_line, end) - line);
        return;
    }
    int marker = list_marker_length(line, end);
    if (marker) {
        block->kind = MANUAL_LIST_ITEM;
        block->depth = indent / 2;
        memcpy(block->marker, line + indent, (size_t)marker - 1);
        block->marker[marker - 1] = '\0';
        block->text = line + indent + marker;
    } else {
        block->kind = MANUAL_PARAGRAPH;
        block->text = line;
    }
    block->length = (size_t)(extend(p, continues_text, end) - block->text);
}

int manual_markdown_walk(const char *markdown, manual_block_fn callback, void *context)
{
    const char *p = markdown;
    int after_blank = 0;
    while (*p) {
        const char *end = line_end(p);
        if (is_blank(p, end)) {
            after_blank = 1;
            p = next_line(end);
            continue;
        }
        struct manual_block block = {0};
        block.after_blank = after_blank;
        after_blank = 0;
        read_block(&p, &block);
        int status = callback(&block, context);
        if (status)
            return status;
    }
    return 0;
}

size_t manual_markdown_plain(const char *text, size_t length, char *out, size_t size)
{
    size_t written = 0;
    int in_code = 0;
    for (size_t i = 0; i < length && written + 1 < size; i++) {
        if (text[i] == '`') {
            in_code = !in_code;
            continue;
        }
        if (in_code) {
            out[written++] = text[i];
            continue;
        }
        if (text[i] == '*' && i + 1 < length && text[i + 1] == '*') {
            i++;
            continue;
        }
        if (text[i] == '\\' && i + 1 < length && text[i + 1] != '\n')
            i++;
        out[written++] = text[i];
    }
    if (size > 0)
        out[written] = '\0';
    return written;
}

int manual_markdown_table_cells(const char *line, size_t length,
                                void (*cell)(const char *text, size_t length, int index, void *context),
                                void *context)
{
    const char *p = line, *end = line + length;
    while (p < end && *p == ' ')
        p++;
    if (p < end && *p == '|')
        p++;
    int count = 0;
    while (p < end) {
        const char *start = p;
        while (p < end && *p != '|') {
            if (*p == '\\' && p + 1 < end)
                p++;
            p++;
        }
        const char *stop = p;
        if (p >= end && is_blank(start, stop))
            break; /* the text after the last pipe */
        while (start < stop && *start == ' ')
            start++;
        while (stop > start && stop[-1] == ' ')
            stop--;
        cell(start, (size_t)(stop - start), count++, context);
        if (p < end)
            p++;
    }
    return count;
}

int manual_markdown_table_rule(const char *line, size_t length)
{
    for (size_t i = 0; i < length; i++)
        if (!strchr("|-: ", line[i]))
            return 0;
    return 1;
}

void manual_markdown_each_line(const struct manual_block *block,
                               void (*line)(const char *text, size_t length, void *context), void *context)
{
    const char *p = block->text, *end = block->text + block->length;
    while (p <= end) {
        const char *stop = memchr(p, '\n', (size_t)(end - p));
        if (!stop)
            stop = end;
        int skip = 0;
        while (block->kind == MANUAL_CODE && skip < block->level && p + skip < stop && p[skip] == ' ')
            skip++;
        if (block->kind != MANUAL_TABLE || !manual_markdown_table_rule(p, (size_t)(stop - p)))
            line(p + skip, (size_t)(stop - p - skip), context);
        p = stop + 1;
    }
}
