/* analysis_result.h: what an analysis found (struct analysis_result and the types it holds: lanes,
 * devices, stream pairs, waits, cause totals, steps, the steady window, what-if predictions) and
 * the few functions that read them. Apart from analysis.h (analysis_run, its options, the window
 * parsers) so that the analyzer's steps, which fill these types for analysis.c's driver, need not
 * include the driver's header back (tests/cli/source_shape.sh: no include loop in a folder).
 *
 * Stability: render/ and the report writers depend on the names below. Fields may be added; none
 * is renamed or removed without changing both. Metric definitions: docs/metrics.md. */
#ifndef OVERLAPSCOPE_ANALYSIS_RESULT_H
#define OVERLAPSCOPE_ANALYSIS_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "accounting.h"
#include "analysis_selection.h"
#include "causes.h"
#include "occupancy.h"
#include "op_category.h"
#include "store.h"

const char *analysis_category_tag(enum analysis_category category);

/* The directions exposed copy time is split by: host to device, device to host, the rest
 * (device to device, peer, host to host). */
enum analysis_copy_direction {
    ANALYSIS_COPY_DIRECTION_HTOD,
    ANALYSIS_COPY_DIRECTION_DTOH,
    ANALYSIS_COPY_DIRECTION_OTHER,
    ANALYSIS_COPY_DIRECTION_COUNT
};
const char *analysis_copy_direction_tag(enum analysis_copy_direction direction);

/* One fix's predicted saving, summed over devices. */
struct analysis_what_if {
    enum analysis_fix fix;
    enum analysis_cause cause;   /* ANALYSIS_CAUSE_COUNT when no wait's cause asks for it (all, pipeline,
                                    skew): analysis_what_if_basis names what does */
    int64_t predicted_saving_ns; /* replayed span as recorded minus replayed span with the fix */
    int by_design;               /* the dependency was asked for: the gain is not a bug's price */
    const char *assumptions;     /* static text: what the model assumed for this fix */
    int64_t newly_together_ns;   /* kernels the fix puts side by side, at their alone speed, summed over
                                    devices (analysis_device.fix_together_ns): an upper bound where large */
    int64_t host_work_ns;        /* of the saving, what the host-work fix alone saves on the devices it
                                    is part of: an upper bound where large (analysis_what_if_upper_bound) */
    /* Added after the first contract: */
    int64_t sustained_ns; /* of the saving, what removing the host's syncs saves on devices whose
                             kernels (busy 20 ms or more) it takes from under 90% of their span to at
                             least 95% of what is left of it (busy without a break: an upper bound
                             where large); 0 for other fixes but "all" */
    /* For remove-host-sync, the synchronizing calls it removes as recorded (analysis_device's): how
     * many, their time before the work launched before each on its device had ended (the wait),
     * and the rest (the calls' own host time); and the time their library wrappers took beyond
     * them (torch.cuda.synchronize's Python around cudaDeviceSynchronize: store/framework_calls.h),
     * which the fix removes too; 0 for other fixes. */
    int64_t sync_calls, sync_wait_ns, sync_host_ns, sync_wrapper_ns;
};

/* Why a prediction is an upper bound: it rests on kernels newly side by side for long enough, at
 * least a tenth of the saving and 50 us, that contention between them (not modelled) may take much
 * of it (the pipelined GEMMs of pipeline_serial ran 30% slower side by side); or, as long, on the
 * host-work fix, which removes all the host's own work that kept the GPU idle, the loop's own Python
 * with the loading (8 DataLoader workers saved a starved loader 1.02 s of the 1.35 s removed: the
 * rest was the loop's). Or, as long, on devices removing the syncs keeps busy without a break, whose kernels
 * the replay runs at their recorded speed while sustained load lowers the GPU's clocks (power, heat): an
 * H200's 8192 GEMM took 1.25 ms with empty_cache's syncs breaking the loop and climbed to 1.40 ms
 * within 60 steps without them, so removing the syncs saved 11% where the replay said 23%. The
 * report then says "up to". */
enum analysis_bound {
    ANALYSIS_BOUND_NONE = 0,
    ANALYSIS_BOUND_SIDE_BY_SIDE,
    ANALYSIS_BOUND_ALL_HOST_WORK,
    ANALYSIS_BOUND_SUSTAINED
};
enum analysis_bound analysis_what_if_bound(const struct analysis_what_if *item);
int analysis_what_if_upper_bound(const struct analysis_what_if *item);

