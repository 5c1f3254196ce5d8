/* host_sampler.c: see host_sampler.h (what is sampled and why) and docs/collector.md ("Host
 * samples": what it costs). */
#include "host_sampler.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "host_tables.h"
#include "python_frames.h"
#include "python_gc.h"

#define SUBMIT_PERIOD_NS 500000000LL /* a buffer waits at most this long for the writer */
#define PYTHON_RETRY_TICKS 1000      /* ticks between two looks for a Python not yet running */

enum record_kind { RECORD_THREAD = 1, RECORD_PROCESS = 2, RECORD_STACK = 3 };

struct record_header {
    uint32_t kind, size; /* size of the whole record, a multiple of 8 */
};

struct thread_record {
    struct record_header header;
    int64_t time_ns, cpu_ns, stack_id; /* stack_id 0: none */
    int32_t pid, tid;
    char state;
};

struct process_record {
    struct record_header header;
    int64_t time_ns, cpu_ns;
    int32_t pid, parent_pid;
    char state;
    char name[16];
};

struct stack_record {
    struct record_header header;
    int64_t id;
    char text[]; /* NUL-terminated */
};

/* A thread or process seen before: its CPU clock at its previous sample. */
struct previous_cpu {
    int32_t id;
    int64_t cpu_ns;
};

struct host_sampler {
    struct host_sampler_config config;
    pid_t pid;
    pthread_t thread;
    int started;
    pthread_mutex_t lock; /* stop and the free buffers */
    pthread_cond_t wake;
    int stop;

    uint8_t *memory; /* HOST_SAMPLER_BUFFERS buffers in one allocation */
    uint8_t *free_buffers[HOST_SAMPLER_BUFFERS];
    int free_count;
    uint8_t *current; /* the buffer being filled, NULL when none was free */
    size_t used;
    int64_t current_samples, last_submit_ns;

    struct python_frames python;
    int python_ready;
    int64_t python_next_try; /* tick */
    struct host_stack_table stacks;

    struct previous_cpu threads[HOST_SAMPLER_THREADS];
    int thread_count;
    struct previous_cpu processes[HOST_SAMPLER_PROCESSES];
    int process_count;
    int32_t children[HOST_SAMPLER_PROCESSES];
    int32_t child_parents[HOST_SAMPLER_PROCESSES]; /* this process, or one of its children */
    int child_count;

    atomic_llong ticks, thread_samples, process_samples, dropped, stackless;
    char python_note[160];

    char stack_text[HOST_SAMPLER_STACK_TEXT];
    uintptr_t thread_states[HOST_SAMPLER_THREADS];
    uint32_t thread_state_tids[HOST_SAMPLER_THREADS];
    uint8_t record_space[sizeof(struct stack_record) + HOST_SAMPLER_STACK_TEXT + 8];
};

/* --- /proc --- */

int host_sampler_parse_stat(const char *text, size_t length, struct host_proc_stat *stat)
{
    memset(stat, 0, sizeof *stat);
    const char *open = memchr(text, '(', length);
    const char *close = NULL;
    for (const char *c = text + length; c > text; c--)
        if (c[-1] == ')') {
            close = c - 1;
            break;
        }
    if (!open || !close || close < open)
        return -1;
    size_t name_length = (size_t)(close - open - 1);
    if (name_length >= sizeof stat->name)
        name_length = sizeof stat->name - 1;
    memcpy(stat->name, open + 1, name_length);
    stat->name[name_length] = '\0';
    /* After ") ": field 3 (state), 4 (ppid), ..., 14 (utime), 15 (stime). */
    const char *c = close + 1, *end = text + length;
    long long fields[16] = {0};
    int field = 3;
    while (c < end && field <= 15) {
        while (c < end && *c == ' ')
            c++;
        if (c >= end)
            break;
        if (field == 3) {
            stat->state = *c;
            c++;
        } else {
            int negative = *c == '-';
            c += negative;
            if (c >= end || *c < '0' || *c > '9')
                return -1;
            long long value = 0;
            while (c < end && *c >= '0' && *c <= '9') {
                if (value < (long long)1 << 58)
                    value = value * 10 + (*c - '0');
                c++;
            }
            fields[field] = negative ? -value : value;
        }
        if (c < end && *c != ' ' && *c != '\n')
            return -1;
        field++;
    }
    if (field <= 15 || !stat->state || stat->state == ' ')
        return -1;
    stat->parent_pid = fields[4];
    stat->cpu_ticks = fields[14] + fields[15];
    return 0;
}

