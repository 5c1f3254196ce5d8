/* glyphs.c: see glyphs.h. */
#include "glyphs.h"

#include <string.h>

/* Every non-ASCII character overlapscope itself writes into a picture, and what it becomes in a
 * font without it. */
static const struct {
    unsigned long codepoint;
    const char *ascii;
} ascii_forms[] = {
    {0x00B7, "-"},   /* · middle dot: "stream 13 · compute" */
    {0x2013, "-"},   /* – en dash: "window 1 ms – 9 ms" */
    {0x2014, "-"},   /* — em dash */
    {0x2026, "..."}, /* … ellipsis: a shortened label */
    {0x00D7, "x"},   /* × multiplication sign: "300×" */
    {0x2192, "->"},  /* → arrow */
    {0x2264, "<="},  /* ≤ */
    {0x2265, ">="},  /* ≥ */
    {0x00B5, "u"},   /* µ micro sign */
    {0x2212, "-"},   /* − minus sign */
};

const char *glyphs_ascii_form(unsigned long codepoint)
{
    for (size_t i = 0; i < sizeof ascii_forms / sizeof ascii_forms[0]; i++)
        if (ascii_forms[i].codepoint == codepoint)
            return ascii_forms[i].ascii;
    return NULL;
}

/* The code point of the UTF-8 sequence at text (length bytes). */
static unsigned long decode(const unsigned char *text, size_t length)
{
    if (length == 1)
        return text[0];
    unsigned long codepoint = text[0] & (0x7F >> length);
    for (size_t i = 1; i < length; i++)
        codepoint = codepoint << 6 | (text[i] & 0x3F);
    return codepoint;
}

/* Whether the scaled font maps the character (length bytes of UTF-8) to a glyph other than the
 * font's "missing" glyph 0 (FreeType's FT_Get_Char_Index, and Cairo's built-in font alike). */
static int has_glyph(cairo_scaled_font_t *font, const char *character, int length)
{
    cairo_glyph_t *glyphs = NULL;
    int count = 0;
    cairo_status_t status =
        cairo_scaled_font_text_to_glyphs(font, 0, 0, character, length, &glyphs, &count, NULL, NULL, NULL);
    int found = status == CAIRO_STATUS_SUCCESS && count > 0;
    for (int i = 0; found && i < count; i++)
        found = glyphs[i].index != 0;
    cairo_glyph_free(glyphs);
    return found;
}

static size_t sequence_length(unsigned char lead)
{
    return lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
}

int glyphs_fallback(cairo_t *cr, const char *text, char *out, size_t size)
{
    cairo_scaled_font_t *font = cairo_get_scaled_font(cr);
    size_t used = 0;
    int replaced = 0;
    if (size == 0)
        return 0;
    for (const char *p = text; *p;) {
        size_t length = sequence_length((unsigned char)*p);
        if (strnlen(p, length) < length)
            length = 1; /* cut short: the caller's text is valid UTF-8, but never read past its end */
        const char *shown = p;
        size_t shown_length = length;
        int missing = length > 1 && !has_glyph(font, p, (int)length);
        if (missing) {
            const char *ascii = glyphs_ascii_form(decode((const unsigned char *)p, length));
            shown = ascii ? ascii : "?";
            shown_length = strlen(shown);
        }
        if (used + shown_length >= size)
            break;
        memcpy(out + used, shown, shown_length);
        used += shown_length;
        replaced += missing;
        p += length;
    }
    out[used] = '\0';
    return replaced;
}
