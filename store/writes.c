/* writes.c: the writers' inserts: one cached prepared statement per table, the string-intern cache,
 * the interned kernel shapes and API functions, and (STORE_BATCHED_INSERTS) multi-row statements
 * for the numeric rows; updates of a process row (see store.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_tables.h"
#include "store_internal.h"

#define IS_PARAMETER(column) " AND " #column " IS ?"
#define COMMA_PARAMETER(column) ",?"
static const char shape_find_sql[] =
    "SELECT shape_id FROM kernel_shapes WHERE name_id IS ?" KERNEL_SHAPE_COLUMNS(IS_PARAMETER) " LIMIT 1";
#define SHAPE_PARAMETERS "?" KERNEL_SHAPE_COLUMNS(COMMA_PARAMETER)
static const char shape_add_sql[] =
    "INSERT INTO kernel_shapes (" SHAPE_COLUMN_NAMES ") VALUES (" SHAPE_PARAMETERS ")";

static const char *const statement_sql[SLOT_COUNT] = {
    [SLOT_PROCESS] =
        "INSERT INTO processes (process_id, pid, parent_pid, host, command_line, rank, local_rank,"
        " world_size, start_ns, end_ns, exit_status, term_signal, dropped_records, source_file)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [SLOT_DEVICE] = "INSERT OR REPLACE INTO devices VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [SLOT_STREAM] = "INSERT OR REPLACE INTO streams VALUES (?,?,?,?,?,?,?,?,?)",
    [SLOT_KERNEL] = "INSERT INTO kernel_runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [SLOT_MEMCPY] = "INSERT INTO memcpys VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [SLOT_MEMSET] = "INSERT INTO memsets VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [SLOT_SYNC] = "INSERT INTO synchronizations VALUES (?,?,?,?,?,?,?,?)",
    [SLOT_CUDA_EVENT] = "INSERT INTO cuda_events VALUES (?,?,?,?,?,?,?)",
    [SLOT_API] = "INSERT INTO api_call_runs VALUES (?,?,?,?,?,?,?)",
    [SLOT_NVTX] = "INSERT INTO nvtx VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
    [SLOT_COLLECTIVE] = "INSERT INTO collectives VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [SLOT_WARNING] = "INSERT INTO warnings VALUES (?,?,?,?)",
    [SLOT_STRING_FIND] = "SELECT id FROM strings WHERE value = ?",
    [SLOT_STRING_ADD] = "INSERT INTO strings (value) VALUES (?)",
    [SLOT_SHAPE_FIND] = shape_find_sql,
    [SLOT_SHAPE_ADD] = shape_add_sql,
    [SLOT_FUNCTION_FIND] = "SELECT function_id FROM api_functions WHERE api_domain IS ? AND callback_id IS ?"
                           " AND name_id IS ? LIMIT 1",
    [SLOT_FUNCTION_ADD] = "INSERT INTO api_functions (api_domain, callback_id, name_id) VALUES (?,?,?)",
    [SLOT_HOST_STACK] = "INSERT OR IGNORE INTO host_stacks VALUES (?,?)",
    [SLOT_HOST_SAMPLE] = "INSERT INTO host_samples VALUES (?,?,?,?,?,?)",
    [SLOT_PROCESS_CPU] = "INSERT INTO process_cpu_samples VALUES (?,?,?,?,?,?)",
    [SLOT_ENVIRONMENT] = "INSERT INTO process_environment VALUES (?,?,?)",
};

/* The tables of schema version 2 that hold each distinct value once (kernel_shapes, api_functions):
 * the statements that find and add a row, and its width (columns after the key). */
struct interned_table {
    enum statement_slot find, add;
    int width;
};
static const struct interned_table interned_tables[INTERNED_TABLE_COUNT] = {
    [INTERNED_SHAPES] = {SLOT_SHAPE_FIND, SLOT_SHAPE_ADD, KERNEL_SHAPE_WIDTH},
    [INTERNED_FUNCTIONS] = {SLOT_FUNCTION_FIND, SLOT_FUNCTION_ADD, 3}};
