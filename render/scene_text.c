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
    snprintf(entry->text, sizeof entry->text, "%s", text);
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

/* Shortens text in place to fit max_width, ending it with an ellipsis (as the font can show it);
 * returns 0 when even three characters and the ellipsis do not fit. */
static int fit_text(cairo_t *cr, char *text, double max_width)
{
    if (scene_text_width(cr, text) <= max_width)
        return 1;
    char ellipsis[8];
    glyphs_fallback(cr, "\xe2\x80\xa6", ellipsis, sizeof ellipsis);
    size_t length = strlen(text);
    char shortened[256];
    while (length > 3) {
        length--;
        while (length > 0 && ((unsigned char)text[length] & 0xC0) == 0x80)
            length--; /* never cut a UTF-8 sequence */
        snprintf(shortened, sizeof shortened, "%.*s%s", (int)length, text, ellipsis);
        if (scene_text_width(cr, shortened) <= max_width) {
            strcpy(text, shortened);
            return 1;
        }
    }
    return 0;
}

/* Draws text with its baseline at y, anchored at x; records its box. Returns 1 when drawn,
 * 0 when it did not fit or would overlap, -1 when out of memory. */
int scene_draw_text(struct scene *scene, cairo_t *cr, enum timeline_text_kind kind, const char *text,
                    double x, double y, const struct text_style *style)
{
    char safe[256], fitted[256];
    /* Names from the trace may hold controls or bytes that are not UTF-8: Cairo would refuse
     * the string (and the whole picture with it). Then what the font cannot show is replaced
     * (glyphs.h), before measuring. */
    text_safe_copy(safe, sizeof safe, text, TEXT_SAFE_PICTURE);
    scene_select_font(cr, style->size, style->bold);
    glyphs_fallback(cr, safe, fitted, sizeof fitted);
    if (!fitted[0] || (style->whole ? scene_text_width(cr, fitted) > style->max_width
                                    : !fit_text(cr, fitted, style->max_width)))
        return 0;
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
