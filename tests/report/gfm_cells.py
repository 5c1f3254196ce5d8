#!/usr/bin/env python3
"""gfm_cells.py MARKDOWN HTML: every table cell, list item and heading of overlapscope's Markdown
(MARKDOWN) reads in GitHub's renderer (HTML, what cmark-gfm made of it) exactly as the text it
escapes: a name such as "x.py:3 <module>" must not vanish as an HTML tag, "__init__" must not turn
bold, "operator[](int)" must not become a link, a '|' must not split a cell. Prints each mismatch
and exits 1; prints the count of pieces compared and exits 0 when all match."""
import html.parser
import re
import sys

PUNCTUATION = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def unescape(text):
    """The text a Markdown piece means: CommonMark's backslash escapes undone, '**x**' as x."""
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in PUNCTUATION:
            out.append(text[i + 1])
            i += 2
        else:
            out.append(text[i])
            i += 1
    text = "".join(out).strip()
    return re.sub(r"^\*\*(.*)\*\*$", r"\1", text)


def code_spans(text):
    """Code spans ("`path`", "`` a`b ``") as their content."""
    return re.sub(r"(`+) ?(.*?) ?\1", r"\2", text)


def split_cells(row):
    """A table row's cells: split on each '|' that no backslash escapes."""
    cells, cell, i = [], [], 0
    row = row.strip()
    while i < len(row):
        if row[i] == "\\" and i + 1 < len(row):
            cell.append(row[i : i + 2])
            i += 2
            continue
        if row[i] == "|":
            cells.append("".join(cell))
            cell = []
        else:
            cell.append(row[i])
        i += 1
    cells.append("".join(cell))
    return cells[1:-1]  # the outer pipes


def intended(markdown):
    """(kind, text) of each piece, in document order."""
    pieces = []
    for line in markdown.splitlines():
        if re.match(r"^\|[-:|]+\|$", line):
            continue  # a table's delimiter row
        if line.startswith("|"):
            pieces += [("cell", code_spans(c.strip()) if c.strip().startswith("`") else unescape(c))
                       for c in split_cells(line)]
        elif line.startswith("- "):
            pieces.append(("item", unescape(line[2:])))
        elif line.startswith("#"):
            pieces.append(("heading", code_spans(line.lstrip("#").strip())))
    return pieces


class Rendered(html.parser.HTMLParser):
    """(kind, text) of each td/th, li and h1..h6 of the HTML, in document order."""

    KINDS = {"td": "cell", "th": "cell", "li": "item"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.pieces, self.open = [], None

    def handle_starttag(self, tag, attrs):
        kind = self.KINDS.get(tag) or ("heading" if re.fullmatch(r"h[1-6]", tag) else None)
        if kind and self.open is None:
            self.open = [kind, tag, ""]

    def handle_endtag(self, tag):
        if self.open and tag == self.open[1]:
            self.pieces.append((self.open[0], self.open[2].strip()))
            self.open = None

    def handle_data(self, data):
        if self.open:
            self.open[2] += data


def main():
    markdown = open(sys.argv[1], encoding="utf-8").read()
    rendered = Rendered()
    rendered.feed(open(sys.argv[2], encoding="utf-8").read())
    want, got = intended(markdown), rendered.pieces
    problems = []
    if len(want) != len(got):
        problems.append(f"{len(want)} pieces written, {len(got)} rendered")
    for (kind, text), (got_kind, got_text) in zip(want, got):
        if (kind, text) != (got_kind, got_text):
            problems.append(f"{kind} {text!r} renders as {got_kind} {got_text!r}")
    for problem in problems[:10]:
        print(f"{sys.argv[1]}: {problem}")
    if problems:
        return 1
    print(len(want))
    return 0


if __name__ == "__main__":
    sys.exit(main())
