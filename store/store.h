/* store.h: the overlapscope trace store, the one contract between the collector, the
 * importers, the analyzer and the renderer.
 *
 * A trace is one SQLite database (schema in store/schema.sql, documented column by column in
 * docs/trace-format.md). This module owns that schema: it creates databases, checks that a
 * file is an overlapscope trace of the version this build reads, writes rows through cached
 * prepared statements inside batched transactions, interns strings, and builds the indexes.
 * Readers get the sqlite3 handle (store_db) and query it with the documented columns: in a
 * version 2 trace `kernels` and `api_calls` are views over compact tables (schema.sql says why),
 * in a version 1 trace tables of the same columns, so no reader asks which version it reads.
 *
 * Enumerated columns keep CUPTI's numbering where CUPTI defines one, so values read from a
 * recording and from an import mean the same thing; the STORE_* constants below name them. */
#ifndef OVERLAPSCOPE_STORE_H
#define OVERLAPSCOPE_STORE_H

#include <sqlite3.h>
#include <stdint.h>

#include "error.h"

/* The version every writer writes, and the oldest one readers still accept: a version 1 trace
 * reads through the same table and column names (docs/trace-format.md, "Version 1"). */
#define STORE_SCHEMA_VERSION 3
#define STORE_OLDEST_SCHEMA_VERSION 1
#define STORE_APPLICATION_ID 0x4f564c50 /* "OVLP": PRAGMA application_id of every trace */

/* Bound as SQL NULL by every insert function: "not known". */
#define STORE_NULL INT64_MIN

/* What a real recording holds; readers refuse a trace beyond it as damaged (docs/trace-format.md):
 * timestamps within +-2^61 ns of the clock's zero (the year 2043 on CUPTI's epoch clock), one
 * operation at most 2^50 ns (13 days), one device's starts at most 2^52 ns (52 days) apart.
 * Within them, every sum of times a reader forms stays far from overflow. */
#define STORE_MAX_ABS_TIME_NS (INT64_C(1) << 61)
#define STORE_MAX_DURATION_NS (INT64_C(1) << 50)
#define STORE_MAX_SPAN_NS (INT64_C(1) << 52)

/* Whether [start_ns, end_ns] lies within those bounds (end before start is a clock glitch that
 * readers treat as a point, not damage). */
static inline int store_interval_plausible(int64_t start_ns, int64_t end_ns)
{
    return start_ns >= -STORE_MAX_ABS_TIME_NS && start_ns <= STORE_MAX_ABS_TIME_NS &&
           (end_ns <= start_ns || end_ns - start_ns <= STORE_MAX_DURATION_NS);
}

/* Device limits and launch sizes no GPU has (docs/trace-format.md): readers refuse a trace holding
 * one as damaged and importers refuse to write one, so products such as registers x warp size,
 * grid blocks x SMs or shared bytes x blocks stay far from overflow. Generous: 64 times any GPU so
 * far (a warp of 32 threads, 1024 threads per block, 64k registers per SM, 228 KiB of shared
 * memory per SM, grids of 2^31 x 65535 x 65535 blocks at most, which no program runs to the end). */
#define STORE_MAX_WARP_SIZE 1024
#define STORE_MAX_SM_COUNT 65536
#define STORE_MAX_THREADS 65536                /* per SM or per block; also blocks and warps per SM */
#define STORE_MAX_REGISTERS (INT64_C(1) << 24) /* per SM, per block; per thread it is at most 65536 */
#define STORE_MAX_SHARED_MEMORY_BYTES (INT64_C(1) << 32)
#define STORE_MAX_COMPUTE_CAPABILITY 1000
#define STORE_MAX_GRID_BLOCKS (INT64_C(1) << 48) /* grid_x * grid_y * grid_z */
#define STORE_MAX_BYTES (INT64_C(1) << 50)       /* one copy or memset: 1 PiB */

/* Whether a device limit or launch size read from a trace lies in [0, max]; NULL (unknown) is
 * read as 0 by the readers and is plausible. */
static inline int store_count_plausible(int64_t value, int64_t max)
{
    return value >= 0 && value <= max;
}

