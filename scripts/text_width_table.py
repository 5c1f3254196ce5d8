#!/usr/bin/env python3
"""Writes the range tables of common/text_width.c from the Unicode database Python carries
(unicodedata.unidata_version): two columns for East Asian Width W and F, none for nonspacing and
enclosing marks (Mn, Me), format characters (Cf, but not those that print: the Arabic number
signs U+0600..U+0605, U+06DD, U+070F, U+0890..U+0891, U+08E2, U+110BD, U+110CD) and Hangul's
medial vowels and final consonants. Run: python3 scripts/text_width_table.py > /tmp/tables.c and
paste the two arrays."""
import unicodedata

PRINTING_FORMAT = {0x600, 0x601, 0x602, 0x603, 0x604, 0x605, 0x6DD, 0x70F, 0x890, 0x891, 0x8E2, 0x110BD, 0x110CD}


def width(code):
    ch = chr(code)
    category = unicodedata.category(ch)
    if category in ("Mn", "Me") or (category == "Cf" and code not in PRINTING_FORMAT):
        return 0
    if 0x1160 <= code <= 0x11FF or 0xD7B0 <= code <= 0xD7FF:
        return 0
    if unicodedata.east_asian_width(ch) in "WF":
        return 2
    if 0x20000 <= code <= 0x2FFFD or 0x30000 <= code <= 0x3FFFD:
        return 2  # the CJK planes, assigned or not
    return 1


def ranges(wanted):
    out, start = [], None
    for code in range(0x300, 0x110000):
        hit = not (0xD800 <= code <= 0xDFFF) and width(code) == wanted
        if hit and start is None:
            start = code
        elif not hit and start is not None:
            out.append((start, code - 1))
            start = None
    return out


for name, wanted in (("wide", 2), ("zero", 0)):
    rows = ranges(wanted)
    print(f"/* {len(rows)} ranges, Unicode {unicodedata.unidata_version} */")
    print(f"static const struct range {name}[] = {{")
    print("    " + " ".join(f"{{0x{a:X}, 0x{b:X}}}," for a, b in rows))
    print("};")
