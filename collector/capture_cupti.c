/* capture_cupti.c: see capture_cupti.h. */
#include "capture_cupti.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cupti.h>
#include <generated_nvtx_meta.h>

#include "collector_options.h"

#define OPEN_START_RANGES 64 /* nvtxRangeStart ids of the name open at once */
#define PUSH_DEPTH 256       /* nvtxRangePush levels followed per thread */

static struct {
    pthread_mutex_t lock; /* guards everything below */
    int active;
    struct capture_state state;
    unsigned kinds;
    int64_t (*now_ns)(void);
    int64_t start_ns;
    uint64_t open_start_ids[OPEN_START_RANGES];
    size_t open_start_count;
    pthread_t timer;
    int timer_started, timer_stop;
    pthread_cond_t timer_wakeup;
    int cupti_failures;
} capture = {.lock = PTHREAD_MUTEX_INITIALIZER, .timer_wakeup = PTHREAD_COND_INITIALIZER};

/* Per thread: for each open nvtxRangePush level, whether its message is the capture's name (a Pop
 * names nothing). */
static _Thread_local struct {
    unsigned char matches[PUSH_DEPTH];
    int depth;
} pushes;

/* The GPU kinds switched (enable_activities turned on those --kinds keeps). Lock held. */
static void apply(enum capture_action action)
{
    if (action == CAPTURE_KEEP)
        return;
    static const struct {
        unsigned bit;
        CUpti_ActivityKind kind;
    } kinds[] = {{COLLECTOR_KIND_KERNEL, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL},
                 {COLLECTOR_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY},
                 {COLLECTOR_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MEMSET}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (!(capture.kinds & kinds[i].bit))
            continue;
        CUptiResult result = action == CAPTURE_START ? cuptiActivityEnable(kinds[i].kind)
                                                     : cuptiActivityDisable(kinds[i].kind);
        capture.cupti_failures += result != CUPTI_SUCCESS;
    }
    if (action == CAPTURE_START)
        pthread_cond_signal(&capture.timer_wakeup); /* the duration's clock starts */
}

static void *timer_main(void *argument)
{
    (void)argument;
    pthread_mutex_lock(&capture.lock);
    while (!capture.timer_stop) {
        int64_t wait_ns = capture_state_next_tick_ns(&capture.state, capture.now_ns());
        if (wait_ns < 0 && capture.state.spec.duration_ns > 0 && !capture.state.finished) {
            /* a duration counts from a capture not begun yet: apply() wakes us when it begins */
            pthread_cond_wait(&capture.timer_wakeup, &capture.lock);
            continue;
        }
        if (wait_ns < 0)
            break; /* no delay or duration left to time */
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        int64_t at = (int64_t)deadline.tv_nsec + wait_ns;
        deadline.tv_sec += (time_t)(at / 1000000000);
        deadline.tv_nsec = (long)(at % 1000000000);
        pthread_cond_timedwait(&capture.timer_wakeup, &capture.lock, &deadline);
        apply(capture_state_tick(&capture.state, capture.now_ns()));
    }
    pthread_mutex_unlock(&capture.lock);
    return NULL;
}

/* An ...Ex range's message when it is ASCII text (a registered string or wide text is no name). */
static const char *ascii_message(const nvtxEventAttributes_t *attributes)
{
    return attributes && attributes->messageType == NVTX_MESSAGE_TYPE_ASCII ? attributes->message.ascii
                                                                            : NULL;
}

/* opens: 1 a push, 2 a start (ended by id) */
static void on_nvtx(CUpti_CallbackId id, const CUpti_NvtxData *data)
{
    const char *message = NULL;
    int opens = 0;
    switch (id) {
    case CUPTI_CBID_NVTX_nvtxRangePushA:
        message = ((const nvtxRangePushA_params *)data->functionParams)->message;
        opens = 1;
        break;
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
        message = ascii_message(((const nvtxRangePushEx_params *)data->functionParams)->eventAttrib);
        opens = 1;
        break;
    case CUPTI_CBID_NVTX_nvtxRangeStartA:
        message = ((const nvtxRangeStartA_params *)data->functionParams)->message;
        opens = 2;
        break;
    case CUPTI_CBID_NVTX_nvtxRangeStartEx:
        message = ascii_message(((const nvtxRangeStartEx_params *)data->functionParams)->eventAttrib);
        opens = 2;
        break;
    case CUPTI_CBID_NVTX_nvtxRangePop:
        if (pushes.depth > 0 && pushes.depth-- <= PUSH_DEPTH && pushes.matches[pushes.depth]) {
            pthread_mutex_lock(&capture.lock);
            apply(capture_state_nvtx_close(&capture.state, capture.state.spec.nvtx_name, capture.now_ns()));
            pthread_mutex_unlock(&capture.lock);
        }
        return;
    case CUPTI_CBID_NVTX_nvtxRangeEnd: {
        uint64_t range = ((const nvtxRangeEnd_params *)data->functionParams)->id;
        pthread_mutex_lock(&capture.lock);
        for (size_t i = 0; i < capture.open_start_count; i++) {
            if (capture.open_start_ids[i] == range) {
                capture.open_start_ids[i] = capture.open_start_ids[--capture.open_start_count];
                apply(
                    capture_state_nvtx_close(&capture.state, capture.state.spec.nvtx_name, capture.now_ns()));
                break;
            }
        }
        pthread_mutex_unlock(&capture.lock);
        return;
    }
    default:
        return;
    }
    int matches = message && strcmp(message, capture.state.spec.nvtx_name) == 0;
    if (opens == 1) {
        if (pushes.depth < PUSH_DEPTH)
            pushes.matches[pushes.depth] = (unsigned char)matches;
        pushes.depth++;
    }
    if (!matches)
        return;
    pthread_mutex_lock(&capture.lock);
    if (opens == 2) {
        /* nvtxRangeStart's id is its return value, there at the callback (CUPTI calls NVTX callbacks
         * once, after the call) */
        if (!data->functionReturnValue || capture.open_start_count == OPEN_START_RANGES) {
            pthread_mutex_unlock(&capture.lock);
            return;
        }
        capture.open_start_ids[capture.open_start_count++] = *(const uint64_t *)data->functionReturnValue;
    }
    apply(capture_state_nvtx_open(&capture.state, message, capture.now_ns()));
    pthread_mutex_unlock(&capture.lock);
}