static int prepare_cached(store *s, const char *sql, struct cached_statement *cached, error_info *err)
{
    if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &cached->statement, NULL) != SQLITE_OK)
        return store_sql_error(s, err, "prepare a statement");
    cached->parameter_count = sqlite3_bind_parameter_count(cached->statement);
    cached->bound = calloc((size_t)cached->parameter_count + 1, sizeof *cached->bound);
    cached->state = calloc((size_t)cached->parameter_count + 1, 1);
    if (!cached->bound || !cached->state) {
        store_free_cached_statement(cached);
        return error_set(err, "cannot prepare a statement in '%s': out of memory", s->path);
    }
    return 0;
}

static struct cached_statement *cached_statement(store *s, enum statement_slot slot, error_info *err)
{
    if (!s->statements[slot].statement &&
        prepare_cached(s, statement_sql[slot], &s->statements[slot], err) != 0)
        return NULL;
    return &s->statements[slot];
}

static sqlite3_stmt *statement(store *s, enum statement_slot slot, error_info *err)
{
    struct cached_statement *cached = cached_statement(s, slot, err);
    return cached ? cached->statement : NULL;
}

static uint64_t hash_string(const char *value)
{
    uint64_t hash = 1469598103934665603ULL; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)value; *p; p++)
        hash = (hash ^ *p) * 1099511628211ULL;
    return hash;
}

/* value, or its first STORE_MAX_TEXT_BYTES (never half a UTF-8 character) and the marker in
 * cut, counted in s->texts_cut. A name an importer read can be as long as its input. */
static const char *capped_text(store *s, const char *value, char cut[STORE_CUT_TEXT_SIZE])
{
    size_t length = 0;
    while (length <= STORE_MAX_TEXT_BYTES && value[length])
        length++;
    if (length <= STORE_MAX_TEXT_BYTES)
        return value;
    length = STORE_MAX_TEXT_BYTES;
    while (length > 0 && ((unsigned char)value[length] & 0xc0) == 0x80)
        length--;
    memcpy(cut, value, length);
    memcpy(cut + length, STORE_TEXT_CUT_MARKER, sizeof STORE_TEXT_CUT_MARKER);
    s->texts_cut++;
    return cut;
}

int64_t store_intern(store *s, const char *value, error_info *err)
{
    char cut[STORE_CUT_TEXT_SIZE];
    value = capped_text(s, value ? value : "", cut);
    struct intern_entry *entry = &s->intern_cache[hash_string(value) & (INTERN_CACHE_SIZE - 1)];
    if (entry->value && strcmp(entry->value, value) == 0)
        return entry->id;
    sqlite3_stmt *find = statement(s, SLOT_STRING_FIND, err);
    if (!find)
        return 0;
    sqlite3_bind_text(find, 1, value, -1, SQLITE_STATIC);
    int64_t id = 0;
    int rc = sqlite3_step(find);
    if (rc == SQLITE_ROW)
        id = sqlite3_column_int64(find, 0);
    sqlite3_reset(find);
    if (rc != SQLITE_ROW) {
        sqlite3_stmt *add = statement(s, SLOT_STRING_ADD, err);
        if (!add)
            return 0;
        sqlite3_bind_text(add, 1, value, -1, SQLITE_STATIC);
        rc = sqlite3_step(add);
        sqlite3_reset(add);
        if (rc != SQLITE_DONE) {
            store_sql_error(s, err, "insert a string");
            return 0;
        }
        id = sqlite3_last_insert_rowid(s->db);
    }
    char *copy = strdup(value);
    if (copy) {
        free(entry->value);
        entry->value = copy;
        entry->id = id;
    }
    return id;
}

/* --- binding --- */

struct binder {
    store *s;
    struct cached_statement *cached;
    sqlite3_stmt *statement;
    int next;
};

static void bind_cached_int(struct cached_statement *cached, int index, int64_t value)
{
    unsigned char state = value == STORE_NULL ? BOUND_NULL : BOUND_INTEGER;
    if (cached->state[index] == state && (state == BOUND_NULL || cached->bound[index] == value))
        return;
    if (state == BOUND_NULL)
        sqlite3_bind_null(cached->statement, index);
    else
        sqlite3_bind_int64(cached->statement, index, value);
    cached->state[index] = state;
    cached->bound[index] = value;
}

