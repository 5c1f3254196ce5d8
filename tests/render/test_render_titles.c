/* test_render_titles.c: titles of any length and script draw (issue 33, M1). A title or a process's
 * command line of 254 bytes or more, wider than the picture, made PNG, SVG and PDF fail with
 * "cannot draw: input string not valid UTF-8": the text was cut to 255 bytes, then shortened one
 * character at a time with the ellipsis printed into a 256-byte buffer, which cut the ellipsis's
 * own bytes. Every title here is drawn in the three formats, cut between two characters (never
 * inside one, never before the accent of the letter before, never inside an emoji sequence), ends
 * with an ellipsis, stays inside the picture, and a title that fits is drawn whole. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "glyphs.h"
#include "text_safe.h"
#include "timeline.h"

#define ELLIPSIS "\xe2\x80\xa6"
#define COMBINING_ACUTE "\xcc\x81" /* U+0301, drawn on the letter before it */
#define ZWJ "\xe2\x80\x8d"         /* U+200D, joins two emoji into one */

/* A title of exactly `bytes` bytes: `prefix`, then `pattern` repeated (never cutting one of its
 * characters), then dots to the length. The caller frees. */
static char *repeat(const char *prefix, const char *pattern, size_t bytes)
{
    char *title = malloc(bytes + 1);
    if (!title)
        return NULL;
    size_t used = strlen(prefix) < bytes ? strlen(prefix) : 0;
    memcpy(title, prefix, used);
    for (const char *p = pattern; used < bytes;) {
        size_t length = 1;
        while (((unsigned char)p[length] & 0xC0) == 0x80)
            length++;
        if (used + length > bytes)
            break;
        memcpy(title + used, p, length);
        used += length;
        p += length;
        if (!*p)
            p = pattern;
    }
    memset(title + used, '.', bytes - used);
    title[bytes] = '\0';
    return title;
}

static const struct timeline_text *title_text(const struct timeline_layout *layout)
{
    for (size_t i = 0; i < layout->text_count; i++)
        if (layout->texts[i].kind == TIMELINE_TEXT_TITLE)
            return &layout->texts[i]; /* the title comes before the figures' lines */
    return NULL;
}

/* A fresh path /tmp/overlapscope-test-NAME-XXXXXX.EXTENSION, left absent. */
static int reserve(char *path, size_t size, const char *name, const char *extension)
{
    if (fixture_picture_path(path, size, name) != 0)
        return -1;
    char *dot = strrchr(path, '.'); /* fixture_picture_path names a .png */
    return (size_t)snprintf(dot, size - (size_t)(dot - path), ".%s", extension) < size - (size_t)(dot - path)
               ? 0
               : -1;
}

/* Draws the fixture with title in format extension; returns the layout (caller frees) or NULL. */
static struct timeline_layout *draw(store *trace, const char *title, const char *extension, int width_px)
{
    char path[256];
    if (reserve(path, sizeof path, "titles", extension) != 0)
        return NULL;
    struct timeline_options options;
    timeline_options_init(&options);
    options.title = title;
    options.width_px = width_px;
    struct timeline_layout *layout = NULL;
    error_info err = {0};
    int status = timeline_draw(trace, NULL, &options, path, &layout, &err);
    CHECK_INT(status, 0);
    if (status != 0)
        fprintf(stderr, "  %s (%zu bytes) as %s: %s\n", extension, strlen(title), extension, err.message);
    size_t size = 0;
    char *data = status == 0 ? fixture_read_file(path, &size) : NULL;
    CHECK(data != NULL && size > 0);
    if (data && strcmp(extension, "svg") == 0)
        CHECK(text_safe_is_clean(data,
                                 TEXT_SAFE_UTF8)); /* the SVG is valid UTF-8: no byte of a cut character */
    if (data && strcmp(extension, "pdf") == 0)
        CHECK(strncmp(data, "%PDF", 4) == 0);
    if (data && strcmp(extension, "png") == 0)
        CHECK(memcmp(data, "\x89PNG", 4) == 0);
    free(data);
    unlink(path);
    return layout;
}

/* The title as the picture can show it: each character the title's font (bold DejaVu Sans, as
 * render/scene_private.h sets it) has no glyph for replaced (glyphs.h), as every drawn text is.
 * The caller frees. */
static char *shown_form(const char *title)
{
    size_t size = strlen(title) + 1;
    char *shown = malloc(size);
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    cairo_t *cr = cairo_create(surface);
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    cairo_set_font_size(cr, 17);
    if (shown)
        glyphs_fallback(cr, title, shown, size);
    cairo_destroy(cr);
    cairo_surface_destroy(surface);
    return shown;
}

/* The drawn title is a prefix of title, cut where a cut is allowed, then the ellipsis; inside the
 * picture. */