/* api_calls.api_domain: CUDA runtime and driver calls; OS runtime calls that wait (host_wait.h: a
 * pthread_cond_wait, a poll), which only imports hold (nsys OSRT_API). Readers of CUDA calls select
 * api_domain < STORE_API_OS_RUNTIME. */
enum { STORE_API_RUNTIME = 1, STORE_API_DRIVER = 2, STORE_API_OS_RUNTIME = 3 };
/* memcpys.copy_kind: CUpti_ActivityMemcpyKind */
enum {
    STORE_COPY_UNKNOWN = 0,
    STORE_COPY_HTOD = 1,
    STORE_COPY_DTOH = 2,
    STORE_COPY_HTOA = 3,
    STORE_COPY_ATOH = 4,
    STORE_COPY_ATOA = 5,
    STORE_COPY_ATOD = 6,
    STORE_COPY_DTOA = 7,
    STORE_COPY_DTOD = 8,
    STORE_COPY_HTOH = 9,
    STORE_COPY_PTOP = 10
};
/* memcpys.src_kind, dst_kind, memsets.memory_kind: CUpti_ActivityMemoryKind */
enum {
    STORE_MEMORY_UNKNOWN = 0,
    STORE_MEMORY_PAGEABLE = 1,
    STORE_MEMORY_PINNED = 2,
    STORE_MEMORY_DEVICE = 3,
    STORE_MEMORY_ARRAY = 4,
    STORE_MEMORY_MANAGED = 5,
    STORE_MEMORY_DEVICE_STATIC = 6,
    STORE_MEMORY_MANAGED_STATIC = 7
};
/* synchronizations.sync_type: CUpti_ActivitySynchronizationType */
enum {
    STORE_SYNC_UNKNOWN = 0,
    STORE_SYNC_EVENT_SYNCHRONIZE = 1,
    STORE_SYNC_STREAM_WAIT_EVENT = 2,
    STORE_SYNC_STREAM_SYNCHRONIZE = 3,
    STORE_SYNC_CONTEXT_SYNCHRONIZE = 4
};
/* kernels/memcpys/memsets.channel_type: CUpti_ChannelType */
enum { STORE_CHANNEL_INVALID = 0, STORE_CHANNEL_COMPUTE = 1, STORE_CHANNEL_ASYNC_MEMCPY = 2 };
/* nvtx.kind */
enum { STORE_NVTX_PUSH_POP = 1, STORE_NVTX_START_END = 2, STORE_NVTX_MARK = 3 };
/* collectives.detail_source: where op/bytes/dtype... came from */
enum {
    STORE_DETAIL_KERNEL_NAME = 1,   /* parsed from the NCCL kernel name alone */
    STORE_DETAIL_NCCL_PROFILER = 2, /* NCCL profiler plugin events */
    STORE_DETAIL_NVTX_PAYLOAD = 3,  /* NCCL's NVTX ranges and payloads */
    STORE_DETAIL_KINETO = 4,        /* kernel args of a PyTorch profiler trace */
    STORE_DETAIL_NSYS = 5           /* an Nsight Systems export */
};
/* store_create flags */
enum {
    STORE_OVERWRITE = 1,   /* replace an existing file instead of failing */
    STORE_FAST_UNSAFE = 2, /* synchronous=OFF: for per-process collector files and temporaries */
    /* Numeric rows (kernels, memcpys, memsets, synchronizations, cuda_events, api_calls, nvtx)
     * wait in the store and are written 32 per INSERT; they reach the database at store_commit
     * (also the one store_maybe_commit makes), store_finalize or store_close, so read this file
     * only after one of those. For writers that only write: the collector's per-process files. */
    STORE_BATCHED_INSERTS = 4
};

/* A store is used by one thread at a time (its SQLite connection is opened without a mutex). */
typedef struct store store;

/* The process's SQLite set-up, before its first connection (main calls it first; store_create and
 * store_open call it too, for other programs): SQLite's memory statistics off, so that threads on
 * their own connections (the analysis's workers, crew.h) share no lock on every allocation. Once
 * a process; later calls, and a call after SQLite has started, change nothing. */
void store_process_setup(void);

/* Creates a new, empty trace at path with the schema and meta rows (schema_version,
 * tool_version, created_unix_ns, host). Fails if path exists unless STORE_OVERWRITE. The file
 * is created exclusively with mode 0644. Returns NULL and fills err on failure. Free with
 * store_close. */
