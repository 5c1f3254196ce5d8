/* test_describe.c: the store's answers to its readers (store/describe.h) on a hand-built trace:
 * two processes written rank 1 first, their devices and streams, GPU work from 1000 to 5000 ns,
 * three collectives, two warnings. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "describe.h"
#include "gpu_devices.h"
#include "store.h"

static char directory[] = "/tmp/overlapscope-test-describe-XXXXXX";
static int64_t kernel_rowid;

static store *build(const char *path)
{
    error_info err = {{0}};
    store *s = store_create(path, 0, &err);
    if (!s)
        return NULL;
    store_begin(s, &err);
    struct store_process second = store_process_unknown(), first = store_process_unknown();
    second.pid = 902;
    second.rank = 1;
    second.world_size = 2;
    second.host = "node2";
    second.dropped_records = 5;
    first.pid = 901;
    first.rank = 0;
    first.command_line = "python train.py";
    first.exit_status = 0;
    store_insert_process(s, &second, &err); /* process 1: rank 1 */
    store_insert_process(s, &first, &err);  /* process 2: rank 0 */
    struct store_device device = {.process_id = 2,
                                  .device_id = 0,
                                  .name = "NVIDIA H200",
                                  .sm_count = 132,
                                  .compute_capability_major = 9,
                                  .compute_capability_minor = 0,
                                  .max_blocks_per_sm = 32,
                                  .global_memory_bytes = STORE_NULL};
    store_insert_device(s, &device, &err);
    struct store_stream stream = {.process_id = 2,
                                  .device_id = 0,
                                  .stream_id = 7,
                                  .is_legacy_default = 1,
                                  .priority = STORE_NULL,
                                  .flags = STORE_NULL,
                                  .label = "default"};
    store_insert_stream(s, &stream, &err);
    struct store_kernel kernel = {.process_id = 2,
                                  .device_id = 0,
                                  .stream_id = 7,
                                  .start_ns = 1000,
                                  .end_ns = 4000,
                                  .name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL"};
    store_insert_kernel(s, &kernel, &kernel_rowid, &err);
    struct store_memcpy copy = {.process_id = 1,
                                .device_id = 0,
                                .stream_id = 9,
                                .start_ns = 2000,
                                .end_ns = 5000,
                                .copy_kind = STORE_COPY_HTOD,
                                .bytes = 64};
    store_insert_memcpy(s, &copy, &err);
    static const char *const ops[] = {"AllReduce", "Broadcast", "AllReduce"};
    for (int i = 0; i < 3; i++) {
        struct store_collective collective = {.process_id = 2,
                                              .op = ops[i],
                                              .bytes = 100 * (i + 1),
                                              .kernel_rowid = i == 0 ? kernel_rowid : STORE_NULL,
                                              .detail_source = STORE_DETAIL_KERNEL_NAME};
        store_insert_collective(s, &collective, &err);
    }
    struct store_nvtx ranges[] = {{.process_id = 2,
                                   .thread_id = 5,
                                   .device_id = STORE_NULL,
                                   .stream_id = STORE_NULL,
                                   .kind = STORE_NVTX_PUSH_POP,
                                   .message = "fwd",
                                   .category = STORE_NULL,
                                   .color = STORE_NULL,
                                   .start_ns = 900,
                                   .end_ns = 1200,
                                   .depth = 1},
                                  {.process_id = 1,
                                   .thread_id = 6,
                                   .device_id = STORE_NULL,
                                   .stream_id = STORE_NULL,
                                   .kind = STORE_NVTX_PUSH_POP,
                                   .message = "late",
                                   .category = STORE_NULL,
                                   .color = STORE_NULL,
                                   .start_ns = 8000,
                                   .end_ns = 9000,
                                   .depth = 0}};
    for (int i = 0; i < 2; i++)
        store_insert_nvtx(s, &ranges[i], &err);
    struct store_warning warnings[] = {
        {.process_id = 1, .time_ns = STORE_NULL, .code = "drops", .message = "5 lost"},
        {.process_id = STORE_NULL, .time_ns = STORE_NULL, .code = "clock", .message = "skew"}};
    for (int i = 0; i < 2; i++)
        store_insert_warning(s, &warnings[i], &err);
    store_finalize(s, &err);
    return s;
}

static int note_process(void *context, const struct store_process *row)
{
    char *seen = context;
    size_t used = strlen(seen);
    snprintf(seen + used, 256 - used, "[pid %lld rank %lld %s]", (long long)row->pid, (long long)row->rank,
             row->command_line ? row->command_line : "-");
    return 0;
}

