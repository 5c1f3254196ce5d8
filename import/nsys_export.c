/* nsys_export.c: reading an Nsight Systems export whose schema changes with the nsys version (see
 * nsys_parts.h). nsys creates tables lazily and adds, renames and drops columns between versions
 * (docs/overlapscope-import.md lists them), so every SELECT is built from the columns the file has:
 * a missing column reads as NULL. Owns the pid and context maps of nsys_state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_parts.h"

int nsys_table_exists(sqlite3 *db, const char *table)
{
    sqlite3_stmt *query = NULL;
    int exists = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?", -1,
                           &query, NULL) == SQLITE_OK) {
        sqlite3_bind_text(query, 1, table, -1, SQLITE_STATIC);
        exists = sqlite3_step(query) == SQLITE_ROW;
    }
    sqlite3_finalize(query);
    return exists;
}

int nsys_column_exists(sqlite3 *db, const char *table, const char *column)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT 1 FROM pragma_table_info('%s') WHERE name = ?", table);
    sqlite3_stmt *query = NULL;
    int exists = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &query, NULL) == SQLITE_OK) {
        sqlite3_bind_text(query, 1, column, -1, SQLITE_STATIC);
        exists = sqlite3_step(query) == SQLITE_ROW;
    }
    sqlite3_finalize(query);
    return exists;
}

/* ",a,b,c," : the table's column names, for membership tests by strstr. Caller frees. */
static char *column_list(sqlite3 *db, const char *table)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT ',' || group_concat(name, ',') || ',' FROM pragma_table_info('%s')",
             table);
    sqlite3_stmt *query = NULL;
    char *list = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &query, NULL) == SQLITE_OK && sqlite3_step(query) == SQLITE_ROW &&
        sqlite3_column_text(query, 0))
        list = strdup((const char *)sqlite3_column_text(query, 0));
    sqlite3_finalize(query);
    return list ? list : strdup(",");
}

static int listed(const char *list, const char *column)
{
    size_t length = strlen(column);
    for (const char *p = strstr(list, column); p; p = strstr(p + 1, column))
        if (p[-1] == ',' && p[length] == ',')
            return 1;
    return 0;
}

/* "SELECT a, b, NULL, ... FROM table t tail". Returns a malloc'd string. */
static char *build_select(sqlite3 *db, const char *table, const char *const *columns, size_t count,
                          const char *tail)
{
    char *existing = column_list(db, table);
    size_t size = 256 + strlen(tail);
    for (size_t i = 0; i < count; i++)
        size += strlen(columns[i]) + 8;
    char *sql = existing ? malloc(size) : NULL;
    if (!sql) {
        free(existing);
        return NULL;
    }
    size_t length = (size_t)snprintf(sql, size, "SELECT ");
    for (size_t i = 0; i < count; i++) {
        const char *column = columns[i], *separator = i ? ", " : "";
        if (column[0] == '=')
            length += (size_t)snprintf(sql + length, size - length, "%s%s", separator, column + 1);
        else if (listed(existing, column))
            length += (size_t)snprintf(sql + length, size - length, "%st.\"%s\"", separator, column);
        else
            length += (size_t)snprintf(sql + length, size - length, "%sNULL", separator);
    }
    snprintf(sql + length, size - length, " FROM \"%s\" t %s", table, tail);
    free(existing);
    return sql;
}

int nsys_for_each_row(struct nsys_state *state, const char *table, const char *const *columns, size_t count,
                      const char *tail, nsys_row_handler handle, error_info *err)
{
    if (!nsys_table_exists(state->db, table))
        return 0;
    char *sql = build_select(state->db, table, columns, count, tail);
    if (!sql)
        return error_set(err, "%s: out of memory", state->name);
    sqlite3_stmt *row = NULL;
    int rc = sqlite3_prepare_v2(state->db, sql, -1, &row, NULL);
    free(sql);
    if (rc != SQLITE_OK)
        return error_set(err, "%s: cannot read %s: %s", state->name, table, sqlite3_errmsg(state->db));
    int status = 0;
    while (status == 0 && (rc = sqlite3_step(row)) == SQLITE_ROW)
        status = handle(state, row, err);
    if (status == 0 && rc != SQLITE_DONE)
        status = error_set(err, "%s: cannot read %s: %s", state->name, table, sqlite3_errmsg(state->db));
    sqlite3_finalize(row);
    return status;
}

