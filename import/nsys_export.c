/* nsys_export.c: reading an Nsight Systems export whose schema changes with the nsys version (see
 * nsys_parts.h). nsys creates tables lazily and adds, renames and drops columns between versions
 * (docs/overlapscope-import.md lists them), so every SELECT is built from the columns the file has:
 * a missing column reads as NULL. Owns the pid and context maps of nsys_state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_parts.h"
#include "origins.h"

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

/* The alternatives of a source ("a|@b") that the table has (existing), appended to sql as SQL over
 * the row t, comma-separated (sql NULL: only counted). Returns how many there are. */
static int append_present(sqlite3_str *sql, const char *existing, const char *source)
{
    int present = 0;
    for (const char *name = source; *name;) {
        size_t length = strcspn(name, "|");
        int string_id = name[0] == '@';
        char column[64];
        snprintf(column, sizeof column, "%.*s", (int)(length - (size_t)string_id), name + string_id);
        if (listed(existing, column)) {
            if (sql)
                sqlite3_str_appendf(
                    sql, string_id ? "%s(SELECT value FROM StringIds WHERE id = t.\"%w\")" : "%st.\"%w\"",
                    present ? ", " : "", column);
            present++;
        }
        name += length + (name[length] == '|');
    }
    return present;
}

/* A column's source (nsys_parts.h: "name", "@name", "a|@b", "=expression") as SQL over the row t. */
static void append_source(sqlite3_str *sql, const char *existing, const char *source)
{
    if (source[0] == '=') {
        sqlite3_str_appendall(sql, source + 1);
        return;
    }
    int present = append_present(NULL, existing, source);
    if (present == 0)
        sqlite3_str_appendall(sql, "NULL");
    if (present > 1)
        sqlite3_str_appendall(sql, "COALESCE(");
    append_present(sql, existing, source);
    if (present > 1)
        sqlite3_str_appendall(sql, ")");
}

/* "SELECT a, b, NULL, ... FROM table t tail", or NULL when out of memory. sqlite3_free it. */
static char *build_select(sqlite3 *db, const struct nsys_table *table)
{
    char *existing = column_list(db, table->name);
    if (!existing)
        return NULL;
    sqlite3_str *sql = sqlite3_str_new(db);
    sqlite3_str_appendall(sql, "SELECT ");
    for (size_t i = 0; i < table->column_count; i++) {
        if (i)
            sqlite3_str_appendall(sql, ", ");
        append_source(sql, existing, table->columns[i].source);
    }
    sqlite3_str_appendf(sql, " FROM \"%w\" t %s", table->name, table->tail);
    free(existing);
    return sqlite3_str_finish(sql);
}

static const char *type_name(int type)
{
    return type == SQLITE_TEXT ? "text" : type == SQLITE_FLOAT ? "a real number" : "a blob";
}

/* Column i of row into the record as column says; returns 0, or 1 when a number column holds
 * another type (then read as unknown). */
static int read_value(const struct nsys_state *state, sqlite3_stmt *row, int i,
                      const struct nsys_column *column, unsigned char *record)
{
    int type = sqlite3_column_type(row, i);
    if (column->read == NSYS_TEXT) {
        const char *text = (const char *)sqlite3_column_text(row, i);
        memcpy(record + column->offset, &text, sizeof text);
        return 0;
    }
    int64_t value = type == SQLITE_INTEGER ? sqlite3_column_int64(row, i) : STORE_NULL;
    if (column->read == NSYS_TIME)
        value = nsys_shifted(state, value);
    else if (column->read == NSYS_ID)
        value = nsys_id_or_null(value);
    memcpy(record + column->offset, &value, sizeof value);
    return type != SQLITE_INTEGER && type != SQLITE_NULL;
}

/* "a row without start, end, deviceId or streamId": the table's required columns, named once. */
static int refuse_incomplete(const struct nsys_state *state, const struct nsys_table *table, error_info *err)
{
    char names[256] = "";
    size_t length = 0, required = 0, named = 0;
    for (size_t i = 0; i < table->column_count; i++)
        required += table->columns[i].required != 0;
    for (size_t i = 0; i < table->column_count && length < sizeof names; i++)
        if (table->columns[i].required)
            length += (size_t)snprintf(names + length, sizeof names - length, "%s%s",
                                       named++ == 0        ? ""
                                       : named == required ? " or "
                                                           : ", ",
                                       table->columns[i].source);
    return error_set(err, "%s: %s: a row without %s", state->name, table->name, names);
}

