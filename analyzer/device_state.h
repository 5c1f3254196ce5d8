/* device_state.h: what the analyzer knows about the one device it is sweeping: its limits, its
 * streams (lanes) with their sweep counters and the last operation each started. Shared by the
 * sweep (metrics) and the explainer (waits); created per device by analysis.c and dropped when
 * the device is done. Memory follows the number of streams, the device's selected operations
 * (selected_ops: read once by the walk, replayed by whatif/ and priced by overlap_cost.c) and its
 * process's correlated host calls (launches: the explainer's launches, the replay's host calls). */
#ifndef OVERLAPSCOPE_DEVICE_STATE_H
#define OVERLAPSCOPE_DEVICE_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis_result.h"
#include "key_index.h"
#include "launches.h"
#include "occupancy.h"
#include "op_source.h"
#include "selection.h"

/* Stream pairs and the busy-stream bit set cover the first 64 streams of a device. */
#define DEVICE_PAIR_LANES 64

/* The explainer looks for what a stream waited on among the streams of the device that started
 * work most recently, at most this many: with more streams per device, a scan of all of them
 * per operation was quadratic (a trace with one stream per kernel: 40k kernels, 13 s).
 * docs/security.md lists the limit; no real device runs this many streams at once. */
#define DEVICE_RECENT_LANES 256

struct lane_state {
    size_t result_lane; /* index into analysis_result.lanes */
    int64_t stream_id;
    int is_legacy_default, is_per_thread_default;
    int selected; /* passes the --stream filter */
    int64_t flags, priority;
    /* Sweep counters, over counted operations, in selected-clock units. */
    int64_t active, busy_since_c, busy_c, interval_count;
    int64_t category_active[ANALYSIS_CATEGORY_COUNT], category_since_c[ANALYSIS_CATEGORY_COUNT],
        category_c[ANALYSIS_CATEGORY_COUNT];
    int has_counted;
    int64_t first_start_ns, last_end_ns;
    /* Explainer state, over every operation read. */
    int has_last;
    struct model_op last;     /* the latest operation started on this stream */
    int last_occupancy_state; /* 0 not computed, 1 computed, -1 not computable */
    struct occupancy_result last_occupancy;
    int64_t previous_end_ns; /* latest end among operations before `last`; INT64_MIN if none */
    uint64_t last_turn;      /* when `last` was set, in operations of the device */
    int is_recent;           /* listed in device_state.recent */
};

/* A hardware channel (queue) of the device: a FIFO that dispatches in the order work was enqueued
 * (gpu-notes: with fewer connections than streams, "a stream's second kernel held back the next
 * stream's first"). Keeps the operation dispatched last on it and the operation before that one on
 * the same stream, which the queue's head waited for. */
struct channel_state {
    int64_t channel_id;
    int is_copy;          /* copy channels are numbered apart from compute channels */
    size_t lane;          /* of `head` */
    struct model_op head; /* the latest operation started on the channel */
    int has_held_by;
    struct model_op held_by; /* head's predecessor on its own stream */
};

/* A selected operation as the walk keeps it for the replay and the overlap cost: what they read
 * of a model_op, its SM footprint worked out as it is kept (whatif_keep_op): 104 bytes where the
 * model_op is 136, one per selected operation of the device (docs/security.md). */
struct kept_op {
    int64_t start_ns, end_ns, correlation_id, stream_id, channel_id;
    int64_t bytes;                          /* copies and memsets; STORE_NULL for kernels */
    int64_t name_id;                        /* kernels; 0 otherwise */
    int64_t grid_blocks, threads_per_block; /* kernels (the overlap cost's twin key); 0 otherwise */
    double sm_share, tail_share;            /* of the device's block slots; 0 when unknown */
    int64_t waves;                          /* 1 when unknown */
    unsigned char kind;                     /* enum model_op_kind */
    unsigned char category;                 /* enum analysis_category, the walk's naming */
    unsigned char pageable;                 /* a copy from or to pageable host memory */
};

struct device_state {
    int64_t process_id, pid, rank, device_id;
    char device_name[64];
    struct occupancy_device limits;
    int limits_known;          /* SM count and per-SM limits are usable */
    int64_t copy_engine_count; /* STORE_NULL when unknown */
    struct lane_state *lanes;
    size_t lane_count, lane_capacity;
    size_t last_lane_hit;
    struct key_index lane_index; /* stream id to lane: a device can hold one stream per kernel */
    /* The DEVICE_RECENT_LANES lanes that started work last, in lane order (the order of a scan
     * of all lanes, so results do not change while a device has no more lanes than that). */
    size_t recent[DEVICE_RECENT_LANES];
    size_t recent_count;
    uint64_t turn;
    struct selection *selection;
    struct channel_state *channels;
    size_t channel_count, channel_capacity;
    struct key_index channel_index; /* (channel id, is copy) to channels[]: an input chooses how many */
    size_t last_channel_hit; /* channel_of's last answer: each op asks it twice, a stream's ops alike */
    int has_last_communication;
    size_t last_communication_lane;
    struct model_op last_communication;        /* the latest NCCL kernel started on the device */
    int64_t lost_ns;                           /* sum of the device's waits */
    int64_t explained_lost_ns;                 /* of waits a change of code could remove */
    int64_t cause_count[ANALYSIS_CAUSE_COUNT]; /* waits proved per cause (the what-if's fixes) */
    /* The operations that overlap the selection, in start order (op_source's), kept by the walk:
     * the replay and the overlap cost read them here instead of reading the rows again. */
    struct kept_op *selected_ops;
    size_t selected_op_count, selected_op_capacity;
    struct launches launches; /* the process's correlated host calls (launches.h) */
};

#endif
