/* scene_text.c: every text of the picture is placed here: made safe for Cairo, what the font
 * cannot show replaced, shortened with an ellipsis to its room, refused where it would overlap a
 * text already placed, and recorded in the layout. */
#include "scene_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glyphs.h"
#include "text_safe.h"

static int boxes_overlap(const struct timeline_box *a, const struct timeline_box *b)
{
    return a->x < b->x + b->width && b->x < a->x + a->width && a->y < b->y + b->height &&
           b->y < a->y + a->height;
}

static int box_is_free(const struct scene *scene, const struct timeline_box *box)
{
    for (size_t i = 0; i < scene->layout->text_count; i++)
        if (boxes_overlap(box, &scene->layout->texts[i].box))
            return 0;
    return 1;
}

static int record_text(struct scene *scene, enum timeline_text_kind kind, const struct timeline_box *box,
                       const char *text)
{
    struct timeline_layout *layout = scene->layout;
    if (layout->text_count == scene->text_capacity) {
        size_t grown = scene->text_capacity ? scene->text_capacity * 2 : 256;
        struct timeline_text *resized = realloc(layout->texts, grown * sizeof *resized);
        if (!resized)
            return -1;
        layout->texts = resized;
        scene->text_capacity = grown;
    }
    struct timeline_text *entry = &layout->texts[layout->text_count++];
    entry->kind = kind;
    entry->box = *box;
    /* A text longer than the record is cut between characters, as the picture's own texts are. */
    text_safe_copy(entry->text, sizeof entry->text, text, TEXT_SAFE_UTF8);
    return 0;
}

void scene_select_font(cairo_t *cr, double size, int bold)
{
    cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
}

double scene_text_width(cairo_t *cr, const char *text)
{
    cairo_text_extents_t extents;
    cairo_text_extents(cr, text, &extents);
    return extents.x_advance;
}

/* The width text takes as drawn: with what the font cannot show replaced (glyphs.h). */
double scene_shown_width(cairo_t *cr, const char *text)
{
    char shown[512];
    glyphs_fallback(cr, text, shown, sizeof shown);
    return scene_text_width(cr, shown);
}

/* The longest text drawn, in bytes: no picture shows more (30,000 px at 24 dpi holds about 46,000
 * of the narrowest glyphs), and a command line or a name from a trace may be megabytes long. */
#define TEXT_MAX_BYTES 65536

/* The code point of the UTF-8 sequence at text (valid UTF-8, as every text here is by then). */
static uint32_t code_point_at(const unsigned char *text)
{
    if (text[0] < 0x80)
        return text[0];
    int length = text[0] >= 0xF0 ? 4 : text[0] >= 0xE0 ? 3 : 2;
    uint32_t code = text[0] & (0x7F >> length);
    for (int i = 1; i < length && (text[i] & 0xC0) == 0x80; i++)
        code = code << 6 | (text[i] & 0x3F);
    return code;
}

/* Whether the character continues the one before it on screen: a combining mark (an accent), a
 * zero-width joiner or non-joiner, a variation selector, an emoji skin tone or tag. A cut before
 * one would leave a letter without its accent or half an emoji. Not the whole of Unicode's
 * grapheme rules (UAX #29), only the marks that follow a character in Latin, Greek, Cyrillic,
 * kana and emoji text. */
static int continues_previous(uint32_t code)
{
    static const uint32_t ranges[][2] = {
        {0x0300, 0x036F}, {0x0483, 0x0489},   {0x1AB0, 0x1AFF},   {0x1DC0, 0x1DFF},
        {0x200C, 0x200D}, {0x20D0, 0x20FF},   {0x3099, 0x309A},   {0xFE00, 0xFE0F},
        {0xFE20, 0xFE2F}, {0x1F3FB, 0x1F3FF}, {0xE0020, 0xE007F}, {0xE0100, 0xE01EF},
    };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        if (code >= ranges[i][0] && code <= ranges[i][1])
            return 1;
    return 0;
}

/* Whether text may be cut before byte `at`: between two UTF-8 sequences, not before a mark that
 * continues the character before it, nor after a zero-width joiner. */
static int cut_allowed(const char *text, size_t at)
{
    const unsigned char *bytes = (const unsigned char *)text;
    if (at == 0)
        return 1;
    if ((bytes[at] & 0xC0) == 0x80 || (bytes[at] && continues_previous(code_point_at(bytes + at))))
        return 0;
    size_t previous = at - 1;
    while (previous > 0 && (bytes[previous] & 0xC0) == 0x80)
        previous--;
    return code_point_at(bytes + previous) != 0x200D;
}

/* Whether text's first `length` bytes and the ellipsis fit max_width; shortened has room for them. */
static int prefix_fits(cairo_t *cr, const char *text, size_t length, const char *ellipsis, char *shortened,
                       double max_width)
{
    memcpy(shortened, text, length);
    strcpy(shortened + length, ellipsis);
    return scene_text_width(cr, shortened) <= max_width;
}

