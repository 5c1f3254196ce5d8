/* nsys_parts.h: the parts of the Nsight Systems importer (nsys.h is its public face), one job each,
 * sharing the state of one export being read:
 *
 *   nsys_export.c  reading an export whose schema changes with the nsys version: the one table
 *                  reader (nsys_read_table: each part describes a table's columns and converts its
 *                  rows; the SELECT is built from the columns the file has, values are read,
 *                  type-checked and refused or skipped once, here);
 *                  nsys ids (globalPid, globalTid, 0xFFFFFFFF for none) and the session clock; the
 *                  pid-to-process map (each process named and placed on its host when first seen)
 *   nsys_gpu.c     GPU activity: kernels (graph ids, NCCL collectives from their names), copies,
 *                  memsets, synchronizations (with their event ids) and CUDA event records
 *   nsys_host.c    host activity: CUDA runtime and driver calls, OS runtime calls that block,
 *                  NVTX ranges and marks (domains, payloads: NCCL's message sizes)
 *   nsys_target.c  the target's description: GPUs, streams (flags, priority, the legacy NULL
 *                  stream), the host name, process names and command lines, thread names
 *   nsys_notes.c   warnings: profiler overhead, nsys's own diagnostics, causes the export cannot
 *                  support, an export without GPU activity
 *
 * nsys.c runs them in order. Table and column names are those of the nsys "SQLite Export Schema
 * Reference"; docs/overlapscope-import.md lists what is read, per nsys version. */
#ifndef OVERLAPSCOPE_NSYS_PARTS_H
#define OVERLAPSCOPE_NSYS_PARTS_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "key_index.h"
#include "store.h"
#include "stream_set.h"

/* CUPTI's "no stream / no event" (0xFFFFFFFF), as nsys exports it. */
#define NSYS_NO_ID 4294967295LL

struct nsys_pid_entry {
    int64_t pid, process_id;
};

/* Where a (process, context) lives: streams rows need the device, which TARGET_INFO_CUDA_STREAM
 * does not say. */
struct nsys_context_entry {
    int64_t process_id, context_id, device_id;
};

struct nsys_state {
    store *s;
    sqlite3 *db;
    const char *name;
    int64_t time_offset_ns; /* TARGET_INFO_SESSION_START_TIME.utcEpochNs: nsys times are session-relative */
    char *host;             /* TARGET_INFO_SYSTEM_ENV Hostname: the traced machine; NULL when absent */
    struct nsys_pid_entry *pids;
    size_t pid_count, pid_capacity;
    struct key_index pid_index;       /* a hostile export can give every row a pid of its own */
    sqlite3_stmt *process_name_query; /* temp.overlapscope_process_names, when PROCESSES exists */
    struct nsys_context_entry *contexts;
    size_t context_count, context_capacity;
    struct key_index context_index;
    struct stream_set streams;
    int64_t gpu_rows;             /* kernels, copies and memsets imported */
    int64_t kernels_with_channel; /* kernels whose channelId the export gave */
    int64_t event_records;        /* CUPTI_ACTIVITY_KIND_CUDA_EVENT rows imported */
    int has_event_table;          /* the export has CUPTI_ACTIVITY_KIND_CUDA_EVENT (maybe empty) */
    int64_t stream_waits;         /* synchronizations of type stream-wait-event */
    int64_t api_calls;            /* CUDA runtime and driver calls imported */
    int64_t os_waits;             /* OS runtime calls that wait, imported */
    int has_stream_table;         /* TARGET_INFO_CUDA_STREAM was read */
    int64_t nccl_ranges;          /* NCCL NVTX ranges with a size */
    int64_t odd_values;           /* optional numbers of another type, read as unknown */
    char odd_first[96];           /* "TABLE.column, type" of the first of them */
    sqlite3_stmt *nccl_range_insert, *nccl_bytes_query;
};

/* --- nsys_export.c --- */

/* How a column's value is read into a part's record. */
enum nsys_read {
    NSYS_INTEGER, /* int64_t; NULL reads STORE_NULL */
    NSYS_TIME,    /* int64_t, session-relative nanoseconds on the host clock (nsys_shifted) */
    NSYS_ID,      /* int64_t; nsys's "none" (0xFFFFFFFF or negative) reads STORE_NULL */
    NSYS_TEXT     /* const char *, NULL for NULL; valid until the next row is read */
};

/* One column a part reads. source: the column's name; "@name": the StringIds text the column
 * refers to; "a|@b": the first of those the table has that is not NULL in the row; "=expression":
 * SQL over the row t, used as written. A column the table lacks reads as NULL, so one description
 * serves every nsys version. offset: where the value goes in the part's record (NSYS_INT64_AT,
 * NSYS_TEXT_AT). required: a row without it is refused with the table's required columns named.
 * A number of another type (text, real, blob: never written by nsys) refuses a row when required,
 * and otherwise reads as unknown and is counted (state->odd_values). */
struct nsys_column {
    const char *source;
    enum nsys_read read;
    size_t offset;
    int required;
};

/* The offset of member in record, which must be of the type the read gives (a compile error
 * otherwise). */
#define NSYS_INT64_AT(record, member)                                                                        \
    (offsetof(record, member) + 0 * sizeof(_Generic(((record *)0)->member, int64_t : 1)))