/* The row's numbers of another type: a required one refuses the row, the others are counted. */
static int check_types(struct nsys_state *state, const struct nsys_table *table, sqlite3_stmt *row,
                       uint64_t odd, error_info *err)
{
    for (size_t i = 0; i < table->column_count && odd; i++, odd >>= 1) {
        if (!(odd & 1))
            continue;
        const char *column = table->columns[i].source;
        if (table->columns[i].required)
            return error_set(err, "%s: %s: a row whose %s is %s, not an integer", state->name, table->name,
                             column, type_name(sqlite3_column_type(row, (int)i)));
        if (state->odd_values++ == 0)
            snprintf(state->odd_first, sizeof state->odd_first, "%s.%s, %s", table->name,
                     column + (column[0] == '='), type_name(sqlite3_column_type(row, (int)i)));
    }
    return 0;
}

/* One row: read, passed over, refused or imported. */
static int read_row(struct nsys_state *state, const struct nsys_table *table, sqlite3_stmt *row,
                    unsigned char *record, error_info *err)
{
    memcpy(record, table->defaults, table->record_size);
    uint64_t odd = 0;
    for (size_t i = 0; i < table->column_count; i++)
        odd |= (uint64_t)read_value(state, row, (int)i, &table->columns[i], record) << i;
    if (table->skips && table->skips(state, record))
        return 0;
    if (check_types(state, table, row, odd, err) != 0)
        return -1;
    for (size_t i = 0; i < table->column_count; i++) {
        const struct nsys_column *column = &table->columns[i];
        int64_t value;
        memcpy(&value, record + column->offset, sizeof value);
        if (!column->required || column->read == NSYS_TEXT || value != STORE_NULL)
            continue;
        /* An integer there that reads as none (INT64_MIN, or a time the session's offset moves past
         * int64) is present, and impossible: said so, not called missing (issue 33). An id below 0
         * means none by nsys's own convention. */
        if (column->read != NSYS_ID && sqlite3_column_type(row, (int)i) == SQLITE_INTEGER)
            return error_set(err, "%s: %s: a row whose %s is %lld, outside what any recording holds",
                             state->name, table->name, column->source,
                             (long long)sqlite3_column_int64(row, (int)i));
        return refuse_incomplete(state, table, err);
    }
    return table->import(state, record, err);
}

int nsys_read_table(struct nsys_state *state, const struct nsys_table *table, error_info *err)
{
    if (!store_db_has_table(state->db, table->name))
        return 0;
    if (table->column_count > 64)
        return error_set(err, "%s: %s: too many columns to read", state->name, table->name);
    char *sql = table->query ? sqlite3_mprintf("%s", table->query) : build_select(state->db, table);
    unsigned char *record = malloc(table->record_size);
    sqlite3_stmt *row = NULL;
    int rc = sql && record ? sqlite3_prepare_v2(state->db, sql, -1, &row, NULL) : SQLITE_NOMEM;
    sqlite3_free(sql);
    if (rc == SQLITE_OK && table->query && sqlite3_bind_parameter_count(row) > 0)
        sqlite3_bind_int64(row, 1, table->query_bound);
    int status = 0;
    if (rc != SQLITE_OK)
        status = error_set(err, "%s: cannot read %s: %s", state->name, table->name,
                           rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(state->db));
    while (status == 0 && (rc = sqlite3_step(row)) == SQLITE_ROW)
        status = read_row(state, table, row, record, err);
    if (status == 0 && rc != SQLITE_DONE)
        status =
            error_set(err, "%s: cannot read %s: %s", state->name, table->name, sqlite3_errmsg(state->db));
    sqlite3_finalize(row);
    free(record);
    return status;
}

int nsys_exec(struct nsys_state *state, const char *sql, const char *what, error_info *err)
{
    if (sqlite3_exec(state->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return error_set(err, "%s: cannot read %s: %s", state->name, what, sqlite3_errmsg(state->db));
    return 0;
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

int64_t nsys_process_of_global(struct nsys_state *state, int64_t global_id, error_info *err)
{
    return nsys_process_for_pid(state, nsys_pid_of_global(global_id), err);
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
    if (status == 0)
        status = store_insert_process_origin(state->s, process.process_id, STORE_FORMAT_NSYS,
                                             "Nsight Systems", NULL, err);
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