/* Reads /proc/<path> into buffer; returns the bytes read, or -1. */
static ssize_t read_proc(const char *path, char *buffer, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t got = read(fd, buffer, size);
    close(fd);
    return got;
}

static int read_stat(const char *path, struct host_proc_stat *stat)
{
    char text[512];
    ssize_t got = read_proc(path, text, sizeof text);
    return got > 0 ? host_sampler_parse_stat(text, (size_t)got, stat) : -1;
}

/* Linux's CPU clock ids (include/linux/posix-timers.h: MAKE_PROCESS_CPUCLOCK, CPUCLOCK_SCHED = 2,
 * CPUCLOCK_PERTHREAD_MASK = 4): the scheduler's runtime in ns, for a thread of this process or for
 * any process. */
static int64_t cpu_clock_ns(pid_t id, int thread, int64_t fallback_ticks)
{
    clockid_t clock = (clockid_t)((~(unsigned)id) << 3) | (thread ? 6 : 2);
    struct timespec time;
    if (clock_gettime(clock, &time) == 0)
        return (int64_t)time.tv_sec * 1000000000 + time.tv_nsec;
    long ticks_per_second = sysconf(_SC_CLK_TCK);
    return fallback_ticks * (1000000000 / (ticks_per_second > 0 ? ticks_per_second : 100));
}

/* The CPU used since the previous sample of id (0 at its first). */
static int64_t cpu_since(struct previous_cpu *seen, int *count, int capacity, int32_t id, int64_t cpu_ns)
{
    for (int i = 0; i < *count; i++)
        if (seen[i].id == id) {
            int64_t delta = cpu_ns - seen[i].cpu_ns;
            seen[i].cpu_ns = cpu_ns;
            return delta > 0 ? delta : 0;
        }
    if (*count < capacity)
        seen[(*count)++] = (struct previous_cpu){id, cpu_ns};
    return 0;
}

/* --- stacks --- */

static uint64_t text_hash(const char *text)
{
    uint64_t hash = 1469598103934665603ULL;
    for (; *text; text++)
        hash = (hash ^ (unsigned char)*text) * 1099511628211ULL;
    return hash ? hash : 1;
}

int64_t host_stack_table_intern(struct host_stack_table *table, const char *text, int *is_new)
{
    enum { SLOTS = 2 * HOST_SAMPLER_STACKS };
    uint64_t hash = text_hash(text);
    *is_new = 0;
    for (size_t probe = 0, slot = hash % SLOTS; probe < SLOTS; probe++, slot = (slot + 1) % SLOTS) {
        if (table->hashes[slot] == hash)
            return table->ids[slot];
        if (table->hashes[slot] == 0) {
            if (table->count >= HOST_SAMPLER_STACKS)
                return 0;
            table->hashes[slot] = hash;
            table->ids[slot] = ++table->count;
            table->last_slot = (int64_t)slot;
            *is_new = 1;
            return table->count;
        }
    }
    return 0;
}

void host_stack_table_forget_last(struct host_stack_table *table)
{
    if (table->last_slot < 0 || table->count == 0)
        return;
    table->hashes[table->last_slot] = 0; /* the newest entry: no later one probed past it */
    table->count--;
    table->last_slot = -1;
}

/* --- the ring of buffers --- */

/* Hands the filled buffer over; a refused buffer comes back and its samples count as dropped. */
static void hand_over(host_sampler *sampler)
{
    if (!sampler->current || sampler->used == 0)
        return;
    uint8_t *buffer = sampler->current;
    size_t used = sampler->used;
    int64_t samples = sampler->current_samples;
    sampler->current = NULL;
    sampler->used = 0;
    sampler->current_samples = 0;
    sampler->last_submit_ns = sampler->config.now_ns();
    if (sampler->config.submit(sampler->config.submit_context, buffer, used) != 0) {
        atomic_fetch_add(&sampler->dropped, samples);
        host_sampler_release(sampler, buffer);
    }
}

