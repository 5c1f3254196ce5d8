/* fixture.c: see fixture.h. */
#include "fixture.h"

#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int add_kernel(store *s, int64_t stream, int64_t start_ns, int64_t end_ns, const char *name,
                      int64_t *rowid)
{
    struct store_kernel kernel = {.process_id = 1,
                                  .device_id = 0,
                                  .context_id = 1,
                                  .stream_id = stream,
                                  .correlation_id = STORE_NULL,
                                  .start_ns = start_ns,
                                  .end_ns = end_ns,
                                  .queued_ns = STORE_NULL,
                                  .submitted_ns = STORE_NULL,
                                  .grid_x = 132,
                                  .grid_y = 1,
                                  .grid_z = 1,
                                  .block_x = 256,
                                  .block_y = 1,
                                  .block_z = 1,
                                  .registers_per_thread = 32,
                                  .static_shared_bytes = 0,
                                  .dynamic_shared_bytes = 0,
                                  .local_memory_per_thread_bytes = STORE_NULL,
                                  .local_memory_total_bytes = STORE_NULL,
                                  .shared_memory_executed_bytes = STORE_NULL,
                                  .shared_memory_config = STORE_NULL,
                                  .launch_type = 0,
                                  .is_device_launched = 0,
                                  .graph_id = STORE_NULL,
                                  .graph_node_id = STORE_NULL,
                                  .channel_id = STORE_NULL,
                                  .channel_type = STORE_NULL,
                                  .priority = STORE_NULL,
                                  .cluster_x = 0,
                                  .cluster_y = 0,
                                  .cluster_z = 0,
                                  .name = name};
    return store_insert_kernel(s, &kernel, rowid, NULL);
}

static int add_allreduce(store *s, int64_t start_ns, int64_t end_ns, int64_t bytes)
{
    int64_t rowid = 0;
    if (add_kernel(s, 14, start_ns, end_ns,
                   "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", &rowid) != 0)
        return -1;
    struct store_collective collective = {.process_id = 1,
                                          .device_id = 0,
                                          .stream_id = 14,
                                          .op = "AllReduce",
                                          .bytes = bytes,
                                          .element_count = bytes / 4,
                                          .dtype = "f32",
                                          .root = STORE_NULL,
                                          .algorithm = "RING",
                                          .protocol = "LL",
                                          .communicator = "0x5a5a",
                                          .rank = 0,
                                          .nranks = 2,
                                          .sequence_number = STORE_NULL,
                                          .kernel_rowid = rowid,
                                          .start_ns = start_ns,
                                          .end_ns = end_ns,
                                          .detail_source = STORE_DETAIL_KINETO};
    return store_insert_collective(s, &collective, NULL);
}

static int add_copy(store *s, int64_t start_ns, int64_t end_ns, int64_t kind, int64_t bytes,
                    int64_t host_memory)
{
    int htod = kind == STORE_COPY_HTOD;
    struct store_memcpy copy = {.process_id = 1,
                                .device_id = 0,
                                .context_id = 1,
                                .stream_id = 15,
                                .correlation_id = STORE_NULL,
                                .start_ns = start_ns,
                                .end_ns = end_ns,
                                .copy_kind = kind,
                                .src_kind = htod ? host_memory : STORE_MEMORY_DEVICE,
                                .dst_kind = htod ? STORE_MEMORY_DEVICE : host_memory,
                                .bytes = bytes,
                                .src_device_id = STORE_NULL,
                                .dst_device_id = STORE_NULL,
                                .is_async = 1,
                                .channel_id = STORE_NULL,
                                .channel_type = STORE_NULL,
                                .copy_count = 1,
                                .graph_id = STORE_NULL,
                                .graph_node_id = STORE_NULL};
    return store_insert_memcpy(s, &copy, NULL);
}

static int add_host(store *s)
{
    struct store_api_call call = {.process_id = 1,
                                  .thread_id = 100,
                                  .api_domain = STORE_API_RUNTIME,
                                  .callback_id = 211,
                                  .correlation_id = STORE_NULL,
                                  .return_value = 0,
                                  .name = "cudaLaunchKernel"};
    call.start_ns = US(100);
    call.end_ns = US(150);
    if (store_insert_api_call(s, &call, NULL) != 0)
        return -1;
    call.start_ns = US(4000);
    call.end_ns = US(4100);
    if (store_insert_api_call(s, &call, NULL) != 0)
        return -1;
    struct store_nvtx range = {.process_id = 1,
                               .thread_id = 100,
                               .device_id = STORE_NULL,
                               .stream_id = STORE_NULL,
                               .kind = STORE_NVTX_PUSH_POP,
                               .domain = NULL,
                               .category = STORE_NULL,
                               .color = STORE_NULL};
    const struct {
        const char *message;
        double start_us, end_us;
        int depth;
    } ranges[] = {
        {"ProfilerStep#0", 0, 5000, 0}, {"ProfilerStep#1", 5000, 10500, 0}, {"forward", 100, 3000, 1}};
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        range.message = ranges[i].message;
        range.start_ns = US(ranges[i].start_us);
        range.end_ns = US(ranges[i].end_us);
        range.depth = ranges[i].depth;
        if (store_insert_nvtx(s, &range, NULL) != 0)
            return -1;
    }
    return 0;
}

