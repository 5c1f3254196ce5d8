/* collector_writer.c: the queue and the writer thread (see collector_writer.h).
 *
 * Owns: the queue's nodes, the thread, the first error. The store belongs to the caller. */
#include "collector_writer.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct queued_buffer {
    uint8_t *buffer;
    size_t valid_bytes;
    collector_writer_consume consume; /* the writer's own, or the submitter's */
    collector_writer_release release;
    struct queued_buffer *next;
};

struct collector_writer {
    store *trace;
    collector_writer_consume consume;
    collector_writer_release release;
    void *context;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t work_ready, work_done;
    struct queued_buffer *head, *tail;
    int64_t submitted, finished; /* buffers; drain waits for finished == submitted */
    int64_t written, lost;
    int stopping;
    int has_error;
    error_info first_error;
};

static void keep_first_error(collector_writer *writer, const error_info *err)
{
    pthread_mutex_lock(&writer->lock);
    if (!writer->has_error) {
        writer->has_error = 1;
        writer->first_error = *err;
    }
    pthread_mutex_unlock(&writer->lock);
}

/* Writes one batch of buffers in one transaction; returns how many it consumed. */
static int64_t write_batch(collector_writer *writer, struct queued_buffer *batch)
{
    error_info err;
    int64_t count = 0, failed = 0;
    if (store_begin(writer->trace, &err) != 0)
        keep_first_error(writer, &err);
    while (batch) {
        struct queued_buffer *next = batch->next;
        if (batch->consume(writer->context, writer->trace, batch->buffer, batch->valid_bytes, &err) != 0) {
            keep_first_error(writer, &err);
            failed++;
        }
        batch->release(writer->context, batch->buffer);
        free(batch);
        batch = next;
        count++;
    }
    if (store_commit(writer->trace, &err) != 0)
        keep_first_error(writer, &err);
    pthread_mutex_lock(&writer->lock);
    writer->written += count - failed;
    writer->lost += failed;
    pthread_mutex_unlock(&writer->lock);
    return count;
}

static void *writer_main(void *argument)
{
    collector_writer *writer = argument;
    pthread_mutex_lock(&writer->lock);
    for (;;) {
        while (!writer->head && !writer->stopping)
            pthread_cond_wait(&writer->work_ready, &writer->lock);
        if (!writer->head && writer->stopping)
            break;
        struct queued_buffer *batch = writer->head;
        writer->head = writer->tail = NULL;
        pthread_mutex_unlock(&writer->lock);
        int64_t count = write_batch(writer, batch);
        pthread_mutex_lock(&writer->lock);
        writer->finished += count;
        pthread_cond_broadcast(&writer->work_done);
    }
    pthread_mutex_unlock(&writer->lock);
    return NULL;
}

collector_writer *collector_writer_start(store *trace, collector_writer_consume consume,
                                         collector_writer_release release, void *context, error_info *err)
{
    collector_writer *writer = calloc(1, sizeof *writer);
    if (!writer) {
        error_set(err, "out of memory");
        return NULL;
    }
    writer->trace = trace;
    writer->consume = consume;
    writer->release = release;
    writer->context = context;
    pthread_mutex_init(&writer->lock, NULL);
    pthread_cond_init(&writer->work_ready, NULL);
    pthread_cond_init(&writer->work_done, NULL);
    if (pthread_create(&writer->thread, NULL, writer_main, writer) != 0) {
        error_set(err, "cannot start the writer thread");
        pthread_mutex_destroy(&writer->lock);
        pthread_cond_destroy(&writer->work_ready);
        pthread_cond_destroy(&writer->work_done);
        free(writer);
        return NULL;
    }
    return writer;
}

int collector_writer_submit(collector_writer *writer, uint8_t *buffer, size_t valid_bytes)
{
    return collector_writer_submit_with(writer, buffer, valid_bytes, writer->consume, writer->release);
}

int collector_writer_submit_with(collector_writer *writer, uint8_t *buffer, size_t valid_bytes,
                                 collector_writer_consume consume, collector_writer_release release)
{
    struct queued_buffer *node = malloc(sizeof *node);
    if (!node) {
        release(writer->context, buffer);
        pthread_mutex_lock(&writer->lock);
        writer->lost++;
        pthread_mutex_unlock(&writer->lock);
        return -1;
    }
    *node = (struct queued_buffer){buffer, valid_bytes, consume, release, NULL};
    pthread_mutex_lock(&writer->lock);
    if (writer->tail)
        writer->tail->next = node;
    else
        writer->head = node;
    writer->tail = node;
    writer->submitted++;
    pthread_cond_signal(&writer->work_ready);
    pthread_mutex_unlock(&writer->lock);
    return 0;
}

void collector_writer_drain(collector_writer *writer)
{
    pthread_mutex_lock(&writer->lock);
    int64_t target = writer->submitted;
    while (writer->finished < target)
        pthread_cond_wait(&writer->work_done, &writer->lock);
    pthread_mutex_unlock(&writer->lock);
}

int collector_writer_stop(collector_writer *writer, error_info *err)
{
    pthread_mutex_lock(&writer->lock);
    writer->stopping = 1;
    pthread_cond_signal(&writer->work_ready);
    pthread_mutex_unlock(&writer->lock);
    pthread_join(writer->thread, NULL);
    int status = 0;
    if (writer->has_error) {
        if (err)
            *err = writer->first_error;
        status = -1;
    }
    pthread_mutex_destroy(&writer->lock);
    pthread_cond_destroy(&writer->work_ready);
    pthread_cond_destroy(&writer->work_done);
    free(writer);
    return status;
}

int64_t collector_writer_buffers_written(collector_writer *writer)
{
    pthread_mutex_lock(&writer->lock);
    int64_t written = writer->written;
    pthread_mutex_unlock(&writer->lock);
    return written;
}

int64_t collector_writer_buffers_lost(collector_writer *writer)
{
    pthread_mutex_lock(&writer->lock);
    int64_t lost = writer->lost;
    pthread_mutex_unlock(&writer->lock);
    return lost;
}