store *store_create(const char *path, int flags, error_info *err);

/* Opens an existing trace for reading (read_only=1) or appending. Fails with a one-line
 * message when the file is missing or not a regular file, is not SQLite, is truncated/corrupt,
 * has a hot journal it cannot recover read-only, is not an overlapscope trace (no meta table,
 * another application id), has another schema version (meta schema_version must be exactly the
 * decimal number, STORE_OLDEST_SCHEMA_VERSION to STORE_SCHEMA_VERSION; PRAGMA user_version, when
 * set, must agree), or is not of its version's shape: every table of store/schema.sql (version 1:
 * store/schema_v1.sql) present as a plain table with its columns in order, no view but the views of
 * store/schema.sql word for word, no virtual table or trigger anywhere. Read-only opens also get a
 * work limit (store_work_limit_install). */
store *store_open(const char *path, int read_only, error_info *err);

/* Every SQLite connection reading a file that someone else wrote gets a work limit, so that no
 * query on a hostile file (a recursive view, an index that loops) runs unbounded: SQLite's
 * progress handler counts virtual-machine steps and interrupts every statement once the budget,
 * proportional to the file's size and generous enough for the slowest real reading, is spent.
 * The limit lives as long as the connection; fill it with store_work_limit_install. One limit may
 * serve several connections on several threads at once (store_open_reader's): its counts are
 * atomic, so they draw from one budget, and a file's total work does not grow with the readers. */
struct store_work_limit {
    _Atomic int64_t ticks_left; /* progress-handler calls left (each one STORE_WORK_TICK_STEPS steps) */
    _Atomic int exceeded;
};
void store_work_limit_install(sqlite3 *db, struct store_work_limit *limit, int64_t file_bytes);
/* Makes db draw from limit, already installed on another connection (and outliving db). */
void store_work_limit_share(sqlite3 *db, struct store_work_limit *limit);

/* Returns -1 with err filled with one line naming the file when the work limit of trace's
 * connection stopped a query (the reader's own message would only say "interrupted", or a reader
 * that tolerates failed queries would print partial figures), else 0 with err untouched. Call it
 * where a reader's result is turned into the command's output or message. */
int store_work_exceeded(const store *trace, error_info *err);
/* The same for a connection the caller opened (the nsys importer's), path naming its file. */
int store_work_limit_error(const struct store_work_limit *limit, const char *path, error_info *err);

/* Refuses, with one line naming path, a file whose tables the caller is about to read are not
 * plain tables: a view, a virtual table or a trigger named like one of tables[] (NULL-ended), or
 * any trigger at all. store_open applies it (and the column check) to every trace; the nsys
 * importer to the export's tables. "what" names the kind of file in the message. */
int store_check_real_tables(sqlite3 *db, const char *path, const char *const *tables, const char *what,
                            error_info *err);

/* What a writer of foreign input (the importers) checks before keeping it: the rows appended since
 * a mark hold only what the readers accept (the bounds above: times, durations, a device's span,
 * device limits, launch sizes, byte counts; integers where the schema says INTEGER), so that what
 * imports also reads. store_mark_rows records where each table ends now; store_check_plausible
 * returns 0, or -1 with err saying the first row out of bounds (table, row, values). */
enum { STORE_CHECKED_TABLE_COUNT = 8 };
struct store_row_mark {
    int64_t last_rowid[STORE_CHECKED_TABLE_COUNT];
};
int store_mark_rows(store *s, struct store_row_mark *mark, error_info *err);
int store_check_plausible(store *s, const struct store_row_mark *since, error_info *err);

/* A second connection to trace's file, read-only and checked as store_open checks, for another
 * thread to read the trace beside trace's own (a store serves one thread at a time). A read-only
 * trace's readers draw from its work limit, its checks included (one budget for the file, however
 * many threads read it: a budget per reader let a hostile file's work grow with --jobs). NULL with err
 * filled when it cannot be opened, or when trace holds writes not yet committed (the second
 * connection would not see them). Close with store_close. */
store *store_open_reader(store *trace, error_info *err);
/* Marks trace's work limit spent when reader's was, so that store_work_exceeded on trace says why
 * a reader's query stopped (a reader sharing trace's limit has spent it already). */