static int note_device(void *context, const struct store_device *row, int64_t pid, int64_t rank)
{
    char *seen = context;
    snprintf(seen, 256, "%s %lld SMs cc %lld.%lld pid %lld rank %lld memory %s", row->name,
             (long long)row->sm_count, (long long)row->compute_capability_major,
             (long long)row->compute_capability_minor, (long long)pid, (long long)rank,
             row->global_memory_bytes == STORE_NULL ? "unknown" : "known");
    return 0;
}

static int note_warning(void *context, const struct store_warning *row, int64_t pid)
{
    char *seen = context;
    size_t used = strlen(seen);
    snprintf(seen + used, 256 - used, "[%s %s %lld]", row->code, row->message, (long long)pid);
    return 0;
}

static int note_total(void *context, const char *op, int64_t count, int64_t bytes)
{
    char *seen = context;
    size_t used = strlen(seen);
    snprintf(seen + used, 256 - used, "[%s %lld %lld]", op, (long long)count, (long long)bytes);
    return 0;
}

static int note_gpu_row(void *context, const struct store_gpu_row *row)
{
    char *seen = context;
    size_t used = strlen(seen);
    snprintf(seen + used, 256 - used, "[%lld/%lld/%lld %lld-%lld name %lld bytes %lld kind %lld src %lld]",
             (long long)row->process_id, (long long)row->device_id, (long long)row->stream_id,
             (long long)row->start_ns, (long long)row->end_ns,
             (long long)(row->name_id == STORE_NULL ? -1 : row->name_id),
             (long long)(row->bytes == STORE_NULL ? -1 : row->bytes),
             (long long)(row->copy_kind == STORE_NULL ? -1 : row->copy_kind),
             (long long)(row->src_device_id == STORE_NULL ? -1 : row->src_device_id));
    return 0;
}

static int note_host_row(void *context, const struct store_host_row *row)
{
    char *seen = context;
    size_t used = strlen(seen);
    snprintf(seen + used, 256 - used, "[%lld/%lld depth %lld %lld-%lld]", (long long)row->process_id,
             (long long)row->thread_id, (long long)row->depth, (long long)row->start_ns,
             (long long)row->end_ns);
    return 0;
}

static int stop_at_first(void *context, const struct store_process *row)
{
    (void)context;
    (void)row;
    return 7;
}

