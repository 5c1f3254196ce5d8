/* predict.c: what each fix would save (whatif.h): the driver of one device's what-if
 * (whatif_device: builds the model with load.c, graph.c and host_time.c, replays it as recorded and
 * with each proved fix, engine.c, and with the pipelined fix's split streams, pipeline.c), the
 * fixes that apply and the spans already replayed, "all of the above", and the trace's what-if
 * list (whatif_collect) with the public analysis_what_if_* questions on it. Memory: the device's
 * operations and its process's host calls (bounded by WHATIF_MAX_OPS). */
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "graph.h"
#include "host_time.h"
#include "launch_blocking.h"
#include "load.h"
#include "pipeline.h"
#include "whatif.h"

static int fix_proved(const struct device_state *device, enum analysis_fix fix)
{
    for (int cause = 0; cause < ANALYSIS_CAUSE_COUNT; cause++)
        if (analysis_cause_fix((enum analysis_cause)cause) == fix && device->cause_count[cause] > 0)
            return 1;
    return 0;
}

/* The fixes the replay changes something for; the "none" fixes only say so. */
static int fix_replayed(enum analysis_fix fix)
{
    return fix != ANALYSIS_FIX_NONE_SATURATED && fix != ANALYSIS_FIX_NONE_COPY_ENGINE &&
           fix != ANALYSIS_FIX_PIPELINE && fix != ANALYSIS_FIX_ALL;
}

/* The fixes that change something in replay: a fix whose inputs the device lacks (no pageable
 * copy, no legacy-stream edge, no NCCL kernel, ...) replays exactly as recorded, so its span is the
 * recorded one and is not replayed again. */
static unsigned fixes_that_apply(const struct replay *replay)
{
    unsigned applies = 0;
    for (size_t i = 0; i < replay->op_count; i++) {
        const struct replay_op *op = &replay->ops[i];
        applies |= (op->pageable ? FIX_BIT(ANALYSIS_FIX_PIN_HOST_BUFFER) : 0) |
                   (op->channel_previous >= 0 ? FIX_BIT(ANALYSIS_FIX_MORE_CONNECTIONS) : 0) |
                   (op->category == ANALYSIS_COMMUNICATION ? FIX_BIT(ANALYSIS_FIX_PRIORITY) : 0) |
                   (op->ahead_ns > 0 ? FIX_BIT(ANALYSIS_FIX_COPY_AHEAD) : 0);
    }
    for (size_t e = 0; e < replay->edge_count; e++)
        applies |= replay->edges[e].kind == EDGE_EVENT          ? FIX_BIT(ANALYSIS_FIX_REMOVE_DEPENDENCY)
                   : replay->edges[e].kind == EDGE_COMMUNICATOR ? FIX_BIT(ANALYSIS_FIX_OWN_COMMUNICATOR)
                                                                : FIX_BIT(ANALYSIS_FIX_NON_BLOCKING_STREAMS);
    for (size_t c = 0; c < replay->call_count; c++)
        applies |=
            (replay->calls[c].kind & CALL_SYNC ? FIX_BIT(ANALYSIS_FIX_REMOVE_HOST_SYNC) : 0) |
            (replay->calls[c].kind & CALL_LAUNCH ? FIX_BIT(ANALYSIS_FIX_CUDA_GRAPH) : 0) |
            (replay->calls[c].kind & CALL_BLOCKED_LAUNCH ? FIX_BIT(ANALYSIS_FIX_UNSET_LAUNCH_BLOCKING) : 0);
    if (replay->host_removed_count > 0)
        applies |= FIX_BIT(ANALYSIS_FIX_HOST_WORK);
    return applies;
}

/* The spans replayed for one device, by replay (the recorded streams or the split ones) and the
 * fixes that apply: fixes that change nothing, and sets of fixes met twice ("all of the above"
 * with the idle fixes that add nothing), cost no second replay. */