static void check_shortened(const struct timeline_layout *layout, const char *original)
{
    char *title = shown_form(original);
    const struct timeline_text *text = title_text(layout);
    CHECK(title != NULL);
    if (!title)
        return;
    CHECK(text != NULL);
    /* The layout records 255 bytes of a text: the pictures checked here are narrow enough that the
     * whole shortened title is recorded. */
    CHECK(text && strlen(text->text) < sizeof text->text - 1);
    if (!text || strlen(text->text) >= sizeof text->text - 1) {
        free(title);
        return;
    }
    size_t length = strlen(text->text);
    CHECK(text_safe_is_clean(text->text, TEXT_SAFE_UTF8));
    CHECK(length >= strlen(ELLIPSIS) && strcmp(text->text + length - strlen(ELLIPSIS), ELLIPSIS) == 0);
    size_t kept = length - strlen(ELLIPSIS);
    CHECK(kept > 0 && strncmp(text->text, title, kept) == 0);
    CHECK(((unsigned char)title[kept] & 0xC0) != 0x80);        /* between two characters */
    CHECK(strncmp(title + kept, COMBINING_ACUTE, 2) != 0);     /* the accent stays with its letter */
    CHECK(kept < 3 || strncmp(title + kept - 3, ZWJ, 3) != 0); /* no emoji left joined to nothing */
    CHECK(strncmp(title + kept, ZWJ, 3) != 0);
    CHECK(text->box.x >= 0 && text->box.x + text->box.width <= layout->width_px - 16 + 0.5);
    free(title);
}

static void test_long_titles(store *trace)
{
    static const char *const extensions[] = {"png", "svg", "pdf"};
    /* 300 bytes: a command line with Latin accents (é as one code point and as e + U+0301). */
    char *latin =
        repeat("torchrun --nproc_per_node=8 train.py ", "--r\xc3\xa9sum\xc3\xa9=e" COMBINING_ACUTE " ", 300);
    /* 5,000 bytes: that command line's first 290 bytes, then CJK, a family emoji joined by a ZWJ,
     * a thumbs-up with a skin tone, accents. */
    char *mixed = NULL;
    if (latin) {
        latin[290] = '\0';
        mixed = repeat(latin,
                       "\xe8\xa8\x93\xe7\xb7\xb4 \xf0\x9f\x91\xa9" ZWJ "\xf0\x9f\x91\xa7 "
                       "\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd e" COMBINING_ACUTE "\xc3\xa9 ",
                       5000);
        free(latin);
        latin = repeat("torchrun --nproc_per_node=8 train.py ",
                       "--r\xc3\xa9sum\xc3\xa9=e" COMBINING_ACUTE " ", 300);
    }
    /* Plain ASCII of 300 bytes: the old search failed on it too. */
    char *ascii = repeat("", "x", 300);
    /* Cut inside CJK and emoji sequences from the first character, and inside accents only: every
     * other place between two code points is before a U+0301. */
    char *emoji = repeat(
        "", "\xf0\x9f\x91\xa9" ZWJ "\xf0\x9f\x91\xa7\xe8\xa8\x93\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd", 5000);
    char *accents = repeat("", "e" COMBINING_ACUTE, 600);
    CHECK(latin && mixed && ascii && emoji && accents);
    if (!latin || !mixed || !ascii || !emoji || !accents)
        goto done;
    CHECK_INT(strlen(latin), 300);
    CHECK_INT(strlen(mixed), 5000);
    const char *titles[] = {latin, mixed, ascii, emoji, accents};
    for (size_t t = 0; t < sizeof titles / sizeof titles[0]; t++)
        for (size_t e = 0; e < 3; e++)
            for (int width_px = 800; width_px <= 1600; width_px += 800) {
                struct timeline_layout *layout = draw(trace, titles[t], extensions[e], width_px);
                CHECK(layout != NULL);
                if (layout && width_px == 800)
                    check_shortened(layout, titles[t]);
                timeline_layout_free(layout);
            }
done:
    free(latin);
    free(mixed);
    free(ascii);
    free(emoji);
    free(accents);
}

/* A title of 300 bytes that fits a wide picture is drawn whole, not cut at 255 bytes: it is wider
 * than its own first 255 bytes. */
static void test_whole_title(store *trace)
{
    char *title = repeat("", "abc ", 300), *start = repeat("", "abc ", 255);
    CHECK(title && start);
    struct timeline_layout *whole = title ? draw(trace, title, "png", 8000) : NULL;
    struct timeline_layout *part = start ? draw(trace, start, "png", 8000) : NULL;
    const struct timeline_text *whole_text = whole ? title_text(whole) : NULL,
                               *part_text = part ? title_text(part) : NULL;
    CHECK(whole_text && part_text);
    if (whole_text && part_text) {
        CHECK(strstr(whole_text->text, ELLIPSIS) == NULL);
        CHECK(whole_text->box.width > part_text->box.width + 20);
    }
    timeline_layout_free(whole);
    timeline_layout_free(part);
    free(title);
    free(start);
}

int main(void)
{
    char path[256];
    if (reserve(path, sizeof path, "titles-trace", "db") != 0)
        return 1;
    store *trace = fixture_scenario(path);
    CHECK(trace != NULL);
    if (trace) {
        test_long_titles(trace);
        test_whole_title(trace);
        store_close(trace, NULL);
    }
    unlink(path);
    timeline_release_caches();
    return check_finish();
}