static void bind_int(struct binder *b, int64_t value)
{
    bind_cached_int(b->cached, ++b->next, value);
}

/* Text is always bound again: the same pointer may hold another string by the next row. */
static void bind_text(struct binder *b, const char *value)
{
    b->next++;
    b->cached->state[b->next] = BOUND_UNKNOWN;
    char cut[STORE_CUT_TEXT_SIZE];
    const char *stored = value ? capped_text(b->s, value, cut) : NULL;
    if (!stored)
        sqlite3_bind_null(b->statement, b->next);
    else
        sqlite3_bind_text(b->statement, b->next, stored, -1,
                          stored == value ? SQLITE_STATIC : SQLITE_TRANSIENT);
}

/* Bindings are left in place after the step (no sqlite3_clear_bindings): the next row binds only
 * what changed. */
static int run_insert(store *s, struct binder *b, error_info *err, const char *what)
{
    int rc = sqlite3_step(b->statement);
    sqlite3_reset(b->statement);
    if (rc != SQLITE_DONE)
        return store_sql_error(s, err, what);
    return store_maybe_commit(s, err);
}

#define BEGIN_INSERT(slot)                                                                                   \
    struct binder b = {s, cached_statement(s, slot, err), NULL, 0};                                          \
    if (!b.cached)                                                                                           \
        return -1;                                                                                           \
    b.statement = b.cached->statement;

/* --- STORE_BATCHED_INSERTS: numeric rows written BATCH_STATEMENT_ROWS per statement --- */

/* "INSERT INTO t VALUES (?,?)" repeated: "INSERT INTO t VALUES (?,?),(?,?),..." */
static char *multi_row_sql(const char *single_row_sql, int rows)
{
    const char *group = strchr(strstr(single_row_sql, "VALUES"), '(');
    size_t prefix = (size_t)(group - single_row_sql), group_length = strlen(group);
    char *sql = malloc(prefix + (size_t)rows * (group_length + 1) + 1);
    if (!sql)
        return NULL;
    memcpy(sql, single_row_sql, prefix);
    char *end = sql + prefix;
    for (int row = 0; row < rows; row++) {
        if (row)
            *end++ = ',';
        memcpy(end, group, group_length);
        end += group_length;
    }
    *end = '\0';
    return sql;
}

/* Runs the rows waiting for slot (each width numbers) through the multi-row statement, or one
 * by one when fewer than a full statement wait. */
static int flush_pending_slot(store *s, enum statement_slot slot, int width, error_info *err)
{
    int rows = s->pending_rows[slot];
    if (rows == 0)
        return 0;
    s->pending_rows[slot] = 0;
    struct cached_statement *cached = NULL;
    int rows_per_statement = 1;
    if (rows == BATCH_STATEMENT_ROWS) {
        cached = &s->batch_statements[slot];
        rows_per_statement = BATCH_STATEMENT_ROWS;
        if (!cached->statement) {
            char *sql = multi_row_sql(statement_sql[slot], BATCH_STATEMENT_ROWS);
            int status = sql ? prepare_cached(s, sql, cached, err)
                             : error_set(err, "cannot prepare a statement in '%s': out of memory", s->path);
            free(sql);
            if (status != 0)
                return -1;
        }
    } else if (!(cached = cached_statement(s, slot, err))) {
        return -1;
    }
    for (int first = 0; first < rows; first += rows_per_statement) {
        const int64_t *numbers = s->pending[slot] + (size_t)first * width;
        for (int i = 0; i < rows_per_statement * width; i++)
            bind_cached_int(cached, i + 1, numbers[i]);
        int rc = sqlite3_step(cached->statement);
        sqlite3_reset(cached->statement);
        if (rc != SQLITE_DONE)
            return store_sql_error(s, err, "insert rows");
    }
    /* A kernel rowid handed out must be the one SQLite gave (collectives point at it). */
    if (slot == SLOT_KERNEL && sqlite3_last_insert_rowid(s->db) != s->next_kernel_rowid - 1)
        return error_set(err, "cannot insert kernels in '%s': rowids out of sequence", s->path);
    return 0;
}