struct spans {
    const struct replay *replay, *split; /* split: NULL when the pipelined fix does not apply */
    unsigned replay_applies, split_applies;
    struct replay_scratch *scratch; /* the buffers every replay of the device reuses */
    struct {
        const struct replay *replay;
        unsigned fixes;
        int64_t span, together;
    } known[2 * ANALYSIS_FIX_COUNT];
    size_t known_count;
    int64_t together;          /* of the span span_of gave last */
    int64_t recorded_together; /* of the replay as recorded */
};

/* engine_replay_span of `which` (spans->replay or spans->split) with the fixes. */
static int64_t span_of(struct spans *spans, const struct replay *which, unsigned fixes)
{
    fixes &= which == spans->split ? spans->split_applies : spans->replay_applies;
    for (size_t k = 0; k < spans->known_count; k++)
        if (spans->known[k].replay == which && spans->known[k].fixes == fixes) {
            spans->together = spans->known[k].together;
            return spans->known[k].span;
        }
    int64_t span = engine_replay_span(which, fixes, spans->scratch, &spans->together);
    if (span >= 0 && spans->known_count < sizeof spans->known / sizeof spans->known[0]) {
        spans->known[spans->known_count].replay = which;
        spans->known[spans->known_count].fixes = fixes;
        spans->known[spans->known_count].together = spans->together;
        spans->known[spans->known_count++].span = span;
    }
    return span;
}

/* Replay bound, in ops x streams: a device past it is not replayed (whatif.h). Set when each start
 * scanned every stream head; the replay is event-driven now, but the bound decides which devices
 * get a what-if, so it stays as it was. */
#define WHATIF_MAX_WORK 400000000.0

/* The time kernels run side by side in the replay span_of gave last, beyond the replay as recorded. */
static int64_t newly_together(const struct spans *spans)
{
    return spans->together > spans->recorded_together ? spans->together - spans->recorded_together : 0;
}

/* fixed: the span span_of gave last. */
static int note_saving(struct analysis_device *out, const struct spans *spans, enum analysis_fix fix,
                       int64_t recorded, int64_t fixed)
{
    if (fixed < 0)
        return WHATIF_OUT_OF_MEMORY;
    out->fix_saving_ns[fix] = recorded > fixed ? recorded - fixed : 0;
    out->fix_together_ns[fix] = newly_together(spans);
    out->fixes_modelled |= FIX_BIT(fix);
    return 0;
}

/* The fixes idle time and exposed copies prove (docs/metrics.md, "Idle time", "Exposed copies"):
 * host-sync gaps ask for the sync removed, launch-bound gaps for a CUDA graph, host-cpu gaps for
 * the host's own work moved off the launching thread, copies from pageable memory with no kernel
 * running for pinned memory, and they and copies on the compute stream for copying ahead. */
static unsigned idle_fixes_proved(const struct device_idle *idle)
{
    /* Time between steps counts as the cause it would have had inside one (a host synchronization
     * at every step's end is a step-end stretch, and removing it is still the fix). */
    int64_t idle_ns[ACCOUNTING_CAUSE_COUNT];
    for (int cause = 0; cause < ACCOUNTING_CAUSE_COUNT; cause++)
        idle_ns[cause] = idle->ns[cause] + idle->between_steps_ns[cause];
    /* The host-sample verdicts of host-cpu time (data-loading, python-work, ...) ask for its fix too:
     * the fix of an idle cause is its row's (causes.def). */
    unsigned fixes = (idle_ns[ACCOUNTING_IDLE_HOST_SYNC] > 0 ? FIX_BIT(ANALYSIS_FIX_REMOVE_HOST_SYNC) : 0) |
                     (idle_ns[ACCOUNTING_IDLE_LAUNCH_BOUND] > 0 ? FIX_BIT(ANALYSIS_FIX_CUDA_GRAPH) : 0) |
                     (idle_ns[ACCOUNTING_COPY_PAGEABLE] > 0 ? FIX_BIT(ANALYSIS_FIX_PIN_HOST_BUFFER) : 0) |
                     (idle_ns[ACCOUNTING_COPY_PAGEABLE] > 0 || idle_ns[ACCOUNTING_COPY_SAME_STREAM] > 0
                          ? FIX_BIT(ANALYSIS_FIX_COPY_AHEAD)
                          : 0);
    for (int cause = 0; cause < ACCOUNTING_CAUSE_COUNT; cause++)
        if (idle_ns[cause] > 0 &&
            accounting_cause_fix((enum accounting_cause)cause) == ANALYSIS_FIX_HOST_WORK)
            fixes |= FIX_BIT(ANALYSIS_FIX_HOST_WORK);
    return fixes;
}

