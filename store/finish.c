/* finish.c: what a writer checks and fixes before a trace is finished: texts cut, indexes and the
 * WAL folded back (store_finalize), rows out of any recording's bounds (store_mark_rows,
 * store_check_plausible), ranks from NCCL, and process clocks shifted into line (see store.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "store_internal.h"
#include "store_sql.h"

/* One warning for every text the writer cut (capped_text), so that info shows it. */
int64_t store_texts_cut(const store *s)
{
    return s->texts_cut;
}

void store_add_texts_cut(store *s, int64_t count)
{
    if (count > 0)
        s->texts_cut += count;
}

static int warn_texts_cut(store *s, error_info *err)
{
    if (s->texts_cut == 0)
        return 0;
    char message[160];
    snprintf(message, sizeof message,
             "%" PRId64 " name%s or text%s longer than %d bytes stored cut, ending in \"%s\"", s->texts_cut,
             s->texts_cut == 1 ? "" : "s", s->texts_cut == 1 ? "" : "s", STORE_MAX_TEXT_BYTES,
             STORE_TEXT_CUT_MARKER);
    struct store_warning warning = {
        .process_id = STORE_NULL, .time_ns = STORE_NULL, .code = "text-cut", .message = message};
    s->texts_cut = 0;
    return store_insert_warning(s, &warning, err);
}

int store_finalize(store *s, error_info *err)
{
    if (warn_texts_cut(s, err) != 0)
        return -1;
    int was_in_transaction = s->in_transaction;
    if (store_commit(s, err) != 0)
        return -1;
    if (store_exec_sql(s, store_indexes_sql, err, "create indexes") != 0 ||
        store_exec_sql(s, "ANALYZE", err, "analyze") != 0)
        return -1;
    /* A finished trace is one self-contained file: fold the WAL back and leave rollback mode. */
    if (store_exec_sql(s, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE;", err,
                       "checkpoint") != 0)
        return -1;
    return was_in_transaction ? store_begin(s, err) : 0;
}

/* --- what a writer keeps --- */

/* The tables store_check_plausible reads, each with the query that finds its first row out of
 * bounds after rowid ?1: ?2 STORE_MAX_ABS_TIME_NS, ?3 STORE_MAX_DURATION_NS, ?4 STORE_MAX_SPAN_NS.
 * SQLite turns an overflowing integer sum into a REAL, which the typeof tests catch. */
#define TIME_OUT_OF_BOUNDS(start, end)                                                                       \
    "(typeof(" start ") != 'integer' OR typeof(" end ") != 'integer' OR " start                              \
    " NOT BETWEEN -?2 AND ?2 OR " end " NOT BETWEEN -?2 AND ?2 OR (" end " > " start " AND " end " - " start \
    " > ?3))"
#define COUNT_OUT_OF_BOUNDS(column, max)                                                                     \
    " OR (" column " IS NOT NULL AND (typeof(" column ") != 'integer' OR " column " NOT BETWEEN 0 AND " max  \
    "))"
