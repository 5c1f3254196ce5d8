/* manual_markdown.h: reads the Markdown of the manual pages (docs/overlapscope-*.md) as a
 * sequence of blocks, so that one reading serves every way a manual is shown: the terminal text
 * of `--help` (manual_text.h) and the roff man page (manual_man.h).
 *
 * Only what the manuals use is understood: ATX headings (#, ##, ###), paragraphs, list items
 * ("- " or "N. ", nested by indentation, continued by the lines that follow them), code blocks
 * (``` fences, or lines indented by 4 spaces that start a block) and pipe tables. Inline, only
 * `code` and **bold** are marked; manual_markdown_plain() drops the marks. */
#ifndef OVERLAPSCOPE_MANUAL_MARKDOWN_H
#define OVERLAPSCOPE_MANUAL_MARKDOWN_H

#include <stddef.h>

enum manual_block_kind { MANUAL_HEADING, MANUAL_PARAGRAPH, MANUAL_LIST_ITEM, MANUAL_CODE, MANUAL_TABLE };

/* One block. text points into the Markdown given to manual_markdown_walk (not NUL-terminated):
 *   HEADING    the heading's text, level 1 to 6;
 *   PARAGRAPH  its source lines (newlines and indentation included: any run of white space
 *              separates two words);
 *   LIST_ITEM  the item's lines after its marker; marker is "-" or "N." and depth 0 for an item
 *              at the left margin, 1 for one nested under it, ...;
 *   CODE       its lines as written, without the fences; level is the indentation of its
 *              first line (or fence), which each line shows less of;
 *   TABLE      its lines as written (manual_markdown_table_rule() tells the |---| line);
 * after_blank is 1 when a blank line came between this block and the previous one. */
struct manual_block {
    enum manual_block_kind kind;
    const char *text;
    size_t length;
    int level;
    int depth;
    char marker[8];
    int after_blank;
};

/* Called once per block, in order; a non-zero return stops the walk and is returned by it. */
typedef int (*manual_block_fn)(const struct manual_block *block, void *context);

/* Walks the NUL-terminated markdown block by block. Returns 0, or what a callback returned. */
int manual_markdown_walk(const char *markdown, manual_block_fn callback, void *context);

/* Writes text (length bytes) without its inline marks into out (size bytes, NUL-terminated):
 * backquotes dropped, "**" dropped, "\X" written as X outside `code` (inside, a backslash is
 * itself, as in Markdown). Returns the length written. */
size_t manual_markdown_plain(const char *text, size_t length, char *out, size_t size);

/* Splits one table line into cells: calls cell(text, length, index, context) for each cell
 * between the pipes, trimmed of spaces; an escaped "\|" does not split. Returns the cell count. */
int manual_markdown_table_cells(const char *line, size_t length,
                                void (*cell)(const char *text, size_t length, int index, void *context),
                                void *context);

/* Calls line(text, length, context) for each line of a CODE block (its indentation removed up to
 * the block's level) or of a TABLE (the |---| line left out). */
void manual_markdown_each_line(const struct manual_block *block,
                               void (*line)(const char *text, size_t length, void *context), void *context);

/* 1 when the table line is the |---|---| line under the header, which shows nothing. */
int manual_markdown_table_rule(const char *line, size_t length);

#endif