void store_absorb_work_limit(store *trace, const store *reader);

/* Commits anything pending and closes. NULL is a no-op. Returns 0, or -1 with err filled
 * (err may be NULL) if the final commit failed; the handle is freed either way. */
int store_close(store *s, error_info *err);

/* Checks the file's structure (SQLite's quick_check: every page, b-tree order, free lists; about
 * 5 s per GB). Returns 0 when sound, or -1 with err naming the file and the first problem found. */
int store_verify(store *s, error_info *err);

sqlite3 *store_db(store *s);

/* 1 when db has a table (or view) of that name, 0 when not or on a read error: the tables added
 * within a schema version (threads, call_sources, process_origins) and version 2's compact tables,
 * which readers check for. Any SQLite database: the nsys importer asks it of nsys's export, whose
 * tables come and go with the nsys version. */
int store_db_has_table(sqlite3 *db, const char *table);

/* 1 when table of db has a column of that name, 0 when not (or no such table, or a read error). */
int store_db_has_column(sqlite3 *db, const char *table, const char *column);
const char *store_path(const store *s);
/* The schema version of the file: STORE_SCHEMA_VERSION for one this build created. Rows can be
 * added to a version 1 trace only in the tables the two versions share (store_insert_kernel and
 * store_insert_api_call refuse it). */
int store_schema_version(const store *s);
/* The DDL of schema version 1 (store/schema_v1.sql: its tables, then the indexes its writers
 * built), for tests and benchmarks that build a version 1 trace. Static. */
const char *store_schema_v1_sql(void);

/* Transactions. Writers call store_begin once, then store_maybe_commit after rows (it commits
 * and reopens the transaction every batch_rows rows), and store_commit at the end. */
int store_begin(store *s, error_info *err);
int store_commit(store *s, error_info *err);
int store_maybe_commit(store *s, error_info *err);
/* Abandons the open transaction; a no-op without one. For writers of whole statements (not
 * the batched row inserts, whose unflushed rows it would not clear). */
void store_rollback(store *s);
void store_set_batch_rows(store *s, int batch_rows);

/* Texts stored cut (STORE_MAX_TEXT_BYTES) since the last store_finalize, and texts cut elsewhere to
 * count in this store's warning: a parallel import reads files into parts of their own and appends
 * them (store_append_trace does not carry the count), so its one "text-cut" warning says what one
 * reader would have said. */
int64_t store_texts_cut(const store *s);
void store_add_texts_cut(store *s, int64_t count);

/* Writes the "text-cut" warning when texts were cut (STORE_MAX_TEXT_BYTES), creates the indexes
 * of store/indexes.sql and runs ANALYZE. Idempotent. */
int store_finalize(store *s, error_info *err);

/* A step the caller of a writer (import, merge, record) wants run on the finalized trace before
 * it is moved into place: the CLI passes the renderer's overview_build_or_warn, so that the
 * writers, below the renderer in the flow, never call up into it. Returns 0, or -1 with err
 * filled (the writer then fails and leaves nothing). */
typedef int store_finishing_step(store *trace, error_info *err);

int store_set_meta(store *s, const char *key, const char *value, error_info *err);
/* Returns a malloc'd copy of meta[key] (caller frees) or NULL when absent. */
char *store_get_meta(store *s, const char *key);

/* Every text a writer stores (names, messages, labels, command lines) keeps at most this many
 * bytes: longer ones are cut at a character boundary and end in STORE_TEXT_CUT_MARKER, so that
 * a name's length in an input file cannot set the size of the trace or of what reads it.
 * store_finalize adds one warning (code "text-cut") counting them. */
#define STORE_MAX_TEXT_BYTES 4096
#define STORE_TEXT_CUT_MARKER "...[cut]"
#define STORE_CUT_TEXT_SIZE (STORE_MAX_TEXT_BYTES + sizeof STORE_TEXT_CUT_MARKER)

/* Returns the id of value in strings, inserting it if new; 0 on failure (ids start at 1).
 * A small cache in front of SQLite makes repeated names (kernel names) cheap. */
int64_t store_intern(store *s, const char *value, error_info *err);

/* --- rows. Any int64_t field may be STORE_NULL; strings may be NULL. --- */

