/* test_report_cli.c: what a user sees from `overlapscope report`, `check` and `diff` on the
 * scenarios of scenarios.h: exit statuses (0 ok, 1 a check failed, 2 usage or input error, one
 * line on stderr), the text, and the JSON fields. Runs the CLI named by $OVERLAPSCOPE. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check.h"
#include "report.h"
#include "scenarios.h"

static char directory[] = "/tmp/overlapscope-test-cli-XXXXXX";
static char out_text[1 << 18], err_text[4096];

static void slurp(const char *path, char *buffer, size_t size)
{
    FILE *file = fopen(path, "r");
    size_t length = file ? fread(buffer, 1, size - 1, file) : 0;
    buffer[length] = '\0';
    if (file)
        fclose(file);
}

/* Runs `overlapscope ARGS` (ARGS may name files as %D/...); returns the exit status. */
static int run(const char *args)
{
    char expanded[2048], command[4096], out_path[600], err_path[600];
    size_t used = 0;
    for (const char *p = args; *p && used + 600 < sizeof expanded; p++) {
        if (p[0] == '%' && p[1] == 'D') {
            used += (size_t)snprintf(expanded + used, sizeof expanded - used, "%s", directory);
            p++;
        } else {
            expanded[used++] = *p;
        }
    }
    expanded[used] = '\0';
    snprintf(out_path, sizeof out_path, "%s/stdout", directory);
    snprintf(err_path, sizeof err_path, "%s/stderr", directory);
    snprintf(command, sizeof command, "'%s' %s >'%s' 2>'%s'", getenv("OVERLAPSCOPE"), expanded, out_path,
             err_path);
    int status = system(command);
    slurp(out_path, out_text, sizeof out_text);
    slurp(err_path, err_text, sizeof err_text);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int line_count(const char *text)
{
    int lines = 0;
    for (; *text; text++)
        lines += *text == '\n';
    return lines;
}

static void test_report(void)
{
    CHECK_INT(run("report %D/saturated.db"), 0);
    /* Pairs (13, 14): 11 of 11 us possible, (13, 20): 200 of 200, (14, 20): nothing possible; no
     * copies: "-". */
    /* not a terminal: 80 columns; the table's 14 columns take 120, so its titles wrap over their
     * columns and the columns continue in a second band, under the same rank and device */
    CHECK_CONTAINS(out_text, "                                                overlap of\n"
                             "rank  device  span     busy   kernels  idle     possible    comm\n"
                             "0     0       6.60 ms  99.8%  99.8%    11.0 us  100.0%      400 us\n"
                             "\n"
                             "              exposed  comm     copy overlap  exposed\n"
                             "rank  device  comm     overlap  of possible   copy     lost     headroom\n"
                             "0     0       200 us   50.0%    -             0 ns     3.39 ms  250 us\n");
    /* the cause's summary wraps between words under its number, the evidence of its largest wait
     * two columns deeper */
    CHECK_CONTAINS(out_text,
                   "\n  1. SM saturation: 3.19 ms lost in 1 wait; what to do: give the first kernel a\n"
                   "     smaller grid or fewer SMs so the second fits beside it;");
    CHECK_CONTAINS(out_text, "(see CUDA C++ Programming\n     Guide, \"Concurrent Kernel Execution\")\n");
    CHECK_CONTAINS(out_text, "\n     Guide, \"Environment Variables\", NCCL_MIN_CTAS and NCCL_MAX_CTAS)\n");
    CHECK_CONTAINS(out_text, "held all 132 SMs (8448 blocks, 2\n       resident per SM, limited by warps");
    /* every line fits the 80 columns */
    for (const char *line = out_text; line; line = strchr(line + 1, '\n'))
        CHECK((int)strcspn(line + (line != out_text), "\n") <= 80);
    /* COLUMNS asks for another width: at 180 the table is one line, as wide as its titles */
    setenv("COLUMNS", "180", 1);
    CHECK_INT(run("report %D/saturated.db"), 0);
    unsetenv("COLUMNS");
    CHECK_CONTAINS(
        out_text,
        "\nrank  device  span     busy   kernels  idle     overlap of possible  comm    exposed comm  "
        "comm overlap  copy overlap of possible  exposed copy  lost     headroom\n"
        "0     0       6.60 ms  99.8%  99.8%    11.0 us  100.0%               400 us  200 us        "
        "50.0%         -                         0 ns          3.39 ms  250 us\n");
    CHECK_CONTAINS(
        out_text, "\n  1. SM saturation: 3.19 ms lost in 1 wait; what to do: give the first kernel a smaller "
                  "grid or fewer SMs so the second fits beside it;");
    CHECK_INT(run("report --markdown %D/saturated.db"), 0);
    CHECK_CONTAINS(out_text, "| rank | device | span | busy | kernels | idle | overlap of possible |");
    CHECK_CONTAINS(out_text, "| what to do |");
    CHECK_CONTAINS(out_text, " | give the first kernel a smaller grid");
    CHECK_INT(run("report --json --top 1 %D/saturated.db"), 0);
    cJSON *root = cJSON_Parse(out_text);
    CHECK(root != NULL);
    if (root) {
        CHECK_INT(cJSON_GetObjectItem(root, "schema_version")->valuedouble, REPORT_JSON_SCHEMA_VERSION);
        cJSON *summary = cJSON_GetObjectItem(root, "summary");
        CHECK_NEAR(cJSON_GetObjectItem(summary, "exposed_comm_ms")->valuedouble, 0.2, 1e-9);
        CHECK_NEAR(cJSON_GetObjectItem(summary, "sm_saturation_ms")->valuedouble, 3.189, 1e-9);
        cJSON *wait = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "waits"), 0);
        CHECK_STR(cJSON_GetObjectItem(wait, "cause")->valuestring, "sm-saturation");
        cJSON *cause = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "causes"), 0);
        CHECK_STR(cJSON_GetObjectItem(cause, "advice_source")->valuestring,
                  "CUDA C++ Programming Guide, \"Concurrent Kernel Execution\"");
        CHECK_CONTAINS(cJSON_GetObjectItem(cause, "advice")->valuestring, "smaller grid or fewer SMs");
        cJSON *device = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "devices"), 0);
        CHECK_INT(cJSON_GetObjectItem(device, "stream_pair_overlap_ns")->valuedouble, 211000);
        CHECK_NEAR(cJSON_GetObjectItem(device, "stream_overlap")->valuedouble, 1.0, 1e-12);
        CHECK(cJSON_IsNull(cJSON_GetObjectItem(device, "copy_overlap_of_possible")));
        CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "unmeasured"), "copy_overlap")->valuestring,
                  "no copies");
        cJSON_Delete(root);
    }
    /* A window with its units, relative to the first GPU activity: [3 ms, 4 ms] holds one sgemm. */
    CHECK_INT(run("report --json --window 3ms:4ms %D/saturated.db"), 0);
    root = cJSON_Parse(out_text);
    if (root) {
        cJSON *device = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "devices"), 0);
        CHECK_INT(cJSON_GetObjectItem(device, "busy_ns")->valuedouble, 1000000);
        CHECK_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "window"), "start_ns")->valuedouble, 3000000);
        cJSON_Delete(root);
    }
    CHECK_INT(run("report --step 0 --stream 14 %D/saturated.db"), 0);
    CHECK_CONTAINS(out_text, "stream 14");
    CHECK_INT(run("report --window 20ms:30ms %D/saturated.db"), 2);
    CHECK_CONTAINS(err_text, "no GPU intervals in the selected window");
    CHECK_INT(run("report --window soon:later %D/saturated.db"), 2);
    CHECK_CONTAINS(err_text, "not a duration");
    CHECK_INT(run("report --step 3 %D/saturated.db"), 2);
    CHECK_CONTAINS(err_text, "no step 3 (steps 0 to 0 are in the trace)");
    CHECK_INT(run("report %D/missing.db"), 2);
    CHECK_INT(line_count(err_text), 1);
    CHECK_CONTAINS(err_text, "overlapscope: report: ");
    CHECK_CONTAINS(err_text, "missing.db");
    char notes[600];
    snprintf(notes, sizeof notes, "%s/notes.db", directory);
    FILE *text = fopen(notes, "w");
    if (text) {
        fputs("not a database, only words, long enough to fill an SQLite header of one hundred bytes........",
              text);
        fclose(text);
    }
    CHECK_INT(run("report %D/notes.db"), 2);
    CHECK_CONTAINS(err_text, "not an SQLite database");
    CHECK_INT(line_count(err_text), 1);
    CHECK_INT(run("report %D/saturated.db %D/overlapped.db"), 2);
    CHECK_INT(run("report --help"), 0);
    CHECK_CONTAINS(out_text, "OVERLAPSCOPE REPORT\n"); /* the manual as terminal text */
    /* Each column of the table is defined in one item of the help. */
    static const char *const columns[] = {"rank",         "device",
                                          "span",         "busy",
                                          "idle",         "overlap of possible",
                                          "comm",         "exposed comm",
                                          "comm overlap", "copy overlap of possible",
                                          "lost",         "headroom"};
    for (size_t i = 0; i < sizeof columns / sizeof columns[0]; i++) {
        char line[64];
        snprintf(line, sizeof line, "\n- %s: ", columns[i]);
        CHECK_CONTAINS(out_text, line);
    }
}

