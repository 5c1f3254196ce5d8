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

enum api_column { A_START, A_END, A_TID, A_CORRELATION, A_RETURN, A_CALLBACK, A_NAME, A_COUNT };

static int import_api_row(struct nsys_state *state, sqlite3_stmt *row, int64_t api_domain, const char *table,
                          error_info *err)
{
    int64_t global_tid = nsys_column_or_null(row, A_TID);
    int64_t process_id = nsys_process_for_pid(state, nsys_pid_of_global(global_tid), err);
    if (!process_id)
        return -1;
    const unsigned char *name = sqlite3_column_text(row, A_NAME);
    struct store_api_call call = {.process_id = process_id,
                                  .thread_id = nsys_tid_of_global(global_tid),
                                  .api_domain = api_domain,
                                  .callback_id = nsys_column_or_null(row, A_CALLBACK),
                                  .correlation_id = nsys_column_or_null(row, A_CORRELATION),
                                  .start_ns = nsys_shifted(state, nsys_column_or_null(row, A_START)),
                                  .end_ns = nsys_shifted(state, nsys_column_or_null(row, A_END)),
                                  .return_value = nsys_column_or_null(row, A_RETURN),
                                  .name = name ? (const char *)name : "(unnamed call)"};
    if (call.start_ns == STORE_NULL || call.end_ns == STORE_NULL)
        return error_set(err, "%s: %s: a row without start or end", state->name, table);
    state->api_calls++;
    return store_insert_api_call(state->s, &call, err);
}

static int import_runtime_row(struct nsys_state *state, sqlite3_stmt *row, error_info *err)
{
    return import_api_row(state, row, STORE_API_RUNTIME, "CUPTI_ACTIVITY_KIND_RUNTIME", err);
}

static int import_driver_row(struct nsys_state *state, sqlite3_stmt *row, error_info *err)
{
    return import_api_row(state, row, STORE_API_DRIVER, "CUPTI_ACTIVITY_KIND_DRIVER", err);
}

static int import_api_calls(struct nsys_state *state, error_info *err)
{
    static const char *const columns[A_COUNT] = {"start",
                                                 "end",
                                                 "globalTid",
                                                 "correlationId",
                                                 "returnValue",
                                                 "callbackId",
                                                 "=(SELECT value FROM StringIds WHERE id = t.nameId)"};
    if (nsys_table_exists(state->db, "CUPTI_ACTIVITY_KIND_RUNTIME") &&
        !nsys_column_exists(state->db, "CUPTI_ACTIVITY_KIND_RUNTIME", "nameId"))
        return error_set(err, "%s: CUPTI_ACTIVITY_KIND_RUNTIME has no nameId column", state->name);
    if (nsys_for_each_row(state, "CUPTI_ACTIVITY_KIND_RUNTIME", columns, A_COUNT, "ORDER BY t.start",
                          import_runtime_row, err) != 0)
        return -1;
    if (nsys_table_exists(state->db, "CUPTI_ACTIVITY_KIND_DRIVER") &&
        !nsys_column_exists(state->db, "CUPTI_ACTIVITY_KIND_DRIVER", "nameId"))
        return error_set(err, "%s: CUPTI_ACTIVITY_KIND_DRIVER has no nameId column", state->name);
    return nsys_for_each_row(state, "CUPTI_ACTIVITY_KIND_DRIVER", columns, A_COUNT, "ORDER BY t.start",
                             import_driver_row, err);
}

enum nvtx_column { N_START, N_END, N_TYPE, N_TID, N_CATEGORY, N_COLOR, N_TEXT, N_DOMAIN, N_COUNT };

