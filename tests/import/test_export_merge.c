/* test_export_merge.c: the Chrome export read back (every activity becomes one event, launches
 * become flow pairs, times exact), and merge recovering a known clock offset between two ranks:
 * hand-built ranks with a computed answer, and the real sampled ranks shifted by a known amount. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "check.h"
#include "chrome_export.h"
#include "import.h"
#include "merge.h"
#include "store.h"
#include "trace_builder.h"

static char directory[] = "/tmp/overlapscope-test-export-XXXXXX";
static const char *data_directory;
static const struct merge_options forced = {.force = 1};

static const char *path_in(const char *name)
{
    static char paths[16][512];
    static int next;
    char *path = paths[next++ % 16];
    snprintf(path, 512, "%s/%s", directory, name);
    return path;
}

static int import_kineto(const char *name, const char *output)
{
    char input[512];
    snprintf(input, sizeof input, "%s/kineto/%s", data_directory, name);
    char *inputs[] = {input};
    struct import_options options = {.force = 1};
    error_info err;
    if (import_run(output, inputs, 1, &options, &err) != 1) {
        fprintf(stderr, "import: %s\n", err.message);
        return -1;
    }
    return 0;
}

static int64_t query_int(const char *path, const char *sql)
{
    error_info err;
    store *trace = store_open(path, 1, &err);
    if (!trace)
        return -999;
    sqlite3_stmt *query = NULL;
    int64_t value = -999;
    if (sqlite3_prepare_v2(store_db(trace), sql, -1, &query, NULL) == SQLITE_OK &&
        sqlite3_step(query) == SQLITE_ROW)
        value = sqlite3_column_int64(query, 0);
    sqlite3_finalize(query);
    store_close(trace, NULL);
    return value;
}

static char *read_file(const char *path)
{
    FILE *file = fopen(path, "rb");
    if (!file)
        return NULL;
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    if (text && fread(text, 1, (size_t)size, file) == (size_t)size)
        text[size] = '\0';
    fclose(file);
    return text;
}

static int count_events(const cJSON *events, const char *phase, const char *category)
{
    int count = 0;
    const cJSON *event;
    cJSON_ArrayForEach(event, events)
    {
        const cJSON *ph = cJSON_GetObjectItem(event, "ph"), *cat = cJSON_GetObjectItem(event, "cat");
        if (cJSON_IsString(ph) && strcmp(ph->valuestring, phase) == 0 &&
            (!category || (cJSON_IsString(cat) && strcmp(cat->valuestring, category) == 0)))
            count++;
    }
    return count;
}

/* The name a thread_name metadata event gives to (pid, tid), or NULL. */
static const char *thread_name(const cJSON *events, double pid, double tid)
{
    const cJSON *event;
    cJSON_ArrayForEach(event, events)
    {
        const cJSON *name = cJSON_GetObjectItem(event, "name");
        if (cJSON_IsString(name) && strcmp(name->valuestring, "thread_name") == 0 &&
            cJSON_GetObjectItem(event, "pid")->valuedouble == pid &&
            cJSON_GetObjectItem(event, "tid")->valuedouble == tid)
            return cJSON_GetObjectItem(cJSON_GetObjectItem(event, "args"), "name")->valuestring;
    }
    return NULL;
}

