/* The NCCL profiler plugin, driven as NCCL drives it: init per communicator (ncclProfiler_v5,
 * _v4, _v3 tables as exported), start events for collectives and point-to-point operations, then
 * nccl_profiler_write over a per-process trace that already holds the kernels, the kernel-name
 * collectives rows (as cupti_convert writes them) and the API records of the recording.
 *
 * The scenario, one process with two GPUs and four communicators:
 *   comm A (v5, hash a11ce, rank 0 of 2) on device 0
 *     launch 101 -> kernel K1 AllReduce: event AllReduce 1000 x ncclFloat32 RING/LL seq 0
 *     launch 102 -> kernel K2 (one kernel for a group): AllGather 256 x bf16 seq 4 and
 *                   ReduceScatter 128 x f16 seq 9, both RING/SIMPLE
 *     Send 64 x u8 to peer 1, launch 104 -> kernel K7 SendRecv
 *   comm B (v5, hash b0b, rank 3 of 4) on device 1
 *     launch 103 -> kernel K3: Broadcast 10 x ncclInt64 root 2 seq 5 TREE/LL128
 *   comm C (v4, hash c0ffee, rank 5 of 8): no launch callback (another CUPTI subscriber); thread
 *     777's API records: cuLaunchKernelEx (corr 201, start 4000) -> K4, cudaEventRecord at 4500,
 *     cudaLaunchKernel (corr 202, start 6000) -> K5 "vector_add". Event at 5000: AllReduce
 *     3 x ncclFloat64 TREE/SIMPLE seq 7 -> linked to K4 through the API records.
 *   comm D (v3, hash d00d in the descriptor): an event whose thread's last launch (202) ran a
 *     non-NCCL kernel, and one on a thread with no launch at all: both unlinked.
 *   K6 is an NCCL kernel no event names: its kernel-name row stays as it is. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "nccl_profiler.h"
#include "nccl_profiler_abi.h"
#include "store.h"

extern const struct nccl_abi_profiler_v5 ncclProfiler_v5;
extern const struct nccl_abi_profiler_v4 ncclProfiler_v4;
extern const struct nccl_abi_profiler_v3 ncclProfiler_v3;

static int64_t fake_now_ns = 1000;
static int64_t fake_thread = 100;
static int64_t read_fake_clock(void)
{
    return fake_now_ns;
}
static int64_t read_fake_thread(void)
{
    return fake_thread;
}

static int64_t insert_kernel(store *trace, int64_t device, int64_t stream, int64_t correlation,
                             int64_t start_ns, const char *name, int name_only_collective)
{
    error_info err;
    struct store_kernel kernel = {.process_id = 1,
                                  .device_id = device,
                                  .context_id = 1,
                                  .stream_id = stream,
                                  .correlation_id = correlation,
                                  .start_ns = start_ns,
                                  .end_ns = start_ns + 500,
                                  .queued_ns = STORE_NULL,
                                  .submitted_ns = STORE_NULL,
                                  .grid_x = 24,
                                  .grid_y = 1,
                                  .grid_z = 1,
                                  .block_x = 544,
                                  .block_y = 1,
                                  .block_z = 1,
                                  .registers_per_thread = STORE_NULL,
                                  .static_shared_bytes = STORE_NULL,
                                  .dynamic_shared_bytes = STORE_NULL,
                                  .local_memory_per_thread_bytes = STORE_NULL,
                                  .local_memory_total_bytes = STORE_NULL,
                                  .shared_memory_executed_bytes = STORE_NULL,
                                  .shared_memory_config = STORE_NULL,
                                  .launch_type = STORE_NULL,
                                  .is_device_launched = STORE_NULL,
                                  .graph_id = STORE_NULL,
                                  .graph_node_id = STORE_NULL,
                                  .channel_id = STORE_NULL,
                                  .channel_type = STORE_NULL,
                                  .priority = STORE_NULL,
                                  .name = name};
    int64_t rowid = 0;
    CHECK_INT(store_insert_kernel(trace, &kernel, &rowid, &err), 0);
    if (name_only_collective) {
        struct store_collective row = {.process_id = 1,
                                       .device_id = device,
                                       .stream_id = stream,
                                       .op = "AllReduce",
                                       .bytes = STORE_NULL,
                                       .element_count = STORE_NULL,
                                       .dtype = "f32",
                                       .root = STORE_NULL,
                                       .algorithm = "RING",
                                       .protocol = "LL",
                                       .communicator = NULL,
                                       .rank = STORE_NULL,
                                       .nranks = STORE_NULL,
                                       .sequence_number = STORE_NULL,
                                       .kernel_rowid = rowid,
                                       .start_ns = start_ns,
                                       .end_ns = start_ns + 500,
                                       .detail_source = STORE_DETAIL_KERNEL_NAME};
        CHECK_INT(store_insert_collective(trace, &row, &err), 0);
    }
    return rowid;
}

static void insert_api_call(store *trace, int64_t thread, const char *name, int64_t correlation,
                            int64_t start_ns)
{
    error_info err;
    struct store_api_call call = {.process_id = 1,
                                  .thread_id = thread,
                                  .api_domain = STORE_API_DRIVER,
                                  .callback_id = STORE_NULL,
                                  .correlation_id = correlation,
                                  .start_ns = start_ns,
                                  .end_ns = start_ns + 100,
                                  .return_value = 0,
                                  .name = name};
    CHECK_INT(store_insert_api_call(trace, &call, &err), 0);
}

static struct nccl_abi_event_v5 coll_v5(const char *func, uint64_t sequence, size_t count,
                                        const char *datatype, int root, const char *algorithm,
                                        const char *protocol, int rank)
{
    struct nccl_abi_event_v5 event = {.type = NCCL_ABI_PROFILE_COLL, .rank = rank};
    event.coll.fields = (struct nccl_abi_coll_v4){.sequence_number = sequence,
                                                  .func = func,
                                                  .count = count,
                                                  .root = root,
                                                  .datatype = datatype,
                                                  .channel_count = 24,
                                                  .warp_count = 17,
                                                  .algorithm = algorithm,
                                                  .protocol = protocol};
    return event;
}

/* Row values of the collectives row of kernel_rowid and op (kernel_rowid 0: the unlinked rows of op). */
struct row {
    int found;
    int64_t device_id, stream_id, bytes, element_count, root, rank, nranks, sequence_number, kernel_rowid;
    int64_t start_ns, end_ns, detail_source;
    char dtype[16], algorithm[16], protocol[16], communicator[32];
};