/* What a prediction stands on: its cause's tag, or "all", "same-stream-events", "arrival-skew",
 * "idle-host-sync", "idle-launch-bound". */
const char *analysis_what_if_basis(const struct analysis_what_if *item);

/* One stream of one device of one process. */
struct analysis_lane {
    int64_t process_id, pid, rank; /* rank -1 when unknown */
    int64_t device_id, stream_id;
    int is_legacy_default;
    int64_t priority;                             /* STORE_NULL when unknown */
    int64_t busy_ns;                              /* union of this stream's intervals */
    int64_t category_ns[ANALYSIS_CATEGORY_COUNT]; /* busy time per category on this stream */
    int64_t interval_count;
    char role[16]; /* "compute", "nccl", "copy", "mixed", "default", "idle" */
    int selected;  /* passes the --stream filter (others are listed because waits cite them) */
};

/* One device of one process (one rank's GPU). */
struct analysis_device {
    int64_t process_id, pid, rank, device_id;
    char device_name[64];
    int64_t sm_count;
    int64_t span_start_ns, span_end_ns; /* first start to last end on this device */
    int64_t busy_ns;                    /* union of all intervals on the device */
    int64_t idle_ns;                    /* span - busy */
    int64_t concurrency_ns[4];          /* time with 0, 1, 2, 3+ streams busy, inside the span */
    /* category_overlap_ns[a][b]: time both a category-a and a category-b interval ran (a != b),
     * and [a][a]: time two or more intervals of category a ran at once. Symmetric. */
    int64_t category_overlap_ns[ANALYSIS_CATEGORY_COUNT][ANALYSIS_CATEGORY_COUNT];
    int64_t category_busy_ns[ANALYSIS_CATEGORY_COUNT]; /* union per category */
    int64_t communication_ns;                          /* = category_busy_ns[COMMUNICATION] */
    int64_t compute_communication_overlap_ns;          /* communication time during which compute ran */
    int64_t exposed_communication_ns; /* communication_ns - compute_communication_overlap_ns */
    int64_t copy_ns;                  /* union of all copy categories */
    int64_t copy_compute_overlap_ns;
    /* Added for exposed copies (docs/metrics.md, "Exposed copies"): time with a kernel (compute or
     * NCCL) running, so that busy splits into kernels and copy-only time; and copy time with no
     * kernel of the device running (the SMs waited for it), in all and by direction (the
     * directions may overlap each other: each is the time that direction copied, no kernel ran). */
    int64_t kernel_busy_ns;
    int64_t exposed_copy_ns;
    int64_t exposed_copy_direction_ns[ANALYSIS_COPY_DIRECTION_COUNT];
    int64_t lost_ns;     /* sum of wait lost_ns on this device */
    int64_t headroom_ns; /* how much shorter the span could be: see docs/metrics.md */
    /* Added after the first contract: */
    int64_t wait_count;               /* waits found on this device (all, not only those kept) */
    int64_t stream_count;             /* streams with intervals in the selection */
    int64_t stream_pair_overlap_ns;   /* Σ overlap_ns of the device's stream pairs */
    int64_t stream_pair_possible_ns;  /* Σ possible_ns of them: overlap of possible = the ratio */
    int64_t copy_compute_possible_ns; /* the most copy/compute overlap could be (copies beside other streams'
                                         kernels) */
    /* The what-if replay (whatif.h); replay_span_ns 0 when the device was not replayed. */
    int64_t replay_span_ns;                    /* the recorded work replayed as recorded */
    int64_t fix_saving_ns[ANALYSIS_FIX_COUNT]; /* per fix proved on this device, else 0 */
    unsigned fixes_modelled; /* bit (1u << fix): the replay predicted that fix here (saving may be 0) */
    /* Per fix, the time two or more kernels run at once in the fixed replay beyond the replay as
     * recorded: kernels the fix puts side by side, replayed at their alone speed (contention is not
     * modelled: the saving is at most that). */
    int64_t fix_together_ns[ANALYSIS_FIX_COUNT];
    /* The price of overlap (overlap_cost.h): compute kernels that ran beside another operation,
     * against the same kernel alone in the trace. */
    int64_t overlap_cost_ns;         /* Σ (overlapped duration - median alone duration) */
    int64_t overlap_saved_ns;        /* Σ durations of all operations - busy_ns */
    int64_t overlap_net_ns;          /* saved - cost: what overlapping really gave */
    int64_t overlap_untwinned_count; /* overlapped compute kernels with no alone run to compare */
    /* 1: "all of the above" (fix_saving_ns[ANALYSIS_FIX_ALL]) is a replay with the host-work fix in
     * it, an upper bound by that fix's share; 0: a set or a single fix without it gave as much. */
    int all_includes_host_work;
    /* The synchronizing calls remove-host-sync removes on this device (those that ended after its
     * first launch), as recorded: how many, the time each spent before the work launched before it
     * had ended on this device (the wait), and the rest, the call's own host time
     * (host_time_sync_split), and their wrappers' time beyond them. 0 when not replayed. */
    int64_t sync_calls, sync_wait_ns, sync_host_ns, sync_wrapper_ns;
    /* What one SM offers, as the analysis read it (completed from the compute capability), when
     * limits_known; what stats computes each kernel's occupancy limit with. */
    struct occupancy_device limits;
    int limits_known;
};

