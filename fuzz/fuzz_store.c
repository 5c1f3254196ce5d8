/* fuzz_store.c: arbitrary bytes as a trace file: store_open (which must refuse what is not a
 * trace of this version, with a reason) and, when it opens, the queries `overlapscope info` and the
 * exporters run over every table, the analysis (`report`), the step finder and the timeline
 * (`render`, a small PNG). Each must either succeed or fail with a message. Seeds are real traces;
 * the fuzzer corrupts their pages. */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "fuzz_harness.h"
#include "timeline.h"

static struct fuzz_harness harness;

static const char *const reader_queries[] = {
    "SELECT key, value FROM meta",
    "SELECT MIN(start_ns), MAX(end_ns), COUNT(*) FROM kernels",
    "SELECT process_id, pid, rank, world_size, local_rank, host, exit_status, term_signal, dropped_records,"
    " command_line FROM processes ORDER BY rank, pid",
    "SELECT d.device_id, d.name, d.sm_count, d.max_blocks_per_sm, p.pid FROM devices d"
    " LEFT JOIN processes p USING (process_id)",
    "SELECT COUNT(*) FROM memcpys",
    "SELECT COUNT(*) FROM memsets",
    "SELECT COUNT(*) FROM synchronizations",
    "SELECT COUNT(*) FROM cuda_events",
    "SELECT COUNT(*) FROM api_calls",
    "SELECT COUNT(*) FROM nvtx",
    "SELECT COUNT(*) FROM streams",
    "SELECT op, COUNT(*), SUM(bytes) FROM collectives GROUP BY op",
    "SELECT w.code, w.message, p.pid FROM warnings w LEFT JOIN processes p USING (process_id)",
    "SELECT k.start_ns, s.value, c.op FROM kernels k JOIN strings s ON s.id = k.name_id"
    " LEFT JOIN collectives c ON c.kernel_rowid = k.rowid ORDER BY k.process_id, k.start_ns",
    "SELECT a.start_ns, s.value FROM api_calls a JOIN strings s ON s.id = a.name_id ORDER BY a.start_ns",
};

static void run_queries(sqlite3 *db)
{
    for (size_t i = 0; i < sizeof reader_queries / sizeof reader_queries[0]; i++) {
        sqlite3_stmt *query = NULL;
        if (sqlite3_prepare_v2(db, reader_queries[i], -1, &query, NULL) != SQLITE_OK)
            continue;
        int steps = 0;
        while (sqlite3_step(query) == SQLITE_ROW && steps++ < 10000)
            for (int column = 0; column < sqlite3_column_count(query); column++)
                (void)sqlite3_column_text(query, column);
        sqlite3_finalize(query);
    }
}

/* Cairo's and fontconfig's process-wide font caches are freed at exit, before the leak check. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    atexit(timeline_release_caches);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[128];
    fuzz_write_input(&harness, "input.db", data, size, 0644, path, sizeof path);
    error_info err;
    store *trace = store_open(path, 1, &err);
    if (!trace) {
        if (err.message[0] == '\0')
            abort();
        return 0;
    }
    run_queries(store_db(trace));
    char *value = store_get_meta(trace, "source");
    free(value);
    struct analysis_result *analysis = analysis_run(trace, NULL, &err);
    if (!analysis && err.message[0] == '\0')
        abort();
    struct analysis_options step_zero;
    analysis_options_init(&step_zero);
    step_zero.step = 0;
    err.message[0] = '\0';
    struct analysis_result *step_analysis = analysis_run(trace, &step_zero, &err);
    if (!step_analysis && err.message[0] == '\0')
        abort();
    analysis_free(step_analysis);
    struct timeline_options options;
    timeline_options_init(&options);
    options.width_px = 320;
    options.force = 1; /* the same picture file, drawn again and again */
    char picture[160];
    snprintf(picture, sizeof picture, "%s/picture.png", fuzz_scratch_directory(&harness));
    err.message[0] = '\0';
    if (timeline_draw(trace, analysis, &options, picture, NULL, &err) != 0 && err.message[0] == '\0')
        abort();
    analysis_free(analysis);
    store_close(trace, NULL);
    return 0;
}