/* A kernel is named twice in JSON: demangled in full (`name`) and short (`short_name`), the short
 * one being what the text report prints (golden ddp.db, whole run, largest wait: an NCCL AllReduce
 * held behind bucket_sum by an event, in the warm-up step). */
static void test_kernel_names(void)
{
    char args[1024];
    snprintf(args, sizeof args, "report --all --json '%s/gpu/ddp.db'", getenv("OVERLAPSCOPE_TEST_DATA"));
    CHECK_INT(run(args), 0);
    cJSON *root = cJSON_Parse(out_text);
    CHECK(root != NULL);
    if (root) {
        cJSON *wait = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "waits"), 0);
        cJSON *waiting = cJSON_GetObjectItem(wait, "waiting"),
              *blocking = cJSON_GetObjectItem(wait, "blocking");
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(waiting, "name")),
                  "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(waiting, "short_name")),
                  "NCCL AllReduce Sum f32 RING LL");
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(blocking, "name")),
                  "bucket_sum(float const*, unsigned long, double*)");
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(blocking, "short_name")), "bucket_sum");
        cJSON_Delete(root);
    }
    snprintf(args, sizeof args, "report --all '%s/gpu/ddp.db'", getenv("OVERLAPSCOPE_TEST_DATA"));
    CHECK_INT(run(args), 0);
    /* (the wait continues under its description past column 80) */
    CHECK_CONTAINS(out_text,
                   "NCCL AllReduce Sum f32 RING LL\n           (stream 18) after bucket_sum (stream 17)");
}

