/* crew.c: see crew.h. One lock guards the batch (its task, next index, done flags) and the workers'
 * states; a worker waits on `work` for a batch, the run's thread on `changed` for an index. */
#include "crew.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "queries_analysis.h"

struct member {
    crew *team;
    size_t number;
    store *reader; /* NULL when it could not open one */
    pthread_t thread;
    int started;
};

struct crew {
    store *trace;
    struct member *members;
    size_t count, opened_tries, opened;
    pthread_mutex_t lock;
    pthread_cond_t work, changed;
    int quit;
    /* the batch */
    crew_task *task;
    void *context;
    size_t total, next, running;
    unsigned char *done;
    size_t done_capacity;
    atomic_int_fast64_t cpu_ns;
};

static int64_t thread_cpu_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static void open_reader(struct member *member)
{
    crew *team = member->team;
    error_info ignored;
    member->reader = store_open_reader(team->trace, &ignored);
    if (member->reader)
        store_read_transaction_begin(store_db(member->reader));
    pthread_mutex_lock(&team->lock);
    team->opened_tries++;
    /* Numbered in the order they open: those holding a connection are 0 to crew_size - 1 even when
     * another failed to open (by place, a worker after it ran past its callers' per-worker arrays). */
    if (member->reader)
        member->number = team->opened++;
    pthread_cond_broadcast(&team->changed);
    pthread_mutex_unlock(&team->lock);
}

static void *work(void *context)
{
    struct member *member = context;
    crew *team = member->team;
    int64_t cpu_before = thread_cpu_ns();
    open_reader(member);
    atomic_fetch_add(&team->cpu_ns, thread_cpu_ns() - cpu_before);
    pthread_mutex_lock(&team->lock);
    while (member->reader && !team->quit) {
        if (!team->task || team->next >= team->total) {
            pthread_cond_wait(&team->work, &team->lock);
            continue;
        }
        size_t index = team->next++;
        team->running++;
        crew_task *task = team->task;
        void *task_context = team->context;
        pthread_mutex_unlock(&team->lock);
        cpu_before = thread_cpu_ns();
        task(task_context, index, member->number, member->reader);
        atomic_fetch_add(&team->cpu_ns, thread_cpu_ns() - cpu_before);
        pthread_mutex_lock(&team->lock);
        team->done[index] = 1;
        team->running--;
        pthread_cond_broadcast(&team->changed);
    }
    pthread_mutex_unlock(&team->lock);
    return NULL;
}

crew *crew_new(store *trace, size_t workers)
{
    crew *team = calloc(1, sizeof *team);
    if (!team)
        return NULL;
    team->members = calloc(workers ? workers : 1, sizeof *team->members);
    if (!team->members || pthread_mutex_init(&team->lock, NULL) != 0) {
        free(team->members);
        free(team);
        return NULL;
    }
    pthread_cond_init(&team->work, NULL);
    pthread_cond_init(&team->changed, NULL);
    atomic_init(&team->cpu_ns, 0);
    team->trace = trace;
    team->count = workers;
    size_t started = 0;
    for (size_t i = 0; i < workers; i++) {
        struct member *member = &team->members[i];
        *member = (struct member){.team = team}; /* numbered when its connection opens */
        member->started = pthread_create(&member->thread, NULL, work, member) == 0;
        started += member->started;
        if (!member->started) { /* counted as tried: crew_size does not wait for it */
            pthread_mutex_lock(&team->lock);
            team->opened_tries++;
            pthread_mutex_unlock(&team->lock);
        }
    }
    if (started == 0) {
        crew_free(team, trace);
        return NULL;
    }
    return team;
}

