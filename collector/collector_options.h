/* collector_options.h: what the collector records and where, as `overlapscope record` tells it
 * through the environment of the recorded job (every process of the job inherits it).
 *
 *   OVERLAPSCOPE_OUTPUT_DIR    directory of the per-process files (default: the current one)
 *   OVERLAPSCOPE_KINDS         comma list of activity kinds (default: all; see collector_kinds_parse)
 *   OVERLAPSCOPE_FLUSH_MS      period of CUPTI buffer flushes, ms (default 500)
 *   OVERLAPSCOPE_BUFFER_BYTES  size of one activity buffer (default 8 MiB)
 *   OVERLAPSCOPE_BUFFER_COUNT  activity buffers held at once before CUPTI must drop (default 64)
 *   OVERLAPSCOPE_DEVICE_BUFFER_BYTES  CUPTI's device-side record buffer (default: CUPTI's, 3 MiB)
 *   OVERLAPSCOPE_API           which CUDA runtime/driver API calls are recorded: `analysis` (default:
 *                              the calls common/cuda_api.h classifies, the ones the analysis reads),
 *                              `all` (every call), `none`
 *   OVERLAPSCOPE_NO_API        1: same as OVERLAPSCOPE_API=none
 *   OVERLAPSCOPE_NCCL          0: no collectives rows from NCCL kernel names (default 1)
 *   OVERLAPSCOPE_LAUNCH_CALLBACKS  0: no callback on launch APIs (measures its cost; loses the
 *                              per-thread default stream and the launch-count checks; default 1);
 *                              `probe`: also an empty callback on every call of the default API
 *                              set (diagnostic: bench/torch_overhead's record-probe)
 *   OVERLAPSCOPE_CALLS_FROM    where API calls, synchronizations and event records come from:
 *                              `callbacks` (default with the analysis API set: the collector's own
 *                              CUPTI callbacks, host_calls.h) or `activity` (CUPTI's RUNTIME, DRIVER,
 *                              SYNCHRONIZATION and CUDA_EVENT kinds; the default with OVERLAPSCOPE_API=all)
 *   OVERLAPSCOPE_CALL_SOURCES  0: no source (Python line or native caller) for blocking calls
 *                              (call_site.h; default 1)
 *   OVERLAPSCOPE_CAPTURE_RANGE cudaProfilerApi or nvtx:NAME[@N]: GPU activity only inside those ranges
 *   OVERLAPSCOPE_DELAY         seconds after the process starts before anything is captured
 *   OVERLAPSCOPE_DURATION      seconds after the first capture began when capturing ends
 *                              (the three: record --capture-range, --delay, --duration; capture_range.h)
 *   OVERLAPSCOPE_SAMPLE_HZ     host samples per second (collector/host_sampler.h): each thread that
 *                              uses CUDA and the main thread (state, CPU time, Python stack) and
 *                              the CPU time of the process and its children; 0: none (default
 *                              COLLECTOR_DEFAULT_SAMPLE_HZ)
 *   OVERLAPSCOPE_DISCARD       1: activity buffers are released unread, nothing is written (diagnostic:
 *                              measures the writer thread's share of the cost; the trace has no rows)
 * Pure C, no CUDA: `record` validates --kinds with the same table. */
#ifndef OVERLAPSCOPE_COLLECTOR_OPTIONS_H
#define OVERLAPSCOPE_COLLECTOR_OPTIONS_H

#include <limits.h>
#include <stddef.h>

#include "capture_range.h"
#include "error.h"

enum collector_kind {
    COLLECTOR_KIND_KERNEL = 1 << 0, /* CONCURRENT_KERNEL */
    COLLECTOR_KIND_MEMCPY = 1 << 1,
    COLLECTOR_KIND_MEMSET = 1 << 2,
    COLLECTOR_KIND_SYNC = 1 << 3, /* SYNCHRONIZATION */
    COLLECTOR_KIND_DEVICE = 1 << 4,
    COLLECTOR_KIND_CONTEXT = 1 << 5,
    COLLECTOR_KIND_STREAM = 1 << 6,
    COLLECTOR_KIND_EVENT = 1 << 7, /* CUDA_EVENT */
    COLLECTOR_KIND_RUNTIME = 1 << 8,
    COLLECTOR_KIND_DRIVER = 1 << 9,
    COLLECTOR_KIND_NVTX = 1 << 10, /* MARKER */
    COLLECTOR_KIND_ALL = (1 << 11) - 1
};

/* Which API calls the RUNTIME and DRIVER kinds record. */
enum collector_api_set {
    COLLECTOR_API_ANALYSIS = 0, /* per callback id: cuda_api_recorded_by_default */
    COLLECTOR_API_ALL           /* CUPTI_ACTIVITY_KIND_RUNTIME/DRIVER: every call */
};

/* 100 Hz: a 10 ms grid resolves the idle stretches the report names (the host-cpu stretches of
 * issue 31 last tens of ms to seconds) while one tick costs tens of microseconds of one core
 * (docs/collector.md, "Host samples": bench/torch_overhead measures it against the floor). */
#define COLLECTOR_DEFAULT_SAMPLE_HZ 100
#define COLLECTOR_MAX_SAMPLE_HZ 1000

struct collector_options {
    unsigned kinds; /* enum collector_kind bits */
    enum collector_api_set api_set;
    int flush_ms;
    size_t buffer_bytes;
    int buffer_count;
    size_t device_buffer_bytes; /* 0: CUPTI's default */
    int nccl;
    int launch_callbacks;
    int calls_from_activity; /* OVERLAPSCOPE_CALLS_FROM=activity */
    int call_sources;        /* OVERLAPSCOPE_CALL_SOURCES: where blocking calls were made */
    int flush_forced;        /* OVERLAPSCOPE_FLUSH_FORCED=1: periodic flushes forced (diagnostic) */
    int discard;             /* OVERLAPSCOPE_DISCARD=1: buffers released unread (diagnostic) */
    int sample_hz;           /* OVERLAPSCOPE_SAMPLE_HZ: host samples per second, 0 none */
    char output_dir[PATH_MAX];
    struct capture_range_spec capture; /* OVERLAPSCOPE_CAPTURE_RANGE, _DELAY, _DURATION */
};

/* Parses "kernel,memcpy,nvtx" (names: kernel memcpy memset sync device context stream event
 * runtime driver nvtx, or all) into kind bits. Returns 0, or -1 with err naming the bad word. */
int collector_kinds_parse(const char *list, unsigned *kinds, error_info *err);

/* Parses an API set name: "analysis", "all" or "none" (none clears the runtime and driver kinds
 * in *kinds when kinds is not NULL). Returns 0, or -1 with err naming the bad word. */
int collector_api_set_parse(const char *name, enum collector_api_set *api_set, unsigned *kinds,
                            error_info *err);

/* Reads the OVERLAPSCOPE_* variables above (OVERLAPSCOPE_NO_API=1 and OVERLAPSCOPE_API=none clear
 * the runtime and driver kinds). Returns 0, or -1 with err naming the variable with a bad value. */
int collector_options_from_environment(struct collector_options *options, error_info *err);

#endif
