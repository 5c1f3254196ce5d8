/* host_samples.c: what the launching thread did over a host-cpu stretch, from its host samples
 * (host_samples.h). Each sample is sorted by its scheduler state and its Python stack:
 *   - data loading: sleeping (or running) in torch/utils/data/dataloader.py or a multiprocessing
 *     queue's get: the thread waited for the DataLoader's next batch (or built it itself);
 *   - garbage collection: the recorder's marker line (STORE_HOST_GC_FRAME: its gc.callbacks hook
 *     saw the thread collecting; labelled with the frame under it, the line that allocated or
 *     called gc.collect()), or a frame of the collector (gc.collect, a gc.callbacks hook, the native
 *     collector when the stack reader names it). A trace recorded without the hook shows automatic
 *     collections, triggered inside an allocation, as the line that allocated;
 *   - lock: sleeping in threading.py's acquire/wait (a Lock, Condition, Event or join);
 *   - GIL: sleeping with a Python stack while another thread of the process ran at the same tick;
 *   - work: the rest, the thread's own Python/C++ (computing when running, waiting otherwise).
 * The workers' CPU comes from the process's children (process_cpu_samples), over the stretch. */
#include "host_samples.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_tables.h"
#include "store.h"

/* At most this many samples of the process are read per stretch (3.4 s of 8 threads at 300 Hz). */
#define HOST_SAMPLES_MAX 8192
#define HOST_LINES_MAX 32
#define HOST_CHILDREN_MAX 64
/* Workers busier than this share of their sampled time are CPU-bound. */
#define HOST_CPU_BOUND_PERCENT 50

struct host_samples {
    store_host *queries;
    struct store_host_sample *buffer; /* HOST_SAMPLES_MAX */
    int64_t pid_process, pid;         /* the last process asked for, and its OS pid */
};

enum sample_kind { KIND_LOADER, KIND_GC, KIND_LOCK, KIND_GIL, KIND_WORK, KIND_COUNT };

struct line_count {
    char line[96];
    int64_t samples, waiting;
};

/* The samples of one kind, by line. */
struct kind_tally {
    int64_t samples, waiting;
    struct line_count lines[HOST_LINES_MAX];
    size_t line_count;
};

host_samples *host_samples_new(sqlite3 *db, error_info *err)
{
    host_samples *samples = calloc(1, sizeof *samples);
    if (!samples) {
        error_set(err, "out of memory");
        return NULL;
    }
    samples->pid_process = STORE_NULL;
    samples->queries = store_host_open(db, err);
    if (!samples->queries) {
        free(samples);
        return NULL;
    }
    return samples;
}

void host_samples_free(host_samples *samples)
{
    if (!samples)
        return;
    store_host_close(samples->queries);
    free(samples->buffer);
    free(samples);
}

int host_samples_recorded(const host_samples *samples)
{
    return samples && store_host_sample_hz(samples->queries) > 0;
}

int host_samples_could_record(const host_samples *samples)
{
    return samples && store_host_rate_recorded(samples->queries);
}

/* One frame line ("FILE:LINE FUNCTION") of frames, the index-th (0: innermost), into line with the
 * file cut to its last component. Returns 0 when there is no such frame. */
static int frame_line(const char *frames, int index, char *line, size_t size)
{
    const char *start = frames;
    for (int i = 0; i < index && start; i++) {
        start = strchr(start, '\n');
        if (start)
            start++;
    }
    if (!start || !*start)
        return 0;
    size_t length = strcspn(start, "\n");
    const char *colon = NULL; /* the FILE part's last '/' before the first ':' */
    for (const char *c = start; c < start + length && *c != ':' && *c != ' '; c++)
        if (*c == '/')
            colon = c + 1;
    const char *from = strncmp(start, "native ", 7) == 0 || !colon ? start : colon;
    snprintf(line, size, "%.*s", (int)(length - (size_t)(from - start)), from);
    return 1;
}

