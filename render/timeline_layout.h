/* timeline_layout.h: what a timeline picture holds, for tests and tools: where each lane, text,
 * legend swatch, explained wait and accounting stretch was placed. The scene (scene.h) fills it
 * while painting and timeline_draw hands it to its caller; a header of its own so that the scene
 * does not include the timeline's header, nor the timeline the scene's insides. Positions are in
 * CSS pixels (multiply by scale for the PNG's pixels). */
#ifndef OVERLAPSCOPE_TIMELINE_LAYOUT_H
#define OVERLAPSCOPE_TIMELINE_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

struct timeline_box {
    double x, y, width, height;
};

enum timeline_lane_kind {
    TIMELINE_LANE_GPU,
    TIMELINE_LANE_HOST,
    TIMELINE_LANE_NVTX,
    TIMELINE_LANE_CONCURRENCY,
    TIMELINE_LANE_ACCOUNTING /* a device's idle causes and exposed communication */
};

struct timeline_lane_place {
    enum timeline_lane_kind kind;
    int64_t process_id, rank, device_id, stream_id, thread_id, depth;
    struct timeline_box box; /* the lane's drawing area (plot part) */
    char title[96];          /* "stream 13 · NCCL" */
};

enum timeline_text_kind {
    TIMELINE_TEXT_TITLE,
    TIMELINE_TEXT_LEGEND,
    TIMELINE_TEXT_AXIS,
    TIMELINE_TEXT_GROUP,
    TIMELINE_TEXT_LANE,
    TIMELINE_TEXT_INTERVAL,
    TIMELINE_TEXT_WAIT,
    TIMELINE_TEXT_ACCOUNTING /* the cause of a run of idle or exposed-communication stretches */
};

struct timeline_text {
    enum timeline_text_kind kind;
    struct timeline_box box;
    char text[256];
};

struct timeline_swatch {
    struct timeline_box box;
    uint32_t rgb; /* 0xRRGGBB of the swatch's fill (the hatch swatch: its stripe colour) */
    int hatched;  /* striped like a wait: no one colour fills it */
    char name[48];
};

struct timeline_wait_mark {
    struct timeline_box box; /* the hatched window on the waiting lane */
    size_t wait_index;       /* index into analysis_result.waits */
    int has_tag, has_connector;
};

/* How a stretch of a device's idle, exposed-communication or exposed-copy time is drawn on its
 * accounting lane (exposed copies in the copy's bluish green, hatched):
 * the host blocked in a synchronizing call hatched like a wait, other idle causes pale, exposed
 * communication in NCCL's colour, hatched; the host-sample verdicts of host-cpu time each in a colour
 * of its own (waiting for the loader, the thread's own work, a lock or GIL wait, hatched). */
enum timeline_accounting_style {
    TIMELINE_IDLE_HOST_BLOCKED,
    TIMELINE_IDLE_OTHER,
    TIMELINE_EXPOSED_COMMUNICATION,
    /* host-cpu time a host-sample verdict named (causes.def picture column) */
    TIMELINE_IDLE_DATA_LOADING,
    TIMELINE_IDLE_HOST_WORK,
    TIMELINE_IDLE_LOCK_WAIT,
    /* copy time with no kernel running: the SMs waited for a copy (causes.def picture column) */
    TIMELINE_EXPOSED_COPY,
    TIMELINE_ACCOUNTING_STYLE_COUNT
};

struct timeline_accounting_mark {
    struct timeline_box box; /* the stretch on its device's accounting lane, exactly (not widened) */
    size_t interval_index;   /* index into analysis_result.accounting_intervals */
    enum timeline_accounting_style style;
};

struct timeline_layout {
    int width_px, height_px;
    int from_overview;            /* the GPU lanes came from the trace's overview (overview.h) */
    double scale;                 /* PNG pixels per CSS pixel (dpi / 96) */
    double plot_left, plot_right; /* where window_start_ns and window_end_ns fall */
    int64_t window_start_ns, window_end_ns, origin_ns;
    int64_t tick_step_ns;
    struct timeline_lane_place *lanes;
    size_t lane_count;
    struct timeline_text *texts;
    size_t text_count;
    struct timeline_swatch *legend;
    size_t legend_count;
    struct timeline_wait_mark *waits;
    size_t wait_count;
    struct timeline_accounting_mark *accounting_marks; /* time order per device */
    size_t accounting_mark_count;
};

/* x (CSS pixels) of a time on the picture. */
double timeline_layout_x(const struct timeline_layout *layout, int64_t time_ns);
void timeline_layout_free(struct timeline_layout *layout);

#endif
