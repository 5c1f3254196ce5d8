/* append.c: appending one finished trace to another (store_append_trace): processes and strings
 * remapped, times shifted, each table copied by one INSERT ... SELECT over the source attached
 * read-only. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "append_internal.h"

/* --- appending one trace to another --- */

/* Columns copied verbatim except process_id (remapped), the listed time columns (shifted) and
 * the string references (remapped). Kept next to schema.sql's column order on purpose. */
struct append_table {
    const char *table;       /* as readers name it in the source, version 1 or 2 */
    const char *destination; /* the table written; NULL: table */
    const char *select_list; /* expressions over source alias s, process map pm, string maps */
};

static const struct append_table append_tables[] = {
    {"devices", NULL,
     "pm.new_id, s.device_id, s.name, s.uuid, s.pci_bus_id, s.sm_count, s.compute_capability_major,"
     " s.compute_capability_minor, s.max_blocks_per_sm, s.max_warps_per_sm, s.max_threads_per_sm,"
     " s.max_threads_per_block, s.max_registers_per_sm, s.max_registers_per_block,"
     " s.max_shared_memory_per_sm, s.max_shared_memory_per_block, s.max_shared_memory_per_block_optin,"
     " s.global_memory_bytes, s.global_memory_bandwidth_kbps, s.l2_cache_bytes, s.core_clock_khz,"
     " s.copy_engine_count, s.warp_size"},
    {"streams", NULL,
     "pm.new_id, s.device_id, s.context_id, s.stream_id, s.is_legacy_default, s.is_per_thread_default,"
     " s.priority, s.flags, s.label"},
    {"memcpys", NULL,
     "pm.new_id, s.device_id, s.context_id, s.stream_id, s.correlation_id, shift_ns(s.start_ns),"
     " shift_ns(s.end_ns), s.copy_kind, s.src_kind, s.dst_kind, s.bytes, s.src_device_id, s.dst_device_id,"
     " s.is_async, s.channel_id, s.channel_type, s.copy_count, s.graph_id, s.graph_node_id"},
    {"memsets", NULL,
     "pm.new_id, s.device_id, s.context_id, s.stream_id, s.correlation_id, shift_ns(s.start_ns),"
     " shift_ns(s.end_ns), s.value, s.bytes, s.memory_kind, s.is_async, s.channel_id, s.channel_type,"
     " s.graph_id, s.graph_node_id"},
    {"synchronizations", NULL,
     "pm.new_id, s.context_id, s.stream_id, s.event_id, s.sync_type, s.correlation_id,"
     " shift_ns(s.start_ns), shift_ns(s.end_ns)"},
    {"cuda_events", NULL,
     "pm.new_id, s.device_id, s.context_id, s.stream_id, s.event_id, s.correlation_id,"
     " shift_ns(s.record_ns)"},
};

/* API calls: the source's functions not yet in the destination, then the calls, each pointing at
 * its function. */
static const char copy_api_functions_sql[] =
    "INSERT INTO main.api_functions (api_domain, callback_id, name_id) SELECT DISTINCT s.api_domain,"
    " s.callback_id, sm.new_id FROM src.api_calls s JOIN pm ON pm.old_id = s.process_id"
    " JOIN sm ON sm.old_id = s.name_id WHERE NOT EXISTS (SELECT 1 FROM main.api_functions d"
    " WHERE d.api_domain IS s.api_domain AND d.callback_id IS s.callback_id AND d.name_id IS sm.new_id)";
static const char copy_api_calls_sql[] =
    "INSERT INTO api_call_runs SELECT pm.new_id, s.thread_id, s.correlation_id, shift_ns(s.start_ns),"
    " duration_ns(s.start_ns, s.end_ns), s.return_value, (SELECT d.function_id FROM main.api_functions d"
    " WHERE d.api_domain IS s.api_domain AND d.callback_id IS s.callback_id AND d.name_id IS sm.new_id"
    " LIMIT 1) FROM src.api_calls s JOIN pm ON pm.old_id = s.process_id JOIN sm ON sm.old_id = s.name_id";

