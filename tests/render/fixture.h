/* fixture.h: the renderer's test scenario (written with trace_builder.h; times in microseconds
 * from BASE_NS, AT(us) the instant), and reading a PNG's pixels back. */
#ifndef OVERLAPSCOPE_RENDER_FIXTURE_H
#define OVERLAPSCOPE_RENDER_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "store.h"
#include "trace_builder.h"

/* The scenario of the picture tests (rank 0, one H100, pid 4242):
 *   stream 7  (legacy default) a kernel 3000-3500 us
 *   stream 13 (compute)  sgemm 0-4000 us, vectorized_elementwise_kernel 4000-6000 us
 *   stream 14 (NCCL)     AllReduce 4 MiB 2000-5000 us, AllReduce 8 MiB 6000-8000 us
 *   stream 15 (copy)     HtoD 64 MiB pageable 6000-9000, DtoH 1 MiB 9000-10000, memset 10000-10500
 *   stream 16 (compute)  10,000 kernels of 1 ns back to back from 7000 us
 *   thread 100: cudaLaunchKernel 100-150 us and 4000-4100 us; NVTX ProfilerStep#0 0-5000,
 *   ProfilerStep#1 5000-10500, forward 100-3000 (depth 1).
 * Returns the open trace (finalized) or NULL. */
store *fixture_scenario(const char *path);

/* The analysis of that scenario as the analyzer would give it: 5 lanes (streams 7, 13, 14, 15,
 * 16) and one wait: the second AllReduce (stream 14), launched at 5000 us, waited for
 * vectorized_elementwise_kernel (stream 13) until 6000 us. Free with fixture_analysis_free. */
struct analysis_result *fixture_analysis(void);
void fixture_analysis_free(struct analysis_result *analysis);

/* A fresh picture path, /tmp/overlapscope-test-NAME-XXXXXX.png, reserved and left absent (render
 * refuses to replace a file); path must hold 64 bytes plus NAME. Returns 0, or -1. */
int fixture_picture_path(char *path, size_t size, const char *name);
/* The golden traces' folder: $OVERLAPSCOPE_TEST_DATA/SUB (tests/data/SUB when unset). */
void fixture_data_path(char *path, size_t size, const char *sub);

/* A PNG read back: 0xRRGGBB at (x, y) in pixels; -1 outside. */
struct fixture_png {
    int width, height, stride;
    unsigned char *data;
    void *surface;
};
int fixture_png_open(struct fixture_png *png, const char *path);
void fixture_png_close(struct fixture_png *png);
int64_t fixture_png_pixel(const struct fixture_png *png, double x, double y);
/* A picture's bytes (SVG, PDF, PNG), NUL-terminated, their count in *size; the caller frees. NULL
 * when unreadable or out of memory. */
char *fixture_read_file(const char *path, size_t *size);

/* Largest channel difference between two 0xRRGGBB colours. */
int fixture_colour_distance(int64_t a, uint32_t b);

#endif