/* The innermost frame whose text holds any of patterns: its index, or -1. */
static int frame_with(const char *frames, const char *const *patterns)
{
    int index = 0;
    for (const char *start = frames; start && *start; index++) {
        size_t length = strcspn(start, "\n");
        for (const char *const *p = patterns; *p; p++) {
            const char *found = strstr(start, *p);
            if (found && found < start + length)
                return index;
        }
        start = start[length] ? start + length + 1 : NULL;
    }
    return -1;
}

/* The loader's own frame names the wait better than the queue's under it. */
static const char *const loader_frames[] = {"torch/utils/data/dataloader.py", NULL};
static const char *const queue_frames[] = {"multiprocessing/queues.py", NULL};
static const char *const gc_frames[] = {"gc.collect", "gc_collect", "_PyGC_", " gc_callback", NULL};
static const char *const lock_frames[] = {"threading.py", NULL};

static int is_sleeping(char state)
{
    return state == 'S' || state == 'D';
}

/* Whether another thread of the process was running at the tick of sample (the samples of one tick
 * lie within half a period). */
static int other_thread_ran(const struct store_host_sample *all, long count,
                            const struct store_host_sample *sample, int64_t half_period_ns)
{
    for (long i = 0; i < count; i++)
        if (all[i].tid != sample->tid && all[i].state == 'R' &&
            all[i].time_ns >= sample->time_ns - half_period_ns &&
            all[i].time_ns <= sample->time_ns + half_period_ns)
            return 1;
    return 0;
}

/* Sorts one sample of the launching thread; its line (the frame that shows the kind) in line. */
/* others_computed: threads of the process that are not sampled (a Python thread that never calls
 * CUDA) ran for most of the stretch: the process's CPU time beyond its sampled threads'. */
static enum sample_kind classify(host_samples *samples, const struct store_host_sample *all, long count,
                                 const struct store_host_sample *sample, int64_t half_period_ns,
                                 int others_computed, char *line, size_t size)
{
    char frames[1024];
    snprintf(line, size, "no stack read");
    if (!store_host_stack(samples->queries, sample->stack_id, frames, sizeof frames))
        return KIND_WORK;
    int at;
    enum sample_kind kind = KIND_WORK;
    if ((at = frame_with(frames, gc_frames)) >= 0) {
        kind = KIND_GC;
        /* The recorder's marker (a gc.callbacks hook said this thread was collecting) names no
         * line: the frame the collection ran under does, when there is one. */
        if (at == 0 && strncmp(frames, STORE_HOST_GC_FRAME "\n", sizeof STORE_HOST_GC_FRAME) == 0)
            at = 1;
    } else if ((at = frame_with(frames, loader_frames)) >= 0 || (at = frame_with(frames, queue_frames)) >= 0)
        kind = KIND_LOADER;
    else if (is_sleeping(sample->state) && (at = frame_with(frames, lock_frames)) >= 0)
        kind = KIND_LOCK;
    else {
        at = 0;
        /* Asleep in Python code while another thread ran: waiting for the GIL, or for a lock that
         * thread holds (Lock.acquire is C: no frame tells the two apart). */
        if (is_sleeping(sample->state) && strncmp(frames, "native ", 7) != 0 &&
            (others_computed || other_thread_ran(all, count, sample, half_period_ns)))
            kind = KIND_GIL;
    }
    frame_line(frames, at, line, size);
    return kind;
}

static void tally_add(struct kind_tally *tally, const char *line, int waiting)
{
    tally->samples++;
    tally->waiting += waiting;
    struct line_count *slot = NULL;
    for (size_t i = 0; i < tally->line_count && !slot; i++)
        if (strcmp(tally->lines[i].line, line) == 0)
            slot = &tally->lines[i];
    if (!slot && tally->line_count < HOST_LINES_MAX) {
        slot = &tally->lines[tally->line_count++];
        snprintf(slot->line, sizeof slot->line, "%s", line);
    }
    if (slot) { /* past HOST_LINES_MAX lines the rarest are not named */
        slot->samples++;
        slot->waiting += waiting;
    }
}

static int compare_lines(const void *left, const void *right)
{
    const struct line_count *a = left, *b = right;
    if (a->samples != b->samples)
        return a->samples > b->samples ? -1 : 1;
    return strcmp(a->line, b->line);
}

