/* explain.h: finds the missed overlaps of a device and proves their cause. For every operation X
 * the sweep meets on a stream that was free, it looks for the operation B of another stream of the
 * device that X waited for: the previous NCCL kernel (one communicator), the op that held the head
 * of X's hardware channel (a FIFO), the other stream's last op when X started as it ended (or in
 * its drain), or, failing those, the op whose end a blocking host call waited for before X was
 * launched. The cause is then proved from the trace, in a fixed order (docs/metrics.md): a late
 * launch and what the host thread did meanwhile, an event dependency, one NCCL communicator, the
 * legacy default stream, a pageable copy, a shared copy engine, a shared hardware queue, stream
 * priority, SM saturation (occupancy.h); otherwise "unexplained". The per-op checks are
 * O(streams + channels); the store is probed (by index) only for candidate waits.
 *
 * Keeps the max_waits waits that lost the most time and the totals of every cause. */
#ifndef OVERLAPSCOPE_EXPLAIN_H
#define OVERLAPSCOPE_EXPLAIN_H

#include <sqlite3.h>

#include "analysis.h"
#include "device_state.h"
#include "kernel_names.h"

/* A start within this of the blocking operation's end counts as "when it ended": the GPU's own
 * dispatch delay between dependent work on two streams is a few microseconds. */
#define EXPLAIN_START_TOLERANCE_NS 10000
/* A launch call that returned less than this before the blocking operation ended was late: a
 * kernel launch takes about this long to reach the GPU. */
#define EXPLAIN_LAUNCH_LATENCY_NS 5000
/* An op started at most this long after the other stream's op ended, launched only after it
 * ended, waited for its launch (a launch-bound loop: 12 us between tiny kernels on an H200). */
#define EXPLAIN_LATE_LAUNCH_GAP_NS 50000
/* An op queued on a hardware channel behind another stream's op starts within this of that op's
 * dispatch: 2 to 17 us between independent kernels of one channel on an H200 (many_streams_2). */
#define EXPLAIN_QUEUE_DISPATCH_NS 50000

typedef struct explainer explainer;

explainer *explainer_new(sqlite3 *db, kernel_names *names, size_t max_waits, error_info *err);
void explainer_free(explainer *explain);

struct thread_calls;
/* Lends the explainer the accountant's threads' calls held in memory (thread_calls.h; may be
 * NULL): the launching thread's calls before each launch are then looked up there, not asked of
 * the store once per wait (a loop of 100,000 steps spent a third of its report in those queries).
 * calls must outlive the explainer's use. */
void explainer_share_thread_calls(explainer *explain, struct thread_calls *calls);

/* Looks for a wait of op (on device->lanes[lane_index]) and records it. Call for every operation
 * in start order, before it becomes its lane's `last`. reportable: op starts inside the
 * selection. With --stream, a wait is kept only when one of its two streams is selected. Then makes
 * op its lane's last operation and its channel's head. Returns 0, or -1 when out of memory. */
int explainer_consider(explainer *explain, struct device_state *device, size_t lane_index,
                       const struct model_op *op, int reportable);

/* Waits found so far (all devices). */
int64_t explainer_wait_count(const explainer *explain);

/* --- a device's waits between explainers (a worker's, the run's) ---
 * The run keeps the waits one explainer walking every device in order would keep: a worker's
 * explainer keeps each device's own largest waits (a wait that cannot enter them could not enter
 * the run's either, whose smallest is at least as large) and hands over those that entered, in the
 * order found; the run's offers them again, device by device in device order. */
struct explainer_device {
    struct analysis_wait *arrivals; /* lanes index the device's own lanes */
    size_t arrival_count;
    int64_t total_waits;
    struct analysis_cause_total causes[ANALYSIS_CAUSE_COUNT];
};
/* Makes explain a worker's: call once, before its first device. */
void explainer_record_arrivals(explainer *explain);
/* Takes the device's waits (since the last take) out of a worker's explainer, which starts the
 * next device with no kept waits. Returns 0, or -1 when out of memory. */
int explainer_take_device(explainer *worker, struct explainer_device *out);
/* Offers a device's waits to the run's explainer, their lanes moved by lane_offset, and adds its
 * totals; frees in's arrivals. */
void explainer_adopt_device(explainer *run, struct explainer_device *in, size_t lane_offset);

/* Moves the kept waits (sorted, largest loss first) and the cause totals into result. Returns 0
 * or -1 when out of memory. */
int explainer_collect(explainer *explain, struct analysis_result *result);

#endif
