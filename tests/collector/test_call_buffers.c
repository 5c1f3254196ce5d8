/* The collector's per-thread host call buffers (collector/call_buffers.c), driven as CUDA threads
 * and the periodic flush drive them: four threads append 10,000 numbered records each into
 * 64-record buffers while another thread flushes every few microseconds; after the final flush
 * every record must have reached submit exactly once, and each thread's records in order. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "call_buffers.h"
#include "check.h"

#define THREADS 4
#define PER_THREAD 10000

struct sink {
    pthread_mutex_t lock;
    unsigned char seen[THREADS][PER_THREAD];
    uint32_t last[THREADS]; /* the last correlation id seen per thread, +1 */
    int out_of_order, duplicates, batches;
};

static int submit(void *context, struct host_call_record *records, size_t count)
{
    struct sink *sink = context;
    pthread_mutex_lock(&sink->lock);
    sink->batches++;
    for (size_t i = 0; i < count; i++) {
        uint32_t thread = records[i].thread_id, number = records[i].correlation_id;
        if (thread >= THREADS || number >= PER_THREAD)
            continue;
        if (sink->seen[thread][number]++)
            sink->duplicates++;
        if (number + 1 <= sink->last[thread])
            sink->out_of_order++;
        sink->last[thread] = number + 1;
    }
    pthread_mutex_unlock(&sink->lock);
    free(records);
    return 0;
}

struct worker {
    call_buffers *buffers;
    uint32_t thread;
};

static void *append_main(void *argument)
{
    struct worker *worker = argument;
    for (uint32_t i = 0; i < PER_THREAD; i++) {
        struct host_call_record record = {
            .thread_id = worker->thread, .correlation_id = i, .what = HOST_CALL_API};
        call_buffers_append(worker->buffers, &record);
    }
    return NULL;
}

static atomic_int stop_flushing;

static void *flush_main(void *argument)
{
    while (!atomic_load(&stop_flushing)) {
        call_buffers_flush(argument);
        nanosleep(&(struct timespec){0, 20000}, NULL);
    }
    return NULL;
}

static int refuse(void *context, struct host_call_record *records, size_t count)
{
    (void)context;
    (void)count;
    free(records);
    return -1;
}

int main(void)
{
    static struct sink sink = {.lock = PTHREAD_MUTEX_INITIALIZER};
    call_buffers *buffers = call_buffers_new(64, submit, &sink);
    CHECK(buffers != NULL);
    pthread_t threads[THREADS], flusher;
    struct worker workers[THREADS];
    pthread_create(&flusher, NULL, flush_main, buffers);
    for (uint32_t t = 0; t < THREADS; t++) {
        workers[t] = (struct worker){buffers, t};
        pthread_create(&threads[t], NULL, append_main, &workers[t]);
    }
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);
    atomic_store(&stop_flushing, 1);
    pthread_join(flusher, NULL);
    call_buffers_flush(buffers); /* the final flush: the threads have ended, their buffers stay */
    int missing = 0;
    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < PER_THREAD; i++)
            missing += !sink.seen[t][i];
    CHECK_INT(missing, 0);
    CHECK_INT(sink.duplicates, 0);
    CHECK_INT(sink.out_of_order, 0);
    CHECK_INT(call_buffers_lost(buffers), 0);
    CHECK(sink.batches >= THREADS * PER_THREAD / 64); /* full buffers were handed over on the way */
    /* A second flush finds nothing new. */
    int batches = sink.batches;
    call_buffers_flush(buffers);
    CHECK_INT(sink.batches, batches);
    call_buffers_free(buffers);

    /* A submit that refuses: the records are counted as lost, never written twice. */
    call_buffers *refusing = call_buffers_new(8, refuse, NULL);
    struct host_call_record record = {.what = HOST_CALL_API};
    for (int i = 0; i < 20; i++)
        call_buffers_append(refusing, &record); /* two full buffers handed over and refused */
    call_buffers_flush(refusing);
    CHECK_INT(call_buffers_lost(refusing), 20);
    call_buffers_free(refusing);
    return check_finish();
}
