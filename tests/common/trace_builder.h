/* trace_builder.h: the one way the tests and the benchmarks write a trace by hand (the static
 * library overlapscope_trace_builder).
 *
 * Contract:
 * - builder_create* makes a fresh trace (an existing file is replaced; written without fsync, as a
 *   test's trace need not survive a crash) and opens the writer's transaction; builder_finish
 *   commits and builds the indexes, leaving the trace open for reading; builder_close closes it.
 *   The trace is b->trace: a test may write what the builder has no helper for through store.h
 *   (host samples, warnings, batch sizes), inside the same transaction.
 * - Each builder_*_row returns a row with every field the arguments do not name unknown
 *   (STORE_NULL, NULL strings), except where its comment says otherwise; the caller sets what its
 *   scenario cares about and writes it with the matching builder_insert_*. So a scenario reads as
 *   its timeline: "a kernel on stream 13 from 0 to 3200 us, launched at -50 us".
 * - Every insert keeps the first failure in b->err and sets b->status to -1; builder_finish then
 *   fails, so a scenario that could not be written whole is never read as if it were.
 * - Times: functions whose names end in _ns take nanoseconds; builder_kernel_row,
 *   builder_memcpy_row, builder_api and builder_nvtx take microseconds from BASE_NS (a large
 *   absolute clock, as real traces have). AT(us) is that instant in nanoseconds, US(us) a duration.
 * - Tests of the store itself (tests/store/) and of the collector's writers write their rows
 *   through store.h: there the rows are what is tested. */
#ifndef OVERLAPSCOPE_TRACE_BUILDER_H
#define OVERLAPSCOPE_TRACE_BUILDER_H

#include <stdint.h>

#include "store.h"

#define BASE_NS INT64_C(1700000000000000000)
#define US(x) ((int64_t)((x)*1000.0))
#define AT(x) (BASE_NS + US(x))

struct builder {
    store *trace;
    char path[512];
    error_info err;
    int status;               /* 0, or -1 once a write failed (the first failure's message in err) */
    int64_t next_correlation; /* builder_api's next fresh correlation id */
};

/* Creates the trace directory/name (builder_create) or path. Returns 0, or -1 with b->err filled. */
int builder_create(struct builder *b, const char *directory, const char *name);
int builder_create_path(struct builder *b, const char *path);
/* Commits and builds the indexes; the trace stays open. Returns 0, or -1 (a write failed before,
 * or the commit did) with b->err filled. */
int builder_finish(struct builder *b);
void builder_close(struct builder *b);

/* A process row: pid and rank, the rest unknown but dropped_records (0, as the collector writes). */
struct store_process builder_process_row(int64_t pid, int64_t rank);
/* Inserts row; returns its process_id (0 on failure). */
int64_t builder_insert_process(struct builder *b, struct store_process row);
/* Rank rank's process: pid 4000 + rank, local rank rank. Returns its process_id. */
int64_t builder_process(struct builder *b, int64_t rank);

/* An H100 as CUPTI described it (gpu-notes): 132 SMs, cc 9.0, 32 blocks / 64 warps / 64K
 * registers / 228 KiB shared memory per SM, 3 copy engines. */
struct store_device builder_h100_row(int64_t process_id, int64_t device_id);
void builder_insert_device(struct builder *b, struct store_device row);
void builder_h100(struct builder *b, int64_t process_id, int64_t device_id);

/* A stream of context 1: a legacy default stream or not, its flags and priority, no label. */
struct store_stream builder_stream_row(int64_t process_id, int64_t device_id, int64_t stream_id,
                                       int64_t legacy, int64_t flags, int64_t priority);
void builder_insert_stream(struct builder *b, struct store_stream row);
void builder_stream(struct builder *b, int64_t process_id, int64_t device_id, int64_t stream_id,
                    int64_t legacy, int64_t flags, int64_t priority);