static int64_t integer_or(sqlite3_stmt *query, int column, int64_t null_value)
{
    return sqlite3_column_type(query, column) == SQLITE_NULL ? null_value
                                                             : sqlite3_column_int64(query, column);
}

static void text_or(sqlite3_stmt *query, int column, char *text, size_t size)
{
    const unsigned char *value = sqlite3_column_text(query, column);
    snprintf(text, size, "%s", value ? (const char *)value : "NULL");
}

static struct row row_of(store *trace, const char *op, int64_t kernel_rowid, int64_t rank)
{
    struct row row = {0};
    sqlite3_stmt *query = NULL;
    sqlite3_prepare_v2(
        store_db(trace),
        "SELECT device_id, stream_id, bytes, element_count, root, rank, nranks, sequence_number,"
        " kernel_rowid, start_ns, end_ns, detail_source, dtype, algorithm, protocol, communicator"
        " FROM collectives WHERE op = ?1 AND (kernel_rowid = ?2 OR (?2 = 0 AND kernel_rowid IS NULL))"
        " AND (rank = ?3 OR ?3 < 0)",
        -1, &query, NULL);
    sqlite3_bind_text(query, 1, op, -1, SQLITE_STATIC);
    sqlite3_bind_int64(query, 2, kernel_rowid);
    sqlite3_bind_int64(query, 3, rank);
    if (sqlite3_step(query) == SQLITE_ROW) {
        row.found = 1;
        const int64_t null = -999;
        row.device_id = integer_or(query, 0, null);
        row.stream_id = integer_or(query, 1, null);
        row.bytes = integer_or(query, 2, null);
        row.element_count = integer_or(query, 3, null);
        row.root = integer_or(query, 4, null);
        row.rank = integer_or(query, 5, null);
        row.nranks = integer_or(query, 6, null);
        row.sequence_number = integer_or(query, 7, null);
        row.kernel_rowid = integer_or(query, 8, null);
        row.start_ns = integer_or(query, 9, null);
        row.end_ns = integer_or(query, 10, null);
        row.detail_source = integer_or(query, 11, null);
        text_or(query, 12, row.dtype, sizeof row.dtype);
        text_or(query, 13, row.algorithm, sizeof row.algorithm);
        text_or(query, 14, row.protocol, sizeof row.protocol);
        text_or(query, 15, row.communicator, sizeof row.communicator);
    }
    sqlite3_finalize(query);
    return row;
}