struct store_process {
    int64_t process_id; /* 0: let the store pick the next id; the chosen id is written back */
    int64_t pid, parent_pid;
    const char *host, *command_line;
    int64_t rank, local_rank, world_size;
    int64_t start_ns, end_ns;
    int64_t exit_status, term_signal;
    int64_t dropped_records;
    const char *source_file;
};

/* A processes row that knows nothing yet: every integer STORE_NULL, every string NULL. */
static inline struct store_process store_process_unknown(void)
{
    return (struct store_process){.process_id = 0,
                                  .pid = STORE_NULL,
                                  .parent_pid = STORE_NULL,
                                  .rank = STORE_NULL,
                                  .local_rank = STORE_NULL,
                                  .world_size = STORE_NULL,
                                  .start_ns = STORE_NULL,
                                  .end_ns = STORE_NULL,
                                  .exit_status = STORE_NULL,
                                  .term_signal = STORE_NULL,
                                  .dropped_records = STORE_NULL};
}

struct store_device {
    int64_t process_id, device_id;
    const char *name, *uuid;
    int64_t pci_bus_id, sm_count, compute_capability_major, compute_capability_minor;
    int64_t max_blocks_per_sm, max_warps_per_sm, max_threads_per_sm, max_threads_per_block;
    int64_t max_registers_per_sm, max_registers_per_block;
    int64_t max_shared_memory_per_sm, max_shared_memory_per_block, max_shared_memory_per_block_optin;
    int64_t global_memory_bytes, global_memory_bandwidth_kbps, l2_cache_bytes, core_clock_khz;
    int64_t copy_engine_count, warp_size;
};

struct store_stream {
    int64_t process_id, device_id, context_id, stream_id;
    int64_t is_legacy_default, is_per_thread_default, priority, flags;
    const char *label;
};

struct store_kernel {
    int64_t process_id, device_id, context_id, stream_id, correlation_id;
    int64_t start_ns, end_ns, queued_ns, submitted_ns;
    int64_t grid_x, grid_y, grid_z, block_x, block_y, block_z, cluster_x, cluster_y, cluster_z;
    int64_t registers_per_thread, static_shared_bytes, dynamic_shared_bytes;
    int64_t local_memory_per_thread_bytes, local_memory_total_bytes, shared_memory_executed_bytes;
    int64_t shared_memory_config, launch_type, is_device_launched;
    int64_t graph_id, graph_node_id, channel_id, channel_type, priority;
    const char *name; /* interned by the insert */
};

struct store_memcpy {
    int64_t process_id, device_id, context_id, stream_id, correlation_id;
    int64_t start_ns, end_ns;
    int64_t copy_kind, src_kind, dst_kind, bytes, src_device_id, dst_device_id, is_async;
    int64_t channel_id, channel_type, copy_count, graph_id, graph_node_id;
};

struct store_memset {
    int64_t process_id, device_id, context_id, stream_id, correlation_id;
    int64_t start_ns, end_ns;
    int64_t value, bytes, memory_kind, is_async, channel_id, channel_type, graph_id, graph_node_id;
};

struct store_synchronization {
    int64_t process_id, context_id, stream_id, event_id, sync_type, correlation_id;
    int64_t start_ns, end_ns;
};

struct store_cuda_event {
    int64_t process_id, device_id, context_id, stream_id, event_id, correlation_id, record_ns;
};

struct store_api_call {
    int64_t process_id, thread_id, api_domain, callback_id, correlation_id;
    int64_t start_ns, end_ns, return_value;
    const char *name;
};

struct store_nvtx {
    int64_t process_id, thread_id, device_id, stream_id, kind;
    const char *domain, *message;
    int64_t category, color, start_ns, end_ns, depth;
};

struct store_collective {
    int64_t process_id, device_id, stream_id;
    const char
        *op; /* AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, AllToAll, Send, Recv, SendRecv */
    int64_t bytes, element_count;
    const char *dtype;
    int64_t root;
    const char *algorithm, *protocol, *communicator;
    int64_t rank, nranks, sequence_number, kernel_rowid, start_ns, end_ns, detail_source;
};

struct store_warning {
    int64_t process_id, time_ns;
    const char *code, *message;
};

