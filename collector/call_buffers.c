/* call_buffers.c: per-thread host call buffers (see call_buffers.h).
 *
 * Owns: every thread buffer (listed in the registry) and the registry. A copy handed to submit
 * belongs to submit's side. */
#include "call_buffers.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_CAPACITY 4096

struct thread_buffer {
    struct thread_buffer *next; /* the registry's list */
    /* Written only by the owning thread, read by flushers: the records below count are complete
     * (release store after the record is written, acquire load before it is read). */
    atomic_size_t count;
    size_t taken; /* records already copied out; guarded by the registry lock */
    struct host_call_record records[];
};

struct call_buffers {
    pthread_mutex_t lock; /* the registry: list, and every buffer's taken and count resets */
    struct thread_buffer *list;
    size_t capacity;
    call_buffers_submit submit;
    void *context;
    atomic_llong lost;
    atomic_uint generation; /* renewed in a fork child: threads' cached buffers expire */
};

/* Generations are unique across instances, so a thread's cached buffer of a freed instance is never
 * taken for one of a new instance at the same address. */
static atomic_uint last_generation;

static unsigned new_generation(void)
{
    unsigned generation = atomic_fetch_add(&last_generation, 1) + 1;
    return generation ? generation : atomic_fetch_add(&last_generation, 1) + 1;
}

/* The calling thread's buffer, valid while owner and generation match (one collector per
 * process; the checks keep a test's second instance or a fork child from using a stale one). */
static _Thread_local struct thread_buffer *current;
static _Thread_local call_buffers *current_owner;
static _Thread_local unsigned current_generation;

call_buffers *call_buffers_new(size_t capacity, call_buffers_submit submit, void *context)
{
    call_buffers *buffers = calloc(1, sizeof *buffers);
    if (!buffers)
        return NULL;
    pthread_mutex_init(&buffers->lock, NULL);
    buffers->capacity = capacity ? capacity : DEFAULT_CAPACITY;
    buffers->submit = submit;
    buffers->context = context;
    atomic_store(&buffers->generation, new_generation());
    return buffers;
}

/* Copies records [taken, count) of buffer out to submit. Called with the lock held. */
static void take_locked(call_buffers *buffers, struct thread_buffer *buffer)
{
    size_t count = atomic_load_explicit(&buffer->count, memory_order_acquire);
    if (count <= buffer->taken)
        return;
    size_t n = count - buffer->taken;
    struct host_call_record *copy = malloc(n * sizeof *copy);
    if (copy)
        memcpy(copy, buffer->records + buffer->taken, n * sizeof *copy);
    if (!copy || buffers->submit(buffers->context, copy, n) != 0)
        atomic_fetch_add_explicit(&buffers->lost, (long long)n, memory_order_relaxed);
    buffer->taken = count;
}

static struct thread_buffer *thread_buffer(call_buffers *buffers)
{
    unsigned generation = atomic_load_explicit(&buffers->generation, memory_order_relaxed);
    if (current && current_owner == buffers && current_generation == generation)
        return current;
    struct thread_buffer *buffer = malloc(sizeof *buffer + buffers->capacity * sizeof buffer->records[0]);
    if (!buffer)
        return NULL;
    atomic_init(&buffer->count, 0);
    buffer->taken = 0;
    pthread_mutex_lock(&buffers->lock);
    buffer->next = buffers->list;
    buffers->list = buffer;
    pthread_mutex_unlock(&buffers->lock);
    current = buffer;
    current_owner = buffers;
    current_generation = generation;
    return buffer;
}

int call_buffers_append(call_buffers *buffers, const struct host_call_record *record)
{
    struct thread_buffer *buffer = thread_buffer(buffers);
    if (!buffer) {
        atomic_fetch_add_explicit(&buffers->lost, 1, memory_order_relaxed);
        return -1;
    }
    size_t count = atomic_load_explicit(&buffer->count, memory_order_relaxed);
    if (count == buffers->capacity) {
        /* Full: hand everything not yet taken over, then start the buffer again. The reset is
         * under the lock so that no flusher reads taken/count halfway. */
        pthread_mutex_lock(&buffers->lock);
        take_locked(buffers, buffer);
        buffer->taken = 0;
        atomic_store_explicit(&buffer->count, 0, memory_order_release);
        pthread_mutex_unlock(&buffers->lock);
        count = 0;
    }
    buffer->records[count] = *record;
    atomic_store_explicit(&buffer->count, count + 1, memory_order_release);
    return 0;
}

void call_buffers_flush(call_buffers *buffers)
{
    pthread_mutex_lock(&buffers->lock);
    for (struct thread_buffer *buffer = buffers->list; buffer; buffer = buffer->next)
        take_locked(buffers, buffer);
    pthread_mutex_unlock(&buffers->lock);
}

long long call_buffers_lost(call_buffers *buffers)
{
    return atomic_load_explicit(&buffers->lost, memory_order_relaxed);
}

void call_buffers_forget_after_fork(call_buffers *buffers)
{
    buffers->lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    buffers->list = NULL; /* the parent's buffers stay allocated here: a copy of its memory */
    atomic_store(&buffers->lost, 0);
    atomic_store(&buffers->generation, new_generation());
}

void call_buffers_free(call_buffers *buffers)
{
    if (!buffers)
        return;
    for (struct thread_buffer *buffer = buffers->list, *next; buffer; buffer = next) {
        next = buffer->next;
        free(buffer);
    }
    pthread_mutex_destroy(&buffers->lock);
    free(buffers);
}
