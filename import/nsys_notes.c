/* nsys_notes.c: what a reader of an Nsight Systems export must be told (see nsys_parts.h), as rows
 * of the warnings table: the time nsys itself took on the profiled threads (PROFILER_OVERHEAD), the
 * warnings and errors nsys wrote about its own collection (DIAGNOSTIC_EVENT), each cause of the
 * analysis that the export cannot support, once, and an export without GPU activity. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nsys_parts.h"
#include "units.h"

/* --- the profiler's own time --- */

struct overhead_record {
    int64_t pid, records, total_ns, longest_ns;
    const char *longest_name;
};

static int warn_overhead_row(struct nsys_state *state, void *record, error_info *err)
{
    const struct overhead_record *row = record;
    int64_t process_id = nsys_known_process(state, row->pid);
    if (!process_id)
        return 0;
    char total[32], longest[32], count[48], message[512];
    snprintf(message, sizeof message,
             "nsys's own work (PROFILER_OVERHEAD) held threads of this process for %s in %s, the longest"
             " %s (%s): GPU idle time beside it is the profiler's, not the program's",
             units_format_duration(total, sizeof total, row->total_ns),
             units_format_count(count, sizeof count, row->records, "record"),
             units_format_duration(longest, sizeof longest, row->longest_ns),
             row->longest_name ? row->longest_name : "unnamed");
    return nsys_warn(state, process_id, "profiler-overhead", message, err);
}

static const struct nsys_column overhead_columns[] = {
    {"pid", NSYS_INTEGER, NSYS_INT64_AT(struct overhead_record, pid), 0},
    {"records", NSYS_INTEGER, NSYS_INT64_AT(struct overhead_record, records), 0},
    {"total", NSYS_INTEGER, NSYS_INT64_AT(struct overhead_record, total_ns), 0},
    {"longest name", NSYS_TEXT, NSYS_TEXT_AT(struct overhead_record, longest_name), 0},
    {"longest", NSYS_INTEGER, NSYS_INT64_AT(struct overhead_record, longest_ns), 0}};
static const struct overhead_record overhead_defaults;

/* Per profiled process: how much of its threads' time nsys took, and the longest stretch (CUDA
 * profiling initialization, a CUPTI buffer flush ...): a gap that falls on one is nsys's, not the
 * program's. */
static int warn_overhead(struct nsys_state *state, error_info *err)
{
    /* Only stretches of integer times within the readers' bounds on one operation: text read as 0
     * or an overflowing difference would print a negative or absurd time. */
    static const struct nsys_table table = NSYS_QUERY(
        "PROFILER_OVERHEAD", overhead_columns, overhead_defaults, warn_overhead_row,
        "WITH o AS (SELECT (globalTid >> 24) & 16777215 AS pid, end - start AS ns, nameId"
        " FROM PROFILER_OVERHEAD WHERE typeof(start) = 'integer' AND typeof(end) = 'integer'"
        " AND end >= start AND end - start <= ?1)"
        " SELECT pid, COUNT(*), SUM(ns), (SELECT s.value FROM o q LEFT JOIN StringIds s ON s.id = q.nameId"
        "  WHERE q.pid = p.pid ORDER BY q.ns DESC LIMIT 1), MAX(ns) FROM o p GROUP BY pid ORDER BY pid",
        STORE_MAX_DURATION_NS);
    if (!store_db_has_column(state->db, "PROFILER_OVERHEAD", "globalTid") ||
        !store_db_has_column(state->db, "PROFILER_OVERHEAD", "nameId"))
        return 0;
    return nsys_read_table(state, &table, err);
}

struct diagnostic_record {
    int64_t severity, times;
    const char *text;
};