/* The copy time the SMs waited for that copying ahead hides: each pinned HtoD copy on a computing
 * stream up to the compute of the step before it (ahead_ns), at most the exposed copy time of the
 * computing streams (the accounting's same-stream figure). The replay keeps the traced host's
 * speed, and a traced loop is often host-bound where the same loop untraced is not: the copy is
 * then hidden under late launches in replay, yet measured it is not (torch_copy_pinned: the replay
 * found no gain, the prefetching program ran 9.1% faster, this figure says 9.1%). As with the
 * removed skew, the accounting's figure is the floor of the prediction. */
static int64_t copy_hidden_ns(const struct replay *replay, const struct device_idle *idle)
{
    int64_t hidden = 0;
    for (size_t i = 0; i < replay->op_count; i++) {
        const struct replay_op *op = &replay->ops[i];
        if (op->ahead_ns > 0 && !op->pageable)
            hidden += op->duration_ns < op->ahead_ns ? op->duration_ns : op->ahead_ns;
    }
    int64_t exposed = idle->ns[ACCOUNTING_COPY_SAME_STREAM];
    return hidden < exposed ? hidden : exposed;
}

/* split: the replay with the pipelined fix's streams, NULL when it does not apply. idle_proved: the
 * fixes the device's idle time proves (idle_fixes_proved); hidden: copy_hidden_ns. */
static int predict(const struct replay *replay, const struct replay *split, const struct device_state *device,
                   unsigned idle_proved, int64_t hidden, struct replay_scratch *scratch,
                   struct analysis_device *out)
{
    struct spans spans = {.replay = replay,
                          .split = split,
                          .scratch = scratch,
                          .replay_applies = fixes_that_apply(replay),
                          .split_applies = split ? fixes_that_apply(split) : 0};
    int64_t recorded = span_of(&spans, replay, 0);
    if (recorded < 0)
        return WHATIF_OUT_OF_MEMORY;
    spans.recorded_together = spans.together;
    out->replay_span_ns = recorded;
    unsigned all = 0, idle = 0;
    int any = split != NULL;
    for (int fix = 0; fix < ANALYSIS_FIX_ALL; fix++) {
        int by_waits = fix_proved(device, (enum analysis_fix)fix);
        if (!by_waits && !(idle_proved & FIX_BIT(fix)))
            continue;
        if (!fix_replayed((enum analysis_fix)fix)) {
            out->fixes_modelled |= FIX_BIT(fix); /* nothing to gain: said with a saving of 0 */
            continue;
        }
        if (fix == ANALYSIS_FIX_COPY_AHEAD && !(spans.replay_applies & FIX_BIT(fix)))
            continue; /* no copy a step could hide: not said (a side stream's copies are ahead already) */
        if (note_saving(out, &spans, (enum analysis_fix)fix, recorded,
                        span_of(&spans, replay, FIX_BIT(fix))) != 0)
            return WHATIF_OUT_OF_MEMORY;
        if (fix == ANALYSIS_FIX_COPY_AHEAD && out->fix_saving_ns[fix] < hidden)
            out->fix_saving_ns[fix] = hidden;
        if (!by_waits)
            idle |= FIX_BIT(fix);
        else if (fix != ANALYSIS_FIX_REMOVE_DEPENDENCY) {
            all |= FIX_BIT(fix);
            any = 1;
        }
    }
    if (split && note_saving(out, &spans, ANALYSIS_FIX_PIPELINE, recorded, span_of(&spans, split, 0)) != 0)
        return WHATIF_OUT_OF_MEMORY;
    /* "All of the above" is the better of the waits' fixes together and those with the fixes idle
     * time proves added: a removed sync moves launches a priority then holds back, so the larger
     * set can replay longer. Only proved fixes: with every idle fix, pipeline_serial's "all" removed
     * a host sync nothing proved (its final cudaDeviceSynchronize and copies) and promised 66% of
     * the span. A set that changes nothing in the replay costs no replay (span_of). */
    int64_t together = 0, saving = 0;
    int with_host_work = 0; /* the "all" chosen has the host-work fix in it */
    if (any) {
        if (note_saving(out, &spans, ANALYSIS_FIX_ALL, recorded,
                        span_of(&spans, split ? split : replay, all)) != 0)
            return WHATIF_OUT_OF_MEMORY;
        saving = out->fix_saving_ns[ANALYSIS_FIX_ALL];
        together = out->fix_together_ns[ANALYSIS_FIX_ALL];
    }
    if (idle) {
        int64_t fixed = span_of(&spans, split ? split : replay, all | idle);
        if (fixed < 0)
            return WHATIF_OUT_OF_MEMORY;
        if (!any || recorded - fixed > saving) {
            saving = recorded > fixed ? recorded - fixed : 0;
            together = newly_together(&spans);
            with_host_work = (idle & FIX_BIT(ANALYSIS_FIX_HOST_WORK)) != 0;
        }
        all |= idle;
        out->fixes_modelled |= FIX_BIT(ANALYSIS_FIX_ALL);
    }
    /* The fixes together may replay worse than one of them alone (a priority that puts NCCL first
     * holds back a kernel that needed the whole device): making only that one is also "all of the
     * above" a user can reach. */
    /* A fix that alone gives as much as a set with the host-work fix is "all" without that bound
     * (a CUDA graph of a PyTorch step removes the host's time the host-work fix would too). */
    for (int fix = 0; fix < ANALYSIS_FIX_ALL; fix++)
        if (((all & FIX_BIT(fix)) || (fix == ANALYSIS_FIX_PIPELINE && split)) &&
            (out->fix_saving_ns[fix] > saving || (with_host_work && fix != ANALYSIS_FIX_HOST_WORK &&
                                                  saving > 0 && out->fix_saving_ns[fix] == saving))) {
            saving = out->fix_saving_ns[fix];
            together = out->fix_together_ns[fix];
            with_host_work = fix == ANALYSIS_FIX_HOST_WORK;
        }
    out->all_includes_host_work = with_host_work;
    out->fix_saving_ns[ANALYSIS_FIX_ALL] = saving;
    out->fix_together_ns[ANALYSIS_FIX_ALL] = together;
    out->headroom_ns = saving;
    return 0;
}