int host_samples_percent(int64_t part, int64_t whole)
{
    if (whole <= 0 || part <= 0)
        return 0;
    /* A worker with several busy threads passes 100%; a hostile trace's times neither overflow nor
     * pass a million. */
    if (part > INT64_MAX / 200 || whole > INT64_MAX / 2 || part / whole >= 10000)
        return part / whole >= 10000 ? 1000000 : (int)((double)part * 100.0 / (double)whole + 0.5);
    return (int)((part * 200 + whole) / (2 * whole));
}

/* "top lines: A 70% (computing), B 30% (waiting)": the verdict's three most sampled lines. */
static void write_top_lines(struct kind_tally *tally, char *detail, size_t size)
{
    qsort(tally->lines, tally->line_count, sizeof tally->lines[0], compare_lines);
    size_t used = (size_t)snprintf(detail, size, "top lines:");
    for (size_t i = 0; i < tally->line_count && i < 3 && used < size; i++) {
        const struct line_count *line = &tally->lines[i];
        used += (size_t)snprintf(detail + used, size - used, "%s %s %d%% (%s)", i ? "," : "", line->line,
                                 host_samples_percent(line->samples, tally->samples),
                                 2 * line->waiting > line->samples ? "waiting" : "computing");
    }
}

/* The workers' CPU over the stretch, into figures; 0 or -1 on a read error. */
static int add_workers(host_samples *samples, int64_t pid, int64_t start_ns, int64_t end_ns,
                       struct evidence_figures *figures, error_info *err)
{
    struct store_host_child children[HOST_CHILDREN_MAX];
    long count =
        store_host_children(samples->queries, pid, start_ns, end_ns, children, HOST_CHILDREN_MAX, err);
    if (count < 0)
        return -1;
    int64_t period_ns = 1000000000 / store_host_sample_hz(samples->queries);
    for (long i = 0; i < count; i++) {
        ledger_add_saturating(&figures->worker_cpu_ns, children[i].cpu_ns);
        int64_t span_ns = 0;
        if (__builtin_mul_overflow(children[i].samples, period_ns, &span_ns))
            span_ns = INT64_MAX;
        ledger_add_saturating(&figures->worker_span_ns, span_ns);
        ledger_add_saturating(&figures->worker_samples, children[i].samples);
        ledger_add_saturating(&figures->worker_disk_samples, children[i].disk_wait);
    }
    figures->workers = count;
    return 0;
}

static int64_t pid_of(host_samples *samples, int64_t process_id)
{
    if (samples->pid_process != process_id) {
        samples->pid = store_host_pid_of(samples->queries, process_id);
        samples->pid_process = process_id;
    }
    return samples->pid;
}

static const enum accounting_cause kind_cause[KIND_COUNT] = {[KIND_LOADER] = ACCOUNTING_IDLE_DATA_LOADING,
                                                             [KIND_GC] = ACCOUNTING_IDLE_GARBAGE_COLLECTION,
                                                             [KIND_LOCK] = ACCOUNTING_IDLE_LOCK_WAIT,
                                                             [KIND_GIL] = ACCOUNTING_IDLE_LOCK_WAIT,
                                                             [KIND_WORK] = ACCOUNTING_IDLE_PYTHON_WORK};

/* Whether threads of pid that are not sampled computed for most of [start_ns, end_ns): the process's
 * CPU time there beyond its sampled threads' (buffer: its samples there, count of them) is at least
 * half the stretch. Returns 0, or -1 on a read error. */
static int others_ran(host_samples *samples, int64_t pid, int64_t start_ns, int64_t end_ns, long count,
                      int *others_computed, error_info *err)
{
    int64_t process_cpu = 0, sampled_cpu = 0;
    if (store_host_process_cpu(samples->queries, pid, start_ns, end_ns, &process_cpu, err) != 0)
        return -1;
    for (long i = 0; i < count; i++)
        ledger_add_saturating(&sampled_cpu, samples->buffer[i].cpu_ns);
    *others_computed = process_cpu - sampled_cpu >= (end_ns - start_ns) / 2;
    return 0;
}