static int add_streams(store *s)
{
    const struct {
        int64_t id, legacy;
        const char *label;
    } streams[] = {{7, 1, NULL}, {13, 0, NULL}, {14, 0, "nccl"}, {15, 0, NULL}, {16, 0, NULL}};
    for (size_t i = 0; i < sizeof streams / sizeof streams[0]; i++) {
        struct store_stream stream = {.process_id = 1,
                                      .device_id = 0,
                                      .context_id = 1,
                                      .stream_id = streams[i].id,
                                      .is_legacy_default = streams[i].legacy,
                                      .is_per_thread_default = 0,
                                      .priority = 0,
                                      .flags = streams[i].legacy ? 3 : 2,
                                      .label = streams[i].label};
        if (store_insert_stream(s, &stream, NULL) != 0)
            return -1;
    }
    return 0;
}

static int add_scenario_rows(store *s)
{
    struct store_process process = {.pid = 4242,
                                    .parent_pid = 1,
                                    .host = "node7",
                                    .command_line = "python train.py",
                                    .rank = 0,
                                    .local_rank = 0,
                                    .world_size = 2,
                                    .start_ns = US(-1000),
                                    .end_ns = US(11000),
                                    .exit_status = 0,
                                    .term_signal = STORE_NULL,
                                    .dropped_records = 0,
                                    .source_file = NULL};
    struct store_device device = {.process_id = 1,
                                  .device_id = 0,
                                  .name = "NVIDIA H100 80GB HBM3",
                                  .uuid = NULL,
                                  .pci_bus_id = STORE_NULL,
                                  .sm_count = 132,
                                  .compute_capability_major = 9,
                                  .compute_capability_minor = 0};
    if (store_insert_process(s, &process, NULL) != 0 || store_insert_device(s, &device, NULL) != 0 ||
        add_streams(s) != 0)
        return -1;
    if (add_kernel(s, 7, US(3000), US(3500), "_Z11fill_kernelPfi", NULL) != 0 ||
        add_kernel(s, 13, US(0), US(4000), "_Z13sgemm_256x128PKfS0_Pfi", NULL) != 0 ||
        add_kernel(
            s, 13, US(4000), US(6000),
            "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
            "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
            NULL) != 0 ||
        add_allreduce(s, US(2000), US(5000), 4 << 20) != 0 ||
        add_allreduce(s, US(6000), US(8000), 8 << 20) != 0 ||
        add_copy(s, US(6000), US(9000), STORE_COPY_HTOD, 64 << 20, STORE_MEMORY_PAGEABLE) != 0 ||
        add_copy(s, US(9000), US(10000), STORE_COPY_DTOH, 1 << 20, STORE_MEMORY_PINNED) != 0)
        return -1;
    struct store_memset memset_row = {.process_id = 1,
                                      .device_id = 0,
                                      .context_id = 1,
                                      .stream_id = 15,
                                      .correlation_id = STORE_NULL,
                                      .start_ns = US(10000),
                                      .end_ns = US(10500),
                                      .value = 0,
                                      .bytes = 1 << 20,
                                      .memory_kind = STORE_MEMORY_DEVICE,
                                      .is_async = 1,
                                      .channel_id = STORE_NULL,
                                      .channel_type = STORE_NULL,
                                      .graph_id = STORE_NULL,
                                      .graph_node_id = STORE_NULL};
    if (store_insert_memset(s, &memset_row, NULL) != 0)
        return -1;
    for (int i = 0; i < 10000; i++)
        if (add_kernel(s, 16, US(7000) + i, US(7000) + i + 1, "_Z10tiny_burstv", NULL) != 0)
            return -1;
    return add_host(s);
}

store *fixture_scenario(const char *path)
{
    error_info err;
    store *s = store_create(path, STORE_OVERWRITE, &err);
    if (!s)
        return NULL;
    if (store_begin(s, &err) != 0 || add_scenario_rows(s) != 0 || store_commit(s, &err) != 0 ||
        store_finalize(s, &err) != 0) {
        store_close(s, NULL);
        return NULL;
    }
    return s;
}

static struct analysis_op op(size_t lane, enum analysis_category category, double start_us, double end_us,
                             const char *name)
{
    struct analysis_op result = {.lane = lane,
                                 .category = category,
                                 .start_ns = US(start_us),
                                 .end_ns = US(end_us),
                                 .launch_start_ns = STORE_NULL,
                                 .launch_end_ns = STORE_NULL,
                                 .correlation_id = STORE_NULL};
    snprintf(result.name, sizeof result.name, "%s", name);
    return result;
}