int main(void)
{
    if (!mkdtemp(directory)) {
        perror("mkdtemp");
        return 2;
    }
    char path[512];
    snprintf(path, sizeof path, "%s/t.db", directory);
    store *s = build(path);
    CHECK(s != NULL);
    if (s) {
        error_info err = {{0}};
        CHECK_INT(store_count_rows(s, STORE_TABLE_PROCESSES), 2);
        CHECK_INT(store_count_rows(s, STORE_TABLE_COLLECTIVES), 3);
        CHECK_INT(store_count_rows(s, STORE_TABLE_MEMSETS), 0);
        CHECK_INT(store_count_dropped_records(s), 5);
        int64_t first = 0, last = 0;
        CHECK_INT(store_gpu_span(s, &first, &last, &err), 1);
        CHECK_INT(first, 1000);
        CHECK_INT(last, 5000);
        /* The same span read device by device, as the processes of --mpi read their shares:
         * devices sorted by process, (1, 0) with the copy at 2000-5000, (2, 0) with the kernel at
         * 1000-4000; together the whole trace's. */
        struct store_gpu_device *devices = NULL;
        size_t device_count = 0;
        CHECK_INT(store_list_gpu_devices(s, &devices, &device_count, &err), 0);
        CHECK_INT(device_count, 2);
        if (device_count == 2) {
            CHECK_INT(store_gpu_devices_span(s, devices, 2, &first, &last, &err), 1);
            CHECK_INT(first, 1000);
            CHECK_INT(last, 5000);
            CHECK_INT(store_gpu_devices_span(s, devices, 1, &first, &last, &err), 1);
            CHECK_INT(first, 2000);
            CHECK_INT(last, 5000);
            CHECK_INT(store_gpu_devices_span(s, devices + 1, 1, &first, &last, &err), 1);
            CHECK_INT(first, 1000);
            CHECK_INT(last, 4000);
            CHECK_INT(store_gpu_devices_span(s, devices, 0, &first, &last, &err), 0);
        }
        free(devices);
        CHECK_INT(store_gpu_span_check(s, 1000, 5000, &err), 1);
        CHECK_INT(store_gpu_span_check(s, 0, STORE_MAX_SPAN_NS + 1, &err), -1);
        CHECK(strstr(err.message, "the trace is damaged: GPU activity from 0 ns") != NULL);

        char seen[256] = "";
        CHECK_INT(store_each_process(s, note_process, seen, &err), 0);
        CHECK_STR(seen, "[pid 901 rank 0 python train.py][pid 902 rank 1 -]"); /* by rank */
        CHECK_INT(store_each_process(s, stop_at_first, NULL, &err), 7);
        seen[0] = '\0';
        CHECK_INT(store_each_device(s, note_device, seen, &err), 0);
        CHECK_STR(seen, "NVIDIA H200 132 SMs cc 9.0 pid 901 rank 0 memory unknown");
        seen[0] = '\0';
        CHECK_INT(store_each_warning(s, note_warning, seen, &err), 0);
        CHECK_STR(seen, "[drops 5 lost 902][clock skew "
                        "-9223372036854775808]"); /* written order; no process */
        seen[0] = '\0';
        CHECK_INT(store_each_collective_total(s, note_total, seen, &err), 0);
        CHECK_STR(seen, "[AllReduce 2 400][Broadcast 1 200]");

        int64_t pid = 0, rank = 0;
        store_process_identity(s, 1, &pid, &rank);
        CHECK(pid == 902 && rank == 1);
        store_process_identity(s, 9, &pid, &rank);
        CHECK(pid == -1 && rank == -1);
        int legacy = 0;
        char text[64];
        CHECK_INT(store_stream_description(s, 2, 0, 7, &legacy, text, sizeof text), 1);
        CHECK(legacy == 1 && strcmp(text, "default") == 0);
        CHECK_INT(store_stream_description(s, 2, 0, 8, &legacy, text, sizeof text), 0);
        CHECK_INT(store_device_name(s, 2, 0, text, sizeof text), 1);
        CHECK_STR(text, "NVIDIA H200");
        CHECK_INT(store_device_name(s, 1, 0, text, sizeof text), 0);
        char *line = store_first_command_line(s);
        CHECK_STR(line, "python train.py");
        free(line);

        /* The rows a picture reads. */
        int64_t *ids = NULL;
        size_t id_count = 0;
        CHECK_INT(store_processes_of_rank(s, 1, &ids, &id_count, &err), 0);
        CHECK(id_count == 1 && ids[0] == 1);
        free(ids);
        seen[0] = '\0';
        CHECK_INT(store_scan_gpu_table(s, STORE_TABLE_KERNELS, note_gpu_row, seen, &err), 0);
        char expected[160];
        snprintf(expected, sizeof expected, "[2/0/7 1000-4000 name %lld bytes -1 kind -1 src -1]",
                 (long long)store_intern(s, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", &err));
        CHECK_STR(seen, expected);
        seen[0] = '\0';
        CHECK_INT(store_scan_gpu_table(s, STORE_TABLE_MEMCPYS, note_gpu_row, seen, &err), 0);
        CHECK_STR(seen, "[1/0/9 2000-5000 name -1 bytes 64 kind 1 src 0]");
        CHECK(store_scan_gpu_table(s, STORE_TABLE_NVTX, note_gpu_row, seen, &err) < 0);
        seen[0] = '\0';
        CHECK_INT(store_scan_host_rows(s, STORE_TABLE_NVTX, 1000, 5000, -1, note_host_row, seen, &err), 0);
        CHECK_STR(seen, "[2/5 depth 1 900-1200]"); /* the range at 8-9 us lies outside */
        seen[0] = '\0';
        CHECK_INT(store_scan_host_rows(s, STORE_TABLE_NVTX, 0, 10000, 1, note_host_row, seen, &err), 0);
        CHECK_STR(seen, "[1/6 depth 0 8000-9000]"); /* rank 1 only */
        int64_t estimate = 0;
        CHECK_INT(store_gpu_devices_estimate_last_end(s, &estimate, &err), 0);
        CHECK_INT(estimate, 5000);

        store_lookup *lookup = store_lookup_new(s, &err);
        CHECK(lookup != NULL);
        if (lookup) {
            int64_t bytes = 0;
            CHECK_INT(store_lookup_collective(lookup, kernel_rowid, text, sizeof text, &bytes), 1);
            CHECK(strcmp(text, "AllReduce") == 0 && bytes == 100);
            CHECK_INT(store_lookup_collective(lookup, kernel_rowid + 1, text, sizeof text, &bytes), 0);
            CHECK_STR(store_lookup_string(lookup,
                                          store_intern(s, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", &err),
                                          text, sizeof text),
                      "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
            store_lookup_free(lookup);
        }
        store_close(s, NULL);
    }
    unlink(path); /* the store leaves no other file behind once closed */
    rmdir(directory);
    return check_finish();
}