static void test_check(void)
{
    CHECK_INT(run("check %D/saturated.db --max sm_saturation_ms=1 --min comm_overlap=0.4"), 1);
    CHECK_CONTAINS(out_text, "FAIL sm_saturation_ms = 3.189 (max 1)");
    CHECK_CONTAINS(out_text, "ok   comm_overlap = 0.5 (min 0.4)");
    CHECK_INT(run("check %D/saturated.db --max sm_saturation_ms=5 --max exposed_comm_ms=0.25"), 0);
    CHECK_INT(run("check %D/overlapped.db --max lost_ms=0 --min comm_overlap=1"), 0);
    /* Stream 14 alone holds no NCCL kernel: comm_overlap is not measured (the text shows "-"), so
     * its bound holds with the reason said, and fails only under --strict. */
    CHECK_INT(run("check %D/saturated.db --stream 14 --min comm_overlap=0.4 --max sm_saturation_ms=5"), 0);
    CHECK_CONTAINS(out_text,
                   "ok   comm_overlap not measured: no communication (min 0.4; passes without --strict)");
    CHECK_CONTAINS(out_text, "ok   sm_saturation_ms = 3.189 (max 5)");
    CHECK_INT(run("check %D/saturated.db --stream 14 --strict --min comm_overlap=0.4"), 1);
    CHECK_CONTAINS(out_text, "FAIL comm_overlap not measured: no communication (min 0.4, --strict)");
    CHECK_INT(run("check %D/saturated.db --strict --min comm_overlap=0.4"), 0);
    CHECK_INT(run("check %D/saturated.db --min overlap=1"), 2);
    CHECK_CONTAINS(err_text, "unknown metric 'overlap' (metrics: comm_overlap, exposed_comm_ms");
    CHECK_INT(line_count(err_text), 1);
    CHECK_INT(run("check %D/saturated.db --min comm_overlap"), 2);
    CHECK_INT(run("check %D/saturated.db"), 2);
    CHECK_INT(run("check %D/missing.db --min comm_overlap=0"), 2);
    CHECK_CONTAINS(err_text, "missing.db");
}