static const struct {
    const char *table, *sql;
} plausibility_checks[STORE_CHECKED_TABLE_COUNT] = {
    {"kernels",
     "SELECT rowid, start_ns, end_ns FROM kernels WHERE rowid > ?1 AND (" TIME_OUT_OF_BOUNDS(
         "start_ns", "end_ns") COUNT_OUT_OF_BOUNDS("grid_x * grid_y * grid_z", "281474976710656")
         COUNT_OUT_OF_BOUNDS("block_x * block_y * block_z", "65536") COUNT_OUT_OF_BOUNDS(
             "registers_per_thread", "65536") COUNT_OUT_OF_BOUNDS("static_shared_bytes", "4294967296")
             COUNT_OUT_OF_BOUNDS("dynamic_shared_bytes", "4294967296")
                 COUNT_OUT_OF_BOUNDS("shared_memory_executed_bytes", "4294967296") ") LIMIT 1"},
    {"memcpys", "SELECT rowid, start_ns, end_ns FROM memcpys WHERE rowid > ?1 AND (" TIME_OUT_OF_BOUNDS(
                    "start_ns", "end_ns") COUNT_OUT_OF_BOUNDS("bytes", "1125899906842624") ") LIMIT 1"},
    {"memsets", "SELECT rowid, start_ns, end_ns FROM memsets WHERE rowid > ?1 AND (" TIME_OUT_OF_BOUNDS(
                    "start_ns", "end_ns") COUNT_OUT_OF_BOUNDS("bytes", "1125899906842624") ") LIMIT 1"},
    {"synchronizations",
     "SELECT rowid, start_ns, end_ns FROM synchronizations WHERE rowid > ?1 AND " TIME_OUT_OF_BOUNDS(
         "start_ns", "end_ns") " LIMIT 1"},
    {"api_calls", "SELECT rowid, start_ns, end_ns FROM api_calls WHERE rowid > ?1 AND " TIME_OUT_OF_BOUNDS(
                      "start_ns", "end_ns") " LIMIT 1"},
    {"nvtx", "SELECT rowid, start_ns, end_ns FROM nvtx WHERE rowid > ?1 AND " TIME_OUT_OF_BOUNDS(
                 "start_ns", "end_ns") " LIMIT 1"},
    {"collectives", "SELECT rowid, start_ns, end_ns FROM collectives WHERE rowid > ?1 AND start_ns IS NOT "
                    "NULL AND " TIME_OUT_OF_BOUNDS("start_ns", "IFNULL(end_ns, start_ns)") " LIMIT 1"},
    {"devices", "SELECT rowid, sm_count, warp_size FROM devices WHERE rowid > ?1 AND (0" COUNT_OUT_OF_BOUNDS(
                    "sm_count", "65536") COUNT_OUT_OF_BOUNDS("compute_capability_major", "1000")
                    COUNT_OUT_OF_BOUNDS("compute_capability_minor", "1000") COUNT_OUT_OF_BOUNDS(
                        "max_blocks_per_sm", "65536") COUNT_OUT_OF_BOUNDS("max_warps_per_sm", "65536")
                        COUNT_OUT_OF_BOUNDS("max_threads_per_sm", "65536")
                            COUNT_OUT_OF_BOUNDS("max_threads_per_block", "65536")
                                COUNT_OUT_OF_BOUNDS("max_registers_per_sm", "16777216")
                                    COUNT_OUT_OF_BOUNDS("max_registers_per_block", "16777216")
                                        COUNT_OUT_OF_BOUNDS("max_shared_memory_per_sm", "4294967296")
                                            COUNT_OUT_OF_BOUNDS("copy_engine_count", "65536")
                                                COUNT_OUT_OF_BOUNDS("warp_size", "1024") ") LIMIT 1"},
};
/* The literals above are store.h's bounds: kept in step by this check at build time. */
_Static_assert(STORE_MAX_GRID_BLOCKS == 281474976710656 && STORE_MAX_THREADS == 65536 &&
                   STORE_MAX_SHARED_MEMORY_BYTES == 4294967296 && STORE_MAX_BYTES == 1125899906842624 &&
                   STORE_MAX_SM_COUNT == 65536 && STORE_MAX_COMPUTE_CAPABILITY == 1000 &&
                   STORE_MAX_REGISTERS == 16777216 && STORE_MAX_WARP_SIZE == 1024,
               "plausibility_checks repeats store.h's bounds");

static const char *text_or_null(sqlite3_stmt *query, int column)
{
    const unsigned char *text = sqlite3_column_text(query, column);
    return text ? (const char *)text : "NULL";
}

int64_t store_single_int64(store *s, const char *sql, int64_t fallback)
{
    sqlite3_stmt *query = NULL;
    int64_t value = fallback;
    if (sqlite3_prepare_v2(s->db, sql, -1, &query, NULL) == SQLITE_OK && sqlite3_step(query) == SQLITE_ROW &&
        sqlite3_column_type(query, 0) != SQLITE_NULL)
        value = sqlite3_column_int64(query, 0);
    sqlite3_finalize(query);
    return value;
}

int store_mark_rows(store *s, struct store_row_mark *mark, error_info *err)
{
    if (store_flush_pending(s, err) != 0)
        return -1;
    for (int i = 0; i < STORE_CHECKED_TABLE_COUNT; i++) {
        char sql[96];
        /* The tables under the views (their MAX(rowid) is one seek; the view's a scan). */
        const char *table = plausibility_checks[i].table;
        if (s->schema_version >= 2 && strcmp(table, "kernels") == 0)
            table = "kernel_runs";
        else if (s->schema_version >= 2 && strcmp(table, "api_calls") == 0)
            table = "api_call_runs";
        snprintf(sql, sizeof sql, "SELECT MAX(rowid) FROM %s", table);
        mark->last_rowid[i] = store_single_int64(s, sql, 0);
    }
    return 0;
}