static int row_width(enum statement_slot slot)
{
    const char *group = strrchr(statement_sql[slot], '(');
    int width = 0;
    for (; *group; group++)
        width += *group == '?';
    return width;
}

int store_flush_pending(store *s, error_info *err)
{
    for (int slot = 0; slot < SLOT_COUNT; slot++)
        if (s->pending_rows[slot] &&
            flush_pending_slot(s, (enum statement_slot)slot, row_width(slot), err) != 0)
            return -1;
    return 0;
}

/* Inserts one row of width integers into slot: at once, or (STORE_BATCHED_INSERTS) queued. */
static int insert_numbers(store *s, enum statement_slot slot, const int64_t *numbers, int width,
                          error_info *err, const char *what)
{
    if (!s->batched) {
        BEGIN_INSERT(slot);
        for (int i = 0; i < width; i++)
            bind_int(&b, numbers[i]);
        return run_insert(s, &b, err, what);
    }
    if (!s->pending[slot] &&
        !(s->pending[slot] = malloc(sizeof(int64_t) * BATCH_STATEMENT_ROWS * (size_t)width)))
        return error_set(err, "cannot %s in '%s': out of memory", what, s->path);
    memcpy(s->pending[slot] + (size_t)s->pending_rows[slot] * width, numbers,
           sizeof(int64_t) * (size_t)width);
    if (++s->pending_rows[slot] == BATCH_STATEMENT_ROWS && flush_pending_slot(s, slot, width, err) != 0)
        return -1;
    return store_maybe_commit(s, err);
}

/* insert_numbers for the array `numbers` of the calling insert function. */
#define INSERT_NUMBERS(slot, what)                                                                           \
    insert_numbers(s, slot, numbers, (int)(sizeof numbers / sizeof numbers[0]), err, what)

/* Batched kernels get their rowid now, before SQLite writes them: the next after the largest in
 * the table, which is the rowid SQLite itself gives a row inserted without one (SQLite docs,
 * "ROWIDs and the INTEGER PRIMARY KEY"); flush_pending checks it. */
static int64_t next_kernel_rowid(store *s)
{
    if (s->next_kernel_rowid == 0) {
        sqlite3_stmt *query = NULL;
        s->next_kernel_rowid = 1;
        if (sqlite3_prepare_v2(s->db, "SELECT COALESCE(MAX(rowid), 0) + 1 FROM kernel_runs", -1, &query,
                               NULL) == SQLITE_OK &&
            sqlite3_step(query) == SQLITE_ROW)
            s->next_kernel_rowid = sqlite3_column_int64(query, 0);
        sqlite3_finalize(query);
    }
    return s->next_kernel_rowid++;
}

int store_insert_process(store *s, struct store_process *row, error_info *err)
{
    BEGIN_INSERT(SLOT_PROCESS);
    if (row->process_id <= 0)
        row->process_id = s->next_process_id;
    if (row->process_id >= s->next_process_id)
        s->next_process_id = row->process_id + 1;
    bind_int(&b, row->process_id);
    bind_int(&b, row->pid);
    bind_int(&b, row->parent_pid);
    bind_text(&b, row->host);
    bind_text(&b, row->command_line);
    bind_int(&b, row->rank);
    bind_int(&b, row->local_rank);
    bind_int(&b, row->world_size);
    bind_int(&b, row->start_ns);
    bind_int(&b, row->end_ns);
    bind_int(&b, row->exit_status);
    bind_int(&b, row->term_signal);
    bind_int(&b, row->dropped_records == STORE_NULL ? 0 : row->dropped_records);
    bind_text(&b, row->source_file);
    return run_insert(s, &b, err, "insert a process");
}

