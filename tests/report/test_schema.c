/* test_schema.c: the JSON Schemas under docs/schema/ list the same tags as the tables they come
 * from, so that they never drift: each cause, fix and fix-basis tag of analyzer/causes/causes.def,
 * each category tag, each named metric (report/metrics.c) and each stats report, in the same order
 * where the schema keeps one. tests/report/schema.sh validates every golden's JSON against them. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "report.h"
#include "stats.h"

static cJSON *load(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/schema/%s", OVERLAPSCOPE_DOCS, name);
    FILE *file = fopen(path, "rb");
    if (!file) {
        fprintf(stderr, "cannot open %s\n", path);
        return NULL;
    }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *text = size > 0 ? malloc((size_t)size + 1) : NULL;
    size_t got = text ? fread(text, 1, (size_t)size, file) : 0;
    fclose(file);
    cJSON *schema = NULL;
    if (text) {
        text[got] = '\0';
        schema = cJSON_Parse(text);
    }
    free(text);
    if (!schema)
        fprintf(stderr, "%s: not JSON\n", path);
    return schema;
}

/* schema's node at a path of keys ("$defs", "fix", "enum"), NULL when absent. */
static const cJSON *at(const cJSON *node, const char *const *keys, size_t count)
{
    for (size_t i = 0; node && i < count; i++)
        node = cJSON_GetObjectItemCaseSensitive(node, keys[i]);
    return node;
}
#define AT(node, ...)                                                                                        \
    at(node, (const char *const[]){__VA_ARGS__}, sizeof((const char *const[]){__VA_ARGS__}) / sizeof(char *))

/* A list of strings: an enum's values, an object's keys or a required list. */
struct names {
    const char *items[128];
    size_t count;
};

static struct names strings_of(const cJSON *array)
{
    struct names names = {.count = 0};
    const cJSON *item;
    cJSON_ArrayForEach(item, array) if (cJSON_IsString(item) && names.count < 128)
        names.items[names.count++] = item->valuestring;
    return names;
}

static struct names keys_of(const cJSON *object)
{
    struct names names = {.count = 0};
    const cJSON *item;
    cJSON_ArrayForEach(item, object) if (names.count < 128) names.items[names.count++] = item->string;
    return names;
}

static void add(struct names *names, const char *name)
{
    for (size_t i = 0; i < names->count; i++)
        if (strcmp(names->items[i], name) == 0)
            return;
    if (names->count < 128)
        names->items[names->count++] = name;
}

/* The schema's list equals the table's, in order; what: the list's name in a failure. */
static void check_names(const char *what, struct names schema, struct names table)
{
    int same = schema.count == table.count;
    for (size_t i = 0; same && i < table.count; i++)
        same = strcmp(schema.items[i], table.items[i]) == 0;
    if (!same) {
        fprintf(stderr, "%s: the schema lists", what);
        for (size_t i = 0; i < schema.count; i++)
            fprintf(stderr, " %s", schema.items[i]);
        fprintf(stderr, "\n%s: the table has", what);
        for (size_t i = 0; i < table.count; i++)
            fprintf(stderr, " %s", table.items[i]);
        fputc('\n', stderr);
    }
    CHECK(same);
}

