/* chrome_analysis.c: the analyzer's findings as Chrome trace events (see chrome_writer.h): each
 * wait as a slice on the waiting stream with an arrow from what it waited for, and each device's
 * time accounting (idle causes, exposed communication) as slices on a track of its own. */
#include "chrome_writer.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_name.h"
#include "naming.h"
#include "text_safe.h"
#include "units.h"

#include "call_source.h"
#include "describe.h"

/* --- the analyzer's waits --- */

struct wait_order {
    const struct analysis_wait *wait;
    int64_t process_id, device_id;
};

static int compare_waits(const void *left, const void *right)
{
    const struct wait_order *a = left, *b = right;
    if (a->process_id != b->process_id)
        return a->process_id < b->process_id ? -1 : 1;
    if (a->device_id != b->device_id)
        return a->device_id < b->device_id ? -1 : 1;
    if (a->wait->wait_start_ns != b->wait->wait_start_ns)
        return a->wait->wait_start_ns < b->wait->wait_start_ns ? -1 : 1;
    return a->wait->wait_end_ns > b->wait->wait_end_ns ? -1 : a->wait->wait_end_ns < b->wait->wait_end_ns;
}

/* The exported slice of a GPU op the analyzer cites: its track and times; 0 when it has none. */
static int op_slice(struct chrome_writer *w, const struct analysis_op *op, int64_t *tid, int64_t *start,
                    int64_t *end)
{
    const struct analysis_lane *lane = &w->analysis->lanes[op->lane];
    *start = op->start_ns;
    *end = op->end_ns;
    if (!chrome_clip_interval(w, start, end, ROW_SLICE))
        return 0;
    struct chrome_track_key key = {lane->process_id, CHROME_TRACK_STREAM, lane->device_id, lane->stream_id};
    *tid = chrome_tracks_find(w->tracks, &key, *start, *end);
    return *tid != 0;
}

/* blocking op -> the wait's slice -> waiting op. A flow's points must come in time order (viewers
 * read them sorted by time), each inside its slice: the middle of each, moved earlier or later
 * where the order needs it. */
static void write_wait_arrow(struct chrome_writer *w, const struct analysis_wait *wait, int64_t process,
                             int64_t wait_tid, int64_t wait_start, int64_t wait_end)
{
    int64_t blocking_tid, blocking_start, blocking_end, waiting_tid, waiting_start, waiting_end;
    if (!op_slice(w, &wait->blocking, &blocking_tid, &blocking_start, &blocking_end) ||
        !op_slice(w, &wait->waiting, &waiting_tid, &waiting_start, &waiting_end)) {
        w->counts.waits_without_arrow++;
        return;
    }
    int64_t at_waiting = chrome_middle(waiting_start, waiting_end);
    int64_t at_wait = chrome_middle(wait_start, wait_end);
    at_wait = at_wait > at_waiting ? at_waiting : at_wait;
    at_wait = at_wait < wait_start ? wait_start : at_wait;
    at_waiting = at_waiting < at_wait ? at_wait : at_waiting;
    int64_t at_blocking = chrome_middle(blocking_start, blocking_end);
    at_blocking = at_blocking > at_wait ? at_wait : at_blocking;
    if (at_waiting > waiting_end || at_blocking < blocking_start) {
        w->counts.waits_without_arrow++;
        return;
    }
    const char *tag = analysis_cause_tag(wait->cause);
    const struct analysis_lane *blocking_lane = &w->analysis->lanes[wait->blocking.lane];
    int64_t id = ++w->next_flow_id;
    chrome_emit_flow_point(w, 's', "wait", tag, id, blocking_lane->process_id, blocking_tid, at_blocking);
    chrome_emit_flow_point(w, 't', "wait", tag, id, process, wait_tid, at_wait);
    chrome_emit_flow_point(w, 'f', "wait", tag, id, process, waiting_tid, at_waiting);
    w->counts.wait_arrows++;
}

static void emit_op_args(struct chrome_writer *w, const char *role, const struct analysis_op *op)
{
    char key[32];
    chrome_emit_key(w, role);
    chrome_emit_string(w, op->name, CHROME_EXPORT_NAME_BYTES, 0);
    snprintf(key, sizeof key, "%s stream", role);
    chrome_emit_int(w, key, w->analysis->lanes[op->lane].stream_id);
}