/* Each insert returns 0 or -1 with err filled. store_insert_kernel writes the new row's rowid
 * into *rowid when rowid is not NULL (collectives.kernel_rowid refers to it). */
int store_insert_process(store *s, struct store_process *row, error_info *err);
int store_insert_device(store *s, const struct store_device *row, error_info *err);
int store_insert_stream(store *s, const struct store_stream *row, error_info *err);
int store_insert_kernel(store *s, const struct store_kernel *row, int64_t *rowid, error_info *err);
int store_insert_memcpy(store *s, const struct store_memcpy *row, error_info *err);
int store_insert_memset(store *s, const struct store_memset *row, error_info *err);
int store_insert_synchronization(store *s, const struct store_synchronization *row, error_info *err);
int store_insert_cuda_event(store *s, const struct store_cuda_event *row, error_info *err);
int store_insert_api_call(store *s, const struct store_api_call *row, error_info *err);
int store_insert_nvtx(store *s, const struct store_nvtx *row, error_info *err);
int store_insert_collective(store *s, const struct store_collective *row, error_info *err);
int store_insert_warning(store *s, const struct store_warning *row, error_info *err);

/* How store_update_process writes a field. */
enum store_update_mode {
    STORE_UPDATE_SET = 0, /* replace the stored value */
    STORE_UPDATE_FILL = 1 /* only where the stored value is NULL (not known yet) */
};

/* Completes a processes row once its process has ended or been read whole: the row process_id,
 * or, when process_id is STORE_NULL, every row of the pid row->pid. Each of row's pid (with a
 * process_id only), parent_pid, rank, local_rank, world_size, start_ns, end_ns, exit_status,
 * term_signal and dropped_records that is not STORE_NULL is written as mode says; STORE_NULL
 * fields and the strings are left alone. Returns 0, or -1 with err filled. */
int store_update_process(store *s, int64_t process_id, const struct store_process *row,
                         enum store_update_mode mode, error_info *err);

/* Rows of a source that store_append_trace could not carry, per table: their process_id, or the
 * string id of their name, names nothing in the source (a damaged or hand-made trace). */
#define STORE_APPEND_MAX_LOSSES 16
struct store_append_losses {
    int count;
    struct store_append_loss {
        const char *table; /* static */
        int64_t rows;
    } kinds[STORE_APPEND_MAX_LOSSES];
};

/* Appends every row of the trace at source_path to destination: processes get new process_ids
 * (rows keep pointing at their process), strings are re-interned, collectives.kernel_rowid is
 * remapped to the copied kernels, and time_offset_ns is added to every timestamp (0 for files of
 * the same host; merge passes the clock offset it estimated) in integer arithmetic, clamped to
 * INT64_MIN..INT64_MAX. Warnings and per-process data come along; the source's meta table does
 * not. Runs inside one transaction of its own: on failure nothing of the source is left in
 * destination. The source is checked as store_open does and attached read-only (its write-ahead
 * log is never folded into it: the file is not modified). losses (may be NULL) receives the rows
 * that could not be carried. */
int store_append_trace(store *destination, const char *source_path, int64_t time_offset_ns,
                       struct store_append_losses *losses, error_info *err);

/* Gives each process that has no rank (no RANK variable or the like: torch.multiprocessing.spawn
 * starts its ranks without one) the rank NCCL gave it in its largest communicator (the world),
 * and that communicator's size as its world size where none is known: only where every one of
 * the process's collectives on communicators of that size names the same rank, and no other
 * process of the trace holds that rank already. Returns the processes given a rank, or -1 with
 * err filled. */
int64_t store_fill_ranks_from_nccl(store *s, error_info *err);

/* Adds delta_ns to every timestamp of process_id's rows (GPU activity, synchronizations, events, API
 * calls, NVTX, collectives; not the processes row), for an importer that learns a clock's base after
 * writing. Returns 0, or -1 with err filled. */
int store_shift_process_times(store *s, int64_t process_id, int64_t delta_ns, error_info *err);

/* Names for the enumerations above, for reports ("HtoD", "pageable", "stream wait event"). */
const char *store_copy_kind_name(int64_t copy_kind);
const char *store_memory_kind_name(int64_t memory_kind);
const char *store_sync_type_name(int64_t sync_type);

#endif