int store_insert_device(store *s, const struct store_device *row, error_info *err)
{
    BEGIN_INSERT(SLOT_DEVICE);
    bind_int(&b, row->process_id);
    bind_int(&b, row->device_id);
    bind_text(&b, row->name);
    bind_text(&b, row->uuid);
    const int64_t numbers[] = {row->pci_bus_id,
                               row->sm_count,
                               row->compute_capability_major,
                               row->compute_capability_minor,
                               row->max_blocks_per_sm,
                               row->max_warps_per_sm,
                               row->max_threads_per_sm,
                               row->max_threads_per_block,
                               row->max_registers_per_sm,
                               row->max_registers_per_block,
                               row->max_shared_memory_per_sm,
                               row->max_shared_memory_per_block,
                               row->max_shared_memory_per_block_optin,
                               row->global_memory_bytes,
                               row->global_memory_bandwidth_kbps,
                               row->l2_cache_bytes,
                               row->core_clock_khz,
                               row->copy_engine_count,
                               row->warp_size};
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++)
        bind_int(&b, numbers[i]);
    return run_insert(s, &b, err, "insert a device");
}

int store_insert_stream(store *s, const struct store_stream *row, error_info *err)
{
    BEGIN_INSERT(SLOT_STREAM);
    bind_int(&b, row->process_id);
    bind_int(&b, row->device_id);
    bind_int(&b, row->context_id);
    bind_int(&b, row->stream_id);
    bind_int(&b, row->is_legacy_default == STORE_NULL ? 0 : row->is_legacy_default);
    bind_int(&b, row->is_per_thread_default == STORE_NULL ? 0 : row->is_per_thread_default);
    bind_int(&b, row->priority);
    bind_int(&b, row->flags);
    bind_text(&b, row->label);
    return run_insert(s, &b, err, "insert a stream");
}

/* end_ns - start_ns as stored in duration_ns. A difference beyond int64 is clamped: it only arises
 * from times far outside any recording, which readers refuse either way (the view's end_ns is then
 * no integer, or start_ns itself is out of bounds). STORE_NULL (NULL) when either is. */
int64_t store_clamped_duration_ns(int64_t start_ns, int64_t end_ns)
{
    int64_t duration;
    if (__builtin_sub_overflow(end_ns, start_ns, &duration))
        duration = end_ns > start_ns ? INT64_MAX : INT64_MIN;
    return duration == INT64_MIN ? INT64_MIN + 1 : duration; /* INT64_MIN is STORE_NULL */
}

static int64_t duration_ns(int64_t start_ns, int64_t end_ns)
{
    return start_ns == STORE_NULL || end_ns == STORE_NULL ? STORE_NULL
                                                          : store_clamped_duration_ns(start_ns, end_ns);
}

/* Version 2 tables (kernel_runs, api_call_runs) exist in traces of version 2 and later (version 3
 * only added the host tables, which a version 2 trace lacks: store_check_host_tables). */
int store_check_writes_current_version(store *s, const char *what, error_info *err)
{
    if (s->schema_version >= 2)
        return 0;
    return error_set(err,
                     "cannot %s in '%s': a schema version %d trace (this overlapscope writes version %d)",
                     what, s->path, s->schema_version, STORE_SCHEMA_VERSION);
}

static uint64_t hash_numbers(const int64_t *numbers, int count)
{
    uint64_t hash = 1469598103934665603ULL; /* FNV-1a over the numbers */
    for (int i = 0; i < count; i++)
        hash = (hash ^ (uint64_t)numbers[i]) * 1099511628211ULL;
    return hash ^ (hash >> 29);
}

/* Runs the cached statement of slot with values bound in order; returns its sqlite3_step code and
 * leaves the first column of a row in *first (when not NULL). */
static int run_numbers(store *s, enum statement_slot slot, const int64_t *values, int count, int64_t *first,
                       error_info *err)
{
    struct cached_statement *cached = cached_statement(s, slot, err);
    if (!cached)
        return SQLITE_ERROR;
    for (int i = 0; i < count; i++)
        bind_cached_int(cached, i + 1, values[i]);
    int rc = sqlite3_step(cached->statement);
    if (rc == SQLITE_ROW && first)
        *first = sqlite3_column_int64(cached->statement, 0);
    sqlite3_reset(cached->statement);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        store_sql_error(s, err, "write an interned row");
    return rc;
}

/* The key of the row of interned table `which` holding values (its columns in order), added when
 * new; 0 on failure with err filled. */
