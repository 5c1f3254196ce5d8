/* store_internal.h: what the files of store/ share and nobody else sees (store.h is the contract).
 *
 * The store struct, the cached-statement slots of the writers and the helpers one job of the store
 * lends another: lifecycle.c (create, open, close, meta), checks.c (what a reader trusts), writes.c
 * (batched inserts), finish.c (the checks and fixes of a finished write), append.c. */
#ifndef OVERLAPSCOPE_STORE_INTERNAL_H
#define OVERLAPSCOPE_STORE_INTERNAL_H

#include <stdint.h>

#include "store.h"

enum statement_slot {
    SLOT_PROCESS,
    SLOT_DEVICE,
    SLOT_STREAM,
    SLOT_KERNEL,
    SLOT_MEMCPY,
    SLOT_MEMSET,
    SLOT_SYNC,
    SLOT_CUDA_EVENT,
    SLOT_API,
    SLOT_NVTX,
    SLOT_COLLECTIVE,
    SLOT_WARNING,
    SLOT_STRING_FIND,
    SLOT_STRING_ADD,
    SLOT_SHAPE_FIND,
    SLOT_SHAPE_ADD,
    SLOT_FUNCTION_FIND,
    SLOT_FUNCTION_ADD,
    SLOT_HOST_STACK,
    SLOT_HOST_SAMPLE,
    SLOT_PROCESS_CPU,
    SLOT_ENVIRONMENT,
    SLOT_COUNT
};

/* The columns of kernel_shapes after name_id, in schema.sql's order: X(column) for each (rows of
 * names, unformatted: clang-format would indent each line further as if they were nested). */
/* clang-format off */
#define KERNEL_SHAPE_COLUMNS(X)                                                                              \
    X(block_x) X(block_y) X(block_z) X(cluster_x) X(cluster_y) X(cluster_z)                                  \
    X(registers_per_thread) X(static_shared_bytes) X(dynamic_shared_bytes) X(local_memory_per_thread_bytes)  \
    X(local_memory_total_bytes) X(shared_memory_executed_bytes) X(shared_memory_config) X(launch_type)        \
    X(is_device_launched) X(channel_type) X(priority)
/* clang-format on */
#define COUNT_ONE(column) +1
enum { KERNEL_SHAPE_WIDTH = 1 KERNEL_SHAPE_COLUMNS(COUNT_ONE) }; /* with name_id */
#define COMMA_NAME(column) ", " #column
#define SHAPE_COLUMN_NAMES "name_id" KERNEL_SHAPE_COLUMNS(COMMA_NAME)

#define INTERN_CACHE_SIZE 4096  /* power of two; a direct-mapped cache of recent names */
#define BATCH_STATEMENT_ROWS 32 /* rows per multi-row INSERT with STORE_BATCHED_INSERTS */

/* A prepared statement and the integers last bound to it: a parameter whose value did not change
 * is not bound again (bindings survive sqlite3_reset). */
struct cached_statement {
    sqlite3_stmt *statement;
    int parameter_count;
    int64_t *bound;       /* per parameter: the value last bound */
    unsigned char *state; /* per parameter: BOUND_UNKNOWN, BOUND_INTEGER or BOUND_NULL */
};
enum { BOUND_UNKNOWN = 0, BOUND_INTEGER = 1, BOUND_NULL = 2 };

struct intern_entry {
    char *value;
    int64_t id;
};
enum { INTERNED_SHAPES, INTERNED_FUNCTIONS, INTERNED_TABLE_COUNT };

/* A direct-mapped cache of the rows of one interned table written or found: a kernel launched
 * again finds its shape, a function called again its row, without SQLite. */
#define ROW_CACHE_SIZE 1024 /* power of two */
struct row_cache {
    struct row_cache_entry {
        int64_t values[KERNEL_SHAPE_WIDTH]; /* the widest interned row */
        int64_t id;                         /* 0: empty */
    } entries[ROW_CACHE_SIZE];
};

struct store {
    sqlite3 *db;
    char *path;
    struct cached_statement statements[SLOT_COUNT];
    /* STORE_BATCHED_INSERTS: numeric rows wait here, BATCH_STATEMENT_ROWS per multi-row INSERT. */
    int batched;
    struct cached_statement batch_statements[SLOT_COUNT];
    int64_t *pending[SLOT_COUNT];
    int pending_rows[SLOT_COUNT];
    int64_t next_kernel_rowid; /* 0: not known yet */
    int in_transaction;
    int rows_in_transaction;
    int batch_rows;
    int64_t next_process_id;
    int schema_version; /* of the file: STORE_SCHEMA_VERSION, or 1 for an older trace */
    struct row_cache *row_caches[INTERNED_TABLE_COUNT]; /* allocated at a table's first row */
    struct store_work_limit work_limit;                 /* reader connections: see store_work_limit_install */
    struct store_work_limit *limit; /* the one its connection draws from: work_limit, or its trace's */
    struct intern_entry intern_cache[INTERN_CACHE_SIZE];
    int64_t texts_cut; /* texts stored cut at STORE_MAX_TEXT_BYTES, for store_finalize's warning */
};

/* lifecycle.c */
int store_sql_error(store *s, error_info *err, const char *what);
int store_exec_sql(store *s, const char *sql, error_info *err, const char *what);

/* checks.c: the checks store_open runs before it trusts a file. store_check_not_truncated reads the
 * file's header itself; store_check_shape reads the schema and sets s->schema_version. */
int store_check_not_truncated(store *s, const char *path, error_info *err);
int store_check_shape(store *s, error_info *err);
/* Whether the attached database `schema` ("main", "src") of db has a table or view of that name. */
int store_schema_has_table(sqlite3 *db, const char *schema, const char *table);

/* The first column of sql's first row; fallback when there is none, it is NULL or sql fails
 * (finish.c). */
int64_t store_single_int64(store *s, const char *sql, int64_t fallback);

/* writes.c */
void store_free_cached_statement(struct cached_statement *cached);
int store_flush_pending(store *s, error_info *err);
int store_check_writes_current_version(store *s, const char *what, error_info *err);
int64_t store_clamped_duration_ns(int64_t start_ns, int64_t end_ns);
/* Sorts values and keeps each once (queries_ranges.c); returns how many are left. values may be
 * NULL when count is 0. */
size_t store_sort_distinct(int64_t *values, size_t count);

#endif
