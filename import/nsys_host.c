/* nsys_host.c: host activity of an Nsight Systems export (see nsys_parts.h): CUDA runtime and driver
 * calls, the OS runtime calls that wait (host_wait.h), NVTX ranges and marks with their domains,
 * and the message sizes NCCL's NVTX ranges carry, given to the NCCL kernels they launched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_wait.h"
#include "nsys_parts.h"

/* NVTX_EVENTS.eventType (ENUM_NSYS_EVENT_TYPE). */
enum { NSYS_NVTX_MARK = 34, NSYS_NVTX_PUSH_POP = 59, NSYS_NVTX_START_END = 60, NSYS_NVTX_DOMAIN_CREATE = 75 };

struct api_record {
    struct store_api_call call;
    int64_t global_tid;
};

#define CALL(member) NSYS_INT64_AT(struct api_record, call.member)

/* The thread of a call, of an NVTX range: globalTid's process and thread. */
static int place_on_thread(struct nsys_state *state, int64_t global_tid, int64_t *process_id,
                           int64_t *thread_id, error_info *err)
{
    *process_id = nsys_process_of_global(state, global_tid, err);
    *thread_id = nsys_tid_of_global(global_tid);
    return *process_id ? 0 : -1;
}

static int import_api_row(struct nsys_state *state, void *record, error_info *err)
{
    struct api_record *row = record;
    if (place_on_thread(state, row->global_tid, &row->call.process_id, &row->call.thread_id, err) != 0)
        return -1;
    if (!row->call.name)
        row->call.name = "(unnamed call)";
    state->api_calls++;
    return store_insert_api_call(state->s, &row->call, err);
}

static const struct nsys_column api_columns[] = {
    {"start", NSYS_TIME, CALL(start_ns), 1},
    {"end", NSYS_TIME, CALL(end_ns), 1},
    {"globalTid", NSYS_INTEGER, NSYS_INT64_AT(struct api_record, global_tid), 0},
    {"correlationId", NSYS_INTEGER, CALL(correlation_id), 0},
    {"returnValue", NSYS_INTEGER, CALL(return_value), 0},
    {"callbackId", NSYS_INTEGER, CALL(callback_id), 0},
    {"@nameId", NSYS_TEXT, NSYS_TEXT_AT(struct api_record, call.name), 0}};

static const struct api_record runtime_defaults = {.call = {.api_domain = STORE_API_RUNTIME}};
static const struct api_record driver_defaults = {.call = {.api_domain = STORE_API_DRIVER}};

static const struct nsys_table api_tables[] = {
    NSYS_TABLE("CUPTI_ACTIVITY_KIND_RUNTIME", api_columns, "ORDER BY t.start", runtime_defaults, NULL,
               import_api_row),
    NSYS_TABLE("CUPTI_ACTIVITY_KIND_DRIVER", api_columns, "ORDER BY t.start", driver_defaults, NULL,
               import_api_row)};

static int import_api_calls(struct nsys_state *state, error_info *err)
{
    for (size_t i = 0; i < sizeof api_tables / sizeof api_tables[0]; i++) {
        const char *table = api_tables[i].name;
        if (store_db_has_table(state->db, table) && !store_db_has_column(state->db, table, "nameId"))
            return error_set(err, "%s: %s has no nameId column", state->name, table);
        if (nsys_read_table(state, &api_tables[i], err) != 0)
            return -1;
    }
    return 0;
}

struct nvtx_record {
    struct store_nvtx range;
    int64_t event_type, global_tid;
};

#define RANGE(member) NSYS_INT64_AT(struct nvtx_record, range.member)

static int64_t nvtx_kind(const struct nvtx_record *row)
{
    int64_t type = row->event_type;
    return type == NSYS_NVTX_PUSH_POP    ? STORE_NVTX_PUSH_POP
           : type == NSYS_NVTX_START_END ? STORE_NVTX_START_END
           : type == NSYS_NVTX_MARK      ? STORE_NVTX_MARK
                                         : 0;
}

