/* cmd_info.c: `overlapscope info TRACE`: what a trace holds, before any analysis. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "overview.h"
#include "store.h"
#include "text_safe.h"
#include "units.h"

/* Runs a one-value query; returns the value or fallback when the query yields nothing. */
static int64_t query_int(sqlite3 *db, const char *sql, int64_t fallback)
{
    sqlite3_stmt *query = NULL;
    int64_t value = fallback;
    if (sqlite3_prepare_v2(db, sql, -1, &query, NULL) == SQLITE_OK && sqlite3_step(query) == SQLITE_ROW &&
        sqlite3_column_type(query, 0) != SQLITE_NULL)
        value = (int64_t)sqlite3_column_int64(query, 0);
    sqlite3_finalize(query);
    return value;
}

static int64_t column_int(sqlite3_stmt *query, int column)
{
    return (int64_t)sqlite3_column_int64(query, column);
}

static const char *text_or(sqlite3_stmt *query, int column, const char *fallback)
{
    const unsigned char *text = sqlite3_column_text(query, column);
    return text ? (const char *)text : fallback;
}

/* Text read from the trace (or its path) goes to the terminal escaped: a name can hold any byte. */
static void print_text(const char *text)
{
    text_safe_fputs(text, TEXT_SAFE_TERMINAL, stdout);
}

static void print_header(store *trace)
{
    char *tool = store_get_meta(trace, "tool_version");
    char *source = store_get_meta(trace, "source");
    char *host = store_get_meta(trace, "host");
    printf("trace:     ");
    print_text(store_path(trace));
    printf(" (schema v%d, written by overlapscope ", STORE_SCHEMA_VERSION);
    print_text(tool ? tool : "?");
    if (source) {
        printf(", from ");
        print_text(source);
    }
    printf(")\n");
    if (host) {
        printf("host:      ");
        print_text(host);
        printf("\n");
    }
    free(tool);
    free(source);
    free(host);
}

static void print_span(sqlite3 *db)
{
    static const char *const span_sql =
        "SELECT MIN(s), MAX(e) FROM ("
        " SELECT MIN(start_ns) s, MAX(end_ns) e FROM kernels UNION ALL"
        " SELECT MIN(start_ns), MAX(end_ns) FROM memcpys UNION ALL"
        " SELECT MIN(start_ns), MAX(end_ns) FROM memsets)";
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db, span_sql, -1, &query, NULL) == SQLITE_OK && sqlite3_step(query) == SQLITE_ROW &&
        sqlite3_column_type(query, 0) != SQLITE_NULL) {
        char text[32];
        int64_t span = column_int(query, 1) - column_int(query, 0);
        printf("GPU span:  %s (first to last GPU activity, all processes)\n",
               units_format_duration(text, sizeof text, span));
    } else {
        printf("GPU span:  no GPU activity\n");
    }
    sqlite3_finalize(query);
}

/* Whether `render` can draw the whole trace from its stored overview (render/overview.h). */
static void print_overview(store *trace)
{
    int64_t start_ns = 0, end_ns = 0;
    error_info err;
    int status = overview_span(trace, &start_ns, &end_ns, &err);
    if (status == 1)
        printf("overview:  stored (render draws whole-trace pictures from it, without a scan)\n");
    else if (status < 0) {
        printf("overview:  unusable: ");
        print_text(err.message);
        printf("\n");
    } else
        printf("overview:  none (fewer than %d GPU rows, or the trace changed since; render scans the rows)\n",
               OVERVIEW_MIN_ROWS);
}

static void print_processes(sqlite3 *db)
{
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT process_id, pid, rank, world_size, local_rank, host, exit_status, term_signal,"
                           " dropped_records, command_line FROM processes ORDER BY rank, pid",
                           -1, &query, NULL) != SQLITE_OK)
        return;
    printf("\nprocesses:\n");
    while (sqlite3_step(query) == SQLITE_ROW) {
        printf("  pid %-8" PRId64, column_int(query, 1));
        if (sqlite3_column_type(query, 2) != SQLITE_NULL) {
            printf(" rank %" PRId64, column_int(query, 2));
            if (sqlite3_column_type(query, 3) != SQLITE_NULL)
                printf("/%" PRId64, column_int(query, 3));
            if (sqlite3_column_type(query, 4) != SQLITE_NULL)
                printf(" (local %" PRId64 ")", column_int(query, 4));
        }
        printf("  host ");
        print_text(text_or(query, 5, "?"));
        if (sqlite3_column_type(query, 7) != SQLITE_NULL)
            printf("  killed by signal %" PRId64, column_int(query, 7));
        else if (sqlite3_column_type(query, 6) != SQLITE_NULL)
            printf("  exit %" PRId64, column_int(query, 6));
        printf("  dropped %" PRId64, column_int(query, 8));
        printf("\n    ");
        print_text(text_or(query, 9, "(command line unknown)"));
        printf("\n");
    }
    sqlite3_finalize(query);
}