static void test_export_round_trip(void)
{
    const char *trace_path = path_in("nccl.db"), *json_path = path_in("nccl.json");
    CHECK(import_kineto("nccl_data.json.gz", trace_path) == 0);
    error_info err;
    store *trace = store_open(trace_path, 1, &err);
    CHECK(trace != NULL);
    if (!trace)
        return;
    struct analysis_result *analysis = analysis_run(trace, NULL, &err);
    CHECK(analysis != NULL);
    struct chrome_export_counts counts;
    CHECK(chrome_export_write(trace, analysis, NULL, json_path, 1, &counts, &err) == 0);
    int64_t report_origin = analysis ? analysis->origin_ns : 0;
    analysis_free(analysis);
    store_close(trace, NULL);
    char *text = read_file(json_path);
    cJSON *document = text ? cJSON_Parse(text) : NULL;
    CHECK(document != NULL);
    free(text);
    if (!document)
        return;
    const cJSON *events = cJSON_GetObjectItem(document, "traceEvents");
    /* The same counts the importer stored (test_import checks them against python3), less what ended
     * before the report's +0 (the first GPU activity: host set-up), the export's time zero. */
    char sql[512];
#define SINCE_ORIGIN(table, where)                                                                           \
    (snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM %s WHERE end_ns >= %" PRId64 " %s", table,              \
              report_origin, where),                                                                         \
     query_int(trace_path, sql))
    CHECK_INT(count_events(events, "X", "kernel"), 2700);
    CHECK_INT(count_events(events, "X", "gpu_memcpy"), 960);
    CHECK_INT(count_events(events, "X", "gpu_memset"), 114);
    CHECK_INT(count_events(events, "X", "cuda_runtime"), SINCE_ORIGIN("api_calls", ""));
    CHECK(SINCE_ORIGIN("api_calls", "") < 8740);
    CHECK_INT(count_events(events, "X", "nvtx") + count_events(events, "X", "gpu_user_annotation"),
              SINCE_ORIGIN("nvtx", ""));
    CHECK_INT(count_events(events, "X", NULL), counts.complete_events);
    int64_t calls_since = SINCE_ORIGIN("api_calls", ""), nvtx_since = SINCE_ORIGIN("nvtx", "");
    CHECK_INT(counts.left_out_before_origin, query_int(trace_path, "SELECT COUNT(*) FROM api_calls") +
                                                 query_int(trace_path, "SELECT COUNT(*) FROM nvtx") -
                                                 calls_since - nvtx_since);
    /* One launch arrow per GPU op whose launch call is exported (none here repeats an id). */
    int flow_starts = count_events(events, "s", "ac2g"), flow_ends = count_events(events, "f", "ac2g");
    CHECK_INT(flow_starts, flow_ends);
    CHECK_INT(counts.shared_correlation_ids, 0);
    snprintf(
        sql, sizeof sql,
        "SELECT COUNT(*) FROM (SELECT process_id, correlation_id FROM kernels UNION ALL SELECT process_id,"
        " correlation_id FROM memcpys UNION ALL SELECT process_id, correlation_id FROM memsets) g WHERE "
        "EXISTS"
        " (SELECT 1 FROM api_calls a WHERE a.process_id = g.process_id AND a.correlation_id = "
        "g.correlation_id"
        " AND a.end_ns >= %" PRId64 ")",
        report_origin);
    CHECK_INT(flow_starts + counts.launches_before_call, query_int(trace_path, sql));
    CHECK(flow_starts > 3700);
    /* The first Broadcast: args carry the collective; ts (relative us) times 1000 plus the origin
     * gives back the stored nanoseconds exactly. */
    const cJSON *other = cJSON_GetObjectItem(document, "otherData");
    int64_t origin = strtoll(cJSON_GetObjectItem(other, "origin_ns")->valuestring, NULL, 10);
    CHECK_INT(origin, report_origin);
    int collectives = 0, found = 0;
    const cJSON *event;
    cJSON_ArrayForEach(event, events)
    {
        const cJSON *args = cJSON_GetObjectItem(event, "args");
        if (!cJSON_GetObjectItem(args, "collective"))
            continue;
        collectives++;
        const cJSON *correlation = cJSON_GetObjectItem(args, "correlation");
        if (correlation && correlation->valuedouble == 19832) {
            found = 1;
            CHECK_STR(cJSON_GetObjectItem(args, "collective")->valuestring, "Broadcast");
            CHECK_INT(cJSON_GetObjectItem(args, "bytes")->valuedouble, 212480);
            CHECK_STR(cJSON_GetObjectItem(args, "dtype")->valuestring, "f32");
            int64_t ts_ns = llround(cJSON_GetObjectItem(event, "ts")->valuedouble * 1000);
            CHECK_INT(ts_ns + origin, 4458676423385774LL + 1711964646000000000LL);
            CHECK_INT(llround(cJSON_GetObjectItem(event, "dur")->valuedouble * 1000), 30975);
            CHECK_STR(thread_name(events, cJSON_GetObjectItem(event, "pid")->valuedouble,
                                  cJSON_GetObjectItem(event, "tid")->valuedouble),
                      "stream 40, GPU 0 nccl");
        }
    }
    CHECK_INT(collectives, 21);
    CHECK(found);
    cJSON_Delete(document);
    /* Refuses to overwrite without force; a failed export leaves nothing. */
    trace = store_open(trace_path, 1, &err);
    CHECK(chrome_export_write(trace, NULL, NULL, json_path, 0, NULL, &err) != 0);
    CHECK_CONTAINS(err.message, "file exists");
    store_close(trace, NULL);
}

/* Rank `rank` of a job with `count` AllReduces on communicator "0", all ending at
 * 1e12 + k ms + jitter on the reference clock, recorded on a clock `offset_ns` ahead; the first
 * `skip` collectives fall before this rank's profiling window. */
static void make_rank(const char *path, int rank, int64_t offset_ns, int count, int skip)
{
    struct builder b;
    CHECK_INT(builder_create_path(&b, path), 0);
    struct store_process row = builder_process_row(1000 + rank, rank);
    row.host = rank ? "node1" : "node0";
    row.local_rank = 0;
    row.world_size = 2;
    row.exit_status = 0;
    int64_t process = builder_insert_process(&b, row);
    for (int k = skip; k < count; k++) {
        /* Deterministic skew within +-3 us: the collective's ranks leave within microseconds. */
        int64_t skew = ((k * 7919 + rank * 104729) % 6001) - 3000;
        int64_t end = 1000000000000LL + k * 1000000LL + skew + offset_ns;
        struct store_kernel kernel = builder_plain_kernel_row_ns(process, 13, end - 400000, end,
                                                                 "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
        kernel.correlation_id = k;
        int64_t rowid = builder_insert_kernel(&b, kernel);
        /* Gradient buckets of irregular sizes, as a training step's all-reduces are. */
        int64_t elements = (int64_t)((((uint64_t)k * 2654435761u) >> 8) % 50 + 1) << 18;
        struct store_collective collective = builder_collective_row_ns(
            process, 13, "AllReduce", elements * 4, "0", rank, 2, rowid, end - 400000, end);
        collective.element_count = elements;
        collective.dtype = "f32";
        collective.detail_source = STORE_DETAIL_KINETO;
        builder_insert_collective(&b, collective);
    }
    CHECK_INT(builder_finish(&b), 0);
    builder_close(&b);
}

static void test_merge_recovers_known_offset(void)
{
    const int64_t offset = 7300123; /* node1's clock runs 7.3 ms ahead */
    const char *rank0 = path_in("rank0.db"), *rank1 = path_in("rank1.db"), *job = path_in("job.db");
    make_rank(rank0, 0, 0, 60, 0);
    make_rank(rank1, 1, offset, 60, 5); /* its window opened 5 collectives later */
    char *inputs[] = {(char *)rank0, (char *)rank1};
    struct clock_alignment alignments[2];
    error_info err;
    CHECK(merge_run(job, inputs, 2, &forced, alignments, &err) == 0);
    CHECK_INT(alignments[1].matches, 55);
    CHECK(alignments[1].bound_ns >= 0 && alignments[1].bound_ns <= 12000); /* two skews of +-3 us */
    CHECK(llabs(alignments[1].offset_ns + offset) <= alignments[1].bound_ns);
    CHECK_INT(query_int(job, "SELECT COUNT(*) FROM processes"), 2);
    CHECK_INT(query_int(job, "SELECT COUNT(*) FROM collectives c JOIN kernels k ON k.rowid = c.kernel_rowid"),
              115);
    /* After the merge, the same collective ends within the skew on both ranks. */
    CHECK(query_int(job, "SELECT MAX(ABS(a.end_ns - b.end_ns)) FROM kernels a JOIN kernels b"
                         " ON a.correlation_id = b.correlation_id AND a.process_id < b.process_id") <=
          6000 + 6000);
    CHECK_INT(query_int(job, "SELECT value FROM meta WHERE key = 'clock_offset_ns.1'"),
              alignments[1].offset_ns);
    CHECK_INT(query_int(job, "SELECT COUNT(*) FROM warnings WHERE code = 'clock-alignment'"), 0);

    /* No collective in common: merged, not aligned, and said so. */
    const char *lonely = path_in("lonely.db");
    CHECK(import_kineto("simple_add_two_streams.json.gz", lonely) == 0);
    char *unrelated[] = {(char *)rank0, (char *)lonely};
    CHECK(merge_run(job, unrelated, 2, &forced, alignments, &err) == 0);
    CHECK_INT(alignments[1].matches, 0);
    CHECK_INT(query_int(job, "SELECT COUNT(*) FROM warnings WHERE code = 'clock-alignment'"), 1);
}

/* The real ranks of one job (sampled_rank-0/1): rank 1 shifted by a known amount is brought back
 * to within the bound of where it was. */
static void test_merge_real_ranks_with_injected_offset(void)
{
    const char *rank0 = path_in("s0.db"), *rank1 = path_in("s1.db"), *shifted = path_in("s1-shifted.db");
    CHECK(import_kineto("sampled_rank-0.json.gz", rank0) == 0);
    CHECK(import_kineto("sampled_rank-1.json.gz", rank1) == 0);
    const int64_t injected = -2500000000LL; /* 2.5 s behind */
    error_info err;
    unlink(shifted);
    store *copy = store_create(shifted, 0, &err);
    CHECK(copy && store_append_trace(copy, rank1, injected, NULL, &err) == 0);
    store_set_meta(copy, "source", "kineto", &err);
    store_close(copy, &err);
    struct clock_alignment plain[2], moved[2];
    char *same_clock[] = {(char *)rank0, (char *)rank1}, *other_clock[] = {(char *)rank0, (char *)shifted};
    CHECK(merge_run(path_in("j1.db"), same_clock, 2, &forced, plain, &err) == 0);
    CHECK(merge_run(path_in("j2.db"), other_clock, 2, &forced, moved, &err) == 0);
    CHECK_INT(moved[1].matches, 10); /* 10 SendRecv kernels on each rank */
    CHECK_INT(moved[1].offset_ns, plain[1].offset_ns - injected);
    CHECK_INT(moved[1].bound_ns, plain[1].bound_ns);
    CHECK(llabs(moved[1].offset_ns + injected) <= moved[1].bound_ns);
    /* SendRecv ends do not coincide across ranks: the bound is large and a warning says so. */
    CHECK(moved[1].bound_ns > MERGE_BOUND_WARNING_NS);
    CHECK_INT(query_int(path_in("j2.db"), "SELECT COUNT(*) FROM warnings WHERE code = 'clock-alignment'"), 1);
}

/* The median of differences of opposite signs far from zero (collectives near both ends of the
 * clock): the midpoint of the middle two, rounded down as before, without overflowing (high - low
 * did, under UBSan; wrapped, it gave INT64_MIN). */
static void test_median_extremes(void)
{
    int64_t extremes[] = {INT64_MAX, INT64_MIN};
    CHECK_INT(clock_align_median(extremes, 2), -1); /* (2^63 - 1 - 2^63) / 2 = -0.5, rounded down */
    int64_t two_sixty_two[] = {INT64_C(1) << 62, -(INT64_C(1) << 62), INT64_C(1) << 62, -(INT64_C(1) << 62)};
    CHECK_INT(clock_align_median(two_sixty_two, 4), 0);
    int64_t negative_halves[] = {-2, -3};
    CHECK_INT(clock_align_median(negative_halves, 2), -3);
    int64_t positive_halves[] = {3, 2};
    CHECK_INT(clock_align_median(positive_halves, 2), 2);
    int64_t odd_count[] = {7, INT64_MIN, 5};
    CHECK_INT(clock_align_median(odd_count, 3), 5);
}

int main(void)
{
    data_directory = getenv("OVERLAPSCOPE_TEST_DATA");
    if (!data_directory || !mkdtemp(directory)) {
        fprintf(stderr, "OVERLAPSCOPE_TEST_DATA is not set or no temporary directory\n");
        return 1;
    }
    test_median_extremes();
    test_export_round_trip();
    test_merge_recovers_known_offset();
    test_merge_real_ranks_with_injected_offset();
    char command[600];
    snprintf(command, sizeof command, "rm -rf %s", directory);
    if (system(command) != 0)
        fprintf(stderr, "could not remove %s\n", directory);
    return check_finish();
}