/* Room for size bytes in the current buffer, handing it over and taking a free one when full.
 * NULL when none is free (the writer holds them all). */
static uint8_t *reserve(host_sampler *sampler, size_t size)
{
    if (sampler->current && sampler->used + size > HOST_SAMPLER_BUFFER_BYTES)
        hand_over(sampler);
    if (!sampler->current) {
        pthread_mutex_lock(&sampler->lock);
        if (sampler->free_count > 0)
            sampler->current = sampler->free_buffers[--sampler->free_count];
        pthread_mutex_unlock(&sampler->lock);
        sampler->used = 0;
    }
    return sampler->current && size <= HOST_SAMPLER_BUFFER_BYTES ? sampler->current + sampler->used : NULL;
}

static size_t round8(size_t size)
{
    return (size + 7) & ~(size_t)7;
}

/* --- one tick --- */

static void try_python(host_sampler *sampler, int64_t tick)
{
    if (sampler->python_ready) {
        python_gc_install(); /* one atomic load once asked (python_gc.h) */
        return;
    }
    if (tick < sampler->python_next_try)
        return;
    sampler->python_next_try = tick + PYTHON_RETRY_TICKS;
    char why[160] = "";
    enum python_frames_status status = python_frames_detect(&sampler->python, why, sizeof why);
    if (status == PYTHON_FRAMES_ABSENT)
        return; /* not a Python program (yet): nothing to say, its threads have no Python stacks */
    if (status != PYTHON_FRAMES_READY ||
        python_frames_detect_threads(&sampler->python, why, sizeof why) != 0) {
        snprintf(sampler->python_note, sizeof sampler->python_note, "%s", why);
        return;
    }
    sampler->python_ready = 1;
    sampler->python_note[0] = '\0';
    python_gc_install();
}

/* Puts STORE_HOST_GC_FRAME above the stack in text (the collector runs under its innermost frame);
 * frames that no longer fit at the end are cut at a line's end. */
static void mark_collecting(char *text, size_t size)
{
    static const char marker[] = STORE_HOST_GC_FRAME "\n";
    size_t marker_length = sizeof marker - 1, length = strlen(text);
    if (marker_length + 1 >= size)
        return;
    if (length + marker_length + 1 > size) {
        length = size - marker_length - 1;
        while (length > 0 && text[length - 1] != '\n')
            length--;
        if (length > 0)
            length--; /* drop the separator before the cut: the stack ends with a frame */
    }
    memmove(text + marker_length, text, length);
    memcpy(text, marker, marker_length);
    text[marker_length + length] = '\0';
    if (length == 0)
        text[marker_length - 1] = '\0'; /* the marker alone: no trailing separator */
}

/* The thread's stack id (0: none): its Python stack when it has one. */
static int64_t stack_of(host_sampler *sampler, uint32_t tid, int state_count, struct stack_record **new_stack)
{
    *new_stack = NULL;
    uintptr_t state = 0;
    for (int i = 0; i < state_count; i++)
        if (sampler->thread_state_tids[i] == tid)
            state = sampler->thread_states[i];
    if (!state)
        return 0;
    if (python_frames_stack(&sampler->python, state, HOST_SAMPLER_FRAMES, sampler->stack_text,
                            sizeof sampler->stack_text) == 0) {
        atomic_fetch_add(&sampler->stackless, 1);
        return 0;
    }
    if (python_gc_running_on(tid))
        mark_collecting(sampler->stack_text, sizeof sampler->stack_text);
    int is_new = 0;
    int64_t id = host_stack_table_intern(&sampler->stacks, sampler->stack_text, &is_new);
    if (id == 0)
        atomic_fetch_add(&sampler->stackless, 1);
    if (is_new) {
        struct stack_record *record = (struct stack_record *)sampler->record_space;
        size_t length = strlen(sampler->stack_text);
        record->header = (struct record_header){RECORD_STACK, (uint32_t)round8(sizeof *record + length + 1)};
        record->id = id;
        memcpy(record->text, sampler->stack_text, length + 1);
        *new_stack = record;
    }
    return id;
}