/* Kernels: the source's shapes not yet in the destination, then the runs, each pointing at its
 * shape (found through kernel_shapes_by_value). From the kernels of either version. */
static const char copy_kernel_shapes_sql[] =
    "INSERT INTO main.kernel_shapes (" SHAPE_COLUMN_NAMES ") SELECT DISTINCT " SHAPE_OF_SOURCE
    " FROM src.kernels s JOIN pm ON pm.old_id = s.process_id JOIN sm ON sm.old_id = s.name_id"
    " WHERE NOT EXISTS (SELECT 1 FROM main.kernel_shapes d WHERE " SAME_SHAPE ")";
static const char copy_kernel_runs_sql[] =
    "INSERT INTO main.kernel_runs (rowid, process_id, device_id, context_id, stream_id, correlation_id,"
    " start_ns, duration_ns, queued_ns, submitted_ns, grid_x, grid_y, grid_z, graph_id, graph_node_id,"
    " channel_id, shape_id) SELECT km.new_rowid, pm.new_id, s.device_id, s.context_id, s.stream_id,"
    " s.correlation_id, shift_ns(s.start_ns), duration_ns(s.start_ns, s.end_ns), shift_ns(s.queued_ns),"
    " shift_ns(s.submitted_ns), s.grid_x, s.grid_y, s.grid_z, s.graph_id, s.graph_node_id, s.channel_id,"
    " (SELECT d.shape_id FROM main.kernel_shapes d WHERE " SAME_SHAPE " LIMIT 1)"
    " FROM src.kernels s JOIN pm ON pm.old_id = s.process_id JOIN sm ON sm.old_id = s.name_id"
    " JOIN km ON km.old_rowid = s.rowid ORDER BY s.rowid";

/* "file:/absolute/path?mode=ro", percent-encoding every byte a URI path may not hold as it is.
 * Caller frees. NULL when out of memory or path cannot be resolved. */
static char *read_only_uri(const char *path)
{
    char *absolute = realpath(path, NULL);
    if (!absolute)
        return NULL;
    size_t length = strlen(absolute);
    char *uri = malloc(3 * length + 16);
    if (uri) {
        char *out = uri + sprintf(uri, "file:");
        for (const unsigned char *c = (const unsigned char *)absolute; *c; c++) {
            if (isalnum(*c) || strchr("/._-~", *c))
                *out++ = (char)*c;
            else
                out += sprintf(out, "%%%02X", *c);
        }
        strcpy(out, "?mode=ro");
    }
    free(absolute);
    return uri;
}

int store_append_attach(store *s, const char *source_path, error_info *err)
{
    store *source = store_open(source_path, 1, err); /* validates: same checks and messages as open */
    if (!source)
        return -1;
    store_close(source, NULL);
    if (store_commit(s, err) != 0)
        return -1;
    /* Read-only: attaching for writing would let SQLite checkpoint the source's log into it. */
    char *uri = read_only_uri(source_path);
    if (!uri)
        return error_set(err, "cannot read '%s': out of memory", source_path);
    sqlite3_stmt *attach = NULL;
    if (sqlite3_prepare_v2(s->db, "ATTACH DATABASE ? AS src", -1, &attach, NULL) != SQLITE_OK) {
        free(uri);
        return store_sql_error(s, err, "attach");
    }
    sqlite3_bind_text(attach, 1, uri, -1, SQLITE_STATIC);
    int rc = sqlite3_step(attach);
    sqlite3_finalize(attach);
    free(uri);
    if (rc != SQLITE_DONE)
        return error_set(err, "cannot read '%s': %s", source_path, sqlite3_errmsg(s->db));
    return 0;
}

