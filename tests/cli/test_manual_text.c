/* test_manual_text: a manual page's Markdown as terminal text (cli/manual_text.h), at 80 columns
 * (what `overlapscope help CMD` prints into a pipe) and at 40 (a narrow terminal): headings in
 * capitals, paragraphs and list items reflowed with hanging indents, code kept, the table aligned
 * when it fits (exactly 80 columns here) and entry by entry when it does not, marks dropped,
 * widths counted in characters (the "·" is two bytes, one column). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "manual_text.h"

static const char markdown[] =
    "# overlapscope demo\n"
    "\n"
    "## Synopsis\n"
    "`overlapscope demo TRACE [--fast]`\n"
    "\n"
    "## Description\n"
    "Reads **TRACE** and prints a `summary` of what it holds, one line per stream, sorted by the time each "
    "stream was busy.\n"
    "Nothing else.\n"
    "\n"
    "- `--fast`: skip the slow part, which nobody needs when the trace is small.\n"
    "  A second line of the same item.\n"
    "- `--x`: short.\n"
    "   - nested item whose text is long enough to wrap at forty columns.\n"
    "\n"
    "1. First step.\n"
    "\n"
    "    overlapscope demo run.db    # a comment\n"
    "\n"
    "| Name | Meaning |\n"
    "|---|---|\n"
    "| `a` | the first letter of the alphabet |\n"
    "| b·c | a \\| pipe, `\\x1b` |\n"
    "| c | a cell long enough that at forty columns the table is shown entry by entry |\n";

static const char at_80[] =
    "OVERLAPSCOPE DEMO\n"
    "\n"
    "SYNOPSIS\n"
    "overlapscope demo TRACE [--fast]\n"
    "\n"
    "DESCRIPTION\n"
    "Reads TRACE and prints a summary of what it holds, one line per stream, sorted\n"
    "by the time each stream was busy. Nothing else.\n"
    "\n"
    "- --fast: skip the slow part, which nobody needs when the trace is small. A\n"
    "  second line of the same item.\n"
    "- --x: short.\n"
    "  - nested item whose text is long enough to wrap at forty columns.\n"
    "\n"
    "1. First step.\n"
    "\n"
    "    overlapscope demo run.db    # a comment\n"
    "\n"
    "Name  Meaning\n"
    "--------------------------------------------------------------------------------\n"
    "a     the first letter of the alphabet\n"
    "b·c   a | pipe, \\x1b\n"
    "c     a cell long enough that at forty columns the table is shown entry by entry\n";

static const char at_40[] = "OVERLAPSCOPE DEMO\n"
                            "\n"
                            "SYNOPSIS\n"
                            "overlapscope demo TRACE [--fast]\n"
                            "\n"
                            "DESCRIPTION\n"
                            "Reads TRACE and prints a summary of what\n"
                            "it holds, one line per stream, sorted by\n"
                            "the time each stream was busy. Nothing\n"
                            "else.\n"
                            "\n"
                            "- --fast: skip the slow part, which\n"
                            "  nobody needs when the trace is small.\n"
                            "  A second line of the same item.\n"
                            "- --x: short.\n"
                            "  - nested item whose text is long\n"
                            "    enough to wrap at forty columns.\n"
                            "\n"
                            "1. First step.\n"
                            "\n"
                            "    overlapscope demo run.db    # a comment\n"
                            "\n"
                            "Name\n"
                            "    Meaning\n"
                            "a\n"
                            "    the first letter of the alphabet\n"
                            "b·c\n"
                            "    a | pipe, \\x1b\n"
                            "c\n"
                            "    a cell long enough that at forty\n"
                            "    columns the table is shown entry by\n"
                            "    entry\n";

/* The manual as manual_text_write writes it at width; the caller frees. */
static char *render(int width)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    CHECK(out != NULL);
    CHECK_INT(manual_text_write(markdown, width, out), 0);
    fclose(out);
    return text;
}

/* The widest line, in characters. */
static int widest_line(const char *text)
{
    int widest = 0, column = 0;
    for (const char *c = text; *c; c++) {
        if (*c == '\n')
            column = 0;
        else if (((unsigned char)*c & 0xC0) != 0x80 && ++column > widest)
            widest = column;
    }
    return widest;
}

int main(void)
{
    char *text = render(80);
    CHECK_STR(text, at_80);
    CHECK_INT(widest_line(text), 80);
    free(text);
    text = render(40);
    CHECK_STR(text, at_40);
    /* only the code block's line is wider than 40: code is kept as written */
    CHECK_INT(widest_line(text), 43);
    free(text);
    return check_finish();
}