static void sample_thread(host_sampler *sampler, uint32_t tid, int64_t now, int state_count)
{
    char path[64];
    struct host_proc_stat stat;
    snprintf(path, sizeof path, "/proc/self/task/%u/stat", tid);
    if (read_stat(path, &stat) != 0)
        return; /* the thread has ended */
    int64_t cpu = cpu_clock_ns((pid_t)tid, 1, stat.cpu_ticks);
    struct thread_record record = {.header = {RECORD_THREAD, (uint32_t)round8(sizeof record)},
                                   .time_ns = now,
                                   .cpu_ns = cpu_since(sampler->threads, &sampler->thread_count,
                                                       HOST_SAMPLER_THREADS, (int32_t)tid, cpu),
                                   .pid = sampler->pid,
                                   .tid = (int32_t)tid,
                                   .state = stat.state};
    struct stack_record *new_stack = NULL;
    if (sampler->python_ready)
        record.stack_id = stack_of(sampler, tid, state_count, &new_stack);
    size_t stack_size = new_stack ? new_stack->header.size : 0;
    uint8_t *space = reserve(sampler, stack_size + record.header.size);
    if (!space) {
        atomic_fetch_add(&sampler->dropped, 1);
        if (new_stack)
            host_stack_table_forget_last(&sampler->stacks); /* written with the next sample that has it */
        return;
    }
    if (new_stack) {
        memcpy(space, new_stack, stack_size);
        sampler->used += stack_size;
        space += stack_size;
    }
    memcpy(space, &record, sizeof record);
    sampler->used += record.header.size;
    sampler->current_samples++;
    atomic_fetch_add(&sampler->thread_samples, 1);
}

static void sample_process(host_sampler *sampler, int32_t pid, int64_t now)
{
    char path[64];
    struct host_proc_stat stat;
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    if (read_stat(path, &stat) != 0)
        return;
    int64_t cpu = cpu_clock_ns((pid_t)pid, 0, stat.cpu_ticks);
    struct process_record record = {
        .header = {RECORD_PROCESS, (uint32_t)round8(sizeof record)},
        .time_ns = now,
        .cpu_ns = cpu_since(sampler->processes, &sampler->process_count, HOST_SAMPLER_PROCESSES, pid, cpu),
        .pid = pid,
        .parent_pid = (int32_t)stat.parent_pid,
        .state = stat.state};
    memcpy(record.name, stat.name, sizeof record.name);
    uint8_t *space = reserve(sampler, record.header.size);
    if (!space) {
        atomic_fetch_add(&sampler->dropped, 1);
        return;
    }
    memcpy(space, &record, sizeof record);
    sampler->used += record.header.size;
    sampler->current_samples++;
    atomic_fetch_add(&sampler->process_samples, 1);
}

/* Adds the pids listed in /proc/<pid>/task/<tid>/children. */
static void add_children(host_sampler *sampler, int32_t pid, const char *tid)
{
    char path[96], text[1024];
    snprintf(path, sizeof path, "/proc/%d/task/%s/children", pid, tid);
    ssize_t got = read_proc(path, text, sizeof text - 1);
    if (got <= 0)
        return;
    text[got] = '\0';
    for (char *c = text; *c && sampler->child_count < HOST_SAMPLER_PROCESSES - 1;) {
        char *end;
        long child = strtol(c, &end, 10);
        if (end == c)
            break;
        int known = 0;
        for (int i = 0; i < sampler->child_count; i++)
            known |= sampler->children[i] == (int32_t)child;
        if (!known && child > 0) {
            sampler->child_parents[sampler->child_count] = pid;
            sampler->children[sampler->child_count++] = (int32_t)child;
        }
        c = end;
    }
}

/* The children of every thread of this process (a DataLoader is started from any thread), and
 * the children of their main threads (a forkserver's). getdents64, not opendir: no allocation. */
static void find_children(host_sampler *sampler)
{
    sampler->child_count = 0;
    int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    char entries[4096];
    long got;
    while ((got = syscall(SYS_getdents64, fd, entries, sizeof entries)) > 0) {
        for (long offset = 0; offset < got;) {
            struct dirent64 *entry = (struct dirent64 *)(entries + offset);
            if (entry->d_name[0] >= '0' && entry->d_name[0] <= '9')
                add_children(sampler, sampler->pid, entry->d_name);
            offset += entry->d_reclen;
        }
    }
    close(fd);
    int direct = sampler->child_count;
    for (int i = 0; i < direct; i++) {
        char tid[16];
        snprintf(tid, sizeof tid, "%d", sampler->children[i]);
        add_children(sampler, sampler->children[i], tid);
    }
}