static void print_devices(sqlite3 *db)
{
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT d.device_id, d.name, d.sm_count, d.compute_capability_major,"
                           " d.compute_capability_minor, d.max_blocks_per_sm, d.max_warps_per_sm,"
                           " d.max_registers_per_sm, d.max_shared_memory_per_sm, d.global_memory_bytes,"
                           " p.pid, p.rank"
                           " FROM devices d LEFT JOIN processes p USING (process_id) ORDER BY p.rank, p.pid, d.device_id",
                           -1, &query, NULL) != SQLITE_OK)
        return;
    printf("\ndevices:\n");
    while (sqlite3_step(query) == SQLITE_ROW) {
        char memory[32], shared[32];
        printf("  pid %-8" PRId64 " device %" PRId64 ": ", column_int(query, 10), column_int(query, 0));
        print_text(text_or(query, 1, "?"));
        printf(", %" PRId64 " SMs, cc %" PRId64 ".%" PRId64, column_int(query, 2), column_int(query, 3),
               column_int(query, 4));
        if (sqlite3_column_type(query, 5) != SQLITE_NULL)
            printf(", %" PRId64 " blocks/%" PRId64 " warps/%" PRId64 " regs/%s shared per SM",
                   column_int(query, 5), column_int(query, 6), column_int(query, 7),
                   units_format_bytes(shared, sizeof shared, column_int(query, 8)));
        if (sqlite3_column_type(query, 9) != SQLITE_NULL)
            printf(", %s", units_format_bytes(memory, sizeof memory, column_int(query, 9)));
        printf("\n");
    }
    sqlite3_finalize(query);
}

static void print_counts(sqlite3 *db)
{
    static const struct {
        const char *label, *table;
    } kinds[] = {{"kernels", "kernels"},
                 {"memcpys", "memcpys"},
                 {"memsets", "memsets"},
                 {"synchronizations", "synchronizations"},
                 {"CUDA event records", "cuda_events"},
                 {"CUDA API calls", "api_calls"},
                 {"NVTX ranges and marks", "nvtx"},
                 {"NCCL collectives", "collectives"},
                 {"streams", "streams"}};
    printf("\nrecords:\n");
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM %s", kinds[i].table);
        printf("  %-22s %" PRId64 "\n", kinds[i].label, query_int(db, sql, 0));
    }
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT op, COUNT(*), SUM(bytes) FROM collectives GROUP BY op ORDER BY COUNT(*) DESC",
                           -1, &query, NULL) == SQLITE_OK) {
        while (sqlite3_step(query) == SQLITE_ROW) {
            char bytes[32], op[64];
            text_safe_copy(op, sizeof op, text_or(query, 0, "?"), TEXT_SAFE_TERMINAL);
            printf("    %-20s %" PRId64, op, column_int(query, 1));
            if (sqlite3_column_type(query, 2) != SQLITE_NULL)
                printf("  (%s)", units_format_bytes(bytes, sizeof bytes, column_int(query, 2)));
            printf("\n");
        }
    }
    sqlite3_finalize(query);
}

static void print_drops_and_warnings(sqlite3 *db)
{
    int64_t dropped = query_int(db, "SELECT SUM(dropped_records) FROM processes", 0);
    printf("\ndropped records: %" PRId64 "%s\n", dropped,
           dropped ? " (CUPTI's buffers overflowed: see 'overlapscope help record', --buffer-mb)" : "");
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT w.code, w.message, p.pid FROM warnings w LEFT JOIN processes p USING (process_id)",
                           -1, &query, NULL) != SQLITE_OK)
        return;
    int count = 0;
    while (sqlite3_step(query) == SQLITE_ROW) {
        if (count++ == 0)
            printf("warnings:\n");
        if (sqlite3_column_type(query, 2) != SQLITE_NULL)
            printf("  [pid %" PRId64 "] ", column_int(query, 2));
        else
            printf("  ");
        print_text(text_or(query, 0, "?"));
        printf(": ");
        print_text(text_or(query, 1, ""));
        printf("\n");
    }
    if (count == 0)
        printf("warnings: none\n");
    sqlite3_finalize(query);
}

int cmd_info(int argc, char **argv)
{
    static const struct option options[] = {{"no-verify", no_argument, NULL, 'n'}, {0, 0, 0, 0}};
    int verify = 1;
    optind = 1;
    int option;
    while ((option = getopt_long(argc, argv, "", options, NULL)) != -1) {
        if (option != 'n')
            return cli_usage_error(argv[0], "unknown option");
        verify = 0;
    }
    if (argc - optind != 1)
        return cli_usage_error(argv[0], "expected one trace file");
    error_info err;
    store *trace = store_open(argv[optind], 1, &err);
    if (!trace)
        return cli_error(argv[0], "%s", err.message);
    /* info is the command people run on a file they doubt: a damaged page must be said, not
     * hidden behind counts that happen to read fine. */
    if (verify && store_verify(trace, &err) != 0) {
        store_close(trace, NULL);
        return cli_error(argv[0], "%s", err.message);
    }
    sqlite3 *db = store_db(trace);
    print_header(trace);
    print_span(db);
    print_processes(db);
    print_devices(db);
    print_counts(db);
    print_overview(trace);
    print_drops_and_warnings(db);
    store_close(trace, NULL);
    return CLI_EXIT_OK;
}
