/* test_causes.c: the cause table (analyzer/causes/causes.def) is consistent, and every row is
 * documented where users look: docs/metrics.md names every tag and metric, the check manual every
 * metric. The documentation check reads the rows themselves, so a new row without its docs fails
 * here. */
#include <stdlib.h>
#include <string.h>

#include "causes.h"
#include "check.h"

static char *read_file(const char *path)
{
    FILE *file = fopen(path, "rb");
    if (!file)
        return NULL;
    char *text = NULL;
    size_t size = 0, used = 0, got;
    do {
        if (used + 4096 + 1 > size) {
            size = (used + 4096 + 1) * 2;
            char *grown = realloc(text, size);
            if (!grown)
                break;
            text = grown;
        }
        got = fread(text + used, 1, 4096, file);
        used += got;
    } while (got > 0);
    fclose(file);
    if (text)
        text[used] = '\0';
    return text;
}

/* Whether `word` stands in text between backticks, as the docs' tables write tags and metrics. */
static int documented(const char *text, const char *word)
{
    char quoted[128];
    snprintf(quoted, sizeof quoted, "`%s`", word);
    return text && strstr(text, quoted) != NULL;
}

static void test_rows_are_distinct(void)
{
    for (int a = 0; a < ANALYSIS_CAUSE_COUNT; a++)
        for (int b = a + 1; b < ANALYSIS_CAUSE_COUNT; b++) {
            CHECK(strcmp(analysis_cause_tag(a), analysis_cause_tag(b)) != 0);
            CHECK(strcmp(analysis_cause_metric(a), analysis_cause_metric(b)) != 0);
        }
    for (int a = 0; a < ACCOUNTING_CAUSE_COUNT; a++)
        for (int b = a + 1; b < ACCOUNTING_CAUSE_COUNT; b++) {
            if (accounting_cause_is_idle(a) == accounting_cause_is_idle(b) &&
                accounting_cause_is_copy(a) == accounting_cause_is_copy(b))
                CHECK(strcmp(accounting_cause_tag(a), accounting_cause_tag(b)) != 0);
            CHECK(strcmp(accounting_cause_metric(a), accounting_cause_metric(b)) != 0);
        }
    for (int a = 0; a < ANALYSIS_FIX_COUNT; a++)
        for (int b = a + 1; b < ANALYSIS_FIX_COUNT; b++)
            CHECK(strcmp(analysis_fix_tag(a), analysis_fix_tag(b)) != 0);
    CHECK_STR(analysis_fix_tag(ANALYSIS_FIX_COUNT - 1), "all"); /* "all of the above" stays last */
}

/* Metric names follow one pattern, so users can guess them: the tag with '_' for '-', then _ms;
 * idle causes prefixed idle_, exposed communication exposed_comm_, exposed copies exposed_copy_. */
static void test_metric_names_follow_tags(void)
{
    char expected[128];
    for (int c = 0; c < ANALYSIS_CAUSE_COUNT; c++) {
        snprintf(expected, sizeof expected, "%s_ms", analysis_cause_tag(c));
        for (char *p = expected; *p; p++)
            *p = *p == '-' ? '_' : *p;
        CHECK_STR(analysis_cause_metric(c), expected);
    }
    for (int c = 0; c < ACCOUNTING_CAUSE_COUNT; c++) {
        const char *prefix = accounting_cause_is_idle(c)   ? "idle_"
                             : accounting_cause_is_copy(c) ? "exposed_copy_"
                                                           : "exposed_comm_";
        snprintf(expected, sizeof expected, "%s%s_ms", prefix, accounting_cause_tag(c));
        for (char *p = expected; *p; p++)
            *p = *p == '-' ? '_' : *p;
        CHECK_STR(accounting_cause_metric(c), expected);
    }
}