/* A device whose first and last starts lie further apart than any recording (the analyzer's
 * check_device_spans), among the rows after the mark: an importer's rows since its mark belong to
 * processes it created since (a file's processes are its own), so their spans are whole. Over the
 * whole table, each file of a folder imported one after the other rescanned every earlier file's
 * rows (64 files of 50,000 activities: most of the import's time). The base tables, not the views:
 * only their process, device and start are read. */
static int check_device_spans(store *s, const struct store_row_mark *since, error_info *err)
{
    static const char *const sql =
        "SELECT process_id, device_id, MIN(first), MAX(last) FROM ("
        " SELECT process_id, device_id, MIN(start_ns) first, MAX(start_ns) last FROM %s WHERE rowid > ?2"
        " GROUP BY 1, 2 UNION ALL"
        " SELECT process_id, device_id, MIN(start_ns), MAX(start_ns) FROM memcpys WHERE rowid > ?3"
        " GROUP BY 1, 2 UNION ALL"
        " SELECT process_id, device_id, MIN(start_ns), MAX(start_ns) FROM memsets WHERE rowid > ?4"
        " GROUP BY 1, 2)"
        " GROUP BY 1, 2 HAVING MAX(last) - MIN(first) > ?1 LIMIT 1";
    char text[640];
    snprintf(text, sizeof text, sql, s->schema_version >= 2 ? "kernel_runs" : "kernels");
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(s->db, text, -1, &query, NULL) != SQLITE_OK)
        return store_sql_error(s, err, "check the rows");
    sqlite3_bind_int64(query, 1, STORE_MAX_SPAN_NS);
    for (int i = 0; i < STORE_CHECKED_TABLE_COUNT; i++) {
        const char *table = plausibility_checks[i].table;
        int parameter = strcmp(table, "kernels") == 0   ? 2
                        : strcmp(table, "memcpys") == 0 ? 3
                        : strcmp(table, "memsets") == 0 ? 4
                                                        : 0;
        if (parameter)
            sqlite3_bind_int64(query, parameter, since->last_rowid[i]);
    }
    int rc = sqlite3_step(query), status = 0;
    if (rc == SQLITE_ROW)
        status =
            error_set(err,
                      "device %lld of process %lld has GPU activity from %lld ns to %lld ns, longer than"
                      " any recording",
                      (long long)sqlite3_column_int64(query, 1), (long long)sqlite3_column_int64(query, 0),
                      (long long)sqlite3_column_int64(query, 2), (long long)sqlite3_column_int64(query, 3));
    else if (rc != SQLITE_DONE)
        status = store_sql_error(s, err, "check the rows");
    sqlite3_finalize(query);
    return status;
}

int store_check_plausible(store *s, const struct store_row_mark *since, error_info *err)
{
    if (store_flush_pending(s, err) != 0)
        return -1;
    int status = 0;
    for (int i = 0; status == 0 && i < STORE_CHECKED_TABLE_COUNT; i++) {
        sqlite3_stmt *query = NULL;
        if (sqlite3_prepare_v2(s->db, plausibility_checks[i].sql, -1, &query, NULL) != SQLITE_OK)
            return store_sql_error(s, err, "check the rows");
        sqlite3_bind_int64(query, 1, since->last_rowid[i]);
        sqlite3_bind_int64(query, 2, STORE_MAX_ABS_TIME_NS);
        sqlite3_bind_int64(query, 3, STORE_MAX_DURATION_NS);
        int rc = sqlite3_step(query);
        if (rc == SQLITE_ROW && i == STORE_CHECKED_TABLE_COUNT - 1)
            status =
                error_set(err, "a device (row %lld) has limits no GPU has (%s)",
                          (long long)sqlite3_column_int64(query, 0), "SM count, warp size, registers, ...");
        else if (rc == SQLITE_ROW)
            status = error_set(err,
                               "%s row %lld runs from %s ns to %s ns or has sizes no GPU has, outside any"
                               " recording",
                               plausibility_checks[i].table, (long long)sqlite3_column_int64(query, 0),
                               text_or_null(query, 1), text_or_null(query, 2));
        else if (rc != SQLITE_DONE)
            status = store_sql_error(s, err, "check the rows");
        sqlite3_finalize(query);
    }
    return status == 0 ? check_device_spans(s, since, err) : status;
}

