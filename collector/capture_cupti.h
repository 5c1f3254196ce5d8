/* capture_cupti.h: record --capture-range, --delay and --duration inside the recorded process:
 * the rules of capture_range.h applied to CUPTI. GPU activity collection (kernels, copies,
 * memsets: the kinds --kinds keeps) is switched with cuptiActivityEnable/Disable at
 * cudaProfilerStart/Stop (runtime API callbacks), at NVTX ranges of the name (NVTX callbacks:
 * nvtxRangePushA/Ex and Pop, nvtxRangeStartA/Ex and End, per thread) and by a timer for the delay
 * and the duration. API calls, NVTX ranges and the rest are recorded over the whole run. What was
 * captured goes into the per-process file's meta (capture_range, capture_windows, capture_process),
 * which record_merge joins into the trace's. Its state is one struct of its own (the collector's
 * rule: global state in one place per module). */
#ifndef OVERLAPSCOPE_CAPTURE_CUPTI_H
#define OVERLAPSCOPE_CAPTURE_CUPTI_H

#include <stdint.h>

#include "capture_range.h"
#include "launch_watch.h"
#include "store.h"

/* Starts capturing as spec says in a process that started at start_ns (the collector's clock,
 * now_ns), with watch's subscriber for the callbacks. kinds: the collector's kind bits (only those
 * enabled are switched). Returns 0, or -1 with why filled (then everything is recorded: the
 * collector stores the reason as a warning). Nothing happens when spec restricts nothing. */
int capture_cupti_start(const struct capture_range_spec *spec, unsigned kinds, struct launch_watch *watch,
                        int64_t start_ns, int64_t (*now_ns)(void), error_info *why);

/* The runtime API callbacks (from launch_watch's api_called): cudaProfilerStart/Stop. */
void capture_cupti_on_api(CUpti_CallbackDomain domain, CUpti_CallbackId id, const CUpti_CallbackData *call);

/* Closes the open window at end_ns, stops the timer and writes the meta rows into trace. Returns 0
 * or -1 with err filled; 0 and nothing written when no capture range was asked for. */
int capture_cupti_finish(store *trace, int64_t end_ns, error_info *err);

#endif