/* The host-work fix's saving on device when fix is it, or "all" replayed with it
 * (all_includes_host_work); else 0. */
int64_t analysis_device_host_work_ns(const struct analysis_device *device, enum analysis_fix fix);

/* Overlap of two streams of one device. */
struct analysis_stream_pair {
    size_t lane_a, lane_b; /* indexes into analysis_result.lanes */
    int64_t overlap_ns;    /* achieved: both busy */
    int64_t possible_ns;   /* min(busy_a, busy_b) within their common window */
};

/* The overlap cost of one kernel family on one device (overlap_cost.h). */
struct analysis_overlap_cost {
    size_t device;            /* index into devices */
    char family[128];         /* the short name (common/kernel_name.h) */
    int64_t overlapped_count; /* overlapped runs that have an alone twin */
    int64_t overlapped_ns;    /* their durations */
    int64_t alone_ns;         /* the same runs at their twins' median alone duration */
    int64_t cost_ns;          /* overlapped_ns - alone_ns (negative: they ran faster) */
};

/* One GPU operation, as the waits cite it. */
struct analysis_op {
    size_t lane; /* index into lanes */
    enum analysis_category category;
    int64_t start_ns, end_ns;
    int64_t launch_start_ns, launch_end_ns; /* the host API call that enqueued it; STORE_NULL when unknown */
    int64_t correlation_id;
    char name[128]; /* short kernel name (common/kernel_name.h), or "HtoD 64.0 MiB (pageable)" */
    /* Added after the first contract: */
    int64_t name_id;       /* a kernel's strings.id; 0 for copies and memsets */
    const char *full_name; /* a kernel's demangled full name, owned by the result; NULL for
                              copies and memsets (name says all) */
};

/* A missed overlap: `waiting` was enqueued while `blocking` ran on another stream of the same
 * device, and started only when `blocking` ended (or drained). */
struct analysis_wait {
    struct analysis_op waiting, blocking;
    int64_t wait_start_ns, wait_end_ns; /* the time the waiting op could have run but did not */
    int64_t lost_ns;                    /* time lost to the serialization (model in docs/metrics.md) */
    enum analysis_cause cause;
    char evidence[1024]; /* one line, e.g. "kernel sgemm_256x128 on stream 13 held all
                            132 SMs (8448 blocks, 2 resident per SM: 32 waves)" */
    /* Added after the first contract: */
    char source[128]; /* a late launch or a host synchronization: where in the program the waiting
                         op was launched (call_sources), "" when the trace cannot know */
};

/* A cause's total. */
struct analysis_cause_total {
    enum analysis_cause cause;
    int64_t lost_ns;
    int64_t count;
};