static int64_t count_of(store *trace, const char *sql)
{
    sqlite3_stmt *query = NULL;
    int64_t count = -1;
    if (sqlite3_prepare_v2(store_db(trace), sql, -1, &query, NULL) == SQLITE_OK &&
        sqlite3_step(query) == SQLITE_ROW)
        count = sqlite3_column_int64(query, 0);
    sqlite3_finalize(query);
    return count;
}

static const char nccl_allreduce[] =
    "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE";
static const char nccl_allgather[] = "_Z31ncclDevKernel_AllGather_RING_LL24ncclDevKernelArgsStorageILm4096EE";
static const char nccl_sendrecv[] = "_Z22ncclDevKernel_SendRecv24ncclDevKernelArgsStorageILm4096EE";

static void check_scenario(const char *directory)
{
    char path[512];
    snprintf(path, sizeof path, "%s/proc.db", directory);
    error_info err;
    store *trace = store_create(path, 0, &err);
    CHECK(trace != NULL);
    if (!trace)
        return;
    struct store_process process = {.process_id = 0,
                                    .pid = 4242,
                                    .parent_pid = 1,
                                    .rank = 0,
                                    .local_rank = 0,
                                    .world_size = 2,
                                    .start_ns = 0,
                                    .end_ns = STORE_NULL,
                                    .exit_status = STORE_NULL,
                                    .term_signal = STORE_NULL,
                                    .dropped_records = 0};
    store_begin(trace, &err);
    CHECK_INT(store_insert_process(trace, &process, &err), 0);
    int64_t k1 = insert_kernel(trace, 0, 13, 101, 10000, nccl_allreduce, 1);
    int64_t k2 = insert_kernel(trace, 0, 13, 102, 11000, nccl_allgather, 1);
    int64_t k3 = insert_kernel(trace, 1, 21, 103, 12000, nccl_allreduce, 1);
    int64_t k4 = insert_kernel(trace, 0, 13, 201, 13000, nccl_allreduce, 1);
    int64_t k5 = insert_kernel(trace, 0, 7, 202, 14000, "_Z10vector_addPfS_", 0);
    int64_t k6 = insert_kernel(trace, 0, 13, 301, 15000, nccl_allreduce, 1);
    int64_t k7 = insert_kernel(trace, 0, 13, 104, 16000, nccl_sendrecv, 1);
    insert_api_call(trace, 777, "cuLaunchKernelEx", 201, 4000);
    insert_api_call(trace, 777, "cudaEventRecord", 203, 4500);
    insert_api_call(trace, 777, "cudaLaunchKernel", 202, 6000);
    store_commit(trace, &err);
    (void)k5;

    int mask = -1;
    void *context_a = NULL, *context_b = NULL, *context_c = NULL, *context_d = NULL;
    CHECK_INT(ncclProfiler_v5.init(&context_a, 0xa11ce, &mask, "a", 1, 2, 0, NULL), 0);
    CHECK_INT(mask, 0); /* not recording yet: NCCL is asked for nothing */
    ncclProfiler_v5.finalize(context_a);

    struct nccl_profiler_hooks hooks = {.now_ns = read_fake_clock, .thread_id = read_fake_thread};
    CHECK_INT(nccl_profiler_start(&hooks), 0);
    CHECK_INT(ncclProfiler_v5.init(&context_a, 0xa11ce, &mask, "a", 1, 2, 0, NULL), 0);
    CHECK_INT(mask, NCCL_ABI_PROFILE_COLL | NCCL_ABI_PROFILE_P2P);
    CHECK_INT(ncclProfiler_v5.init(&context_b, 0xb0b, &mask, "b", 1, 4, 3, NULL), 0);
    CHECK_INT(ncclProfiler_v4.init(&context_c, &mask, "c", 0xc0ffee, 1, 8, 5, NULL), 0);
    CHECK_INT(ncclProfiler_v3.init(&context_d, &mask), 0);
    CHECK_INT(mask, NCCL_ABI_PROFILE_COLL | NCCL_ABI_PROFILE_P2P);

    void *handle = (void *)1;
    /* NCCL starts a Group event as the parent of the others: ignored. */
    struct nccl_abi_event_v5 group = {.type = NCCL_ABI_PROFILE_GROUP, .rank = 0};
    CHECK_INT(ncclProfiler_v5.start_event(context_a, &handle, &group), 0);
    CHECK(handle == NULL);

    nccl_profiler_note_launch(101);
    struct nccl_abi_event_v5 allreduce = coll_v5("AllReduce", 0, 1000, "ncclFloat32", 0, "RING", "LL", 0);
    ncclProfiler_v5.start_event(context_a, &handle, &allreduce);
    ncclProfiler_v5.stop_event(handle);

    nccl_profiler_note_launch(102); /* ncclGroupStart; AllGather; ReduceScatter; ncclGroupEnd: one kernel */
    struct nccl_abi_event_v5 allgather = coll_v5("AllGather", 4, 256, "ncclBfloat16", 0, "RING", "SIMPLE", 0);
    struct nccl_abi_event_v5 reducescatter =
        coll_v5("ReduceScatter", 9, 128, "ncclFloat16", 0, "RING", "SIMPLE", 0);
    ncclProfiler_v5.start_event(context_a, &handle, &allgather);
    ncclProfiler_v5.start_event(context_a, &handle, &reducescatter);

    nccl_profiler_note_launch(103);
    struct nccl_abi_event_v5 broadcast = coll_v5("Broadcast", 5, 10, "ncclInt64", 2, "TREE", "LL128", 3);
    ncclProfiler_v5.start_event(context_b, &handle, &broadcast);

    nccl_profiler_note_launch(104);
    struct nccl_abi_event_v5 send = {.type = NCCL_ABI_PROFILE_P2P, .rank = 0};
    send.p2p.fields =
        (struct nccl_abi_p2p_v4){.func = "Send", .count = 64, .datatype = "ncclUint8", .peer = 1};
    ncclProfiler_v5.start_event(context_a, &handle, &send);

    /* comm C: no launch callback on thread 777; its API records tell. */
    fake_thread = 777;
    fake_now_ns = 5000;
    nccl_profiler_note_launch(0);
    struct nccl_abi_event_v4 allreduce_c = {.type = NCCL_ABI_PROFILE_COLL, .rank = 5};
    allreduce_c.coll = (struct nccl_abi_coll_v4){.sequence_number = 7,
                                                 .func = "AllReduce",
                                                 .count = 3,
                                                 .datatype = "ncclFloat64",
                                                 .algorithm = "TREE",
                                                 .protocol = "SIMPLE"};
    ncclProfiler_v4.start_event(context_c, &handle, &allreduce_c);

    /* comm D (v3): after a non-NCCL launch, and on a thread that launched nothing. */
    struct nccl_abi_event_v3 reduce_d = {.type = NCCL_ABI_PROFILE_COLL, .rank = 1};
    reduce_d.coll.comm_hash = 0xd00d;
    reduce_d.coll.sequence_number = 2;
    reduce_d.coll.func = "Reduce";
    reduce_d.coll.count = 6;
    reduce_d.coll.root = 0;
    reduce_d.coll.datatype = "ncclInt32";
    reduce_d.coll.algorithm = "RING";
    reduce_d.coll.protocol = "SIMPLE";
    nccl_profiler_note_launch(202);
    ncclProfiler_v3.start_event(context_d, &handle, &reduce_d);
    fake_thread = 999;
    nccl_profiler_note_launch(0);
    reduce_d.coll.sequence_number = 3;
    ncclProfiler_v3.start_event(context_d, &handle, &reduce_d);

    ncclProfiler_v5.finalize(context_a);
    ncclProfiler_v5.finalize(context_b);
    ncclProfiler_v4.finalize(context_c);
    ncclProfiler_v3.finalize(context_d);

    struct nccl_profiler_counts counts;
    CHECK_INT(nccl_profiler_write(trace, 1, &counts, &err), 0);
    CHECK_INT(counts.events, 8);
    CHECK_INT(counts.linked, 6);
    CHECK_INT(counts.unlinked, 2);
    CHECK_INT(counts.dropped, 0);
    CHECK_INT(counts.replaced, 5); /* K1, K2, K3, K4, K7 */
    /* Events after the write are not taken. */
    nccl_profiler_note_launch(101);
    ncclProfiler_v5.start_event(NULL, &handle, &allreduce);

    struct row r = row_of(trace, "AllReduce", k1, 0);
    CHECK(r.found);
    CHECK_INT(r.device_id, 0);
    CHECK_INT(r.stream_id, 13);
    CHECK_INT(r.bytes, 4000);
    CHECK_INT(r.element_count, 1000);
    CHECK_STR(r.dtype, "f32");
    CHECK_INT(r.root, -999); /* NULL: AllReduce has none */
    CHECK_STR(r.algorithm, "RING");
    CHECK_STR(r.protocol, "LL");
    CHECK_STR(r.communicator, "00000000000a11ce");
    CHECK_INT(r.rank, 0);
    CHECK_INT(r.nranks, 2);
    CHECK_INT(r.sequence_number, 0);
    CHECK_INT(r.kernel_rowid, k1);
    CHECK_INT(r.start_ns, 10000);
    CHECK_INT(r.end_ns, 10500);
    CHECK_INT(r.detail_source, STORE_DETAIL_NCCL_PROFILER);

    /* The group: two rows on one kernel, its kernel-name row gone. */
    CHECK_INT(count_of(trace, "SELECT COUNT(*) FROM collectives WHERE kernel_rowid = 2"), 2);
    r = row_of(trace, "AllGather", k2, 0);
    CHECK(r.found);
    CHECK_INT(r.bytes, 512); /* 256 bf16 each rank sends */
    CHECK_INT(r.element_count, 256);
    CHECK_STR(r.dtype, "bf16");
    CHECK_STR(r.protocol, "SIMPLE");
    CHECK_INT(r.sequence_number, 4);
    CHECK_INT(r.start_ns, 11000);
    r = row_of(trace, "ReduceScatter", k2, 0);
    CHECK(r.found);
    CHECK_INT(r.bytes, 256); /* 128 f16 each rank receives */
    CHECK_STR(r.dtype, "f16");
    CHECK_INT(r.sequence_number, 9);
    CHECK_STR(r.communicator, "00000000000a11ce");

    r = row_of(trace, "Broadcast", k3, 3);
    CHECK(r.found);
    CHECK_INT(r.device_id, 1);
    CHECK_INT(r.stream_id, 21);
    CHECK_INT(r.bytes, 80);
    CHECK_STR(r.dtype, "i64");
    CHECK_INT(r.root, 2);
    CHECK_STR(r.algorithm, "TREE");
    CHECK_STR(r.protocol, "LL128");
    CHECK_STR(r.communicator, "0000000000000b0b");
    CHECK_INT(r.rank, 3);
    CHECK_INT(r.nranks, 4);
    CHECK_INT(r.sequence_number, 5);

    r = row_of(trace, "Send", k7, 0);
    CHECK(r.found);
    CHECK_INT(r.bytes, 64);
    CHECK_STR(r.dtype, "u8");
    CHECK_INT(r.sequence_number, -999);
    CHECK_STR(r.algorithm, "NULL");
    CHECK_INT(r.nranks, 2);

    r = row_of(trace, "AllReduce", k4, 5);
    CHECK(r.found); /* linked through thread 777's cuLaunchKernelEx, not its later cudaLaunchKernel */
    CHECK_INT(r.bytes, 24);
    CHECK_STR(r.dtype, "f64");
    CHECK_STR(r.communicator, "0000000000c0ffee");
    CHECK_INT(r.nranks, 8);
    CHECK_INT(r.sequence_number, 7);
    CHECK_STR(r.algorithm, "TREE");

    r = row_of(trace, "Reduce", 0, 1);
    CHECK(r.found);
    CHECK_INT(r.kernel_rowid, -999);
    CHECK_INT(r.device_id, -999);
    CHECK_INT(r.start_ns, -999);
    CHECK_INT(r.root, 0);
    CHECK_INT(r.bytes, 24);
    CHECK_STR(r.communicator, "000000000000d00d");
    CHECK_INT(r.nranks, -999); /* v3 does not tell */
    CHECK_INT(
        count_of(trace, "SELECT COUNT(*) FROM collectives WHERE op = 'Reduce' AND kernel_rowid IS NULL"), 2);
    CHECK_INT(count_of(trace, "SELECT COUNT(*) FROM collectives WHERE kernel_rowid = 5"), 0); /* vector_add */

    /* K6: no event named it; its kernel-name row is as cupti_convert wrote it. */
    CHECK_INT(
        count_of(trace, "SELECT COUNT(*) FROM collectives WHERE kernel_rowid = 6 AND detail_source = 1"), 1);
    (void)k6;
    CHECK_INT(count_of(trace, "SELECT COUNT(*) FROM collectives WHERE detail_source = 1"), 1);
    CHECK_INT(count_of(trace, "SELECT COUNT(*) FROM collectives"), 9);
    CHECK_INT(count_of(trace, "SELECT COUNT(*) FROM warnings WHERE code = 'nccl-unlinked'"), 1);
    CHECK_INT(count_of(trace, "SELECT COUNT(*) FROM warnings WHERE code = 'nccl-plugin-not-loaded'"), 0);
    CHECK_INT(store_close(trace, &err), 0);
    nccl_profiler_stop();
}

