/* fixture.c: see fixture.h. */
#include "fixture.h"

#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The scenario's kernels are of process 1 (the first process written), grid 132 x 256 threads. */
static int64_t add_kernel(struct builder *b, int64_t stream, int64_t start_ns, int64_t end_ns,
                          const char *name)
{
    return builder_insert_kernel(b, builder_kernel_row_ns(1, stream, start_ns, end_ns, 132, 256, name));
}

static void add_allreduce(struct builder *b, int64_t start_ns, int64_t end_ns, int64_t bytes)
{
    int64_t rowid = add_kernel(b, 14, start_ns, end_ns,
                               "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
    struct store_collective collective =
        builder_collective_row_ns(1, 14, "AllReduce", bytes, "0x5a5a", 0, 2, rowid, start_ns, end_ns);
    collective.element_count = bytes / 4;
    collective.dtype = "f32";
    collective.algorithm = "RING";
    collective.protocol = "LL";
    collective.detail_source = STORE_DETAIL_KINETO;
    builder_insert_collective(b, collective);
}

static void add_host(struct builder *b)
{
    struct store_api_call call = builder_api_row_ns(1, 100, "cudaLaunchKernel", AT(100), AT(150), STORE_NULL);
    call.callback_id = 211;
    builder_insert_api(b, call);
    call.start_ns = AT(4000);
    call.end_ns = AT(4100);
    builder_insert_api(b, call);
    const struct {
        const char *message;
        double start_us, end_us;
        int depth;
    } ranges[] = {
        {"ProfilerStep#0", 0, 5000, 0}, {"ProfilerStep#1", 5000, 10500, 0}, {"forward", 100, 3000, 1}};
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        struct store_nvtx range = builder_nvtx_row_ns(1, 100, STORE_NULL, ranges[i].message,
                                                      AT(ranges[i].start_us), AT(ranges[i].end_us));
        range.depth = ranges[i].depth;
        builder_insert_nvtx(b, range);
    }
}

static void add_streams(struct builder *b)
{
    const struct {
        int64_t id, legacy;
        const char *label;
    } streams[] = {{7, 1, NULL}, {13, 0, NULL}, {14, 0, "nccl"}, {15, 0, NULL}, {16, 0, NULL}};
    for (size_t i = 0; i < sizeof streams / sizeof streams[0]; i++) {
        struct store_stream stream =
            builder_stream_row(1, 0, streams[i].id, streams[i].legacy, streams[i].legacy ? 3 : 2, 0);
        stream.label = streams[i].label;
        builder_insert_stream(b, stream);
    }
}

/* The scenario's device: its name, SMs and compute capability; its limits per SM left 0 (not the
 * builder's whole H100), as the pictures' tests were written against. */
static struct store_device scenario_device(void)
{
    return (struct store_device){.process_id = 1,
                                 .device_id = 0,
                                 .name = "NVIDIA H100 80GB HBM3",
                                 .uuid = NULL,
                                 .pci_bus_id = STORE_NULL,
                                 .sm_count = 132,
                                 .compute_capability_major = 9,
                                 .compute_capability_minor = 0};
}

static void add_scenario_rows(struct builder *b)
{
    struct store_process process = builder_process_row(4242, 0);
    process.parent_pid = 1;
    process.host = "node7";
    process.command_line = "python train.py";
    process.local_rank = 0;
    process.world_size = 2;
    process.start_ns = AT(-1000);
    process.end_ns = AT(11000);
    process.exit_status = 0;
    builder_insert_process(b, process);
    builder_insert_device(b, scenario_device());
    add_streams(b);
    add_kernel(b, 7, AT(3000), AT(3500), "_Z11fill_kernelPfi");
    add_kernel(b, 13, AT(0), AT(4000), "_Z13sgemm_256x128PKfS0_Pfi");
    add_kernel(
        b, 13, AT(4000), AT(6000),
        "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
        "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)");
    add_allreduce(b, AT(2000), AT(5000), 4 << 20);
    add_allreduce(b, AT(6000), AT(8000), 8 << 20);
    builder_insert_memcpy(
        b, builder_memcpy_row(1, 15, 6000, 9000, STORE_COPY_HTOD, STORE_MEMORY_PAGEABLE, 64 << 20));
    builder_insert_memcpy(
        b, builder_memcpy_row(1, 15, 9000, 10000, STORE_COPY_DTOH, STORE_MEMORY_PINNED, 1 << 20));
    builder_insert_memset(b, builder_memset_row_ns(1, 15, AT(10000), AT(10500), 1 << 20));
    for (int i = 0; i < 10000; i++)
        add_kernel(b, 16, AT(7000) + i, AT(7000) + i + 1, "_Z10tiny_burstv");
    add_host(b);
}

store *fixture_scenario(const char *path)
{
    struct builder b;
    if (builder_create_path(&b, path) == 0) {
        add_scenario_rows(&b);
        if (builder_finish(&b) == 0)
            return b.trace;
    }
    builder_close(&b);
    return NULL;
}

static struct analysis_op op(size_t lane, enum analysis_category category, double start_us, double end_us,
                             const char *name)
{
    struct analysis_op result = {.lane = lane,
                                 .category = category,
                                 .start_ns = AT(start_us),
                                 .end_ns = AT(end_us),
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
    wait->wait_start_ns = AT(5000);
    wait->wait_end_ns = AT(6000);
    wait->lost_ns = 1000000;
    wait->cause = ANALYSIS_CAUSE_COMM_BEHIND_COMPUTE;
    snprintf(wait->evidence, sizeof wait->evidence, "vectorized_elementwise_kernel held the SMs");
    for (int c = 0; c < ANALYSIS_CAUSE_COUNT; c++)
        analysis->causes[c].cause = (enum analysis_cause)c;
    analysis->causes[0] = (struct analysis_cause_total){ANALYSIS_CAUSE_COMM_BEHIND_COMPUTE, 1000000, 1};
    analysis->causes[ANALYSIS_CAUSE_COMM_BEHIND_COMPUTE].cause = ANALYSIS_CAUSE_SM_SATURATION;
    analysis->selection.window_start_ns = AT(0);
    analysis->selection.window_end_ns = AT(10500);
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