/* Shortens text in place to fit max_width, cut between characters (cut_allowed) and ended with an
 * ellipsis (as the font can show it); text has room for 8 bytes more than its length. `cut`: text
 * is already the start of a longer one, so it ends with the ellipsis even when it fits. Returns 1,
 * 0 when even three bytes and the ellipsis do not fit, -1 when out of memory.
 *
 * The prefixes tried are those the one-character-at-a-time search from the end tried (each
 * shorter than the text, down to the first of three bytes or fewer); with no kerning in Cairo's
 * text API a longer prefix is never narrower, so the longest one that fits is found by bisection:
 * a title of thousands of characters takes a dozen measurements, not thousands. */
static int fit_text(cairo_t *cr, char *text, double max_width, int cut)
{
    if (!cut && scene_text_width(cr, text) <= max_width)
        return 1;
    char ellipsis[8];
    glyphs_fallback(cr, "\xe2\x80\xa6", ellipsis, sizeof ellipsis);
    size_t length = strlen(text);
    size_t *cuts = malloc((length + 1) * sizeof *cuts); /* the allowed cuts, shortest first */
    char *shortened = malloc(length + sizeof ellipsis);
    if (!cuts || !shortened) {
        free(cuts);
        free(shortened);
        return -1;
    }
    size_t count = 0;
    for (size_t at = 0; at < length; at++)
        if (cut_allowed(text, at))
            cuts[count++] = at;
    /* Of the cuts of 3 bytes or fewer only the longest is tried, and none in a text of 3 bytes or
     * fewer: the search from the end stopped there. */
    size_t first = 0;
    while (first + 1 < count && cuts[first + 1] <= 3)
        first++;
    if (length <= 3)
        first = count;
    if (cut && cut_allowed(text, length))
        cuts[count++] = length;
    int found = 0;
    size_t low = first, high = count; /* the longest fitting cut is in [low, high) */
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (prefix_fits(cr, text, cuts[middle], ellipsis, shortened, max_width)) {
            found = 1;
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    if (found)
        strcpy(text + cuts[low - 1], ellipsis);
    free(cuts);
    free(shortened);
    return found;
}

/* scene_draw_text's text once safe for Cairo and the font (fitted: room for 8 bytes more). */
static int draw_fitted(struct scene *scene, cairo_t *cr, enum timeline_text_kind kind, char *fitted, int cut,
                       double x, double y, const struct text_style *style)
{
    int fits = !fitted[0]     ? 0
               : style->whole ? !cut && scene_text_width(cr, fitted) <= style->max_width
                              : fit_text(cr, fitted, style->max_width, cut);
    if (fits <= 0)
        return fits;
    cairo_font_extents_t font;
    cairo_font_extents(cr, &font);
    double width = scene_text_width(cr, fitted);
    double left = style->align == ALIGN_LEFT ? x : style->align == ALIGN_CENTER ? x - width / 2 : x - width;
    double pad = style->backed ? 2 : 0;
    struct timeline_box box = {left - pad, y - font.ascent - pad, width + 2 * pad,
                               font.ascent + font.descent + 2 * pad};
    if (style->must_be_free && !box_is_free(scene, &box))
        return 0;
    if (style->backed) {
        scene_set_colour(cr, PALETTE_BACKGROUND, 0.92);
        cairo_rectangle(cr, box.x, box.y, box.width, box.height);
        cairo_fill(cr);
    }
    scene_set_colour(cr, style->rgb, 1);
    cairo_move_to(cr, left, y);
    cairo_show_text(cr, fitted);
    return record_text(scene, kind, &box, fitted) == 0 ? 1 : -1;
}

/* Draws text with its baseline at y, anchored at x; records its box. Returns 1 when drawn,
 * 0 when it did not fit or would overlap, -1 when out of memory. */
int scene_draw_text(struct scene *scene, cairo_t *cr, enum timeline_text_kind kind, const char *text,
                    double x, double y, const struct text_style *style)
{
    /* Names from the trace may hold controls or bytes that are not UTF-8: Cairo would refuse
     * the string (and the whole picture with it). Then what the font cannot show is replaced
     * (glyphs.h), never lengthening it, before measuring. */
    size_t needed = text_safe_copy(NULL, 0, text, TEXT_SAFE_PICTURE);
    int cut = needed > TEXT_MAX_BYTES;
    char *safe = malloc((cut ? TEXT_MAX_BYTES : needed) + 1);
    if (safe)
        text_safe_copy(safe, (cut ? TEXT_MAX_BYTES : needed) + 1, text, TEXT_SAFE_PICTURE);
    size_t room = safe ? strlen(safe) + 8 : 0; /* fit_text may end a text 2 bytes longer */
    char *fitted = safe ? malloc(room) : NULL;
    if (!fitted) {
        free(safe);
        return -1;
    }
    scene_select_font(cr, style->size, style->bold);
    glyphs_fallback(cr, safe, fitted, room);
    free(safe);
    int status = draw_fitted(scene, cr, kind, fitted, cut, x, y, style);
    free(fitted);
    return status;
}
