/* test_render_fonts.c: a picture drawn where fontconfig knows no font (issue 19, Must 6: GPU
 * nodes and containers without fontconfig configuration showed boxes for every '·'). With
 * FONTCONFIG_FILE naming a configuration that lists no font directory, Cairo draws with its
 * built-in ASCII font; the picture must still be drawn, and every text placed must be what that
 * font can show: our punctuation in its ASCII form ("stream 13 - compute", "…" as "..."), a
 * user's characters the font lacks as '?'. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "glyphs.h"
#include "timeline.h"

static char directory[] = "/tmp/overlapscope-test-fonts-XXXXXX";

static const char *path_in(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", directory, name);
    return path;
}

/* Fontconfig reads FONTCONFIG_FILE once, at its first use: before any Cairo call. */
static int use_empty_font_configuration(void)
{
    FILE *config = fopen(path_in("fonts.conf"), "w");
    if (!config)
        return -1;
    fprintf(config,
            "<?xml version=\"1.0\"?>\n<!DOCTYPE fontconfig SYSTEM \"fonts.dtd\">\n"
            "<fontconfig><cachedir>%s/cache</cachedir></fontconfig>\n",
            directory);
    fclose(config);
    return setenv("FONTCONFIG_FILE", path_in("fonts.conf"), 1);
}

static int is_ascii(const char *text)
{
    for (; *text; text++)
        if ((unsigned char)*text >= 0x80)
            return 0;
    return 1;
}

static const struct timeline_text *find_text(const struct timeline_layout *layout,
                                             enum timeline_text_kind kind, const char *prefix)
{
    for (size_t i = 0; i < layout->text_count; i++)
        if (layout->texts[i].kind == kind && strncmp(layout->texts[i].text, prefix, strlen(prefix)) == 0)
            return &layout->texts[i];
    return NULL;
}

/* The mapping itself, with the built-in font: what it lacks becomes ASCII or '?', ASCII stays. */
static void test_fallback(void)
{
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    cairo_t *cr = cairo_create(surface);
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 12);
    char out[64];
    CHECK_INT(glyphs_fallback(cr,
                              "300\xc3\x97 \xe2\x80\xa6 a\xe2\x86\x92"
                              "b \xe9\xbe\x8d!",
                              out, sizeof out),
              4);
    CHECK_STR(out, "300x ... a->b ?!");
    CHECK_INT(glyphs_fallback(cr, "plain ASCII", out, sizeof out), 0);
    CHECK_STR(out, "plain ASCII");
    CHECK_INT(glyphs_fallback(cr, "\xc2\xb7\xc2\xb7\xc2\xb7", out, 3), 2); /* cut at the buffer, terminated */
    CHECK_STR(out, "--");
    CHECK(glyphs_ascii_form(0x00B7) && strcmp(glyphs_ascii_form(0x00B7), "-") == 0);
    CHECK(glyphs_ascii_form('a') == NULL);
    cairo_destroy(cr);
    cairo_surface_destroy(surface);
}

static void test_picture(store *trace, const struct analysis_result *analysis)
{
    struct timeline_options options;
    timeline_options_init(&options);
    options.title = "na\xc3\xafve run \xe9\xbe\x8d \xc2\xb7 step 1\xe2\x80\x93"
                    "2";
    struct timeline_layout *layout = NULL;
    error_info err;
    int status = timeline_draw(trace, analysis, &options, path_in("scenario.png"), &layout, &err);
    if (status != 0)
        fprintf(stderr, "%s\n", err.message);
    CHECK_INT(status, 0);
    CHECK(access(path_in("scenario.png"), F_OK) == 0);
    if (!layout)
        return;
    int non_ascii = 0;
    for (size_t i = 0; i < layout->text_count; i++)
        if (!is_ascii(layout->texts[i].text)) {
            fprintf(stderr, "not ASCII: '%s'\n", layout->texts[i].text);
            non_ascii++;
        }
    CHECK(layout->text_count > 10);
    CHECK_INT(non_ascii, 0);
    /* ours: '·' and '–' in their ASCII form; the user's 'ï' and '龍' as '?' */
    CHECK(find_text(layout, TIMELINE_TEXT_TITLE, "na?ve run ? - step 1-2") != NULL);
    CHECK(find_text(layout, TIMELINE_TEXT_GROUP, "rank 0 - GPU 0 - ") != NULL);
    CHECK(find_text(layout, TIMELINE_TEXT_LANE, "stream 13 - compute") != NULL);
    CHECK(find_text(layout, TIMELINE_TEXT_LANE, "stream 14 - NCCL") != NULL);
    timeline_layout_free(layout);
}

int main(void)
{
    if (!mkdtemp(directory) || use_empty_font_configuration() != 0) {
        perror(directory);
        return 1;
    }
    test_fallback();
    store *trace = fixture_scenario(path_in("scenario.db"));
    CHECK(trace != NULL);
    if (trace) {
        struct analysis_result *analysis = fixture_analysis();
        test_picture(trace, analysis);
        fixture_analysis_free(analysis);
        store_close(trace, NULL);
    }
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", directory);
    if (system(command) != 0)
        fprintf(stderr, "could not remove %s\n", directory);
    timeline_release_caches();
    return check_finish();
}