/* One iteration (ProfilerStep#N or a repeating NVTX range). */
struct analysis_step {
    int64_t number;
    int64_t start_ns, end_ns;
    char name[64];
    /* Added after the first contract: */
    int64_t process_id, rank;           /* steps are per process: each rank's clock is its own */
    int on_gpu_timeline;                /* 1: GPU time (GPU annotation, or the GPU work launched inside the
                                           range); 0: the host range's own times (no launch records) */
    int64_t host_start_ns, host_end_ns; /* the host range (ProfilerStep#N on the CPU); STORE_NULL when
                                           the step is a GPU annotation */
};

/* The steady window (steady_state.h) and what it leaves out of the whole GPU span. */
struct analysis_steady {
    int64_t span_start_ns, span_end_ns; /* the whole trace's GPU span, all ranks */
    int64_t start_ns, end_ns;           /* the steady window */
    int by_steps;                       /* 1: the steps chose it (rule 1) */
    int warmup_steps;                   /* rule 1: leading warm-up steps left out (distinct numbers) */
    int trimmed;                        /* 0: nothing left out (the window is the span) */
    int devices_left_out;               /* devices with GPU work, none of it in the window (a
                                           process that ran only in the set-up) */
    /* The set-up's own idle time on the devices shown and its two largest causes (cause
     * ACCOUNTING_CAUSE_COUNT when absent): what the set-up was, said with what was left out. */
    int64_t setup_idle_ns;
    size_t setup_devices; /* the devices it sums */
    struct analysis_setup_cause {
        enum accounting_cause cause;
        char label[64];
        int64_t ns;
    } setup_causes[2];
};

struct analysis_result {
    struct analysis_lane *lanes;
    size_t lane_count;
    struct analysis_device *devices;
    size_t device_count;
    struct analysis_stream_pair *stream_pairs;
    size_t stream_pair_count;
    struct analysis_wait *waits; /* sorted by lost_ns, largest first */
    size_t wait_count;
    struct analysis_cause_total causes[ANALYSIS_CAUSE_COUNT]; /* sorted by lost_ns, largest first */
    struct analysis_step *steps;
    size_t step_count;
    struct analysis_selection selection; /* what was analyzed (analysis_selection.h) */
    int64_t interval_count;
    /* Trace-wide figures (all devices of all ranks). */
    int64_t total_communication_ns, total_exposed_communication_ns;
    int64_t total_exposed_copy_ns;      /* Σ devices' exposed_copy_ns */
    double communication_overlap_ratio; /* overlapped / communication; 0 when no communication */
    double copy_overlap_ratio;          /* copy time overlapped by compute / copy time */
    int64_t total_lost_ns, total_headroom_ns;
    /* Added after the first contract: */
    int64_t origin_ns;          /* first GPU activity of the trace (all ranks): zero of relative times */
    int64_t wait_total_count;   /* waits found; wait_count of them are kept in waits */
    int64_t device_total_count; /* devices analyzed (= device_count) */
    /* Idle and exposed-communication accounting (accounting.h): per device (step -1) and per
     * device and step, devices in order, each device's whole span first. */
    struct analysis_accounting *accountings;
    size_t accounting_count;
    struct accounting_interval *accounting_intervals; /* time order per device */
    size_t accounting_interval_count;
    struct accounting_straggler straggler;
    char **full_names; /* the storage of the kept waits' ops' full_name, one per kernel name */
    size_t full_name_count;
    int call_sources_known; /* the trace says where in the program its API calls were made */
    struct accounting_instance *collective_instances; /* matched across ranks */
    size_t collective_instance_count;
    struct accounting_unchecked *unchecked; /* causes the trace lacks the data to check */
    size_t unchecked_count;
    /* What-if predictions (whatif.h), one per fix whose cause is proved, largest first; the last
     * is ANALYSIS_FIX_ALL when any is. total_headroom_ns is the "all" saving. */
    struct analysis_what_if what_if[ANALYSIS_FIX_COUNT];
    size_t what_if_count;
    /* Overlap cost (overlap_cost.h): per device and kernel family, devices in order; totals. */
    struct analysis_overlap_cost *overlap_costs;
    size_t overlap_cost_count, overlap_cost_capacity;
    int64_t total_overlap_cost_ns, total_overlap_saved_ns, total_overlap_net_ns;
    /* The steady state analysed by default (options.steady_state with no time chosen); trimmed 0
     * when the whole run was analysed. */
    struct analysis_steady steady;
};

#endif