/* Whether a replay of the device removes a sync: the fix proved (predict) and a sync to remove. */
static int removes_syncs(const struct replay *replay, const struct device_state *device,
                         const struct device_idle *idle)
{
    if (!fix_proved(device, ANALYSIS_FIX_REMOVE_HOST_SYNC) &&
        !(idle_fixes_proved(idle) & FIX_BIT(ANALYSIS_FIX_REMOVE_HOST_SYNC)))
        return 0;
    for (size_t c = 0; c < replay->call_count; c++)
        if (replay->calls[c].kind & CALL_SYNC)
            return 1;
    return 0;
}

int whatif_device(sqlite3 *db, struct device_state *device, const struct device_idle *idle,
                  const struct analysis_step *steps, size_t step_count, struct analysis_device *out,
                  error_info *err)
{
    struct replay replay = {0};
    struct stream_wait *waits = NULL;
    size_t wait_count = 0;
    error_info read_error = {0}; /* a damaged table leaves the device without a replay */
    int status = host_time_work_removals(&replay, idle);
    if (status == 0)
        status = load_host_calls(db, &replay, device, &read_error);
    launches_free(&device->launches); /* copied into the replay's calls: no one reads them after */
    if (status == 0)
        status = load_ops(&replay, device);
    if (status == 0)
        status = host_time_join_timelines(&replay);
    if (status == 0)
        status = host_time_order_calls(&replay);
    if (status == 0)
        status = host_time_graph_gaps(&replay, device->process_id, steps, step_count);
    host_time_first_launch(&replay);
    if (status == 0)
        launch_blocking_mark(&replay);
    if (status == 0 && replay.op_count > 0) {
        if (graph_link_by(&replay, 0) != 0 || graph_link_by(&replay, 1) != 0 ||
            graph_add_legacy_edges(&replay, device) != 0 || load_keep_allocations_that_waited(&replay) != 0)
            status = WHATIF_OUT_OF_MEMORY;
        else
            status = graph_load_waits(db, device->process_id, &waits, &wait_count, &read_error);
        if (status == 0)
            status = graph_add_event_edges(db, &replay, device->process_id, waits, wait_count, &read_error);
        if (status == 0) {
            graph_index_edges(&replay);
            load_nominal_speeds(&replay, device);
            load_copy_ahead(&replay);
            status = host_time_positions(&replay); /* after the last change of a call's kind */
        }
        if (status == 0 && removes_syncs(&replay, device, idle)) {
            status = host_time_mark_drained_starts(&replay);
            host_time_sync_split(&replay, &out->sync_calls, &out->sync_wait_ns, &out->sync_host_ns,
                                 &out->sync_wrapper_ns);
        }
        if (status == 0) {
            struct replay split = {0};
            int has_split = 0;
            if ((double)replay.op_count * (double)(replay.stream_count + 1) <= WHATIF_MAX_WORK) {
                has_split = pipeline_split_streams(db, &replay, device->process_id, waits, wait_count, &split,
                                                   &read_error);
                struct replay_scratch *scratch = engine_scratch_new();
                status = has_split == WHATIF_OUT_OF_MEMORY || !scratch
                             ? WHATIF_OUT_OF_MEMORY
                             : predict(&replay, has_split > 0 ? &split : NULL, device,
                                       idle_fixes_proved(idle), copy_hidden_ns(&replay, idle), scratch, out);
                engine_scratch_free(scratch);
            }
            replay_free_ops(&split); /* its host side is replay's */
        }
    }
    replay_free(&replay);
    free(waits);
    return status == WHATIF_OUT_OF_MEMORY ? error_set(err, "out of memory") : 0;
}