static void test_diff(void)
{
    CHECK_INT(run("diff %D/saturated.db %D/overlapped.db"), 0);
    CHECK_CONTAINS(out_text, "sm_saturation_ms");
    CHECK_CONTAINS(out_text, "-3.189");
    /* Neither trace has copies: copy_overlap is not measured in either, no 0 - 0. */
    char unmeasured[128];
    int name_width = 0; /* the table's name column: the longest metric name */
    for (size_t i = 0; i < report_metric_count(); i++)
        if ((int)strlen(report_metric_at(i)->name) > name_width)
            name_width = (int)strlen(report_metric_at(i)->name);
    snprintf(unmeasured, sizeof unmeasured, "\n%-*s %14s %14s %14s\n", name_width, "copy_overlap", "-", "-",
             "-");
    CHECK_CONTAINS(out_text, unmeasured);
    CHECK_INT(run("diff --json %D/saturated.db %D/overlapped.db"), 0);
    cJSON *root = cJSON_Parse(out_text);
    CHECK(root != NULL);
    if (root) {
        cJSON *metric = NULL;
        cJSON_ArrayForEach(metric, cJSON_GetObjectItem(root, "metrics"))
        {
            if (strcmp(cJSON_GetObjectItem(metric, "name")->valuestring, "exposed_comm_ms") == 0)
                CHECK_NEAR(cJSON_GetObjectItem(metric, "delta")->valuedouble, -0.2, 1e-9);
        }
        cJSON_Delete(root);
    }
    CHECK_INT(run("diff --markdown %D/saturated.db %D/overlapped.db"), 0);
    CHECK_CONTAINS(out_text, "| metric | A | B | B - A |");
    CHECK_INT(run("diff %D/saturated.db"), 2);
    CHECK_INT(run("diff %D/saturated.db %D/missing.db"), 2);
    CHECK_CONTAINS(err_text, "missing.db");
}

int main(void)
{
    if (!getenv("OVERLAPSCOPE") || !mkdtemp(directory))
        return 1;
    CHECK_INT(build_scenario(directory, "saturated.db", 1), 0);
    CHECK_INT(build_scenario(directory, "overlapped.db", 0), 0);
    test_report();
    test_kernel_names();
    test_check();
    test_diff();
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", directory);
    if (system(command) != 0)
        fprintf(stderr, "could not remove %s\n", directory);
    return check_finish();
}