#define NSYS_TEXT_AT(record, member)                                                                         \
    (offsetof(record, member) + 0 * sizeof(_Generic(((record *)0)->member, const char * : 1)))

/* One table a part imports: its columns, and per row a record (a copy of defaults, the columns
 * read into it) handed to import. skips (may be NULL) says which rows the part passes over without
 * looking at them: those are not refused for a missing column. query (NULL for most): a SELECT of
 * the part's own over the table (aggregates), run in place of the one built from the columns, with
 * ?1 bound to query_bound; its result columns are the columns in order, whose sources then only
 * name them in messages. */
struct nsys_table {
    const char *name;
    const struct nsys_column *columns;
    size_t column_count;
    const char *tail; /* after "FROM name t": a JOIN, a WHERE, an ORDER BY */
    const void *defaults;
    size_t record_size;
    int (*skips)(struct nsys_state *state, const void *record);
    int (*import)(struct nsys_state *state, void *record, error_info *err);
    const char *query;
    int64_t query_bound;
};

/* A table's description from its columns array and its defaults record; NSYS_QUERY, one read by
 * a query of the part's own. */
#define NSYS_TABLE(name, columns, tail, defaults, skips, import)                                             \
    {                                                                                                        \
        name, columns, sizeof columns / sizeof columns[0], tail, &defaults, sizeof defaults, skips, import   \
    }
#define NSYS_QUERY(name, columns, defaults, import, query, query_bound)                                      \
    {                                                                                                        \
        name, columns, sizeof columns / sizeof columns[0], "", &defaults, sizeof defaults, NULL, import,     \
            query, query_bound                                                                               \
    }

/* Reads every row of the table (nothing when nsys did not create it) and hands it over; returns
 * 0 or -1 with err naming the file, the table and the problem. */
int nsys_read_table(struct nsys_state *state, const struct nsys_table *table, error_info *err);

/* Runs one statement of the importer's own on the export's connection (temp tables); -1 with err. */
int nsys_exec(struct nsys_state *state, const char *sql, const char *what, error_info *err);

/* An id that nsys writes as 0xFFFFFFFF (or negative) for "none", as STORE_NULL. */
int64_t nsys_id_or_null(int64_t id);

/* Session-relative time to the host clock; STORE_NULL when unknown or out of range. */
int64_t nsys_shifted(const struct nsys_state *state, int64_t time_ns);

/* globalPid / globalTid: (hostId << 48) | (pid << 24) | tid ("Serialized process and thread
 * identifiers" in the nsys export documentation). 0 for NULL. */
int64_t nsys_pid_of_global(int64_t global_id);
int64_t nsys_tid_of_global(int64_t global_id);

/* nsys_process_for_pid of a globalPid or globalTid. */
int64_t nsys_process_of_global(struct nsys_state *state, int64_t global_id, error_info *err);

/* The store's process for an OS pid, inserted on first sight (named from PROCESSES and placed on
 * the traced host). 0 with err filled on failure. */
int64_t nsys_process_for_pid(struct nsys_state *state, int64_t pid, error_info *err);

/* The store's process for a pid already seen, or 0: target descriptions make no process of their
 * own (PROCESSES lists every process of the machine). */
int64_t nsys_known_process(const struct nsys_state *state, int64_t pid);

/* Notes that a process's context lives on a device (from activity rows and context tables); the
 * device of a context, or STORE_NULL. nsys_note_context returns -1 when out of memory. */
int nsys_note_context(struct nsys_state *state, int64_t process_id, int64_t context_id, int64_t device_id);
int64_t nsys_device_of_context(const struct nsys_state *state, int64_t process_id, int64_t context_id);

/* Inserts a warning row for process_id (0: the whole export). */
int nsys_warn(struct nsys_state *state, int64_t process_id, const char *code, const char *message,
              error_info *err);

void nsys_state_free(struct nsys_state *state);

/* --- nsys_target.c --- */

/* Reads the session start, the host name and the process names before any activity. */
int nsys_read_target(struct nsys_state *state, error_info *err);
/* GPUs per process (TARGET_INFO_GPU, TARGET_INFO_CUDA_DEVICE), after the activity. */
int nsys_import_devices(struct nsys_state *state, error_info *err);
/* Streams with their creation flags and priorities, the legacy NULL stream marked, then written
 * with the activity's stream set. */
int nsys_import_streams(struct nsys_state *state, error_info *err);
/* The names of the threads of the processes imported (ThreadNames). */
int nsys_import_thread_names(struct nsys_state *state, error_info *err);

/* --- nsys_gpu.c --- */

int nsys_import_gpu_activity(struct nsys_state *state, error_info *err);

/* --- nsys_host.c --- */

int nsys_import_host_activity(struct nsys_state *state, error_info *err);

/* NCCL's NVTX ranges with their message sizes, gathered before the kernels (temporary tables on
 * the export's connection); nsys_nccl_bytes gives the size of the NCCL kernel a call launched
 * (STORE_NULL when unknown); nsys_finish_nccl_sizes drops them. */
int nsys_prepare_nccl_sizes(struct nsys_state *state, error_info *err);
int64_t nsys_nccl_bytes(struct nsys_state *state, int64_t pid, int64_t correlation_id);
void nsys_finish_nccl_sizes(struct nsys_state *state);

/* --- nsys_notes.c --- */

int nsys_import_notes(struct nsys_state *state, error_info *err);

#endif