void capture_cupti_on_api(CUpti_CallbackDomain domain, CUpti_CallbackId id, const CUpti_CallbackData *call)
{
    if (!capture.active || domain != CUPTI_CB_DOMAIN_RUNTIME_API)
        return;
    /* on at the exit of Start (its own work is not the program's), off at the entry of Stop */
    if (id == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000 && call->callbackSite == CUPTI_API_EXIT) {
        pthread_mutex_lock(&capture.lock);
        apply(capture_state_profiler_start(&capture.state, capture.now_ns()));
        pthread_mutex_unlock(&capture.lock);
    } else if (id == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000 &&
               call->callbackSite == CUPTI_API_ENTER) {
        pthread_mutex_lock(&capture.lock);
        apply(capture_state_profiler_stop(&capture.state, capture.now_ns()));
        pthread_mutex_unlock(&capture.lock);
    }
}

int capture_cupti_start(const struct capture_range_spec *spec, unsigned kinds, struct launch_watch *watch,
                        int64_t start_ns, int64_t (*now_ns)(void), error_info *why)
{
    if (!capture_range_restricts(spec))
        return 0;
    if (!watch->subscribed)
        return error_set(why, "another CUPTI client holds the callbacks: the capture range is not applied,"
                              " everything was recorded");
    pthread_mutex_lock(&capture.lock);
    capture.kinds = kinds;
    capture.now_ns = now_ns;
    capture.start_ns = start_ns;
    enum capture_action action = capture_state_init(&capture.state, spec, start_ns);
    if (action != CAPTURE_START) /* enable_activities turned them on: off until the range opens */
        apply(CAPTURE_STOP);
    capture.active = 1;
    pthread_mutex_unlock(&capture.lock);
    if (spec->kind == CAPTURE_RANGE_PROFILER_API) {
        const CUpti_CallbackId ids[] = {CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000,
                                        CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000};
        if (launch_watch_enable_api_ids(watch, CUPTI_CB_DOMAIN_RUNTIME_API, ids, 2) != 2)
            return error_set(why, "CUPTI refused the cudaProfilerStart/Stop callbacks: nothing is captured");
    } else if (spec->kind == CAPTURE_RANGE_NVTX) {
        const CUpti_CallbackId ids[] = {CUPTI_CBID_NVTX_nvtxRangePushA,   CUPTI_CBID_NVTX_nvtxRangePushEx,
                                        CUPTI_CBID_NVTX_nvtxRangePop,     CUPTI_CBID_NVTX_nvtxRangeStartA,
                                        CUPTI_CBID_NVTX_nvtxRangeStartEx, CUPTI_CBID_NVTX_nvtxRangeEnd};
        watch->nvtx_called = on_nvtx;
        if (launch_watch_enable_api_ids(watch, CUPTI_CB_DOMAIN_NVTX, ids, 6) != 6)
            return error_set(why, "CUPTI refused the NVTX callbacks: nothing is captured");
    }
    if (spec->delay_ns > 0 || spec->duration_ns > 0) {
        capture.timer_started = pthread_create(&capture.timer, NULL, timer_main, NULL) == 0;
        if (!capture.timer_started)
            return error_set(why, "no thread for the --delay/--duration timer: they are not applied");
    }
    return 0;
}

int capture_cupti_finish(store *trace, int64_t end_ns, error_info *err)
{
    pthread_mutex_lock(&capture.lock);
    int active = capture.active;
    capture.timer_stop = 1;
    pthread_cond_signal(&capture.timer_wakeup);
    pthread_mutex_unlock(&capture.lock);
    if (!active)
        return 0;
    if (capture.timer_started)
        pthread_join(capture.timer, NULL);
    pthread_mutex_lock(&capture.lock);
    capture_state_finish(&capture.state, end_ns);
    capture.active = 0;
    char range[CAPTURE_RANGE_NAME_MAX + 64], windows[CAPTURE_RANGE_MAX_WINDOWS * 44 + 1], process[48];
    capture_range_describe(&capture.state.spec, range, sizeof range);
    capture_state_windows_text(&capture.state, windows, sizeof windows);
    snprintf(process, sizeof process, "%" PRId64 ":%" PRId64, capture.start_ns, end_ns);
    pthread_mutex_unlock(&capture.lock);
    if (store_set_meta(trace, "capture_range", range, err) != 0 ||
        store_set_meta(trace, "capture_windows", windows, err) != 0 ||
        store_set_meta(trace, "capture_process", process, err) != 0)
        return -1;
    return 0;
}