/* One wait: a slice on its device's waits track named by its cause. */
static int write_wait(struct chrome_writer *w, const struct wait_order *item)
{
    const struct analysis_wait *wait = item->wait;
    int64_t start = wait->wait_start_ns, end = wait->wait_end_ns, tid;
    if (!chrome_clip_slice(w, &start, &end, ANALYSIS_SLICE))
        return 0;
    if (chrome_place(w, (struct chrome_track_key){item->process_id, CHROME_TRACK_WAITS, item->device_id, 0},
                     start, end, &tid) != 0)
        return -1;
    char lost[32];
    chrome_begin_slice(w, "wait", analysis_cause_title(wait->cause), 0, item->process_id, tid, start, end);
    chrome_emit_key(w, "cause");
    chrome_emit_string(w, analysis_cause_tag(wait->cause), CHROME_EXPORT_NAME_BYTES, 0);
    chrome_emit_key(w, "lost");
    chrome_emit_string(w, units_format_duration(lost, sizeof lost, wait->lost_ns), CHROME_EXPORT_NAME_BYTES,
                       0);
    chrome_emit_int(w, "lost_ns", wait->lost_ns);
    chrome_emit_key(w, "evidence");
    chrome_emit_string(w, wait->evidence, CHROME_EXPORT_TEXT_BYTES, 0);
    emit_op_args(w, "waiting", &wait->waiting);
    emit_op_args(w, "blocking", &wait->blocking);
    chrome_end_event(w);
    w->counts.wait_slices++;
    write_wait_arrow(w, wait, item->process_id, tid, start, end);
    return 0;
}

int chrome_write_waits(struct chrome_writer *w)
{
    const struct analysis_result *analysis = w->analysis;
    if (!analysis || analysis->wait_count == 0)
        return 0;
    struct wait_order *order = malloc(analysis->wait_count * sizeof *order);
    if (!order)
        return chrome_out_of_memory(w);
    for (size_t i = 0; i < analysis->wait_count; i++) {
        const struct analysis_lane *lane = &analysis->lanes[analysis->waits[i].waiting.lane];
        order[i] = (struct wait_order){&analysis->waits[i], lane->process_id, lane->device_id};
    }
    qsort(order, analysis->wait_count, sizeof *order, compare_waits);
    int status = 0;
    for (size_t i = 0; status == 0 && i < analysis->wait_count; i++) {
        w->rows++;
        status = write_wait(w, &order[i]);
        if (status == 0)
            status = chrome_check_bound(w);
    }
    free(order);
    return status;
}

/* --- the analyzer's time accounting (issue 16) --- */

/* The device's whole-span entry an interval went to (its cause and label), and whether it is the
 * only one: a blocking call seen at several places of the program has one entry per place, and
 * the interval does not say which. NULL when none (a step-only stretch). */
static const struct accounting_entry *interval_entry(const struct chrome_writer *w,
                                                     const struct accounting_interval *interval, int *only)
{
    const struct analysis_result *analysis = w->analysis;
    const struct accounting_entry *found = NULL;
    *only = 0;
    size_t first = 0, end = analysis->accounting_count;
    if (w->whole_of) { /* its one whole-span accounting, not a scan of every step's */
        first = w->whole_of[interval->device];
        end = first == SIZE_MAX ? first : first + 1;
    }
    for (size_t a = first; a < end; a++) {
        const struct analysis_accounting *books = &analysis->accountings[a];
        if (books->device != interval->device || books->step != -1)
            continue;
        const struct accounting_breakdown *breakdown =
            accounting_cause_is_idle(interval->cause)   ? &books->idle
            : accounting_cause_is_copy(interval->cause) ? &books->exposed_copy
                                                        : &books->exposed_communication;
        for (size_t e = 0; e < breakdown->entry_count; e++) {
            const struct accounting_entry *entry = &breakdown->entries[e];
            if (entry->cause != interval->cause || strcmp(entry->label, interval->label) != 0)
                continue;
            *only = !found;
            if (!found)
                found = entry; /* entries come largest first */
        }
    }
    return found;
}

/* Where a device's idle, exposed-communication and exposed-copy time went: one slice per stretch of one cause
 * (accounting.h; the analyzer keeps the earliest ACCOUNTING_MAX_INTERVALS), named as the picture
 * names it ("idle: host blocked in cudaDeviceSynchronize", "exposed comm: waiting for rank 0"),
 * on the device's "idle causes", "exposed communication" or "exposed copies" track, with the cause's
 * evidence in args. Stretches of one kind never overlap on a device (idle: nothing ran; exposed
 * communication: NCCL ran without compute; exposed copy: a copy ran with no kernel), so each track
 * is strict. */