struct analysis_result *fixture_analysis(void)
{
    static const struct {
        int64_t stream;
        int legacy;
        const char *role;
    } lanes[] = {{7, 1, "default"}, {13, 0, "compute"}, {14, 0, "nccl"}, {15, 0, "copy"}, {16, 0, "compute"}};
    struct analysis_result *analysis = calloc(1, sizeof *analysis);
    analysis->lanes = calloc(5, sizeof *analysis->lanes);
    analysis->lane_count = 5;
    for (size_t i = 0; i < 5; i++) {
        struct analysis_lane *lane = &analysis->lanes[i];
        lane->process_id = 1;
        lane->pid = 4242;
        lane->rank = 0;
        lane->device_id = 0;
        lane->stream_id = lanes[i].stream;
        lane->is_legacy_default = lanes[i].legacy;
        snprintf(lane->role, sizeof lane->role, "%s", lanes[i].role);
    }
    analysis->waits = calloc(1, sizeof *analysis->waits);
    analysis->wait_count = 1;
    struct analysis_wait *wait = &analysis->waits[0];
    wait->waiting = op(2, ANALYSIS_COMMUNICATION, 6000, 8000, "AllReduce 8.00 MiB");
    wait->blocking = op(1, ANALYSIS_COMPUTE, 4000, 6000, "vectorized_elementwise_kernel");
    wait->wait_start_ns = US(5000);
    wait->wait_end_ns = US(6000);
    wait->lost_ns = 1000000;
    wait->cause = ANALYSIS_CAUSE_COMM_BEHIND_COMPUTE;
    snprintf(wait->evidence, sizeof wait->evidence, "vectorized_elementwise_kernel held the SMs");
    for (int c = 0; c < ANALYSIS_CAUSE_COUNT; c++)
        analysis->causes[c].cause = (enum analysis_cause)c;
    analysis->causes[0] = (struct analysis_cause_total){ANALYSIS_CAUSE_COMM_BEHIND_COMPUTE, 1000000, 1};
    analysis->causes[ANALYSIS_CAUSE_COMM_BEHIND_COMPUTE].cause = ANALYSIS_CAUSE_SM_SATURATION;
    analysis->selection.window_start_ns = US(0);
    analysis->selection.window_end_ns = US(10500);
    analysis->total_communication_ns = 5000000;
    analysis->total_exposed_communication_ns = 2000000;
    analysis->communication_overlap_ratio = 0.6;
    analysis->total_lost_ns = 1000000;
    return analysis;
}

void fixture_analysis_free(struct analysis_result *analysis)
{
    if (!analysis)
        return;
    free(analysis->lanes);
    free(analysis->waits);
    free(analysis);
}

int fixture_png_open(struct fixture_png *png, const char *path)
{
    memset(png, 0, sizeof *png);
    cairo_surface_t *surface = cairo_image_surface_create_from_png(path);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(surface);
        return -1;
    }
    png->surface = surface;
    png->width = cairo_image_surface_get_width(surface);
    png->height = cairo_image_surface_get_height(surface);
    png->stride = cairo_image_surface_get_stride(surface);
    png->data = cairo_image_surface_get_data(surface);
    return 0;
}

void fixture_png_close(struct fixture_png *png)
{
    if (png->surface)
        cairo_surface_destroy((cairo_surface_t *)png->surface);
    memset(png, 0, sizeof *png);
}

int64_t fixture_png_pixel(const struct fixture_png *png, double x, double y)
{
    int column = (int)x, row = (int)y;
    if (!png->data || column < 0 || row < 0 || column >= png->width || row >= png->height)
        return -1;
    uint32_t pixel;
    memcpy(&pixel, png->data + (size_t)row * (size_t)png->stride + (size_t)column * 4, 4);
    return pixel & 0xFFFFFF; /* Cairo's RGB24/ARGB32 are native-endian 0xAARRGGBB words */
}

int fixture_colour_distance(int64_t a, uint32_t b)
{
    if (a < 0)
        return 255;
    int worst = 0;
    for (int shift = 0; shift <= 16; shift += 8) {
        int difference = abs((int)((a >> shift) & 0xFF) - (int)((b >> shift) & 0xFF));
        worst = difference > worst ? difference : worst;
    }
    return worst;
}

int fixture_picture_path(char *path, size_t size, const char *name)
{
    if ((size_t)snprintf(path, size, "/tmp/overlapscope-test-%s-XXXXXX.png", name) >= size)
        return -1;
    int descriptor = mkstemps(path, 4);
    if (descriptor < 0)
        return -1;
    close(descriptor);
    unlink(path);
    return 0;
}

void fixture_data_path(char *path, size_t size, const char *sub)
{
    const char *data = getenv("OVERLAPSCOPE_TEST_DATA");
    snprintf(path, size, "%s/%s", data ? data : "tests/data", sub);
}

char *fixture_read_file(const char *path, size_t *size)
{
    FILE *file = fopen(path, "rb");
    if (!file)
        return NULL;
    fseek(file, 0, SEEK_END);
    long length = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *data = length >= 0 ? malloc((size_t)length + 1) : NULL;
    if (data && fread(data, 1, (size_t)length, file) != (size_t)length) {
        free(data);
        data = NULL;
    }
    fclose(file);
    if (data) {
        data[length] = '\0';
        *size = (size_t)length;
    }
    return data;
}