void crew_free(crew *team, store *trace)
{
    if (!team)
        return;
    pthread_mutex_lock(&team->lock);
    team->quit = 1;
    pthread_cond_broadcast(&team->work);
    pthread_mutex_unlock(&team->lock);
    for (size_t i = 0; i < team->count; i++) {
        struct member *member = &team->members[i];
        if (member->started)
            pthread_join(member->thread, NULL);
        if (!member->reader)
            continue;
        store_read_transaction_end(store_db(member->reader));
        store_absorb_work_limit(trace, member->reader);
        store_close(member->reader, NULL);
    }
    pthread_cond_destroy(&team->work);
    pthread_cond_destroy(&team->changed);
    pthread_mutex_destroy(&team->lock);
    free(team->done);
    free(team->members);
    free(team);
}

size_t crew_size(crew *team)
{
    pthread_mutex_lock(&team->lock);
    while (team->opened_tries < team->count)
        pthread_cond_wait(&team->changed, &team->lock);
    size_t opened = team->opened;
    pthread_mutex_unlock(&team->lock);
    return opened;
}

int crew_start(crew *team, size_t count, crew_task *task, void *context)
{
    if (crew_size(team) == 0)
        return -1;
    pthread_mutex_lock(&team->lock);
    if (count > team->done_capacity) {
        unsigned char *grown = realloc(team->done, count);
        if (!grown) {
            pthread_mutex_unlock(&team->lock);
            return -1;
        }
        team->done = grown;
        team->done_capacity = count;
    }
    for (size_t i = 0; i < count; i++)
        team->done[i] = 0;
    team->task = task;
    team->context = context;
    team->total = count;
    team->next = 0;
    pthread_cond_broadcast(&team->work);
    pthread_mutex_unlock(&team->lock);
    return 0;
}

void crew_wait(crew *team, size_t index)
{
    pthread_mutex_lock(&team->lock);
    while (!team->done[index])
        pthread_cond_wait(&team->changed, &team->lock);
    pthread_mutex_unlock(&team->lock);
}

int crew_wait_for(crew *team, size_t index, int64_t wait_ns)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    int64_t nanoseconds = until.tv_nsec + wait_ns;
    until.tv_sec += (time_t)(nanoseconds / 1000000000);
    until.tv_nsec = (long)(nanoseconds % 1000000000);
    pthread_mutex_lock(&team->lock);
    int waiting = 0;
    while (!team->done[index] && waiting == 0)
        waiting = pthread_cond_timedwait(&team->changed, &team->lock, &until);
    int done = team->done[index];
    pthread_mutex_unlock(&team->lock);
    return done;
}

void crew_stop(crew *team)
{
    pthread_mutex_lock(&team->lock);
    team->total = team->next;
    pthread_mutex_unlock(&team->lock);
}

void crew_finish(crew *team)
{
    pthread_mutex_lock(&team->lock);
    while (team->running > 0 || team->next < team->total)
        pthread_cond_wait(&team->changed, &team->lock);
    team->task = NULL;
    pthread_mutex_unlock(&team->lock);
}

int64_t crew_cpu_ns(crew *team)
{
    return (int64_t)atomic_load(&team->cpu_ns);
}

/* crew_run's batch: each index's status and error. */
struct checked_batch {
    crew_checked_task *task;
    void *context;
    int *status;
    error_info *errs;
};

static void run_checked(void *context, size_t index, size_t worker, store *reader)
{
    struct checked_batch *batch = context;
    batch->status[index] = batch->task(batch->context, index, worker, reader, &batch->errs[index]);
}

int crew_run(crew *team, store *alone, size_t count, crew_checked_task *task, void *context, error_info *err)
{
    struct checked_batch batch = {task, context, malloc((count ? count : 1) * sizeof *batch.status),
                                  malloc((count ? count : 1) * sizeof *batch.errs)};
    int status = batch.status && batch.errs ? 0 : error_set(err, "out of memory");
    if (status == 0 && team && crew_start(team, count, run_checked, &batch) == 0)
        crew_finish(team);
    else
        for (size_t i = 0; status == 0 && i < count; i++)
            run_checked(&batch, i, 0, alone);
    for (size_t i = 0; status == 0 && i < count; i++)
        if (batch.status[i] != 0) {
            *err = batch.errs[i];
            status = -1;
        }
    free(batch.status);
    free(batch.errs);
    return status;
}