/* shift_ns(t): t + the offset of the trace being appended, computed on integers (a REAL or TEXT
 * time is read as an integer first) and clamped instead of overflowing, so no REAL ever lands in
 * an INTEGER time column; readers refuse the clamped values as damaged. */
static void shift_ns(sqlite3_context *context, int argc, sqlite3_value **argv)
{
    (void)argc;
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
        sqlite3_result_null(context);
        return;
    }
    int64_t offset = *(const int64_t *)sqlite3_user_data(context), shifted;
    if (__builtin_add_overflow(sqlite3_value_int64(argv[0]), offset, &shifted))
        shifted = offset > 0 ? INT64_MAX : INT64_MIN;
    sqlite3_result_int64(context, shifted);
}

/* duration_ns(start, end): what store_insert_kernel stores for the two, from integers (a REAL or
 * TEXT time is read as one first). */
static void duration_ns_function(sqlite3_context *context, int argc, sqlite3_value **argv)
{
    (void)argc;
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) {
        sqlite3_result_null(context);
        return;
    }
    sqlite3_result_int64(
        context, store_clamped_duration_ns(sqlite3_value_int64(argv[0]), sqlite3_value_int64(argv[1])));
}

static int64_t count_rows(store *s, const char *table)
{
    /* The views kernels and api_calls have a row per run (a LEFT JOIN): counted in their run
     * tables, which SQLite counts without decoding a row (through the view it reads them all). */
    const char *runs = strcmp(table, "kernels") == 0     ? "kernel_runs"
                       : strcmp(table, "api_calls") == 0 ? "api_call_runs"
                                                         : NULL;
    if (runs && store_schema_has_table(s->db, "src", runs))
        table = runs;
    char sql[96];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM src.%s", table);
    sqlite3_stmt *query = NULL;
    int64_t count = 0;
    if (sqlite3_prepare_v2(s->db, sql, -1, &query, NULL) == SQLITE_OK && sqlite3_step(query) == SQLITE_ROW)
        count = sqlite3_column_int64(query, 0);
    sqlite3_finalize(query);
    return count;
}

static int append_exec(store *s, const char *sql, error_info *err, const char *what)
{
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &query, NULL) != SQLITE_OK)
        return store_sql_error(s, err, what);
    int rc = sqlite3_step(query);
    sqlite3_finalize(query);
    return rc == SQLITE_DONE ? 0 : store_sql_error(s, err, what);
}

int store_append_table_rows(store *s, const char *table, const char *const *statements, int statement_count,
                            struct store_append_losses *losses, error_info *err)
{
    int64_t source_rows = count_rows(s, table), copied = 0;
    for (int i = 0; i < statement_count; i++) {
        if (append_exec(s, statements[i], err, "copy rows") != 0)
            return error_prefix(err, "%s", table);
        copied += sqlite3_changes64(s->db);
    }
    if (losses && copied < source_rows && losses->count < STORE_APPEND_MAX_LOSSES)
        losses->kinds[losses->count++] =
            (struct store_append_loss){.table = table, .rows = source_rows - copied};
    return 0;
}

/* Where in the program the source's calls were made, by the process and string maps (a trace
 * written before call_sources has none to copy). */
/* A table added within a version (optional_table): copied when both files have it. */
static int append_optional(store *s, const char *table, const char *copy, struct store_append_losses *losses,
                           error_info *err)
{
    if (!store_schema_has_table(s->db, "src", table) || !store_schema_has_table(s->db, "main", table))
        return 0;
    return store_append_table_rows(s, table, &copy, 1, losses, err);
}

/* Version 3's host tables (host_tables.h), keyed by pid: stacks by their text (the source's ids
 * are its own), times shifted like every other. Absent on either side: nothing to copy. */