/* A device's saving by removing the host's synchronizations when that takes its kernels, busy at
 * least SUSTAINED_BUSY_NS, from under 90% of its replayed span to at least 95% of what is left of
 * it: the GPU then computes without a break, and its clocks fall under sustained load
 * (analysis_what_if_bound); else 0. A device already that busy as recorded ran at those clocks, so
 * its prediction stands; a few milliseconds of work heat nothing (the H200's GEMM slowed over its
 * first 60 steps back to back, 80 ms). Only that fix: the syncs are what gave such a GPU its breaks
 * (empty_cache's loop); a CUDA graph of a launch-bound loop packs short kernels, whose speed held
 * (torch_graph_eager's pair). */
#define SUSTAINED_BUSY_NS 20000000
static int64_t sustained_saving_ns(const struct analysis_device *device, int64_t saving)
{
    int64_t span = device->replay_span_ns;
    if (saving <= 0 || span <= saving || device->kernel_busy_ns < SUSTAINED_BUSY_NS ||
        device->kernel_busy_ns * 10 >= span * 9)
        return 0;
    return device->kernel_busy_ns * 100 >= (span - saving) * 95 ? saving : 0;
}

/* A part of a saving this large makes it an upper bound (analysis_what_if_bound). */
static int large_part(int64_t part, int64_t saving)
{
    return saving > 0 && part >= 50000 && part * 10 >= saving;
}

enum analysis_bound analysis_what_if_bound(const struct analysis_what_if *item)
{
    if (large_part(item->newly_together_ns, item->predicted_saving_ns))
        return ANALYSIS_BOUND_SIDE_BY_SIDE;
    if (large_part(item->host_work_ns, item->predicted_saving_ns))
        return ANALYSIS_BOUND_ALL_HOST_WORK;
    if (large_part(item->sustained_ns, item->predicted_saving_ns))
        return ANALYSIS_BOUND_SUSTAINED;
    return ANALYSIS_BOUND_NONE;
}

int analysis_what_if_upper_bound(const struct analysis_what_if *item)
{
    return analysis_what_if_bound(item) != ANALYSIS_BOUND_NONE;
}