int host_samples_verdict(host_samples *samples, int64_t process_id, int64_t thread_id, int64_t start_ns,
                         int64_t end_ns, struct host_verdict *verdict, error_info *err)
{
    int64_t hz = samples ? store_host_sample_hz(samples->queries) : 0;
    if (hz <= 0 || thread_id == STORE_NULL)
        return 0;
    int64_t pid = pid_of(samples, process_id);
    if (pid == STORE_NULL)
        return 0;
    if (!samples->buffer && !(samples->buffer = malloc(HOST_SAMPLES_MAX * sizeof *samples->buffer)))
        return error_set(err, "out of memory");
    long count = store_host_samples(samples->queries, pid, STORE_NULL, start_ns, end_ns, samples->buffer,
                                    HOST_SAMPLES_MAX, err);
    if (count < 0)
        return -1;
    struct kind_tally *tallies = calloc(KIND_COUNT, sizeof *tallies);
    if (!tallies)
        return error_set(err, "out of memory");
    int64_t half_period_ns = 1000000000 / hz / 2, own = 0;
    int others_computed = 0;
    if (others_ran(samples, pid, start_ns, end_ns, count, &others_computed, err) != 0) {
        free(tallies);
        return -1;
    }
    for (long i = 0; i < count; i++) {
        const struct store_host_sample *sample = &samples->buffer[i];
        if (sample->tid != thread_id)
            continue;
        char line[96];
        enum sample_kind kind = classify(samples, samples->buffer, count, sample, half_period_ns,
                                         others_computed, line, sizeof line);
        tally_add(&tallies[kind], line, sample->state != 'R');
        own++;
    }
    int status = 0;
    if (own > 0) {
        /* The majority by cause (a lock and the GIL are one cause), ties in the order of the kinds. */
        int64_t by_cause[KIND_COUNT] = {0};
        for (int k = 0; k < KIND_COUNT; k++)
            for (int j = 0; j <= k; j++)
                if (kind_cause[j] == kind_cause[k]) {
                    by_cause[j] += tallies[k].samples;
                    break;
                }
        int best = 0;
        for (int k = 1; k < KIND_COUNT; k++)
            if (by_cause[k] > by_cause[best])
                best = k;
        if (best == KIND_LOCK && tallies[KIND_GIL].samples > tallies[KIND_LOCK].samples)
            best = KIND_GIL;
        struct kind_tally *tally = &tallies[best];
        *verdict = (struct host_verdict){.cause = kind_cause[best]};
        write_top_lines(tally, verdict->detail, sizeof verdict->detail);
        verdict->figures = (struct evidence_figures){.samples = own,
                                                     .line_samples = tally->lines[0].samples,
                                                     .waiting_samples = tally->lines[0].waiting,
                                                     .longest_ns = end_ns - start_ns,
                                                     .detail = verdict->detail};
        if (best == KIND_LOADER || best == KIND_GIL) { /* the kind is the label, not one line */
            verdict->figures.line_samples = tally->samples;
            verdict->figures.waiting_samples = tally->waiting;
        }
        if (best == KIND_LOADER) {
            status = add_workers(samples, pid, start_ns, end_ns, &verdict->figures, err);
            const struct evidence_figures *f = &verdict->figures;
            snprintf(verdict->label, sizeof verdict->label, "%s",
                     f->workers == 0 ? "in the main process"
                     : host_samples_percent(f->worker_cpu_ns, f->worker_span_ns) >= HOST_CPU_BOUND_PERCENT
                         ? "CPU-bound"
                         : "I/O-bound");
        } else if (best == KIND_GIL) {
            /* Seen running, another sampled thread held the GIL; known only from the process's CPU,
             * the thread could as well wait for a lock that unsampled thread holds. */
            snprintf(verdict->label, sizeof verdict->label, "%s", others_computed ? "lock or GIL" : "GIL");
        } else {
            snprintf(verdict->label, sizeof verdict->label, "%s", tally->lines[0].line);
        }
        status = status == 0 ? 1 : -1;
    }
    free(tallies);
    return status;
}