static int append_host_tables(store *s, struct store_append_losses *losses, error_info *err)
{
    const char *copy_stacks[] = {
        "INSERT OR IGNORE INTO main.host_stacks (frames) SELECT frames FROM src.host_stacks ORDER BY id"};
    const char *copy_samples =
        "INSERT INTO main.host_samples SELECT s.pid, s.tid, shift_ns(s.time_ns), s.state, s.cpu_ns,"
        " (SELECT d.id FROM main.host_stacks d JOIN src.host_stacks o ON o.frames = d.frames"
        " WHERE o.id = s.stack_id) FROM src.host_samples s";
    const char *copy_process_cpu =
        "INSERT INTO main.process_cpu_samples SELECT s.pid, s.parent_pid,"
        " shift_ns(s.time_ns), s.cpu_ns, s.state, s.name FROM src.process_cpu_samples s";
    const char *copy_environment =
        "INSERT INTO main.process_environment SELECT * FROM src.process_environment";
    if (store_schema_has_table(s->db, "src", "host_stacks") &&
        store_schema_has_table(s->db, "main", "host_stacks") &&
        store_exec_sql(s, copy_stacks[0], err, "copy host stacks") != 0)
        return -1;
    return append_optional(s, "host_samples", copy_samples, losses, err) != 0 ||
                   append_optional(s, "process_cpu_samples", copy_process_cpu, losses, err) != 0 ||
                   append_optional(s, "process_environment", copy_environment, losses, err) != 0
               ? -1
               : 0;
}

int store_append_begin(store *s, const char *source_path, int64_t *time_offset_ns,
                       struct store_append_losses *losses, error_info *err)
{
    if (losses)
        losses->count = 0;
    if (store_check_writes_current_version(s, "append a trace", err) != 0 ||
        store_append_attach(s, source_path, err) != 0)
        return -1;
    if (sqlite3_create_function(s->db, "shift_ns", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, time_offset_ns,
                                shift_ns, NULL, NULL) != SQLITE_OK ||
        sqlite3_create_function(s->db, "duration_ns", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                                duration_ns_function, NULL, NULL) != SQLITE_OK) {
        store_sql_error(s, err, "register shift_ns");
        return store_append_end(s, -1, source_path, err);
    }
    if (store_exec_sql(s, "BEGIN", err, "begin") != 0)
        return store_append_end(s, -1, source_path, err);
    /* Process and string maps live in temp tables for the joins: keyed by the source's id (a
     * lookup by rowid per row copied). */
    char sql[256];
    snprintf(sql, sizeof sql,
             "INSERT INTO pm SELECT process_id, ROW_NUMBER() OVER (ORDER BY process_id) + %lld"
             " FROM src.processes",
             (long long)s->next_process_id - 1);
    const char *copy_processes =
        "INSERT INTO processes SELECT pm.new_id, s.pid, s.parent_pid, s.host, s.command_line, s.rank,"
        " s.local_rank, s.world_size, shift_ns(s.start_ns), shift_ns(s.end_ns), s.exit_status, s.term_signal,"
        " s.dropped_records, s.source_file FROM src.processes s JOIN pm ON pm.old_id = s.process_id";
    if (store_exec_sql(s, "CREATE TEMP TABLE pm (old_id INTEGER PRIMARY KEY, new_id INTEGER)", err,
                       "map processes") != 0 ||
        store_exec_sql(s, sql, err, "map processes") != 0 ||
        store_exec_sql(s, STORE_APPEND_COPY_STRINGS, err, "copy strings") != 0 ||
        store_exec_sql(s,
                       "CREATE TEMP TABLE sm (old_id INTEGER PRIMARY KEY, new_id INTEGER);"
                       " INSERT INTO sm SELECT ss.id, ds.id FROM src.strings ss"
                       " JOIN main.strings ds ON ds.value = ss.value",
                       err, "map strings") != 0 ||
        store_append_table_rows(s, "processes", &copy_processes, 1, losses, err) != 0)
        return store_append_end(s, -1, source_path, err);
    for (size_t i = 0; i < sizeof append_tables / sizeof append_tables[0]; i++) {
        int uses_strings = strstr(append_tables[i].select_list, "sm.new_id") != NULL;
        char copy[2048];
        snprintf(
            copy, sizeof copy,
            "INSERT %s INTO %s SELECT %s FROM src.%s s JOIN pm ON pm.old_id = s.process_id%s",
            (strcmp(append_tables[i].table, "devices") == 0 || strcmp(append_tables[i].table, "streams") == 0)
                ? "OR REPLACE"
                : "",
            append_tables[i].destination ? append_tables[i].destination : append_tables[i].table,
            append_tables[i].select_list, append_tables[i].table,
            uses_strings ? " JOIN sm ON sm.old_id = s.name_id" : "");
        const char *statement = copy;
        if (store_append_table_rows(s, append_tables[i].table, &statement, 1, losses, err) != 0)
            return store_append_end(s, -1, source_path, err);
    }
    return 0;
}

