/* call_site.c: see call_site.h. */
#include "call_site.h"

#include <stdlib.h>
#include <string.h>

#include "call_sources.h"
#include "native_caller.h"
#include "python_calls.h"

#define SOURCE_TEXT 512
#define HASH_SLOTS (2 * CALL_SITE_MAX_SOURCES) /* a power of two, at most half full */
#define NO_SOURCE UINT32_MAX

/* The blocking call this thread is inside, so that the call it makes in turn (runtime -> driver)
 * reuses its source. Thread-local, not shared state. */
static _Thread_local struct {
    int depth;
    int32_t kind;
    uint32_t source;
} inside;

int call_site_init(struct call_site *sites, int enabled, error_info *err)
{
    memset(sites, 0, sizeof *sites);
    pthread_mutex_init(&sites->lock, NULL);
    if (!enabled)
        return 0;
    sites->sources = calloc(CALL_SITE_MAX_SOURCES, sizeof *sites->sources);
    sites->source_index = calloc(HASH_SLOTS, sizeof *sites->source_index);
    if (!sites->sources || !sites->source_index) {
        call_site_free(sites);
        pthread_mutex_init(&sites->lock, NULL);
        return error_set(err, "out of memory");
    }
    if (python_frames_detect(&sites->python, sites->python_unsupported, sizeof sites->python_unsupported) !=
        PYTHON_FRAMES_UNSUPPORTED)
        sites->python_unsupported[0] = '\0';
    native_caller_prepare();
    sites->enabled = 1;
    return 0;
}

static uint32_t text_hash(const char *text)
{
    uint32_t hash = 2166136261u; /* FNV-1a */
    for (; *text; text++)
        hash = (hash ^ (unsigned char)*text) * 16777619u;
    return hash;
}

/* The index of text among the sources, added when new; NO_SOURCE when the table is full or out of
 * memory. Under the lock. */
static uint32_t intern(struct call_site *sites, const char *text)
{
    uint32_t slot = text_hash(text) & (HASH_SLOTS - 1);
    for (; sites->source_index[slot]; slot = (slot + 1) & (HASH_SLOTS - 1)) {
        uint32_t index = sites->source_index[slot] - 1;
        if (strcmp(sites->sources[index], text) == 0)
            return index;
    }
    if (sites->source_count >= CALL_SITE_MAX_SOURCES)
        return NO_SOURCE;
    char *copy = strdup(text);
    if (!copy)
        return NO_SOURCE;
    sites->sources[sites->source_count] = copy;
    sites->source_index[slot] = ++sites->source_count;
    return sites->source_count - 1;
}

static void keep_row(struct call_site *sites, int64_t correlation_id, int32_t kind, uint32_t source)
{
    if (source == NO_SOURCE || sites->row_count >= CALL_SITE_MAX_PENDING) {
        sites->dropped_rows++;
        return;
    }
    if (sites->row_count == sites->row_capacity) {
        size_t capacity = sites->row_capacity ? 2 * sites->row_capacity : 256;
        struct call_site_row *rows = realloc(sites->rows, capacity * sizeof *rows);
        if (!rows) {
            sites->dropped_rows++;
            return;
        }
        sites->rows = rows;
        sites->row_capacity = capacity;
    }
    sites->rows[sites->row_count++] = (struct call_site_row){correlation_id, kind, source};
    if (kind == STORE_SOURCE_PYTHON)
        sites->python_rows++;
    else
        sites->native_rows++;
}

void call_site_enter(struct call_site *sites, int64_t correlation_id)
{
    if (!sites->enabled)
        return;
    if (inside.depth++ > 0) {
        if (sites->record_inner_calls && inside.source != NO_SOURCE) {
            pthread_mutex_lock(&sites->lock);
            keep_row(sites, correlation_id, inside.kind, inside.source);
            pthread_mutex_unlock(&sites->lock);
        }
        return;
    }
    /* captured before the lock: the walk is the slow part, and it reads only this thread */
    char text[SOURCE_TEXT];
    int32_t kind = STORE_SOURCE_PYTHON;
    if (!python_frames_capture(&sites->python, text, sizeof text)) {
        kind = STORE_SOURCE_NATIVE;
        if (!native_caller_describe(text, sizeof text))
            kind = 0;
    } else {
        python_calls_note(&sites->python, python_frames_last_wrapper()); /* python_calls.h */
    }
    pthread_mutex_lock(&sites->lock);
    inside.kind = kind;
    inside.source = kind ? intern(sites, text) : NO_SOURCE;
    if (kind)
        keep_row(sites, correlation_id, kind, inside.source);
    else
        sites->unknown_calls++;
    pthread_mutex_unlock(&sites->lock);
}

void call_site_exit(struct call_site *sites)
{
    if (sites->enabled && inside.depth > 0)
        inside.depth--;
}

struct call_site_row *call_site_take(struct call_site *sites, size_t *count)
{
    pthread_mutex_lock(&sites->lock);
    struct call_site_row *rows = sites->row_count ? sites->rows : NULL;
    *count = sites->row_count;
    if (rows) {
        sites->rows = NULL;
        sites->row_count = sites->row_capacity = 0;
    }
    pthread_mutex_unlock(&sites->lock);
    return rows;
}

/* A row's source slot was filled before the row was kept, under the lock, and never changes. */
int call_site_write_rows(struct call_site *sites, store *trace, int64_t process_id,
                         const struct call_site_row *rows, size_t count, error_info *err)
{
    for (size_t i = 0; i < count; i++)
        if (store_insert_call_source(trace, process_id, rows[i].correlation_id, rows[i].kind,
                                     sites->sources[rows[i].source], err) != 0)
            return -1;
    return 0;
}

int call_site_write(struct call_site *sites, store *trace, int64_t process_id, error_info *err)
{
    size_t count = 0;
    struct call_site_row *rows = call_site_take(sites, &count);
    int status = call_site_write_rows(sites, trace, process_id, rows, count, err);
    free(rows);
    return status;
}

void call_site_forget_after_fork(struct call_site *sites)
{
    sites->lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    sites->row_count = 0;
    sites->python_rows = sites->native_rows = sites->unknown_calls = sites->dropped_rows = 0;
    inside.depth = 0;
}

void call_site_free(struct call_site *sites)
{
    if (sites->sources)
        for (uint32_t i = 0; i < sites->source_count; i++)
            free(sites->sources[i]);
    free(sites->sources);
    free(sites->source_index);
    free(sites->rows);
    pthread_mutex_destroy(&sites->lock);
    memset(sites, 0, sizeof *sites);
}