static int import_nvtx_row(struct nsys_state *state, sqlite3_stmt *row, error_info *err)
{
    int64_t type = nsys_column_or_null(row, N_TYPE);
    int64_t kind = type == NSYS_NVTX_PUSH_POP    ? STORE_NVTX_PUSH_POP
                   : type == NSYS_NVTX_START_END ? STORE_NVTX_START_END
                   : type == NSYS_NVTX_MARK      ? STORE_NVTX_MARK
                                                 : 0;
    const unsigned char *text = sqlite3_column_text(row, N_TEXT);
    if (!kind || !text)
        return 0; /* domain and category registrations, payload-only ranges */
    int64_t global_tid = nsys_column_or_null(row, N_TID);
    int64_t process_id = nsys_process_for_pid(state, nsys_pid_of_global(global_tid), err);
    if (!process_id)
        return -1;
    const unsigned char *domain = sqlite3_column_text(row, N_DOMAIN);
    struct store_nvtx range = {.process_id = process_id,
                               .thread_id = nsys_tid_of_global(global_tid),
                               .device_id = STORE_NULL,
                               .stream_id = STORE_NULL,
                               .kind = kind,
                               .domain = domain ? (const char *)domain : NULL,
                               .message = (const char *)text,
                               .category = nsys_column_or_null(row, N_CATEGORY),
                               .color = nsys_column_or_null(row, N_COLOR),
                               .start_ns = nsys_shifted(state, nsys_column_or_null(row, N_START)),
                               .end_ns = nsys_shifted(state, nsys_column_or_null(row, N_END)),
                               .depth = STORE_NULL};
    if (range.start_ns == STORE_NULL)
        return error_set(err, "%s: NVTX_EVENTS: a row without start", state->name);
    if (range.end_ns == STORE_NULL || kind == STORE_NVTX_MARK)
        range.end_ns = range.start_ns; /* a mark, or a range never closed */
    return store_insert_nvtx(state->s, &range, err);
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
    if (!nsys_table_exists(state->db, "NVTX_EVENTS"))
        return 0;
    char text_expression[160];
    const char *domain_expression = "=NULL";
    int has_text = nsys_column_exists(state->db, "NVTX_EVENTS", "text");
    int has_text_id = nsys_column_exists(state->db, "NVTX_EVENTS", "textId");
    snprintf(text_expression, sizeof text_expression, "=COALESCE(%s, %s)", has_text ? "t.text" : "NULL",
             has_text_id ? "(SELECT value FROM StringIds WHERE id = t.textId)" : "NULL");
    int has_domains = has_text && nsys_column_exists(state->db, "NVTX_EVENTS", "domainId");
    if (has_domains) {
        if (load_nvtx_domains(state, err) != 0)
            return -1;
        domain_expression = "=(SELECT d.text FROM temp.overlapscope_nvtx_domains d WHERE d.id = t.domainId)";
    }
    const char *const columns[N_COUNT] = {"start",    "end",   "eventType",     "globalTid",
                                          "category", "color", text_expression, domain_expression};
    int status =
        nsys_for_each_row(state, "NVTX_EVENTS", columns, N_COUNT, "ORDER BY t.start", import_nvtx_row, err);
    if (has_domains)
        drop_nvtx_domains(state);
    return status;
}

enum osrt_column { O_START, O_END, O_TID, O_RETURN, O_NAME, O_COUNT };

/* Only the calls that wait (host_wait.h), for HOST_WAIT_MIN_NS at least, of processes that did CUDA
 * work: the rest (mmap, ioctl, other processes of the machine) tells nothing about why a GPU
 * waited. */
static int import_osrt_row(struct nsys_state *state, sqlite3_stmt *row, error_info *err)
{
    const char *name = (const char *)sqlite3_column_text(row, O_NAME);
    if (host_wait_classify(name) == HOST_WAIT_NONE)
        return 0;
    int64_t global_tid = nsys_column_or_null(row, O_TID);
    int64_t process_id = nsys_known_process(state, nsys_pid_of_global(global_tid));
    if (!process_id)
        return 0;
    struct store_api_call call = {.process_id = process_id,
                                  .thread_id = nsys_tid_of_global(global_tid),
                                  .api_domain = STORE_API_OS_RUNTIME,
                                  .callback_id = STORE_NULL,
                                  .correlation_id = STORE_NULL,
                                  .start_ns = nsys_shifted(state, nsys_column_or_null(row, O_START)),
                                  .end_ns = nsys_shifted(state, nsys_column_or_null(row, O_END)),
                                  .return_value = nsys_column_or_null(row, O_RETURN),
                                  .name = name};
    if (call.start_ns == STORE_NULL || call.end_ns == STORE_NULL)
        return error_set(err, "%s: OSRT_API: a row without start or end", state->name);
    if (call.end_ns - call.start_ns < HOST_WAIT_MIN_NS)
        return 0;
    state->os_waits++;
    return store_insert_api_call(state->s, &call, err);
}