static int64_t interned_row_id(store *s, int which, const int64_t *values, error_info *err)
{
    const struct interned_table *table = &interned_tables[which];
    size_t bytes = sizeof(int64_t) * (size_t)table->width;
    if (!s->row_caches[which] && !(s->row_caches[which] = calloc(1, sizeof *s->row_caches[which]))) {
        error_set(err, "cannot insert a row in '%s': out of memory", s->path);
        return 0;
    }
    struct row_cache_entry *entry =
        &s->row_caches[which]->entries[hash_numbers(values, table->width) & (ROW_CACHE_SIZE - 1)];
    if (entry->id != 0 && memcmp(entry->values, values, bytes) == 0)
        return entry->id;
    int64_t id = 0;
    int rc = run_numbers(s, table->find, values, table->width, &id, err);
    if (rc == SQLITE_DONE) {
        if (run_numbers(s, table->add, values, table->width, NULL, err) != SQLITE_DONE)
            return 0;
        id = sqlite3_last_insert_rowid(s->db);
    } else if (rc != SQLITE_ROW) {
        return 0;
    }
    memcpy(entry->values, values, bytes);
    entry->id = id;
    return id;
}

int store_insert_kernel(store *s, const struct store_kernel *row, int64_t *rowid, error_info *err)
{
    if (store_check_writes_current_version(s, "insert a kernel", err) != 0)
        return -1;
    int64_t name_id = store_intern(s, row->name, err);
    if (name_id == 0)
        return -1;
#define ROW_FIELD(column) , row->column /* store_kernel's fields are named as the columns */
    const int64_t shape[KERNEL_SHAPE_WIDTH] = {name_id KERNEL_SHAPE_COLUMNS(ROW_FIELD)};
    int64_t shape_id = interned_row_id(s, INTERNED_SHAPES, shape, err);
    if (shape_id == 0)
        return -1;
    const int64_t numbers[] = {row->process_id,
                               row->device_id,
                               row->context_id,
                               row->stream_id,
                               row->correlation_id,
                               row->start_ns,
                               duration_ns(row->start_ns, row->end_ns),
                               row->queued_ns,
                               row->submitted_ns,
                               row->grid_x,
                               row->grid_y,
                               row->grid_z,
                               row->graph_id,
                               row->graph_node_id,
                               row->channel_id,
                               shape_id};
    int64_t new_rowid = s->batched ? next_kernel_rowid(s) : 0;
    if (INSERT_NUMBERS(SLOT_KERNEL, "insert a kernel") != 0)
        return -1;
    if (rowid)
        *rowid = s->batched ? new_rowid : sqlite3_last_insert_rowid(s->db);
    return 0;
}

int store_insert_memcpy(store *s, const struct store_memcpy *row, error_info *err)
{
    const int64_t numbers[] = {row->process_id,
                               row->device_id,
                               row->context_id,
                               row->stream_id,
                               row->correlation_id,
                               row->start_ns,
                               row->end_ns,
                               row->copy_kind,
                               row->src_kind,
                               row->dst_kind,
                               row->bytes,
                               row->src_device_id,
                               row->dst_device_id,
                               row->is_async,
                               row->channel_id,
                               row->channel_type,
                               row->copy_count == STORE_NULL ? 1 : row->copy_count,
                               row->graph_id,
                               row->graph_node_id};
    return INSERT_NUMBERS(SLOT_MEMCPY, "insert a memcpy");
}

int store_insert_memset(store *s, const struct store_memset *row, error_info *err)
{
    const int64_t numbers[] = {row->process_id,     row->device_id,   row->context_id,   row->stream_id,
                               row->correlation_id, row->start_ns,    row->end_ns,       row->value,
                               row->bytes,          row->memory_kind, row->is_async,     row->channel_id,
                               row->channel_type,   row->graph_id,    row->graph_node_id};
    return INSERT_NUMBERS(SLOT_MEMSET, "insert a memset");
}