static int write_accounting_interval(struct chrome_writer *w, const struct accounting_interval *interval)
{
    const struct analysis_device *device = &w->analysis->devices[interval->device];
    int64_t start = interval->start_ns, end = interval->end_ns, tid;
    if (!chrome_clip_slice(w, &start, &end, ANALYSIS_SLICE))
        return 0;
    /* idle, exposed communication or exposed copy: its track, its slices' prefix and category */
    static const struct {
        enum chrome_track_kind track;
        const char *prefix, *kind, *quoted;
    } kinds[] = {
        {CHROME_TRACK_IDLE, "idle", "idle", "\"idle\""},
        {CHROME_TRACK_EXPOSED_COMM, "exposed comm", "exposed communication", "\"exposed communication\""},
        {CHROME_TRACK_EXPOSED_COPY, "exposed copy", "exposed copy", "\"exposed copy\""}};
    int which = accounting_cause_is_idle(interval->cause)   ? 0
                : accounting_cause_is_copy(interval->cause) ? 2
                                                            : 1;
    struct chrome_track_key key = {device->process_id, kinds[which].track, device->device_id, 0};
    if (chrome_place(w, key, start, end, &tid) != 0)
        return -1;
    char what[160], name[192], total[32];
    naming_accounting(what, sizeof what, interval->cause, interval->label);
    snprintf(name, sizeof name, "%s: %s", kinds[which].prefix, what);
    chrome_begin_slice(w, kinds[which].kind, name, 0, device->process_id, tid, start, end);
    chrome_emit_key(w, "cause");
    chrome_emit_string(w, accounting_cause_tag(interval->cause), CHROME_EXPORT_NAME_BYTES, 0);
    chrome_emit_key(w, "kind");
    chrome_emit(w, kinds[which].quoted);
    if (interval->label[0]) {
        chrome_emit_key(w, "label");
        chrome_emit_string(w, interval->label, CHROME_EXPORT_NAME_BYTES, 0);
    }
    int only = 0;
    const struct accounting_entry *entry = interval_entry(w, interval, &only);
    if (entry) {
        chrome_emit_key(w, "cause total");
        chrome_emit_string(w, units_format_duration(total, sizeof total, entry->ns), CHROME_EXPORT_NAME_BYTES,
                           0);
        chrome_emit_int(w, "cause count", entry->count);
        chrome_emit_key(w, "evidence");
        chrome_emit_string(w, entry->evidence, CHROME_EXPORT_TEXT_BYTES, 0);
        if (only && entry->source[0]) {
            /* a person reads it in the viewer: a native symbol demangled, as the report shows it */
            char *source = call_source_readable(entry->source, CALL_SOURCE_FULL);
            chrome_emit_key(w, "source");
            chrome_emit_string(w, source ? source : entry->source, CHROME_EXPORT_NAME_BYTES, 0);
            free(source);
        }
    }
    chrome_end_event(w);
    return 0;
}

static int compare_intervals(const void *left, const void *right)
{
    const struct accounting_interval *a = *(const struct accounting_interval *const *)left;
    const struct accounting_interval *b = *(const struct accounting_interval *const *)right;
    if (a->device != b->device)
        return a->device < b->device ? -1 : 1;
    if (a->start_ns != b->start_ns)
        return a->start_ns < b->start_ns ? -1 : 1;
    return a->end_ns > b->end_ns ? -1 : a->end_ns < b->end_ns;
}

/* The analyzer lists a device's idle stretches and its exposed ones apart: in one time order they
 * share one track. */
int chrome_write_accounting(struct chrome_writer *w)
{
    const struct analysis_result *analysis = w->analysis;
    if (!analysis || analysis->accounting_interval_count == 0)
        return 0;
    const struct accounting_interval **order = malloc(analysis->accounting_interval_count * sizeof *order);
    if (!order)
        return chrome_out_of_memory(w);
    size_t count = 0;
    for (size_t i = 0; i < analysis->accounting_interval_count; i++)
        if (analysis->accounting_intervals[i].device < analysis->device_count)
            order[count++] = &analysis->accounting_intervals[i];
    qsort(order, count, sizeof *order, compare_intervals);
    /* Each device's whole-span accounting found once (an interval's cause total is read there):
     * a scan of every device's every step per interval was quadratic in steps. Where a device has
     * more than one (none does today), the scan stays. */
    size_t *whole_of = malloc((analysis->device_count ? analysis->device_count : 1) * sizeof *whole_of);
    if (!whole_of) {
        free(order);
        return chrome_out_of_memory(w);
    }
    int unique = 1;
    for (size_t d = 0; d < analysis->device_count; d++)
        whole_of[d] = SIZE_MAX;
    for (size_t a = 0; a < analysis->accounting_count; a++) {
        const struct analysis_accounting *books = &analysis->accountings[a];
        if (books->step != -1 || books->device >= analysis->device_count)
            continue;
        unique &= whole_of[books->device] == SIZE_MAX;
        whole_of[books->device] = a;
    }
    w->whole_of = unique ? whole_of : NULL;
    int status = 0;
    for (size_t i = 0; status == 0 && i < count; i++) {
        w->rows++;
        status = write_accounting_interval(w, order[i]);
        if (status == 0)
            status = chrome_check_bound(w);
    }
    w->whole_of = NULL;
    free(whole_of);
    free(order);
    return status;
}