int64_t analysis_device_host_work_ns(const struct analysis_device *device, enum analysis_fix fix)
{
    int in_it = fix == ANALYSIS_FIX_HOST_WORK || (fix == ANALYSIS_FIX_ALL && device->all_includes_host_work);
    return in_it && (device->fixes_modelled & FIX_BIT(ANALYSIS_FIX_HOST_WORK))
               ? device->fix_saving_ns[ANALYSIS_FIX_HOST_WORK]
               : 0;
}

const char *analysis_what_if_basis(const struct analysis_what_if *item)
{
    return item->cause < ANALYSIS_CAUSE_COUNT ? analysis_cause_tag(item->cause)
                                              : analysis_fix_basis(item->fix);
}

/* The proved cause with the largest loss that asks for fix, ANALYSIS_CAUSE_COUNT when none. */
static enum analysis_cause largest_cause_of(const struct analysis_result *result, enum analysis_fix fix)
{
    for (size_t c = 0; c < ANALYSIS_CAUSE_COUNT; c++) /* causes are sorted by loss */
        if (result->causes[c].count > 0 && analysis_cause_fix(result->causes[c].cause) == fix)
            return result->causes[c].cause;
    return ANALYSIS_CAUSE_COUNT;
}

/* Exposed arrival skew of each device over its whole span (exposed_comm.c's split), the largest. */
static int64_t largest_exposed_skew(const struct analysis_result *result)
{
    int64_t largest = 0;
    for (size_t a = 0; a < result->accounting_count; a++) {
        const struct analysis_accounting *accounting = &result->accountings[a];
        int64_t skew = 0;
        for (size_t k = 0; accounting->step == -1 && k < accounting->exposed_communication.entry_count; k++)
            if (accounting->exposed_communication.entries[k].cause == ACCOUNTING_COMM_SKEW)
                skew += accounting->exposed_communication.entries[k].ns;
        if (skew > largest)
            largest = skew;
    }
    return largest;
}

/* A fix across ranks, which the per-device replay cannot see: the ranks run in lockstep, so every
 * device's span shrinks by the same saving (never more than the span). */
static void save_on_every_device(struct analysis_result *result, enum analysis_fix fix, int64_t saving)
{
    for (size_t d = 0; d < result->device_count; d++) {
        struct analysis_device *device = &result->devices[d];
        int64_t span = device->busy_ns + device->idle_ns;
        device->fix_saving_ns[fix] = saving < span ? saving : span;
        device->fixes_modelled |= FIX_BIT(fix);
    }
}

/* Removing the skew: when the late rank arrives on time every rank's span shrinks by the largest
 * exposed wait for it; the accounting's figure. */
static void predict_skew_removed(struct analysis_result *result)
{
    int64_t skew = largest_exposed_skew(result);
    if (skew > 0 && result->device_count >= 2)
        save_on_every_device(result, ANALYSIS_FIX_REMOVE_SKEW, skew);
}

/* Balancing the work: with every rank computing the ranks' mean, each step shrinks by what the
 * busiest rank computed beyond it (imbalance.h). */
static void predict_balanced(struct analysis_result *result)
{
    const struct accounting_straggler *straggler = &result->straggler;
    int64_t excess = straggler->compute_ns - straggler->mean_compute_ns;
    if (straggler->load_imbalance && excess > 0)
        save_on_every_device(result, ANALYSIS_FIX_BALANCE_WORK, excess);
}

/* Under CUDA_LAUNCH_BLOCKING=1 (the launch-blocking cause proved), a CUDA graph gains what
 * unsetting the variable gains, for the same reason: the launches no longer wait for their kernels.
 * The variable is the cause and unsetting it the fix; the graph is not offered beside it when it
 * gains no more than 5% beyond it. */