/* A fix whose prediction stands on an idle cause ("idle-host-sync") is that cause's fix. */
static void test_fix_basis_matches_idle_rows(void)
{
    for (int f = 0; f < ANALYSIS_FIX_COUNT; f++) {
        const char *basis = analysis_fix_basis(f);
        if (strncmp(basis, "idle-", 5) != 0)
            continue;
        int found = 0;
        for (int c = 0; c < ACCOUNTING_CAUSE_COUNT; c++)
            if (accounting_cause_is_idle(c) && strcmp(accounting_cause_tag(c), basis + 5) == 0) {
                found = 1;
                CHECK_STR(analysis_fix_tag(accounting_cause_fix(c)), analysis_fix_tag(f));
            }
        CHECK(found);
    }
    CHECK_INT(analysis_fix_by_design(ANALYSIS_FIX_REMOVE_DEPENDENCY), 1);
    CHECK_INT(analysis_fix_by_design(ANALYSIS_FIX_PIN_HOST_BUFFER), 0);
}

static void test_names_in_pictures(void)
{
    char name[128];
    CHECK_STR(accounting_cause_name(name, sizeof name, ACCOUNTING_IDLE_HOST_SYNC, "cudaFree"),
              "host blocked in cudaFree");
    CHECK_STR(accounting_cause_name(name, sizeof name, ACCOUNTING_COMM_TRANSFER, "AllReduce"),
              "transfer (AllReduce)");
    CHECK_STR(accounting_cause_name(name, sizeof name, ACCOUNTING_IDLE_LAUNCH_BOUND, "host issuing work"),
              "host issuing launches slower than the GPU runs them");
    CHECK_STR(accounting_cause_name(name, sizeof name, ACCOUNTING_IDLE_HOST_SYNC, ""),
              "host blocked in a synchronizing call");
    CHECK_INT(accounting_cause_picture(ACCOUNTING_IDLE_HOST_SYNC), CAUSE_PICTURE_HOST_BLOCKED);
    CHECK_INT(accounting_cause_picture(ACCOUNTING_COMM_SKEW), CAUSE_PICTURE_EXPOSED_COMM);
    CHECK_INT(accounting_cause_is_between_steps(ACCOUNTING_IDLE_STEP_END), 1);
    CHECK_INT(accounting_cause_is_between_steps(ACCOUNTING_IDLE_DISPATCH), 0);
}

static void test_every_row_documented(void)
{
    char *metrics = read_file(OVERLAPSCOPE_DOCS "/metrics.md");
    char *check = read_file(OVERLAPSCOPE_DOCS "/overlapscope-check.md");
    CHECK(metrics != NULL && check != NULL);
    for (int c = 0; c < ANALYSIS_CAUSE_COUNT; c++) {
        if (!documented(metrics, analysis_cause_tag(c)))
            fprintf(stderr, "docs/metrics.md: cause `%s` not documented\n", analysis_cause_tag(c));
        CHECK(documented(metrics, analysis_cause_tag(c)));
        CHECK(documented(metrics, analysis_cause_metric(c)));
        CHECK(check && strstr(check, analysis_cause_metric(c)));
    }
    for (int c = 0; c < ACCOUNTING_CAUSE_COUNT; c++) {
        if (!documented(metrics, accounting_cause_tag(c)) || !documented(metrics, accounting_cause_metric(c)))
            fprintf(stderr, "docs/metrics.md: `%s` or `%s` not documented\n", accounting_cause_tag(c),
                    accounting_cause_metric(c));
        CHECK(documented(metrics, accounting_cause_tag(c)));
        CHECK(documented(metrics, accounting_cause_metric(c)));
        CHECK(check && strstr(check, accounting_cause_metric(c)));
    }
    for (int f = 0; f < ANALYSIS_FIX_COUNT; f++) {
        if (!documented(metrics, analysis_fix_tag(f)))
            fprintf(stderr, "docs/metrics.md: fix `%s` not documented\n", analysis_fix_tag(f));
        CHECK(documented(metrics, analysis_fix_tag(f)));
    }
    free(metrics);
    free(check);
}

int main(void)
{
    test_rows_are_distinct();
    test_metric_names_follow_tags();
    test_fix_basis_matches_idle_rows();
    test_names_in_pictures();
    test_every_row_documented();
    return check_finish();
}