int64_t store_fill_ranks_from_nccl(store *s, error_info *err)
{
    /* One statement, the CTEs read before any row changes: the world communicator of a process is
     * the largest it took part in; its rank there counts only when it is the one rank the process
     * had on communicators of that size (two world-sized communicators with different orders leave
     * it unknown), no other process claims it, and no process holds it from its environment. */
    static const char fill[] =
        "WITH sane AS (SELECT process_id, rank, nranks FROM collectives"
        "              WHERE rank >= 0 AND nranks > 1 AND rank < nranks),"
        " world AS (SELECT process_id, MAX(nranks) AS size FROM sane GROUP BY process_id),"
        " claim AS (SELECT c.process_id, MIN(c.rank) AS rank, w.size FROM sane c"
        "           JOIN world w ON w.process_id = c.process_id AND c.nranks = w.size"
        "           GROUP BY c.process_id HAVING COUNT(DISTINCT c.rank) = 1),"
        " sole AS (SELECT claim.* FROM claim"
        "          WHERE (SELECT COUNT(*) FROM claim twin WHERE twin.rank = claim.rank) = 1"
        "            AND NOT EXISTS (SELECT 1 FROM processes p WHERE p.rank = claim.rank))"
        " UPDATE processes SET rank = (SELECT rank FROM sole WHERE sole.process_id = processes.process_id),"
        "   world_size = COALESCE(world_size,"
        "                         (SELECT size FROM sole WHERE sole.process_id = processes.process_id))"
        " WHERE rank IS NULL AND process_id IN (SELECT process_id FROM sole)";
    if (store_check_writes_current_version(s, "fill ranks", err) != 0 || store_flush_pending(s, err) != 0 ||
        store_exec_sql(s, fill, err, "fill ranks from NCCL") != 0)
        return -1;
    return sqlite3_changes(s->db);
}

int store_shift_process_times(store *s, int64_t process_id, int64_t delta_ns, error_info *err)
{
    static const char *const shifts[] = {
        ("UPDATE kernel_runs SET start_ns = start_ns + ?1, queued_ns = queued_ns + ?1,"
         " submitted_ns = submitted_ns + ?1 WHERE process_id = ?2"),
        "UPDATE memcpys SET start_ns = start_ns + ?1, end_ns = end_ns + ?1 WHERE process_id = ?2",
        "UPDATE memsets SET start_ns = start_ns + ?1, end_ns = end_ns + ?1 WHERE process_id = ?2",
        "UPDATE synchronizations SET start_ns = start_ns + ?1, end_ns = end_ns + ?1 WHERE process_id = ?2",
        "UPDATE cuda_events SET record_ns = record_ns + ?1 WHERE process_id = ?2",
        "UPDATE api_call_runs SET start_ns = start_ns + ?1 WHERE process_id = ?2",
        "UPDATE nvtx SET start_ns = start_ns + ?1, end_ns = end_ns + ?1 WHERE process_id = ?2",
        "UPDATE collectives SET start_ns = start_ns + ?1, end_ns = end_ns + ?1 WHERE process_id = ?2"};
    if (store_check_writes_current_version(s, "shift times", err) != 0 || store_flush_pending(s, err) != 0)
        return -1;
    for (size_t i = 0; i < sizeof shifts / sizeof shifts[0]; i++) {
        sqlite3_stmt *update = NULL;
        if (sqlite3_prepare_v2(s->db, shifts[i], -1, &update, NULL) != SQLITE_OK)
            return store_sql_error(s, err, "shift times");
        sqlite3_bind_int64(update, 1, delta_ns);
        sqlite3_bind_int64(update, 2, process_id);
        int rc = sqlite3_step(update);
        sqlite3_finalize(update);
        if (rc != SQLITE_DONE)
            return store_sql_error(s, err, "shift times");
    }
    return 0;
}
