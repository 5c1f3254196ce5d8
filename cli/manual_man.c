/* manual_man.c: see manual_man.h. */
#include "manual_man.h"

#include <ctype.h>
#include <inttypes.h>
#include <string.h>

#include "manual_markdown.h"
#include "text_safe.h"

/* A line of text for roff: a leading '.' or '\'' would make it a request. */
static void line_start(const char *text, size_t length, FILE *out)
{
    if (length > 0 && (text[0] == '.' || text[0] == '\''))
        fputs("\\&", out);
}

static void escaped_char(char c, FILE *out)
{
    if (c == '\\')
        fputs("\\e", out);
    else if (c == '-')
        fputs("\\-", out);
    else
        fputc(c, out);
}

/* The character at text[*i] for roff; a non-ASCII one as groff's \[uXXXX] escape, so that the
 * page source is plain ASCII and groff reads it whatever its input encoding (groff -ww warned
 * "invalid input character" for the raw UTF-8 of U+00B7, U+2013 and U+00B5). Advances *i past it. */
static void escaped_at(const char *text, size_t length, size_t *i, FILE *out)
{
    if ((unsigned char)text[*i] < 0x80) {
        escaped_char(text[*i], out);
        return;
    }
    uint32_t code = 0xFFFD;
    size_t bytes = text_utf8_decode(text + *i, length - *i, &code);
    fprintf(out, "\\[u%04" PRIX32 "]", bytes ? code : 0xFFFD);
    *i += bytes ? bytes - 1 : 0;
}

void manual_man_inline(const char *text, size_t length, FILE *out)
{
    int in_code = 0, bold = 0, at_line_start = 1;
    for (size_t i = 0; i < length; i++) {
        char c = text[i];
        if (c == '\n') {
            fputc('\n', out);
            while (i + 1 < length && (text[i + 1] == ' ' || text[i + 1] == '\t'))
                i++;
            at_line_start = 1;
            continue;
        }
        if (c == '`' || (!in_code && c == '*' && i + 1 < length && text[i + 1] == '*')) {
            int was_bold = in_code || bold;
            if (c == '`')
                in_code = !in_code;
            else {
                bold = !bold;
                i++;
            }
            if ((in_code || bold) != was_bold)
                fputs(in_code || bold ? "\\fB" : "\\fR", out);
            continue;
        }
        if (!in_code && c == '\\' && i + 1 < length && text[i + 1] != '\n')
            c = text[++i];
        if (at_line_start)
            line_start(&c, 1, out);
        at_line_start = 0;
        if ((unsigned char)c >= 0x80)
            escaped_at(text, length, &i, out);
        else
            escaped_char(c, out);
    }
    if (in_code || bold)
        fputs("\\fR", out);
    fputc('\n', out);
}

static void write_header(const char *page, const char *section, const char *summary, const char *version,
                         FILE *out)
{
    fputs(".TH \"", out);
    for (const char *c = page; *c; c++)
        escaped_char((char)toupper((unsigned char)*c), out);
    fprintf(out, "\" \"%s\" \"\" \"overlapscope %s\" \"overlapscope manual\"\n.SH NAME\n", section, version);
    manual_man_inline(page, strlen(page), out);
    fputs("\\- ", out);
    manual_man_inline(summary, strlen(summary), out);
}

void manual_man_header(const char *page, const char *summary, const char *version, FILE *out)
{
    write_header(page, "1", summary, version, out);
}

struct page {
    FILE *out;
    int list_depth; /* .RS levels opened for nested list items */
};

static void close_nesting(struct page *page, int depth)
{
    for (; page->list_depth > depth; page->list_depth--)
        fputs(".RE\n", page->out);
}

static void write_heading(struct page *page, const struct manual_block *block)
{
    if (block->level == 1)
        return; /* the header's NAME says it */
    fputs(block->level == 2 ? ".SH " : ".SS ", page->out);
    if (block->level == 2) {
        char upper[256];
        size_t length = block->length < sizeof upper ? block->length : sizeof upper - 1;
        for (size_t i = 0; i < length; i++)
            upper[i] = (char)toupper((unsigned char)block->text[i]);
        manual_man_inline(upper, length, page->out);
    } else {
        manual_man_inline(block->text, block->length, page->out);
    }
}

static void write_list_item(struct page *page, const struct manual_block *block)
{
    for (; page->list_depth < block->depth; page->list_depth++)
        fputs(".RS 2\n", page->out);
    close_nesting(page, block->depth);
    if (strcmp(block->marker, "-") == 0)
        fputs(".IP \\(bu 2\n", page->out);
    else
        fprintf(page->out, ".IP \"%s\" 4\n", block->marker);
    manual_man_inline(block->text, block->length, page->out);
}

static void write_code_line(const char *text, size_t length, void *context)
{
    FILE *out = context;
    line_start(text, length, out);
    for (size_t i = 0; i < length; i++)
        escaped_at(text, length, &i, out);
    fputc('\n', out);
}

static void write_code(struct page *page, const struct manual_block *block)
{
    fputs(".PP\n.RS 4\n.nf\n", page->out);
    manual_markdown_each_line(block, write_code_line, page->out);
    fputs(".fi\n.RE\n", page->out);
}

static void write_cell(const char *text, size_t length, int index, void *context)
{
    FILE *out = context;
    fputs(index == 0 ? ".TP\n" : index == 1 ? "" : ".br\n", out);
    manual_man_inline(text, length, out);
}

static void write_table_line(const char *text, size_t length, void *context)
{
    manual_markdown_table_cells(text, length, write_cell, context);
}

static int write_block(const struct manual_block *block, void *context)
{
    struct page *page = context;
    if (block->kind != MANUAL_LIST_ITEM)
        close_nesting(page, 0);
    switch (block->kind) {
    case MANUAL_HEADING:
        write_heading(page, block);
        break;
    case MANUAL_PARAGRAPH:
        fputs(".PP\n", page->out);
        manual_man_inline(block->text, block->length, page->out);
        break;
    case MANUAL_LIST_ITEM:
        write_list_item(page, block);
        break;
    case MANUAL_CODE:
        write_code(page, block);
        break;
    case MANUAL_TABLE:
        manual_markdown_each_line(block, write_table_line, page->out);
        break;
    }
    return 0;
}

int manual_man_write(const char *markdown, const char *page_name, const char *summary, const char *version,
                     FILE *out)
{
    return manual_man_write_section(markdown, page_name, "1", summary, version, out);
}

int manual_man_write_section(const char *markdown, const char *page_name, const char *section,
                             const char *summary, const char *version, FILE *out)
{
    struct page page = {.out = out};
    write_header(page_name, section, summary, version, out);
    manual_markdown_walk(markdown, write_block, &page);
    close_nesting(&page, 0);
    return ferror(out) ? -1 : 0;
}