static void tick(host_sampler *sampler, int64_t tick_number)
{
    int64_t now = sampler->config.now_ns();
    try_python(sampler, tick_number);
    int state_count = 0;
    if (sampler->python_ready)
        state_count = python_frames_thread_states(&sampler->python, sampler->thread_states,
                                                  sampler->thread_state_tids, HOST_SAMPLER_THREADS);
    uint32_t tids[HOST_SAMPLER_THREADS];
    size_t count = 0;
    tids[count++] = (uint32_t)sampler->pid;
    if (sampler->config.thread_ids) {
        uint32_t noted[HOST_SAMPLER_THREADS];
        size_t noted_count = sampler->config.thread_ids(noted, HOST_SAMPLER_THREADS - 1);
        for (size_t i = 0; i < noted_count; i++)
            if (noted[i] != (uint32_t)sampler->pid)
                tids[count++] = noted[i];
    }
    for (size_t i = 0; i < count; i++)
        sample_thread(sampler, tids[i], now, state_count);
    if (tick_number % HOST_SAMPLER_CHILD_SCAN == 0)
        find_children(sampler);
    if (!sampler->config.parent_samples_me)
        sample_process(sampler, sampler->pid, now);
    /* A child's children are sampled by that child when it records itself; asked at every tick: a
     * child forked just before a scan creates its file a moment later. */
    for (int i = 0; i < sampler->child_count; i++) {
        int32_t parent = sampler->child_parents[i];
        if (parent == sampler->pid ||
            !(sampler->config.records_itself && sampler->config.records_itself((pid_t)parent)))
            sample_process(sampler, sampler->children[i], now);
    }
    if (sampler->current && now - sampler->last_submit_ns >= SUBMIT_PERIOD_NS)
        hand_over(sampler);
    atomic_fetch_add(&sampler->ticks, 1);
}

static void *sampler_main(void *argument)
{
    host_sampler *sampler = argument;
    int64_t period_ns = 1000000000LL / sampler->config.hz;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    pthread_mutex_lock(&sampler->lock);
    for (int64_t tick_number = 0; !sampler->stop; tick_number++) {
        pthread_mutex_unlock(&sampler->lock);
        tick(sampler, tick_number);
        pthread_mutex_lock(&sampler->lock);
        int64_t nanoseconds = next.tv_nsec + period_ns;
        next.tv_sec += nanoseconds / 1000000000;
        next.tv_nsec = nanoseconds % 1000000000;
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec))
            next = now; /* late (a descheduled sampler): skip the missed ticks, do not catch up */
        while (!sampler->stop && pthread_cond_timedwait(&sampler->wake, &sampler->lock, &next) != ETIMEDOUT)
            ;
    }
    pthread_mutex_unlock(&sampler->lock);
    hand_over(sampler);
    return NULL;
}

host_sampler *host_sampler_start(const struct host_sampler_config *config, error_info *err)
{
    if (config->hz <= 0 || config->hz > 1000 || !config->now_ns || !config->submit) {
        error_set(err, "host sampler: a rate from 1 to 1000 per second and a writer are needed");
        return NULL;
    }
    host_sampler *sampler = calloc(1, sizeof *sampler);
    uint8_t *memory = malloc((size_t)HOST_SAMPLER_BUFFERS * HOST_SAMPLER_BUFFER_BYTES);
    if (!sampler || !memory) {
        free(sampler);
        free(memory);
        error_set(err, "host sampler: out of memory");
        return NULL;
    }
    sampler->config = *config;
    sampler->pid = getpid();
    sampler->memory = memory;
    for (int i = 0; i < HOST_SAMPLER_BUFFERS; i++)
        sampler->free_buffers[sampler->free_count++] = memory + (size_t)i * HOST_SAMPLER_BUFFER_BYTES;
    pthread_mutex_init(&sampler->lock, NULL);
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&sampler->wake, &attributes);
    pthread_condattr_destroy(&attributes);
    sampler->last_submit_ns = config->now_ns();
    if (pthread_create(&sampler->thread, NULL, sampler_main, sampler) != 0) {
        host_sampler_free(sampler);
        error_set(err, "host sampler: no thread");
        return NULL;
    }
    sampler->started = 1;
    pthread_setname_np(sampler->thread, "overlapscope-sm");
    return sampler;
}