static int warn_diagnostic_row(struct nsys_state *state, void *record, error_info *err)
{
    const struct diagnostic_record *row = record;
    char message[768];
    int length = snprintf(message, sizeof message, "nsys %s: %.600s",
                          row->severity == 3 ? "error" : "warning", row->text ? row->text : "");
    /* One line per warning: nsys's texts run over several. */
    for (char *c = message; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    if (row->times > 1 && length > 0 && (size_t)length < sizeof message)
        snprintf(message + length, sizeof message - (size_t)length, " (%" PRId64 " times)", row->times);
    return nsys_warn(state, 0, "nsys-diagnostic", message, err);
}

static const struct nsys_column diagnostic_columns[] = {
    {"severity", NSYS_INTEGER, NSYS_INT64_AT(struct diagnostic_record, severity), 0},
    {"text", NSYS_TEXT, NSYS_TEXT_AT(struct diagnostic_record, text), 0},
    {"count", NSYS_INTEGER, NSYS_INT64_AT(struct diagnostic_record, times), 0}};
static const struct diagnostic_record diagnostic_defaults;

/* nsys's errors and its warnings about what it collected of CUDA (ENUM_DIAGNOSTIC_SEVERITY_LEVEL 2
 * warning, 3 error; 1 is information; the rest are about OpenGL, perf's paranoid level ...), each
 * text once with how often it came: "CUDA profiling might have not been started correctly" tells
 * why an export holds no GPU activity. */
static int warn_diagnostics(struct nsys_state *state, error_info *err)
{
    static const struct nsys_table table = NSYS_QUERY(
        "DIAGNOSTIC_EVENT", diagnostic_columns, diagnostic_defaults, warn_diagnostic_row,
        "SELECT severity, text, COUNT(*) FROM DIAGNOSTIC_EVENT WHERE severity = 3 OR (severity = 2 AND"
        " (text LIKE '%CUDA%' OR text LIKE '%CUPTI%' OR text LIKE '%lost%' OR text LIKE '%drop%'))"
        " GROUP BY severity, text ORDER BY MIN(rowid) LIMIT 32",
        0);
    if (!store_db_has_column(state->db, "DIAGNOSTIC_EVENT", "severity") ||
        !store_db_has_column(state->db, "DIAGNOSTIC_EVENT", "text"))
        return 0;
    return nsys_read_table(state, &table, err);
}

/* --- what the analysis cannot check --- */

/* How many CUDA API calls of the export were named like `like` (SQL LIKE). */
static int64_t calls_named(struct nsys_state *state, const char *like)
{
    if (!store_db_has_table(state->db, "CUPTI_ACTIVITY_KIND_RUNTIME") ||
        !store_db_has_column(state->db, "CUPTI_ACTIVITY_KIND_RUNTIME", "nameId"))
        return 0;
    sqlite3_stmt *query = NULL;
    int64_t count = 0;
    if (sqlite3_prepare_v2(
            state->db,
            "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId"
            " WHERE s.value LIKE ?1",
            -1, &query, NULL) == SQLITE_OK) {
        sqlite3_bind_text(query, 1, like, -1, SQLITE_STATIC);
        if (sqlite3_step(query) == SQLITE_ROW)
            count = sqlite3_column_int64(query, 0);
    }
    sqlite3_finalize(query);
    return count;
}

static int not_checkable(struct nsys_state *state, const char *causes, const char *why, error_info *err)
{
    char message[512];
    snprintf(message, sizeof message, "%s (%s)", causes, why);
    return nsys_warn(state, 0, "cause-not-checkable", message, err);
}

/* Each cause of docs/metrics.md whose proof needs what this export lacks, named once. */
static int warn_not_checkable(struct nsys_state *state, error_info *err)
{
    if (state->gpu_rows == 0)
        return 0; /* nothing to explain: the no-GPU-activity warning says so */
    if (state->kernels_with_channel == 0 &&
        not_checkable(state, "shared-queue", "no hardware channel ids in nsys exports", err) != 0)
        return -1;
    if (state->api_calls == 0 &&
        not_checkable(state, "late-launch, host-sync, pageable-copy staging, stream-priority",
                      "no CUDA API records: nsys profile --trace=cuda records them", err) != 0)
        return -1;
    int64_t wait_calls = calls_named(state, "%StreamWaitEvent%");
    if (wait_calls > 0 && state->stream_waits == 0 &&
        not_checkable(state, "event-dependency",
                      "the program called cudaStreamWaitEvent but the export has no synchronization records"
                      " of the waits",
                      err) != 0)
        return -1;
    if (state->stream_waits > 0 && state->event_records == 0 &&
        not_checkable(
            state, "event-dependency",
            state->has_event_table
                ? "the export's CUDA event records table (CUPTI_ACTIVITY_KIND_CUDA_EVENT) is empty: no"
                  " record says which stream recorded each event"
                : "no CUDA event records (CUPTI_ACTIVITY_KIND_CUDA_EVENT): no record says which stream"
                  " recorded each event; enable nsys's CUDA event trace",
            err) != 0)
        return -1;
    if (!state->has_stream_table &&
        not_checkable(
            state, "legacy-default-stream, stream-priority",
            "no stream creation records (TARGET_INFO_CUDA_STREAM): stream flags and priorities unknown",
            err) != 0)
        return -1;
    if (!store_db_has_table(state->db, "TARGET_INFO_GPU") &&
        not_checkable(state, "sm-saturation, comm-behind-compute, copy-engine",
                      "no GPU description (TARGET_INFO_GPU): occupancy limits and copy engines unknown",
                      err) != 0)
        return -1;
    return 0;
}

/* An export without a kernel, copy or memset imports, but nothing in it can be analyzed: said in
 * one line that names what it holds and how nsys records GPU work. */
static int warn_no_gpu_activity(struct nsys_state *state, error_info *err)
{
    if (state->gpu_rows > 0)
        return 0;
    char message[512], calls[48];
    snprintf(
        message, sizeof message,
        "%s: no GPU activity (kernels, copies, memsets) in this export, %s only: nothing to analyze"
        " (nsys profile --trace=cuda records GPU work; `overlapscope info` lists nsys's own diagnostics)",
        state->name, units_format_count(calls, sizeof calls, state->api_calls, "CUDA API call"));
    return nsys_warn(state, 0, "import-no-gpu-activity", message, err);
}

/* Numbers of another type than nsys writes (text, real, blob) in optional columns: read as unknown
 * (nsys_parts.h), said once. */
static int warn_odd_values(struct nsys_state *state, error_info *err)
{
    if (state->odd_values == 0)
        return 0;
    char message[512], count[48];
    snprintf(message, sizeof message, "%s: %s of an unexpected type, left unknown (the first: %s)",
             state->name, units_format_count(count, sizeof count, state->odd_values, "optional value"),
             state->odd_first);
    return nsys_warn(state, 0, "import-skipped", message, err);
}

int nsys_import_notes(struct nsys_state *state, error_info *err)
{
    int status = warn_no_gpu_activity(state, err);
    if (status == 0)
        status = warn_not_checkable(state, err);
    if (status == 0)
        status = warn_diagnostics(state, err);
    if (status == 0)
        status = warn_overhead(state, err);
    if (status == 0)
        status = warn_odd_values(state, err);
    return status;
}