/* A kernel of device 0, context 1, on stream, over [start_ns, end_ns): grid x block threads
 * (one-dimensional) and 32 registers a thread, no shared memory, no cluster, launched from the
 * host (launch type 0); the counters CUPTI may lack unknown. builder_kernel_row takes
 * microseconds from BASE_NS. */
struct store_kernel builder_kernel_row_ns(int64_t process_id, int64_t stream_id, int64_t start_ns,
                                          int64_t end_ns, int64_t grid, int64_t block, const char *name);
struct store_kernel builder_kernel_row(int64_t process_id, int64_t stream_id, double start_us, double end_us,
                                       int64_t grid, int64_t block, const char *name);
/* A kernel known by its times and name alone (as an import without launch details gives it):
 * device 0, context 1, every launch field unknown. */
struct store_kernel builder_plain_kernel_row_ns(int64_t process_id, int64_t stream_id, int64_t start_ns,
                                                int64_t end_ns, const char *name);
/* Inserts row; returns its rowid (collectives.kernel_rowid), 0 on failure. */
int64_t builder_insert_kernel(struct builder *b, struct store_kernel row);

/* An asynchronous copy of device 0, context 1: copy_kind (STORE_COPY_*) of bytes, the host side's
 * memory kind host_kind (STORE_MEMORY_*; the device side STORE_MEMORY_DEVICE). builder_memcpy_row
 * takes microseconds from BASE_NS. */
struct store_memcpy builder_memcpy_row_ns(int64_t process_id, int64_t stream_id, int64_t start_ns,
                                          int64_t end_ns, int64_t copy_kind, int64_t host_kind,
                                          int64_t bytes);
struct store_memcpy builder_memcpy_row(int64_t process_id, int64_t stream_id, double start_us, double end_us,
                                       int64_t copy_kind, int64_t host_kind, int64_t bytes);
void builder_insert_memcpy(struct builder *b, struct store_memcpy row);

/* An asynchronous memset of device 0, context 1: bytes of device memory set to 0. */
struct store_memset builder_memset_row_ns(int64_t process_id, int64_t stream_id, int64_t start_ns,
                                          int64_t end_ns, int64_t bytes);
void builder_insert_memset(struct builder *b, struct store_memset row);

/* A runtime API call on thread_id that returned 0 (no callback id). */
struct store_api_call builder_api_row_ns(int64_t process_id, int64_t thread_id, const char *name,
                                         int64_t start_ns, int64_t end_ns, int64_t correlation);
void builder_insert_api(struct builder *b, struct store_api_call row);
/* builder_api_row in microseconds from BASE_NS, inserted; correlation 0 takes a fresh id. Returns
 * the correlation id. */
int64_t builder_api(struct builder *b, int64_t process_id, int64_t thread_id, const char *name,
                    double start_us, double end_us, int64_t correlation);

/* A push/pop NVTX range of the default domain at depth 0, no stream. */
struct store_nvtx builder_nvtx_row_ns(int64_t process_id, int64_t thread_id, int64_t device_id,
                                      const char *message, int64_t start_ns, int64_t end_ns);
void builder_insert_nvtx(struct builder *b, struct store_nvtx row);
void builder_nvtx(struct builder *b, int64_t process_id, int64_t thread_id, int64_t device_id,
                  const char *message, double start_us, double end_us);

/* A collective of device 0 over [start_ns, end_ns) run by the kernel kernel_rowid: op of bytes
 * as rank of nranks on communicator; element type, algorithm, protocol, root and sequence
 * unknown; its details read from the kernel's name. */
struct store_collective builder_collective_row_ns(int64_t process_id, int64_t stream_id, const char *op,
                                                  int64_t bytes, const char *communicator, int64_t rank,
                                                  int64_t nranks, int64_t kernel_rowid, int64_t start_ns,
                                                  int64_t end_ns);
void builder_insert_collective(struct builder *b, struct store_collective row);

#endif