void host_sampler_stop(host_sampler *sampler)
{
    if (!sampler || !sampler->started)
        return;
    pthread_mutex_lock(&sampler->lock);
    sampler->stop = 1;
    pthread_cond_signal(&sampler->wake);
    pthread_mutex_unlock(&sampler->lock);
    pthread_join(sampler->thread, NULL);
    sampler->started = 0;
}

void host_sampler_free(host_sampler *sampler)
{
    if (!sampler)
        return;
    host_sampler_stop(sampler);
    pthread_mutex_destroy(&sampler->lock);
    pthread_cond_destroy(&sampler->wake);
    free(sampler->memory);
    free(sampler);
}

void host_sampler_forget_after_fork(host_sampler *sampler)
{
    if (sampler)
        sampler->started = 0; /* its thread is the parent's; nothing here is freed */
}

int host_sampler_consume(void *context, store *trace, const uint8_t *buffer, size_t valid_bytes,
                         error_info *err)
{
    (void)context;
    for (size_t offset = 0; offset + sizeof(struct record_header) <= valid_bytes;) {
        struct record_header header;
        memcpy(&header, buffer + offset, sizeof header);
        if (header.size < sizeof header || offset + header.size > valid_bytes)
            return error_set(err, "host samples: a damaged buffer");
        const uint8_t *record = buffer + offset;
        int status = 0;
        if (header.kind == RECORD_THREAD) {
            struct thread_record row;
            memcpy(&row, record, sizeof row);
            struct store_host_sample sample = {.pid = row.pid,
                                               .tid = row.tid,
                                               .time_ns = row.time_ns,
                                               .state = row.state,
                                               .cpu_ns = row.cpu_ns,
                                               .stack_id = row.stack_id ? row.stack_id : STORE_NULL};
            status = store_insert_host_sample(trace, &sample, err);
        } else if (header.kind == RECORD_PROCESS) {
            struct process_record row;
            memcpy(&row, record, sizeof row);
            char name[sizeof row.name + 1];
            memcpy(name, row.name, sizeof row.name);
            name[sizeof row.name] = '\0';
            struct store_process_cpu_sample sample = {.pid = row.pid,
                                                      .parent_pid = row.parent_pid,
                                                      .time_ns = row.time_ns,
                                                      .cpu_ns = row.cpu_ns,
                                                      .state = row.state,
                                                      .name = name};
            status = store_insert_process_cpu_sample(trace, &sample, err);
        } else if (header.kind == RECORD_STACK) {
            const struct stack_record *stack = (const struct stack_record *)record;
            if (memchr(stack->text, '\0', header.size - sizeof *stack) == NULL)
                return error_set(err, "host samples: a damaged buffer");
            status = store_insert_host_stack(trace, stack->id, stack->text, err);
        }
        if (status != 0)
            return -1;
        offset += header.size;
    }
    return 0;
}

void host_sampler_release(void *context, uint8_t *buffer)
{
    host_sampler *sampler = context;
    pthread_mutex_lock(&sampler->lock);
    if (sampler->free_count < HOST_SAMPLER_BUFFERS)
        sampler->free_buffers[sampler->free_count++] = buffer;
    pthread_mutex_unlock(&sampler->lock);
}

void host_sampler_counts(const host_sampler *sampler, struct host_sampler_counts *counts)
{
    memset(counts, 0, sizeof *counts);
    if (!sampler)
        return;
    host_sampler *mutable = (host_sampler *)sampler;
    counts->ticks = atomic_load(&mutable->ticks);
    counts->thread_samples = atomic_load(&mutable->thread_samples);
    counts->process_samples = atomic_load(&mutable->process_samples);
    counts->dropped_samples = atomic_load(&mutable->dropped);
    counts->stackless_samples = atomic_load(&mutable->stackless);
    counts->stacks = sampler->stacks.count;
    snprintf(counts->python_note, sizeof counts->python_note, "%s", sampler->python_note);
}