/* Domain and category registrations, payload-only ranges. */
static int skips_nvtx_row(struct nsys_state *state, const void *record)
{
    (void)state;
    const struct nvtx_record *row = record;
    return !nvtx_kind(row) || !row->range.message;
}

static int import_nvtx_row(struct nsys_state *state, void *record, error_info *err)
{
    struct nvtx_record *row = record;
    struct store_nvtx *range = &row->range;
    if (place_on_thread(state, row->global_tid, &range->process_id, &range->thread_id, err) != 0)
        return -1;
    range->kind = nvtx_kind(row);
    if (range->end_ns == STORE_NULL || range->kind == STORE_NVTX_MARK)
        range->end_ns = range->start_ns; /* a mark, or a range never closed */
    return store_insert_nvtx(state->s, range, err);
}

/* Domain names are the text of the domain's NvtxDomainCreate row (the first one, as the export
 * lists them). Looked up per row in the export itself that was a scan of NVTX_EVENTS per row,
 * quadratic (40k rows in a named domain took 48 s): they are gathered once into an indexed
 * temporary table, dropped again by drop_nvtx_domains. */
static int load_nvtx_domains(struct nsys_state *state, error_info *err)
{
    char sql[400];
    snprintf(sql, sizeof sql,
             "DROP TABLE IF EXISTS temp.overlapscope_nvtx_domains;"
             "CREATE TEMP TABLE overlapscope_nvtx_domains (id INTEGER UNIQUE, text TEXT);"
             "INSERT OR IGNORE INTO temp.overlapscope_nvtx_domains SELECT domainId, text FROM NVTX_EVENTS"
             " WHERE eventType = %d AND domainId != 0",
             NSYS_NVTX_DOMAIN_CREATE);
    if (sqlite3_exec(state->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return error_set(err, "%s: cannot read the NVTX domains: %s", state->name, sqlite3_errmsg(state->db));
    return 0;
}

static void drop_nvtx_domains(struct nsys_state *state)
{
    sqlite3_exec(state->db, "DROP TABLE IF EXISTS temp.overlapscope_nvtx_domains", NULL, NULL, NULL);
}

static int import_nvtx(struct nsys_state *state, error_info *err)
{
    if (!store_db_has_table(state->db, "NVTX_EVENTS"))
        return 0;
    int has_domains = store_db_has_column(state->db, "NVTX_EVENTS", "text") &&
                      store_db_has_column(state->db, "NVTX_EVENTS", "domainId");
    if (has_domains && load_nvtx_domains(state, err) != 0)
        return -1;
    const struct nsys_column columns[] = {
        {"start", NSYS_TIME, RANGE(start_ns), 1},
        {"end", NSYS_TIME, RANGE(end_ns), 0},
        {"eventType", NSYS_INTEGER, NSYS_INT64_AT(struct nvtx_record, event_type), 0},
        {"globalTid", NSYS_INTEGER, NSYS_INT64_AT(struct nvtx_record, global_tid), 0},
        {"category", NSYS_INTEGER, RANGE(category), 0},
        {"color", NSYS_INTEGER, RANGE(color), 0},
        {"text|@textId", NSYS_TEXT, NSYS_TEXT_AT(struct nvtx_record, range.message), 0},
        {has_domains ? "=(SELECT d.text FROM temp.overlapscope_nvtx_domains d WHERE d.id = t.domainId)"
                     : "=NULL",
         NSYS_TEXT, NSYS_TEXT_AT(struct nvtx_record, range.domain), 0}};
    static const struct nvtx_record defaults = {
        .range = {.device_id = STORE_NULL, .stream_id = STORE_NULL, .depth = STORE_NULL}};
    const struct nsys_table table =
        NSYS_TABLE("NVTX_EVENTS", columns, "ORDER BY t.start", defaults, skips_nvtx_row, import_nvtx_row);
    int status = nsys_read_table(state, &table, err);
    if (has_domains)
        drop_nvtx_domains(state);
    return status;
}

struct osrt_record {
    struct store_api_call call;
    int64_t global_tid;
};

/* Only the calls that wait (host_wait.h), for HOST_WAIT_MIN_NS at least, of processes that did CUDA
 * work: the rest (mmap, ioctl, other processes of the machine) tells nothing about why a GPU
 * waited. */
static int skips_osrt_row(struct nsys_state *state, const void *record)
{
    const struct osrt_record *row = record;
    return host_wait_classify(row->call.name) == HOST_WAIT_NONE ||
           !nsys_known_process(state, nsys_pid_of_global(row->global_tid));
}

static int import_osrt_row(struct nsys_state *state, void *record, error_info *err)
{
    (void)err;
    struct osrt_record *row = record;
    struct store_api_call *call = &row->call;
    /* As unsigned the difference is exact, where a hostile file's times overflow int64 */
    if (call->end_ns < call->start_ns || (uint64_t)call->end_ns - (uint64_t)call->start_ns < HOST_WAIT_MIN_NS)
        return 0;
    call->process_id = nsys_known_process(state, nsys_pid_of_global(row->global_tid));
    call->thread_id = nsys_tid_of_global(row->global_tid);
    state->os_waits++;
    return store_insert_api_call(state->s, call, err);
}

static const struct nsys_column osrt_columns[] = {
    {"start", NSYS_TIME, NSYS_INT64_AT(struct osrt_record, call.start_ns), 1},
    {"end", NSYS_TIME, NSYS_INT64_AT(struct osrt_record, call.end_ns), 1},
    {"globalTid", NSYS_INTEGER, NSYS_INT64_AT(struct osrt_record, global_tid), 0},
    {"returnValue", NSYS_INTEGER, NSYS_INT64_AT(struct osrt_record, call.return_value), 0},
    {"@nameId", NSYS_TEXT, NSYS_TEXT_AT(struct osrt_record, call.name), 0}};

static const struct osrt_record osrt_defaults = {
    .call = {.api_domain = STORE_API_OS_RUNTIME, .callback_id = STORE_NULL, .correlation_id = STORE_NULL}};

static int import_osrt(struct nsys_state *state, error_info *err)
{
    static const struct nsys_table table = NSYS_TABLE("OSRT_API", osrt_columns, "ORDER BY t.start",
                                                      osrt_defaults, skips_osrt_row, import_osrt_row);
    if (store_db_has_table(state->db, "OSRT_API") && !store_db_has_column(state->db, "OSRT_API", "nameId"))
        return error_set(err, "%s: OSRT_API has no nameId column", state->name);
    return nsys_read_table(state, &table, err);
}

/* --- NCCL's message sizes --- */

/* The size an NCCL NVTX range carries: NCCL 2.19+ attaches a payload schema with the entry "Message
 * size [bytes]" (NCCL src/include/nvtx_payload_schemas.h), which nsys exports as text (jsonText or
 * jsonTextId); a plain integer payload (uint64Value ...) is taken as the size too. */
struct nccl_range_record {
    int64_t start, end, global_tid;
    const char *payload_text;
    int64_t payload_numbers[4];
};

static int64_t payload_bytes(const struct nccl_range_record *row)
{
    const char *at = row->payload_text ? strstr(row->payload_text, "size [bytes]") : NULL;
    if (at) {
        at += strlen("size [bytes]");
        while (*at == '"' || *at == ':' || *at == ' ')
            at++;
        char *end = NULL;
        long long bytes = strtoll(at, &end, 10);
        /* No message is larger than one copy may be (STORE_MAX_BYTES): strtoll made
         * 99999999999999999999 INT64_MAX, and two such overflowed info's per-op sum. */
        return end != at && store_count_plausible(bytes, STORE_MAX_BYTES) ? bytes : STORE_NULL;
    }
    for (size_t i = 0; i < sizeof row->payload_numbers / sizeof row->payload_numbers[0]; i++) {
        int64_t value = row->payload_numbers[i];
        if (value != STORE_NULL)
            return store_count_plausible(value, STORE_MAX_BYTES) ? value : STORE_NULL;
    }
    return STORE_NULL;
}

/* A range without a start would hold every launch of its thread before its end: passed over. */
static int keep_nccl_range(struct nsys_state *state, void *record, error_info *err)
{
    const struct nccl_range_record *row = record;
    int64_t bytes = payload_bytes(row);
    if (bytes == STORE_NULL || row->global_tid == STORE_NULL || row->start == STORE_NULL)
        return 0;
    sqlite3_stmt *insert = state->nccl_range_insert;
    sqlite3_bind_int64(insert, 1, nsys_pid_of_global(row->global_tid));
    sqlite3_bind_int64(insert, 2, nsys_tid_of_global(row->global_tid));
    sqlite3_bind_int64(insert, 3, row->start);
    if (row->end == STORE_NULL)
        sqlite3_bind_null(insert, 4);
    else
        sqlite3_bind_int64(insert, 4, row->end);
    sqlite3_bind_int64(insert, 5, bytes);
    int rc = sqlite3_step(insert);
    sqlite3_reset(insert);
    if (rc != SQLITE_DONE)
        return error_set(err, "%s: cannot keep NCCL's NVTX sizes: %s", state->name,
                         sqlite3_errmsg(state->db));
    state->nccl_ranges++;
    return 0;
}

#define NCCL_RANGE(member) NSYS_INT64_AT(struct nccl_range_record, member)

/* Session-relative times, as the launch calls' they are compared with. */
static const struct nsys_column nccl_range_columns[] = {
    {"start", NSYS_INTEGER, NCCL_RANGE(start), 0},
    {"end", NSYS_INTEGER, NCCL_RANGE(end), 0},
    {"globalTid", NSYS_INTEGER, NCCL_RANGE(global_tid), 0},
    {"jsonText|@jsonTextId", NSYS_TEXT, NSYS_TEXT_AT(struct nccl_range_record, payload_text), 0},
    {"uint64Value", NSYS_INTEGER, NCCL_RANGE(payload_numbers[0]), 0},
    {"int64Value", NSYS_INTEGER, NCCL_RANGE(payload_numbers[1]), 0},
    {"uint32Value", NSYS_INTEGER, NCCL_RANGE(payload_numbers[2]), 0},
    {"int32Value", NSYS_INTEGER, NCCL_RANGE(payload_numbers[3]), 0}};

static const struct nccl_range_record nccl_range_defaults;

/* The launch calls (runtime and driver) by process and correlation id, for the NCCL kernels'
 * lookup. */
static int gather_launches(struct nsys_state *state, error_info *err)
{
    static const char *const tables[] = {"CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER"};
    if (nsys_exec(state,
                  "CREATE TEMP TABLE overlapscope_launches (pid INTEGER, correlation INTEGER, tid INTEGER,"
                  " start INTEGER, PRIMARY KEY (pid, correlation)) WITHOUT ROWID",
                  "the launch calls", err) != 0)
        return -1;
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        if (!store_db_has_table(state->db, tables[i]) ||
            !store_db_has_column(state->db, tables[i], "nameId") ||
            !store_db_has_column(state->db, tables[i], "globalTid") ||
            !store_db_has_column(state->db, tables[i], "correlationId"))
            continue;
        char sql[512];
        snprintf(sql, sizeof sql,
                 "INSERT OR IGNORE INTO temp.overlapscope_launches SELECT (r.globalTid >> 24) & 16777215,"
                 " r.correlationId, r.globalTid & 16777215, r.start FROM \"%s\" r JOIN StringIds s"
                 " ON s.id = r.nameId WHERE s.value LIKE '%%Launch%%'",
                 tables[i]);
        if (nsys_exec(state, sql, "the launch calls", err) != 0)
            return -1;
    }
    return 0;
}

int nsys_prepare_nccl_sizes(struct nsys_state *state, error_info *err)
{
    static const char *const needed[] = {"eventType", "domainId", "text", "globalTid", "start", "end"};
    if (!store_db_has_table(state->db, "NVTX_EVENTS"))
        return 0;
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
        if (!store_db_has_column(state->db, "NVTX_EVENTS", needed[i]))
            return 0;
    if (nsys_exec(state,
                  "DROP TABLE IF EXISTS temp.overlapscope_nccl_ranges;"
                  "DROP TABLE IF EXISTS temp.overlapscope_launches;"
                  "CREATE TEMP TABLE overlapscope_nccl_ranges (pid INTEGER, tid INTEGER, start INTEGER,"
                  " end INTEGER, bytes INTEGER)",
                  "NCCL's NVTX ranges", err) != 0)
        return -1;
    if (sqlite3_prepare_v2(state->db, "INSERT INTO temp.overlapscope_nccl_ranges VALUES (?, ?, ?, ?, ?)", -1,
                           &state->nccl_range_insert, NULL) != SQLITE_OK)
        return error_set(err, "%s: cannot keep NCCL's NVTX sizes: %s", state->name,
                         sqlite3_errmsg(state->db));
    static const struct nsys_table table =
        NSYS_TABLE("NVTX_EVENTS", nccl_range_columns,
                   "WHERE t.eventType IN (59, 60) AND t.domainId IN (SELECT domainId FROM"
                   " NVTX_EVENTS WHERE eventType = 75 AND text = 'NCCL')",
                   nccl_range_defaults, NULL, keep_nccl_range);
    int status = nsys_read_table(state, &table, err);
    sqlite3_finalize(state->nccl_range_insert);
    state->nccl_range_insert = NULL;
    if (status != 0 || state->nccl_ranges == 0)
        return status;
    if (nsys_exec(
            state,
            "CREATE INDEX temp.overlapscope_nccl_ranges_at ON overlapscope_nccl_ranges (pid, tid, start)",
            "NCCL's NVTX ranges", err) != 0 ||
        gather_launches(state, err) != 0)
        return -1;
    /* The innermost NCCL range with a size open on the launching thread when the kernel's launch
     * call began: ncclAllReduce(...) launches inside its own range. Grouped calls launch at
     * ncclGroupEnd, outside them: their kernels keep no size. */
    if (sqlite3_prepare_v2(
            state->db,
            "SELECT n.bytes FROM temp.overlapscope_launches l JOIN temp.overlapscope_nccl_ranges n"
            " ON n.pid = l.pid AND n.tid = l.tid AND n.start <= l.start"
            " AND (n.end IS NULL OR n.end >= l.start)"
            " WHERE l.pid = ?1 AND l.correlation = ?2 ORDER BY n.start DESC LIMIT 1",
            -1, &state->nccl_bytes_query, NULL) != SQLITE_OK)
        return error_set(err, "%s: cannot read NCCL's NVTX sizes: %s", state->name,
                         sqlite3_errmsg(state->db));
    return 0;
}

int64_t nsys_nccl_bytes(struct nsys_state *state, int64_t pid, int64_t correlation_id)
{
    sqlite3_stmt *query = state->nccl_bytes_query;
    if (!query || correlation_id == STORE_NULL)
        return STORE_NULL;
    sqlite3_bind_int64(query, 1, pid);
    sqlite3_bind_int64(query, 2, correlation_id);
    int64_t bytes = sqlite3_step(query) == SQLITE_ROW && sqlite3_column_type(query, 0) == SQLITE_INTEGER
                        ? sqlite3_column_int64(query, 0)
                        : STORE_NULL;
    sqlite3_reset(query);
    return bytes;
}

void nsys_finish_nccl_sizes(struct nsys_state *state)
{
    sqlite3_finalize(state->nccl_range_insert);
    sqlite3_finalize(state->nccl_bytes_query);
    state->nccl_range_insert = state->nccl_bytes_query = NULL;
    sqlite3_exec(state->db,
                 "DROP TABLE IF EXISTS temp.overlapscope_nccl_ranges;"
                 "DROP TABLE IF EXISTS temp.overlapscope_launches",
                 NULL, NULL, NULL);
}

int nsys_import_host_activity(struct nsys_state *state, error_info *err)
{
    int status = import_api_calls(state, err);
    if (status == 0)
        status = import_nvtx(state, err);
    if (status == 0)
        status = import_osrt(state, err);
    return status;
}