static int import_osrt(struct nsys_state *state, error_info *err)
{
    static const char *const columns[O_COUNT] = {"start", "end", "globalTid", "returnValue",
                                                 "=(SELECT value FROM StringIds WHERE id = t.nameId)"};
    if (nsys_table_exists(state->db, "OSRT_API") && !nsys_column_exists(state->db, "OSRT_API", "nameId"))
        return error_set(err, "%s: OSRT_API has no nameId column", state->name);
    return nsys_for_each_row(state, "OSRT_API", columns, O_COUNT, "ORDER BY t.start", import_osrt_row, err);
}

/* --- NCCL's message sizes --- */

/* The size an NCCL NVTX range carries: NCCL 2.19+ attaches a payload schema with the entry "Message
 * size [bytes]" (NCCL src/include/nvtx_payload_schemas.h), which nsys exports as text (jsonText or
 * jsonTextId); a plain integer payload (uint64Value ...) is taken as the size too. */
static int64_t payload_bytes(sqlite3_stmt *row, int text_column, int first_number_column, int numbers)
{
    const char *text = (const char *)sqlite3_column_text(row, text_column);
    const char *at = text ? strstr(text, "size [bytes]") : NULL;
    if (at) {
        at += strlen("size [bytes]");
        while (*at == '"' || *at == ':' || *at == ' ')
            at++;
        char *end = NULL;
        long long bytes = strtoll(at, &end, 10);
        return end != at && bytes >= 0 ? bytes : STORE_NULL;
    }
    for (int i = 0; i < numbers; i++) {
        int64_t value = nsys_column_or_null(row, first_number_column + i);
        if (value != STORE_NULL)
            return value >= 0 ? value : STORE_NULL;
    }
    return STORE_NULL;
}

enum nccl_range_column { R_START, R_END, R_TID, R_TEXT, R_U64, R_I64, R_U32, R_I32, R_COUNT };

static int keep_nccl_range(struct nsys_state *state, sqlite3_stmt *row, error_info *err)
{
    int64_t bytes = payload_bytes(row, R_TEXT, R_U64, R_COUNT - R_U64);
    int64_t global_tid = nsys_column_or_null(row, R_TID);
    if (bytes == STORE_NULL || global_tid == STORE_NULL)
        return 0;
    sqlite3_stmt *insert = state->nccl_range_insert;
    sqlite3_bind_int64(insert, 1, nsys_pid_of_global(global_tid));
    sqlite3_bind_int64(insert, 2, nsys_tid_of_global(global_tid));
    sqlite3_bind_int64(insert, 3, sqlite3_column_int64(row, R_START));
    if (sqlite3_column_type(row, R_END) == SQLITE_NULL)
        sqlite3_bind_null(insert, 4);
    else
        sqlite3_bind_int64(insert, 4, sqlite3_column_int64(row, R_END));
    sqlite3_bind_int64(insert, 5, bytes);
    int rc = sqlite3_step(insert);
    sqlite3_reset(insert);
    if (rc != SQLITE_DONE)
        return error_set(err, "%s: cannot keep NCCL's NVTX sizes: %s", state->name,
                         sqlite3_errmsg(state->db));
    state->nccl_ranges++;
    return 0;
}

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
        if (!nsys_table_exists(state->db, tables[i]) || !nsys_column_exists(state->db, tables[i], "nameId") ||
            !nsys_column_exists(state->db, tables[i], "globalTid") ||
            !nsys_column_exists(state->db, tables[i], "correlationId"))
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
    if (!nsys_table_exists(state->db, "NVTX_EVENTS"))
        return 0;
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
        if (!nsys_column_exists(state->db, "NVTX_EVENTS", needed[i]))
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
    int has_json_id = nsys_column_exists(state->db, "NVTX_EVENTS", "jsonTextId");
    const char *const columns[R_COUNT] = {
        "start",
        "end",
        "globalTid",
        has_json_id ? "=COALESCE(t.jsonText, (SELECT value FROM StringIds WHERE id = t.jsonTextId))"
                    : "jsonText",
        "uint64Value",
        "int64Value",
        "uint32Value",
        "int32Value"};
    int status = nsys_for_each_row(state, "NVTX_EVENTS", columns, R_COUNT,
                                   "WHERE t.eventType IN (59, 60) AND t.domainId IN (SELECT domainId FROM"
                                   " NVTX_EVENTS WHERE eventType = 75 AND text = 'NCCL')",
                                   keep_nccl_range, err);
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
    int64_t bytes = sqlite3_step(query) == SQLITE_ROW ? nsys_column_or_null(query, 0) : STORE_NULL;
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