/* NCCL calls from several threads at once: every event is kept. */
#define EVENTS_PER_THREAD 10000
static void *start_many(void *context)
{
    void *handle;
    struct nccl_abi_event_v5 event = coll_v5("AllReduce", 0, 1, "ncclFloat32", 0, "RING", "LL", 0);
    for (int i = 0; i < EVENTS_PER_THREAD; i++) {
        event.coll.fields.sequence_number = (uint64_t)i;
        ncclProfiler_v5.start_event(context, &handle, &event);
    }
    return NULL;
}

static void check_threads(const char *directory)
{
    char path[512];
    snprintf(path, sizeof path, "%s/threads.db", directory);
    error_info err;
    store *trace = store_create(path, 0, &err);
    CHECK(trace != NULL);
    if (!trace)
        return;
    CHECK_INT(nccl_profiler_start(NULL), 0);
    int mask;
    void *context = NULL;
    ncclProfiler_v5.init(&context, 0x1234, &mask, "t", 1, 2, 1, NULL);
    pthread_t threads[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&threads[i], NULL, start_many, context);
    for (int i = 0; i < 4; i++)
        pthread_join(threads[i], NULL);
    struct nccl_profiler_counts counts;
    CHECK_INT(nccl_profiler_write(trace, 1, &counts, &err), 0);
    CHECK_INT(counts.events, 4 * EVENTS_PER_THREAD);
    CHECK_INT(counts.unlinked, 4 * EVENTS_PER_THREAD); /* no kernels in this trace */
    CHECK_INT(count_of(trace, "SELECT COUNT(*) FROM collectives WHERE sequence_number = 9999 AND rank = 0"),
              4);
    ncclProfiler_v5.finalize(context);
    store_close(trace, NULL);
    nccl_profiler_stop();
}

