/* test_world.c: the world summary (report/world.h) on a hand-built job of 40 ranks whose figures
 * all differ: rank r runs two kernels over 1 ms with a gap of 5 us x (1 + 7r mod 40) between them
 * (every gap from 5 to 200 us once). The summary's min, median, p90 and max of busy and idle, the
 * ranks holding min and max, and the ranks at either end are computed here from the gaps and must
 * be what the Markdown, the text and the JSON's "world" say; 16 ranks keep a row each, and so does
 * --all-rows; with two devices a process, a device is named by its rank and its ordinal. */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "capture.h"
#include "check.h"
#include "report.h"
#include "trace_builder.h"
#include "units.h"

enum { RANKS = 40 };
static char directory[] = "/tmp/overlapscope-test-world-XXXXXX";

static double gap_us(int rank)
{
    return 5.0 * (1 + (7 * rank) % RANKS); /* 7 and 40 are coprime: each gap once */
}

/* ranks processes of devices GPUs each; device d of rank r has the gap of rank r * devices + d. */
static struct analysis_result *job(const char *name, int ranks, int devices)
{
    struct builder b;
    if (builder_create(&b, directory, name) != 0)
        return NULL;
    for (int r = 0; r < ranks; r++) {
        int64_t process = builder_process(&b, r);
        for (int d = 0; d < devices; d++) {
            builder_h100(&b, process, d);
            struct store_kernel first = builder_kernel_row(process, 7, 0, 500, 132, 256, "first");
            struct store_kernel second =
                builder_kernel_row(process, 7, 500 + gap_us(r * devices + d), 1000, 132, 256, "second");
            first.device_id = second.device_id = d;
            builder_insert_kernel(&b, first);
            builder_insert_kernel(&b, second);
        }
    }
    int status = builder_finish(&b);
    builder_close(&b);
    char path[600];
    snprintf(path, sizeof path, "%s/%s", directory, name);
    error_info err;
    struct analysis_result *result = status == 0 ? report_analyze_file(path, NULL, &err) : NULL;
    if (!result)
        fprintf(stderr, "%s: %s\n", name, status == 0 ? err.message : b.err.message);
    return result;
}

static char *capture(const struct analysis_result *result, int markdown, int all_rows)
{
    struct report_context context = {.trace_path = "world.db", .width = 80, .all_rows = all_rows};
    return capture_report(result, &context, markdown);
}

/* Ranks by gap, smallest first; equal gaps never happen here. */
static void ranks_by_gap(int order[RANKS])
{
    for (int r = 0; r < RANKS; r++)
        order[(7 * r) % RANKS] = r;
}

static void busy_cell(char *cell, size_t size, int rank)
{
    snprintf(cell, size, "%.1f%%", 100.0 * (1000.0 - gap_us(rank)) / 1000.0);
}

static void idle_cell(char *cell, size_t size, int rank)
{
    units_format_duration(cell, size, US(gap_us(rank)));
}

static void test_distribution(const char *markdown)
{
    int by_gap[RANKS];
    ranks_by_gap(by_gap);
    /* busy ascending is gap descending; the lower median and the nearest-rank p90 of 40 values are
     * the 20th and the 36th */
    int busy_min = by_gap[RANKS - 1], busy_median = by_gap[RANKS - 20], busy_p90 = by_gap[RANKS - 36],
        busy_max = by_gap[0];
    int idle_min = by_gap[0], idle_median = by_gap[19], idle_p90 = by_gap[35], idle_max = by_gap[RANKS - 1];
    CHECK_INT(busy_min, 17); /* 7 x 17 = 119 = 39 mod 40: the 200 us gap */
    const struct {
        const char *stat;
        int busy, idle;
    } rows[] = {{"min", busy_min, idle_min},
                {"median", busy_median, idle_median},
                {"p90", busy_p90, idle_p90},
                {"max", busy_max, idle_max}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char busy[32], idle[32], row[160];
        busy_cell(busy, sizeof busy, rows[i].busy);
        idle_cell(idle, sizeof idle, rows[i].idle);
        /* span, busy, kernels (every busy moment is a kernel), idle */
        snprintf(row, sizeof row, "\n| %s | 1.00 ms | %s | %s | %s |", rows[i].stat, busy, busy, idle);
        CHECK(strstr(markdown, row) != NULL);
        if (!strstr(markdown, row))
            fprintf(stderr, "missing row %s\n", row + 1);
    }
    char at[160];
    snprintf(at, sizeof at, "\n| min at | 0 | %d | %d | %d |", busy_min, busy_min, idle_min);
    CHECK(strstr(markdown, at) != NULL);
    snprintf(at, sizeof at, "\n| max at | 0 | %d | %d | %d |", busy_max, busy_max, idle_max);
    CHECK(strstr(markdown, at) != NULL);

    /* the three least busy ranks, and the three most idle: the largest gaps */
    char ends[256], cells[3][32];
    for (int k = 0; k < 3; k++)
        busy_cell(cells[k], sizeof cells[k], by_gap[RANKS - 1 - k]);
    snprintf(ends, sizeof ends, "\n| lowest busy | rank %d %s, rank %d %s, rank %d %s |", by_gap[RANKS - 1],
             cells[0], by_gap[RANKS - 2], cells[1], by_gap[RANKS - 3], cells[2]);
    CHECK(strstr(markdown, ends) != NULL);
    for (int k = 0; k < 3; k++)
        idle_cell(cells[k], sizeof cells[k], by_gap[k]);
    snprintf(ends, sizeof ends, "\n| least idle | rank %d %s, rank %d %s, rank %d %s |", by_gap[0], cells[0],
             by_gap[1], cells[1], by_gap[2], cells[2]);
    CHECK(strstr(markdown, ends) != NULL);
    CHECK(strstr(markdown, "40 devices, summarized (more than 16)") != NULL);
    CHECK(strstr(markdown, "\n| rank | device |") == NULL);
}