int store_append_rest(store *s, const char *kernel_rowid, const char *kernel_join, int warnings_in_order,
                      struct store_append_losses *losses, error_info *err)
{
    const char *copy_nvtx =
        "INSERT INTO nvtx SELECT pm.new_id, s.thread_id, s.device_id, s.stream_id, s.kind,"
        " (SELECT new_id FROM sm WHERE old_id = s.domain_id), msg.new_id, s.category, s.color,"
        " shift_ns(s.start_ns), shift_ns(s.end_ns), s.depth FROM src.nvtx s"
        " JOIN pm ON pm.old_id = s.process_id JOIN sm msg ON msg.old_id = s.message_id";
    char copy_collectives[1024];
    snprintf(copy_collectives, sizeof copy_collectives,
             "INSERT INTO collectives SELECT pm.new_id, s.device_id, s.stream_id, s.op, s.bytes,"
             " s.element_count, s.dtype, s.root, s.algorithm, s.protocol, s.communicator, s.rank, s.nranks,"
             " s.sequence_number, %s, shift_ns(s.start_ns), shift_ns(s.end_ns), s.detail_source"
             " FROM src.collectives s JOIN pm ON pm.old_id = s.process_id%s",
             kernel_rowid, kernel_join);
    const char *copy_collectives_statement = copy_collectives;
    /* A process's warnings by the process map, the trace-wide ones (no process) as they are: in
     * the source's order (one statement), or the process's first. */
    const char *copy_warnings[] = {
        "INSERT INTO warnings SELECT pm.new_id, shift_ns(s.time_ns), s.code, s.message FROM src.warnings s"
        " JOIN pm ON pm.old_id = s.process_id",
        "INSERT INTO warnings SELECT NULL, shift_ns(time_ns), code, message FROM src.warnings"
        " WHERE process_id IS NULL"};
    const char *copy_warnings_in_order[] = {
        "INSERT INTO warnings SELECT pm.new_id, shift_ns(s.time_ns), s.code, s.message FROM src.warnings s"
        " LEFT JOIN pm ON pm.old_id = s.process_id WHERE s.process_id IS NULL OR pm.old_id IS NOT NULL"
        " ORDER BY s.rowid"};
    const char *copy_call_sources =
        "INSERT INTO call_sources SELECT pm.new_id, s.correlation_id, s.kind, sm.new_id"
        " FROM src.call_sources s JOIN pm ON pm.old_id = s.process_id"
        " JOIN sm ON sm.old_id = s.source_id";
    const char *copy_framework_calls =
        "INSERT INTO framework_calls SELECT pm.new_id, s.thread_id, shift_ns(s.start_ns), shift_ns(s.end_ns),"
        " sm.new_id FROM src.framework_calls s JOIN pm ON pm.old_id = s.process_id"
        " JOIN sm ON sm.old_id = s.function_id";
    const char *copy_threads = "INSERT OR REPLACE INTO threads SELECT pm.new_id, s.thread_id, sm.new_id"
                               " FROM src.threads s JOIN pm ON pm.old_id = s.process_id"
                               " JOIN sm ON sm.old_id = s.name_id";
    const char *copy_origins = "INSERT INTO process_origins SELECT pm.new_id, s.format, s.tool, s.version"
                               " FROM src.process_origins s JOIN pm ON pm.old_id = s.process_id";
    return store_append_table_rows(s, "nvtx", &copy_nvtx, 1, losses, err) != 0 ||
                   store_append_table_rows(s, "collectives", &copy_collectives_statement, 1, losses, err) !=
                       0 ||
                   (warnings_in_order
                        ? store_append_table_rows(s, "warnings", copy_warnings_in_order, 1, losses, err)
                        : store_append_table_rows(s, "warnings", copy_warnings, 2, losses, err)) != 0 ||
                   append_optional(s, "call_sources", copy_call_sources, losses, err) != 0 ||
                   append_optional(s, "framework_calls", copy_framework_calls, losses, err) != 0 ||
                   append_optional(s, "threads", copy_threads, losses, err) != 0 ||
                   append_optional(s, "process_origins", copy_origins, losses, err) != 0 ||
                   append_host_tables(s, losses, err) != 0
               ? -1
               : 0;
}