static void drop_graph_under_launch_blocking(struct analysis_result *result)
{
    const struct analysis_what_if *unset = NULL;
    for (size_t i = 0; i < result->what_if_count; i++)
        if (result->what_if[i].fix == ANALYSIS_FIX_UNSET_LAUNCH_BLOCKING &&
            result->what_if[i].cause != ANALYSIS_CAUSE_COUNT)
            unset = &result->what_if[i];
    if (!unset)
        return;
    int64_t bound = unset->predicted_saving_ns + unset->predicted_saving_ns / 20;
    for (size_t i = 0; i < result->what_if_count; i++)
        if (result->what_if[i].fix == ANALYSIS_FIX_CUDA_GRAPH &&
            result->what_if[i].predicted_saving_ns <= bound) {
            memmove(&result->what_if[i], &result->what_if[i + 1],
                    (result->what_if_count - i - 1) * sizeof result->what_if[i]);
            result->what_if_count--;
            return;
        }
}

void whatif_collect(struct analysis_result *result)
{
    result->what_if_count = 0;
    result->total_headroom_ns = 0;
    for (size_t d = 0; d < result->device_count; d++)
        result->total_headroom_ns += result->devices[d].headroom_ns;
    predict_skew_removed(result);
    predict_balanced(result);
    for (int fix = 0; fix < ANALYSIS_FIX_ALL; fix++) {
        enum analysis_cause cause = largest_cause_of(result, (enum analysis_fix)fix);
        int modelled = 0;
        for (size_t d = 0; d < result->device_count; d++)
            modelled |= (result->devices[d].fixes_modelled & FIX_BIT(fix)) != 0;
        if (cause == ANALYSIS_CAUSE_COUNT && !modelled)
            continue;
        struct analysis_what_if *item = &result->what_if[result->what_if_count++];
        *item = (struct analysis_what_if){.fix = (enum analysis_fix)fix,
                                          .cause = cause,
                                          .by_design = analysis_fix_by_design((enum analysis_fix)fix),
                                          .assumptions = analysis_fix_assumptions((enum analysis_fix)fix)};
        for (size_t d = 0; d < result->device_count; d++) {
            item->predicted_saving_ns += result->devices[d].fix_saving_ns[fix];
            item->newly_together_ns += result->devices[d].fix_together_ns[fix];
            item->host_work_ns += analysis_device_host_work_ns(&result->devices[d], (enum analysis_fix)fix);
            if (fix == ANALYSIS_FIX_REMOVE_HOST_SYNC) {
                item->sustained_ns +=
                    sustained_saving_ns(&result->devices[d], result->devices[d].fix_saving_ns[fix]);
                item->sync_calls += result->devices[d].sync_calls;
                item->sync_wait_ns += result->devices[d].sync_wait_ns;
                item->sync_host_ns += result->devices[d].sync_host_ns;
                item->sync_wrapper_ns += result->devices[d].sync_wrapper_ns;
            }
        }
    }
    drop_graph_under_launch_blocking(result);
    for (size_t i = 1; i < result->what_if_count; i++) /* largest first */
        for (size_t j = i;
             j > 0 && result->what_if[j].predicted_saving_ns > result->what_if[j - 1].predicted_saving_ns;
             j--) {
            struct analysis_what_if swap = result->what_if[j];
            result->what_if[j] = result->what_if[j - 1];
            result->what_if[j - 1] = swap;
        }
    int any = 0;
    for (size_t d = 0; d < result->device_count; d++)
        any |= (result->devices[d].fixes_modelled & FIX_BIT(ANALYSIS_FIX_ALL)) != 0;
    if (any) {
        struct analysis_what_if *all = &result->what_if[result->what_if_count++];
        *all = (struct analysis_what_if){.fix = ANALYSIS_FIX_ALL,
                                         .cause = ANALYSIS_CAUSE_COUNT,
                                         .predicted_saving_ns = result->total_headroom_ns,
                                         .assumptions = analysis_fix_assumptions(ANALYSIS_FIX_ALL)};
        for (size_t d = 0; d < result->device_count; d++) {
            all->newly_together_ns += result->devices[d].fix_together_ns[ANALYSIS_FIX_ALL];
            all->host_work_ns += analysis_device_host_work_ns(&result->devices[d], ANALYSIS_FIX_ALL);
            all->sustained_ns += sustained_saving_ns(
                &result->devices[d], result->devices[d].fix_saving_ns[ANALYSIS_FIX_REMOVE_HOST_SYNC]);
        }
    }
}