/* Every line within 80 columns; the summary's rows, no device's. */
static void test_text(const char *text)
{
    int longest = 0;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        int length = (int)(end ? end - line : (long)strlen(line));
        longest = length > longest ? length : longest;
        line = end ? end + 1 : line + length;
    }
    CHECK(longest <= 80);
    CHECK(strstr(text, "\nmin at ") != NULL);
    CHECK(strstr(text, "\n  lowest busy         rank 17 80.0%,") != NULL);
    CHECK(strstr(text, "\nrank  device") == NULL);
}

/* The JSON's "world": the same statistics, as numbers, with the devices holding min and max. */
static void test_json(const struct analysis_result *world, const struct analysis_result *small)
{
    int by_gap[RANKS];
    ranks_by_gap(by_gap);
    cJSON *root = report_to_json(world, NULL), *few = report_to_json(small, NULL);
    const cJSON *figures = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "world"), "figures");
    const cJSON *idle = cJSON_GetObjectItem(figures, "idle_ns"), *busy = cJSON_GetObjectItem(figures, "busy");
    CHECK(idle && busy);
    if (idle && busy) {
        CHECK_INT(cJSON_GetObjectItem(idle, "devices")->valuedouble, RANKS);
        CHECK_INT(cJSON_GetObjectItem(idle, "min")->valuedouble, US(gap_us(by_gap[0])));
        CHECK_INT(cJSON_GetObjectItem(idle, "median")->valuedouble, US(gap_us(by_gap[19])));
        CHECK_INT(cJSON_GetObjectItem(idle, "p90")->valuedouble, US(gap_us(by_gap[35])));
        CHECK_INT(cJSON_GetObjectItem(idle, "max")->valuedouble, US(gap_us(by_gap[RANKS - 1])));
        CHECK_INT(cJSON_GetObjectItem(idle, "max_rank")->valuedouble, 17);
        CHECK_NEAR(cJSON_GetObjectItem(busy, "min")->valuedouble, 0.8, 1e-12);
        CHECK_INT(cJSON_GetObjectItem(busy, "min_rank")->valuedouble, 17);
        /* the index into "devices" names the same device */
        int index = (int)cJSON_GetObjectItem(busy, "min_index")->valuedouble;
        const cJSON *device = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "devices"), index);
        CHECK(device && cJSON_GetObjectItem(device, "rank")->valuedouble == 17);
    }
    CHECK(cJSON_GetObjectItem(few, "world") == NULL); /* 16 devices: absent */
    cJSON_Delete(root);
    cJSON_Delete(few);
}

/* Processes of two devices each: a device is named by its rank and its ordinal. Rank 8's device 1
 * has the 200 us gap (device 17 of the 20 x 2 in order). */
static void test_devices_named(const struct analysis_result *pairs)
{
    char *markdown = capture(pairs, 1, 0);
    CHECK(strstr(markdown, "\n| min at | 0:0 | 8:1 | 8:1 | 0:0 |") != NULL);
    CHECK(strstr(markdown, "\n| lowest busy | rank 8 device 1 80.0%,") != NULL);
    CHECK(strstr(markdown, "the at rows name the rank:device holding min and max") != NULL);
    free(markdown);
}

static size_t count_of(const char *text, const char *what)
{
    size_t count = 0;
    for (const char *at = strstr(text, what); at; at = strstr(at + 1, what))
        count++;
    return count;
}

int main(void)
{
    if (!mkdtemp(directory))
        return 1;
    struct analysis_result *world = job("world.db", RANKS, 1), *small = job("small.db", 16, 1),
                           *pairs = job("pairs.db", RANKS / 2, 2);
    CHECK(world && small && pairs);
    if (pairs)
        test_devices_named(pairs);
    if (world && small) {
        CHECK_INT(world->device_count, RANKS);
        char *markdown = capture(world, 1, 0), *text = capture(world, 0, 0);
        test_distribution(markdown);
        test_text(text);
        test_json(world, small);
        free(markdown);
        free(text);
        /* the threshold: 16 devices keep their rows; --all-rows keeps every row past it */
        char *rows = capture(small, 1, 0), *all = capture(world, 1, 1);
        CHECK(strstr(rows, "\n| rank | device |") != NULL && strstr(rows, "\n| min |") == NULL);
        CHECK_INT(count_of(rows, " | 0 | 1.00 ms |"), 16);
        CHECK(strstr(all, "\n| rank | device |") != NULL && strstr(all, "\n| min |") == NULL);
        CHECK_INT(count_of(all, " | 0 | 1.00 ms |"), RANKS);
        free(rows);
        free(all);
    }
    analysis_free(world);
    analysis_free(small);
    analysis_free(pairs);
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", directory);
    if (system(command) != 0)
        fprintf(stderr, "could not remove %s\n", directory);
    return check_finish();
}