int store_insert_synchronization(store *s, const struct store_synchronization *row, error_info *err)
{
    const int64_t numbers[] = {row->process_id, row->context_id,     row->stream_id, row->event_id,
                               row->sync_type,  row->correlation_id, row->start_ns,  row->end_ns};
    return INSERT_NUMBERS(SLOT_SYNC, "insert a synchronization");
}

int store_insert_cuda_event(store *s, const struct store_cuda_event *row, error_info *err)
{
    const int64_t numbers[] = {row->process_id, row->device_id,      row->context_id, row->stream_id,
                               row->event_id,   row->correlation_id, row->record_ns};
    return INSERT_NUMBERS(SLOT_CUDA_EVENT, "insert a CUDA event");
}

int store_insert_api_call(store *s, const struct store_api_call *row, error_info *err)
{
    if (store_check_writes_current_version(s, "insert an API call", err) != 0)
        return -1;
    int64_t name_id = store_intern(s, row->name, err);
    if (name_id == 0)
        return -1;
    const int64_t function[] = {row->api_domain, row->callback_id, name_id};
    int64_t function_id = interned_row_id(s, INTERNED_FUNCTIONS, function, err);
    if (function_id == 0)
        return -1;
    const int64_t numbers[] = {row->process_id,
                               row->thread_id,
                               row->correlation_id,
                               row->start_ns,
                               duration_ns(row->start_ns, row->end_ns),
                               row->return_value,
                               function_id};
    return INSERT_NUMBERS(SLOT_API, "insert an API call");
}

int store_insert_nvtx(store *s, const struct store_nvtx *row, error_info *err)
{
    int64_t message_id = store_intern(s, row->message, err);
    int64_t domain_id = row->domain ? store_intern(s, row->domain, err) : STORE_NULL;
    if (message_id == 0 || domain_id == 0)
        return -1;
    const int64_t numbers[] = {row->process_id, row->thread_id, row->device_id, row->stream_id,
                               row->kind,       domain_id,      message_id,     row->category,
                               row->color,      row->start_ns,  row->end_ns,    row->depth};
    return INSERT_NUMBERS(SLOT_NVTX, "insert an NVTX range");
}

int store_insert_collective(store *s, const struct store_collective *row, error_info *err)
{
    BEGIN_INSERT(SLOT_COLLECTIVE);
    bind_int(&b, row->process_id);
    bind_int(&b, row->device_id);
    bind_int(&b, row->stream_id);
    bind_text(&b, row->op ? row->op : "Unknown");
    bind_int(&b, row->bytes);
    bind_int(&b, row->element_count);
    bind_text(&b, row->dtype);
    bind_int(&b, row->root);
    bind_text(&b, row->algorithm);
    bind_text(&b, row->protocol);
    bind_text(&b, row->communicator);
    bind_int(&b, row->rank);
    bind_int(&b, row->nranks);
    bind_int(&b, row->sequence_number);
    bind_int(&b, row->kernel_rowid);
    bind_int(&b, row->start_ns);
    bind_int(&b, row->end_ns);
    bind_int(&b, row->detail_source);
    return run_insert(s, &b, err, "insert a collective");
}

int store_insert_warning(store *s, const struct store_warning *row, error_info *err)
{
    BEGIN_INSERT(SLOT_WARNING);
    bind_int(&b, row->process_id);
    bind_int(&b, row->time_ns);
    bind_text(&b, row->code);
    bind_text(&b, row->message);
    return run_insert(s, &b, err, "insert a warning");
}

/* --- version 3: the host side (host_tables.h) --- */

int store_insert_host_stack(store *s, int64_t id, const char *frames, error_info *err)
{
    BEGIN_INSERT(SLOT_HOST_STACK);
    bind_int(&b, id);
    bind_text(&b, frames);
    return run_insert(s, &b, err, "insert a host stack");
}

int store_insert_host_sample(store *s, const struct store_host_sample *row, error_info *err)
{
    char state[2] = {row->state ? row->state : '?', '\0'};
    BEGIN_INSERT(SLOT_HOST_SAMPLE);
    bind_int(&b, row->pid);
    bind_int(&b, row->tid);
    bind_int(&b, row->time_ns);
    bind_text(&b, state);
    bind_int(&b, row->cpu_ns);
    bind_int(&b, row->stack_id);
    return run_insert(s, &b, err, "insert a host sample");
}

