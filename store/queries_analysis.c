/* queries_analysis.c: see queries_analysis.h. */
#include "queries_analysis.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "store.h"

int store_check_device_spans(sqlite3 *db, const struct store_gpu_device *devices, size_t count,
                             error_info *err)
{
    static const char *const tables[] = {"kernels", "memcpys", "memsets"};
    for (size_t t = 0; t < 3; t++) {
        /* MIN and MAX each alone in their query: only then does SQLite seek the index, not walk it. */
        char sql[256];
        snprintf(sql, sizeof sql,
                 "SELECT (SELECT MIN(start_ns) FROM %s WHERE process_id = ?1 AND device_id = ?2),"
                 " (SELECT MAX(start_ns) FROM %s WHERE process_id = ?1 AND device_id = ?2)",
                 tables[t], tables[t]);
        sqlite3_stmt *query = NULL;
        if (sqlite3_prepare_v2(db, sql, -1, &query, NULL) != SQLITE_OK)
            return error_set(err, "cannot read GPU activity: %s", sqlite3_errmsg(db));
        for (size_t i = 0; i < count; i++) {
            sqlite3_bind_int64(query, 1, devices[i].process_id);
            sqlite3_bind_int64(query, 2, devices[i].device_id);
            int step = sqlite3_step(query);
            if (step == SQLITE_ROW && sqlite3_column_type(query, 0) != SQLITE_NULL) {
                int64_t first = sqlite3_column_int64(query, 0), last = sqlite3_column_int64(query, 1);
                if (first < -STORE_MAX_ABS_TIME_NS || last > STORE_MAX_ABS_TIME_NS ||
                    last - first > STORE_MAX_SPAN_NS) {
                    sqlite3_finalize(query);
                    return error_set(err,
                                     "the trace is damaged: device %" PRId64 " of process %" PRId64
                                     " has %s from %" PRId64 " ns to %" PRId64
                                     " ns, longer than any recording",
                                     devices[i].device_id, devices[i].process_id, tables[t], first, last);
                }
            } else if (step != SQLITE_ROW) {
                error_set(err, "cannot read GPU activity: %s", sqlite3_errmsg(db));
                sqlite3_finalize(query);
                return -1;
            }
            sqlite3_reset(query);
        }
        sqlite3_finalize(query);
    }
    return 0;
}

int store_read_transaction_begin(sqlite3 *db)
{
    return sqlite3_get_autocommit(db) && sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
}

void store_read_transaction_end(sqlite3 *db)
{
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
}

struct store_analysis_reader {
    sqlite3_stmt *process_query, *device_query, *stream_query;
};

store_analysis_reader *store_analysis_reader_open(sqlite3 *db, error_info *err)
{
    store_analysis_reader *reader = calloc(1, sizeof *reader);
    if (!reader) {
        error_set(err, "out of memory");
        return NULL;
    }
    if (sqlite3_prepare_v2(db, "SELECT pid, rank FROM processes WHERE process_id = ?1", -1,
                           &reader->process_query, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(
            db,
            "SELECT name, sm_count, compute_capability_major, compute_capability_minor,"
            " max_blocks_per_sm, max_warps_per_sm, max_threads_per_sm, max_threads_per_block,"
            " max_registers_per_sm, max_registers_per_block, max_shared_memory_per_sm,"
            " copy_engine_count, warp_size FROM devices WHERE process_id = ?1 AND device_id = ?2",
            -1, &reader->device_query, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(
            db,
            "SELECT is_legacy_default, is_per_thread_default, priority, flags FROM streams"
            " WHERE process_id = ?1 AND stream_id = ?2 AND (device_id IS NULL OR device_id = ?3)"
            " LIMIT 1",
            -1, &reader->stream_query, NULL) != SQLITE_OK) {
        error_set(err, "cannot read the trace: %s", sqlite3_errmsg(db));
        store_analysis_reader_free(reader);
        return NULL;
    }
    return reader;
}

void store_analysis_reader_free(store_analysis_reader *reader)
{
    if (!reader)
        return;
    sqlite3_finalize(reader->process_query);
    sqlite3_finalize(reader->device_query);
    sqlite3_finalize(reader->stream_query);
    free(reader);
}

static int64_t column_or(sqlite3_stmt *query, int column, int64_t fallback)
{
    return sqlite3_column_type(query, column) == SQLITE_NULL ? fallback : sqlite3_column_int64(query, column);
}

void store_analysis_process(store_analysis_reader *reader, int64_t process_id, int64_t *pid, int64_t *rank)
{
    sqlite3_stmt *query = reader->process_query;
    sqlite3_bind_int64(query, 1, process_id);
    if (sqlite3_step(query) == SQLITE_ROW) {
        *pid = column_or(query, 0, -1);
        *rank = column_or(query, 1, -1);
    }
    sqlite3_reset(query);
}

int store_analysis_device(store_analysis_reader *reader, int64_t process_id, int64_t device_id,
                          struct store_device_row *row)
{
    sqlite3_stmt *query = reader->device_query;
    sqlite3_bind_int64(query, 1, process_id);
    sqlite3_bind_int64(query, 2, device_id);
    int found = sqlite3_step(query) == SQLITE_ROW;
    if (found) {
        const unsigned char *name = sqlite3_column_text(query, 0);
        snprintf(row->name, sizeof row->name, "%s", name ? (const char *)name : "");
        int64_t *counts[] = {&row->sm_count,
                             &row->compute_capability_major,
                             &row->compute_capability_minor,
                             &row->max_blocks_per_sm,
                             &row->max_warps_per_sm,
                             &row->max_threads_per_sm,
                             &row->max_threads_per_block,
                             &row->max_registers_per_sm,
                             &row->max_registers_per_block,
                             &row->max_shared_memory_per_sm};
        for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
            *counts[i] = column_or(query, (int)i + 1, 0);
        row->copy_engine_count = column_or(query, 11, STORE_NULL);
        row->warp_size = column_or(query, 12, 0);
    }
    sqlite3_reset(query);
    return found;
}

int store_analysis_stream(store_analysis_reader *reader, int64_t process_id, int64_t stream_id,
                          int64_t device_id, struct store_stream_row *row)
{
    sqlite3_stmt *query = reader->stream_query;
    sqlite3_bind_int64(query, 1, process_id);
    sqlite3_bind_int64(query, 2, stream_id);
    sqlite3_bind_int64(query, 3, device_id);
    int found = sqlite3_step(query) == SQLITE_ROW;
    if (found) {
        row->is_legacy_default = (int)column_or(query, 0, 0);
        row->is_per_thread_default = (int)column_or(query, 1, 0);
        row->priority = column_or(query, 2, STORE_NULL);
        row->flags = column_or(query, 3, STORE_NULL);
    }
    sqlite3_reset(query);
    return found;
}