int nsys_exec(struct nsys_state *state, const char *sql, const char *what, error_info *err)
{
    if (sqlite3_exec(state->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return error_set(err, "%s: cannot read %s: %s", state->name, what, sqlite3_errmsg(state->db));
    return 0;
}

int64_t nsys_column_or_null(sqlite3_stmt *row, int column)
{
    return sqlite3_column_type(row, column) == SQLITE_NULL ? STORE_NULL : sqlite3_column_int64(row, column);
}

int64_t nsys_id_or_null(int64_t id)
{
    return id == NSYS_NO_ID || id < 0 ? STORE_NULL : id;
}

int64_t nsys_shifted(const struct nsys_state *state, int64_t time_ns)
{
    int64_t result;
    if (time_ns == STORE_NULL || __builtin_add_overflow(time_ns, state->time_offset_ns, &result))
        return STORE_NULL;
    return result;
}

int64_t nsys_pid_of_global(int64_t global_id)
{
    return global_id == STORE_NULL ? 0 : (global_id >> 24) & 0xFFFFFF;
}

int64_t nsys_tid_of_global(int64_t global_id)
{
    return global_id == STORE_NULL ? 0 : global_id & 0xFFFFFF;
}

struct pid_key {
    const struct nsys_state *state;
    int64_t pid;
};

static int pid_matches(const void *context, size_t position)
{
    const struct pid_key *key = context;
    return key->state->pids[position].pid == key->pid;
}

int64_t nsys_known_process(const struct nsys_state *state, int64_t pid)
{
    struct pid_key key = {state, pid};
    long found = key_index_find(&state->pid_index, key_index_hash(pid, 0, 0, 0), pid_matches, &key);
    return found >= 0 ? state->pids[found].process_id : 0;
}

/* PROCESSES.name (with the launch's arguments for the launched process: nsys_target.c), or NULL.
 * The text lives until the query is next reset. */
static const char *process_name(struct nsys_state *state, int64_t pid)
{
    sqlite3_stmt *query = state->process_name_query;
    if (!query)
        return NULL;
    sqlite3_reset(query);
    sqlite3_bind_int64(query, 1, pid);
    return sqlite3_step(query) == SQLITE_ROW ? (const char *)sqlite3_column_text(query, 0) : NULL;
}

int64_t nsys_process_for_pid(struct nsys_state *state, int64_t pid, error_info *err)
{
    int64_t known = nsys_known_process(state, pid);
    if (known)
        return known;
    if (state->pid_count == state->pid_capacity) {
        size_t capacity = state->pid_capacity ? state->pid_capacity * 2 : 8;
        struct nsys_pid_entry *grown = realloc(state->pids, capacity * sizeof *grown);
        if (!grown) {
            error_set(err, "%s: out of memory", state->name);
            return 0;
        }
        state->pids = grown;
        state->pid_capacity = capacity;
    }
    struct store_process process = store_process_unknown();
    process.pid = pid;
    process.dropped_records = 0;
    process.host = state->host;
    process.command_line = process_name(state, pid);
    process.source_file = state->name;
    int status = store_insert_process(state->s, &process, err);
    if (state->process_name_query)
        sqlite3_reset(state->process_name_query);
    if (status != 0)
        return 0;
    if (key_index_add(&state->pid_index, key_index_hash(pid, 0, 0, 0), state->pid_count) != 0) {
        error_set(err, "%s: out of memory", state->name);
        return 0;
    }
    state->pids[state->pid_count++] = (struct nsys_pid_entry){pid, process.process_id};
    return process.process_id;
}

struct context_key {
    const struct nsys_state *state;
    int64_t process_id, context_id;
};

static int context_matches(const void *context, size_t position)
{
    const struct context_key *key = context;
    const struct nsys_context_entry *entry = &key->state->contexts[position];
    return entry->process_id == key->process_id && entry->context_id == key->context_id;
}

static long find_context(const struct nsys_state *state, int64_t process_id, int64_t context_id)
{
    struct context_key key = {state, process_id, context_id};
    return key_index_find(&state->context_index, key_index_hash(process_id, context_id, 0, 0),
                          context_matches, &key);
}

int nsys_note_context(struct nsys_state *state, int64_t process_id, int64_t context_id, int64_t device_id)
{
    if (context_id == STORE_NULL || device_id == STORE_NULL ||
        find_context(state, process_id, context_id) >= 0)
        return 0;
    if (state->context_count == state->context_capacity) {
        size_t capacity = state->context_capacity ? state->context_capacity * 2 : 8;
        struct nsys_context_entry *grown = realloc(state->contexts, capacity * sizeof *grown);
        if (!grown)
            return -1;
        state->contexts = grown;
        state->context_capacity = capacity;
    }
    if (key_index_add(&state->context_index, key_index_hash(process_id, context_id, 0, 0),
                      state->context_count) != 0)
        return -1;
    state->contexts[state->context_count++] = (struct nsys_context_entry){process_id, context_id, device_id};
    return 0;
}

int64_t nsys_device_of_context(const struct nsys_state *state, int64_t process_id, int64_t context_id)
{
    long found = find_context(state, process_id, context_id);
    return found >= 0 ? state->contexts[found].device_id : STORE_NULL;
}

int nsys_warn(struct nsys_state *state, int64_t process_id, const char *code, const char *message,
              error_info *err)
{
    struct store_warning warning = {.process_id = process_id ? process_id : STORE_NULL,
                                    .time_ns = STORE_NULL,
                                    .code = code,
                                    .message = message};
    return store_insert_warning(state->s, &warning, err);
}

void nsys_state_free(struct nsys_state *state)
{
    sqlite3_finalize(state->process_name_query);
    sqlite3_exec(state->db, "DROP TABLE IF EXISTS temp.overlapscope_process_names", NULL, NULL, NULL);
    stream_set_free(&state->streams);
    free(state->pids);
    key_index_free(&state->pid_index);
    free(state->contexts);
    key_index_free(&state->context_index);
    free(state->host);
}