/* The user's own NCCL_PROFILER_PLUGIN: NCCL never calls ours; the trace says why. */
static void check_plugin_not_loaded(const char *directory)
{
    char path[512];
    snprintf(path, sizeof path, "%s/theirs.db", directory);
    error_info err;
    store *trace = store_create(path, 0, &err);
    CHECK(trace != NULL);
    if (!trace)
        return;
    store_begin(trace, &err);
    insert_kernel(trace, 0, 13, 101, 10000, nccl_allreduce, 1);
    store_commit(trace, &err);
    setenv("CUDA_INJECTION64_PATH", "/opt/overlapscope/lib/liboverlapscope-collector.so", 1);
    setenv("NCCL_PROFILER_PLUGIN", "/opt/theirs/libnccl-profiler-inspector.so", 1);
    CHECK_INT(nccl_profiler_start(NULL), 0);
    CHECK_INT(nccl_profiler_write(trace, 1, NULL, &err), 0);
    CHECK_INT(count_of(trace,
                       "SELECT COUNT(*) FROM warnings WHERE code = 'nccl-plugin-not-loaded' AND message LIKE"
                       " '%/opt/theirs/libnccl-profiler-inspector.so%'"),
              1);
    CHECK_INT(count_of(trace, "SELECT COUNT(*) FROM collectives WHERE detail_source = 1"), 1);
    store_close(trace, NULL);
    nccl_profiler_stop();
}

int main(void)
{
    char directory[] = "/tmp/overlapscope-nccl-XXXXXX";
    if (!mkdtemp(directory))
        return 1;
    check_scenario(directory);
    check_threads(directory);
    check_plugin_not_loaded(directory);
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", directory);
    if (system(command) != 0)
        fprintf(stderr, "could not remove %s\n", directory);
    return check_finish();
}
