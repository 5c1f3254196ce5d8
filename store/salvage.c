/* salvage.c: see salvage.h. */
#include "salvage.h"

#include <sqlite3.h>
#include <stdio.h>

static const char *const salvage_tables[] = {
    "processes", "strings",     "devices",          "streams",        "kernel_shapes", "kernel_runs",
    "memcpys",   "memsets",     "synchronizations", "cuda_events",    "api_functions", "api_call_runs",
    "nvtx",      "collectives", "warnings",         "process_origins"};

/* Copies table from `from` into `to`; returns the rows copied (see store_salvage_rows). */
static int64_t salvage_table(sqlite3 *from, sqlite3 *to, const char *table)
{
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT rowid, * FROM %s", table);
    sqlite3_stmt *read = NULL, *write = NULL;
    if (sqlite3_prepare_v2(from, sql, -1, &read, NULL) != SQLITE_OK)
        return 0;
    int columns = sqlite3_column_count(read);
    char insert[4096];
    int used = snprintf(insert, sizeof insert, "INSERT OR IGNORE INTO %s (rowid", table);
    for (int i = 1; i < columns; i++)
        used +=
            snprintf(insert + used, sizeof insert - (size_t)used, ", \"%s\"", sqlite3_column_name(read, i));
    used += snprintf(insert + used, sizeof insert - (size_t)used, ") VALUES (?");
    for (int i = 1; i < columns; i++)
        used += snprintf(insert + used, sizeof insert - (size_t)used, ", ?");
    snprintf(insert + used, sizeof insert - (size_t)used, ")");
    int64_t copied = 0;
    if (sqlite3_prepare_v2(to, insert, -1, &write, NULL) == SQLITE_OK) {
        while (sqlite3_step(read) == SQLITE_ROW) {
            for (int i = 0; i < columns; i++)
                sqlite3_bind_value(write, i + 1, sqlite3_column_value(read, i));
            if (sqlite3_step(write) == SQLITE_DONE && sqlite3_changes(to) > 0)
                copied++;
            sqlite3_reset(write);
        }
    }
    sqlite3_finalize(read);
    sqlite3_finalize(write);
    return copied;
}

int64_t store_salvage_rows(store *copy, const char *source_path, int64_t *processes)
{
    sqlite3 *db = store_db(copy);
    sqlite3 *damaged = NULL;
    int readable_source = sqlite3_open_v2(source_path, &damaged, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK;
    int64_t copied = 0;
    *processes = 0;
    if (readable_source && sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK) {
        for (size_t i = 0; i < sizeof salvage_tables / sizeof salvage_tables[0]; i++) {
            int64_t rows = salvage_table(damaged, db, salvage_tables[i]);
            if (i == 0)
                *processes = rows;
            copied += rows;
        }
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    }
    sqlite3_close(damaged);
    return copied;
}

static int64_t query_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *query = NULL;
    int64_t value = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &query, NULL) == SQLITE_OK && sqlite3_step(query) == SQLITE_ROW)
        value = sqlite3_column_int64(query, 0);
    sqlite3_finalize(query);
    return value;
}

void store_trace_totals(store *trace, struct store_trace_totals *totals)
{
    sqlite3 *db = store_db(trace);
    totals->processes = query_int(db, "SELECT COUNT(*) FROM processes");
    totals->kernels = query_int(db, "SELECT COUNT(*) FROM kernels");
    totals->collectives = query_int(db, "SELECT COUNT(*) FROM collectives");
    totals->dropped_records = query_int(db, "SELECT COALESCE(SUM(dropped_records), 0) FROM processes");
    totals->warnings = query_int(db, "SELECT COUNT(*) FROM warnings");
    totals->competing_profiler_warnings =
        query_int(db, "SELECT COUNT(*) FROM warnings WHERE code = 'competing-profiler'");
}

int64_t store_next_process_id(store *trace)
{
    return query_int(store_db(trace), "SELECT COALESCE(MAX(process_id), 0) + 1 FROM processes");
}