int store_append_end(store *s, int status, const char *source_path, error_info *err)
{
    if (status == 0 && store_exec_sql(s, "COMMIT", err, "commit the merge") != 0)
        status = -1;
    if (status != 0)
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    if (status == 0)
        s->next_process_id =
            store_single_int64(s, "SELECT COALESCE(MAX(process_id), 0) + 1 FROM main.processes", 1);
    sqlite3_exec(s->db,
                 "DROP TABLE IF EXISTS temp.pm; DROP TABLE IF EXISTS temp.sm; DROP TABLE IF EXISTS temp.km;"
                 " DROP TABLE IF EXISTS temp.part_shapes; DROP TABLE IF EXISTS temp.part_functions;",
                 NULL, NULL, NULL);
    sqlite3_exec(s->db, "DETACH DATABASE src", NULL, NULL, NULL);
    if (status != 0)
        error_prefix(err, "cannot merge '%s'", source_path);
    return status;
}

int store_append_trace(store *destination, const char *source_path, int64_t time_offset_ns,
                       struct store_append_losses *losses, error_info *err)
{
    store *s = destination;
    if (store_append_begin(s, source_path, &time_offset_ns, losses, err) != 0)
        return -1;
    /* Kernels keep their order so a rowid map can be built from the two sequences. */
    char map_kernels[160];
    snprintf(map_kernels, sizeof map_kernels,
             "INSERT INTO km SELECT rowid, ROW_NUMBER() OVER (ORDER BY rowid) + %lld - 1 FROM src.kernels",
             (long long)store_single_int64(s, "SELECT COALESCE(MAX(rowid), 0) + 1 FROM main.kernel_runs", 1));
    const char *copy_kernels = copy_kernel_runs_sql, *copy_api_calls = copy_api_calls_sql;
    int status =
        store_exec_sql(s, copy_api_functions_sql, err, "copy API functions") != 0 ||
                store_append_table_rows(s, "api_calls", &copy_api_calls, 1, losses, err) != 0 ||
                store_exec_sql(s, "CREATE TEMP TABLE km (old_rowid INTEGER PRIMARY KEY, new_rowid INTEGER)",
                               err, "map kernels") != 0 ||
                store_exec_sql(s, map_kernels, err, "map kernels") != 0 ||
                store_exec_sql(s, copy_kernel_shapes_sql, err, "copy kernel shapes") != 0 ||
                store_append_table_rows(s, "kernels", &copy_kernels, 1, losses, err) != 0 ||
                store_append_rest(s, "km.new_rowid", " LEFT JOIN km ON km.old_rowid = s.kernel_rowid", 0,
                                  losses, err) != 0
            ? -1
            : 0;
    return store_append_end(s, status, source_path, err);
}