static void check_report(const cJSON *report)
{
    struct names waits = {.count = 0}, idle = {.count = 0}, comm = {.count = 0}, copies = {.count = 0},
                 fixes = {.count = 0}, bases = {.count = 0}, metrics = {.count = 0},
                 categories = {.count = 0};
    for (int c = 0; c < ANALYSIS_CAUSE_COUNT; c++)
        add(&waits, analysis_cause_tag((enum analysis_cause)c));
    for (int c = 0; c < ACCOUNTING_CAUSE_COUNT; c++)
        add(accounting_cause_is_idle((enum accounting_cause)c)   ? &idle
            : accounting_cause_is_copy((enum accounting_cause)c) ? &copies
                                                                 : &comm,
            accounting_cause_tag((enum accounting_cause)c));
    for (int f = 0; f < ANALYSIS_FIX_COUNT; f++) {
        add(&fixes, analysis_fix_tag((enum analysis_fix)f));
        add(&bases, analysis_fix_basis((enum analysis_fix)f));
    }
    for (size_t i = 0; i < report_metric_count(); i++)
        add(&metrics, report_metric_at(i)->name);
    for (int c = 0; c < ANALYSIS_CATEGORY_COUNT; c++)
        add(&categories, analysis_category_tag((enum analysis_category)c));

    check_names("wait causes", strings_of(AT(report, "$defs", "wait_cause", "enum")), waits);
    check_names("idle causes", strings_of(AT(report, "$defs", "idle_cause", "enum")), idle);
    check_names("exposed-communication causes", strings_of(AT(report, "$defs", "comm_cause", "enum")), comm);
    check_names("exposed-copy causes", strings_of(AT(report, "$defs", "copy_cause", "enum")), copies);
    check_names("fixes", strings_of(AT(report, "$defs", "fix", "enum")), fixes);
    /* A what-if's cause: a wait cause's tag, or a FIX row's basis (in the rows' order, each once). */
    const cJSON *basis = AT(report, "$defs", "fix_basis", "anyOf");
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(basis, 0), "$ref")->valuestring, "#/$defs/wait_cause");
    check_names("fix bases", strings_of(AT(cJSON_GetArrayItem(basis, 1), "enum")), bases);
    check_names("metric names", strings_of(AT(report, "$defs", "metric", "enum")), metrics);
    check_names("summary keys", keys_of(AT(report, "properties", "summary", "properties")), metrics);
    check_names("summary required", strings_of(AT(report, "properties", "summary", "required")), metrics);
    check_names("category tags", strings_of(AT(report, "$defs", "category_tag", "enum")), categories);
    check_names("categories' keys", keys_of(AT(report, "$defs", "by_category", "properties")), categories);
    check_names("category overlap keys",
                keys_of(AT(report, "$defs", "device", "properties", "category_overlap_ns", "properties")),
                categories);
    CHECK_INT(AT(report, "properties", "schema_version", "const")->valueint, REPORT_JSON_SCHEMA_VERSION);
    /* Every top-level key but check's and world's (past 16 devices only) is required. */
    struct names required = strings_of(AT(report, "required")), keys = keys_of(AT(report, "properties"));
    CHECK_INT(required.count + 2, keys.count);
    CHECK(AT(report, "properties", "check") && AT(report, "properties", "world"));
}

static void check_diff(const cJSON *diff)
{
    struct names units = {.count = 0};
    for (size_t i = 0; i < report_metric_count(); i++)
        add(&units, report_metric_at(i)->unit);
    struct names schema =
        strings_of(AT(diff, "properties", "metrics", "items", "properties", "unit", "enum"));
    for (size_t i = 0; i < units.count; i++) {
        size_t k = 0;
        while (k < schema.count && strcmp(schema.items[k], units.items[i]) != 0)
            k++;
        if (k == schema.count)
            fprintf(stderr, "diff.json: unit %s missing\n", units.items[i]);
        CHECK(k < schema.count);
    }
    CHECK_INT(AT(diff, "properties", "schema_version", "const")->valueint, REPORT_JSON_SCHEMA_VERSION);
}

static void check_stats(const cJSON *stats)
{
    struct names reports = {.count = 0};
    for (int r = 0; r < STATS_REPORT_COUNT; r++)
        add(&reports, stats_report_tag((enum stats_report)r));
    check_names("stats reports", strings_of(AT(stats, "$defs", "table", "properties", "report", "enum")),
                reports);
    /* One row schema per report, picked by its tag. */
    for (size_t i = 0; i < reports.count; i++) {
        char row[64];
        snprintf(row, sizeof row, "%s_row", reports.items[i]);
        CHECK(AT(stats, "$defs", row) != NULL);
    }
}

int main(void)
{
    cJSON *report = load("report.json"), *check = load("check.json"), *diff = load("diff.json"),
          *stats = load("stats.json");
    CHECK(report && check && diff && stats);
    if (report && check && diff && stats) {
        check_report(report);
        check_diff(diff);
        check_stats(stats);
        /* check.json and diff.json name report.json relative to their own $id. */
        CHECK_STR(AT(check, "$ref")->valuestring, "report.json");
        CHECK_STR(AT(report, "$id")->valuestring, "https://overlapscope.invalid/schema/report.json");
    }
    cJSON_Delete(report);
    cJSON_Delete(check);
    cJSON_Delete(diff);
    cJSON_Delete(stats);
    return check_finish();
}