int store_insert_process_cpu_sample(store *s, const struct store_process_cpu_sample *row, error_info *err)
{
    char state[2] = {row->state ? row->state : '?', '\0'};
    BEGIN_INSERT(SLOT_PROCESS_CPU);
    bind_int(&b, row->pid);
    bind_int(&b, row->parent_pid);
    bind_int(&b, row->time_ns);
    bind_int(&b, row->cpu_ns);
    bind_text(&b, state);
    bind_text(&b, row->name ? row->name : "?");
    return run_insert(s, &b, err, "insert a process CPU sample");
}

int store_insert_environment_variable(store *s, int64_t pid, const char *name, const char *value,
                                      error_info *err)
{
    BEGIN_INSERT(SLOT_ENVIRONMENT);
    bind_int(&b, pid);
    bind_text(&b, name);
    bind_text(&b, value);
    return run_insert(s, &b, err, "insert an environment variable");
}

const char *store_copy_kind_name(int64_t copy_kind)
{
    static const char *const names[] = {"unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                        "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
    return copy_kind >= 0 && copy_kind <= 10 ? names[copy_kind] : "unknown";
}

const char *store_memory_kind_name(int64_t memory_kind)
{
    static const char *const names[] = {"unknown", "pageable", "pinned",        "device",
                                        "array",   "managed",  "device static", "managed static"};
    return memory_kind >= 0 && memory_kind <= 7 ? names[memory_kind] : "unknown";
}

const char *store_sync_type_name(int64_t sync_type)
{
    static const char *const names[] = {"unknown", "event synchronize", "stream wait event",
                                        "stream synchronize", "context synchronize"};
    return sync_type >= 0 && sync_type <= 4 ? names[sync_type] : "unknown";
}

int store_update_process(store *s, int64_t process_id, const struct store_process *row,
                         enum store_update_mode mode, error_info *err)
{
    const struct {
        const char *column;
        int64_t value;
    } fields[] = {{"pid", process_id == STORE_NULL ? STORE_NULL : row->pid},
                  {"parent_pid", row->parent_pid},
                  {"rank", row->rank},
                  {"local_rank", row->local_rank},
                  {"world_size", row->world_size},
                  {"start_ns", row->start_ns},
                  {"end_ns", row->end_ns},
                  {"exit_status", row->exit_status},
                  {"term_signal", row->term_signal},
                  {"dropped_records", row->dropped_records}};
    enum { FIELD_COUNT = sizeof fields / sizeof fields[0] };
    char sql[1024];
    int length = snprintf(sql, sizeof sql, "UPDATE processes SET");
    int64_t values[FIELD_COUNT];
    int bound = 0;
    for (int i = 0; i < FIELD_COUNT; i++) {
        if (fields[i].value == STORE_NULL)
            continue;
        values[bound++] = fields[i].value;
        const char *separator = bound > 1 ? "," : "";
        if (mode == STORE_UPDATE_FILL)
            length += snprintf(sql + length, sizeof sql - (size_t)length, "%s %s = COALESCE(%s, ?%d)",
                               separator, fields[i].column, fields[i].column, bound);
        else
            length += snprintf(sql + length, sizeof sql - (size_t)length, "%s %s = ?%d", separator,
                               fields[i].column, bound);
    }
    if (bound == 0)
        return 0;
    snprintf(sql + length, sizeof sql - (size_t)length, " WHERE %s = ?%d",
             process_id == STORE_NULL ? "pid" : "process_id", bound + 1);
    sqlite3_stmt *update = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &update, NULL) != SQLITE_OK)
        return store_sql_error(s, err, "update a process");
    for (int i = 0; i < bound; i++)
        sqlite3_bind_int64(update, i + 1, values[i]);
    sqlite3_bind_int64(update, bound + 1, process_id == STORE_NULL ? row->pid : process_id);
    int rc = sqlite3_step(update);
    sqlite3_finalize(update);
    return rc == SQLITE_DONE ? 0 : store_sql_error(s, err, "update a process");
}
