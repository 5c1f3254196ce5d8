/* stream_set.c: streams seen by an importer (see stream_set.h). Lookups go through a hash index
 * (key_index.h), after a check of the stream hit last. */
#include "stream_set.h"

#include <stdlib.h>
#include <string.h>

struct stream_key {
    const struct stream_set *set;
    int64_t process_id, device_id, context_id, stream_id;
};

static int entry_matches(const void *context, size_t position)
{
    const struct stream_key *key = context;
    const struct stream_set_entry *entry = &key->set->entries[position];
    return entry->stream_id == key->stream_id && entry->device_id == key->device_id &&
           entry->context_id == key->context_id && entry->process_id == key->process_id;
}

/* The entry of a stream, added (idle, creation unknown) when new; NULL when out of memory. */
static struct stream_set_entry *entry_of(struct stream_set *set, int64_t process_id, int64_t device_id,
                                         int64_t context_id, int64_t stream_id)
{
    struct stream_key key = {set, process_id, device_id, context_id == STORE_NULL ? 0 : context_id,
                             stream_id};
    if (set->last_hit < set->count && entry_matches(&key, set->last_hit))
        return &set->entries[set->last_hit];
    uint64_t hash = key_index_hash(key.process_id, key.device_id, key.context_id, key.stream_id);
    long found = key_index_find(&set->index, hash, entry_matches, &key);
    if (found >= 0) {
        set->last_hit = (size_t)found;
        return &set->entries[found];
    }
    if (set->count == set->capacity) {
        size_t capacity = set->capacity ? set->capacity * 2 : 16;
        struct stream_set_entry *grown = realloc(set->entries, capacity * sizeof *grown);
        if (!grown)
            return NULL;
        set->entries = grown;
        set->capacity = capacity;
    }
    if (key_index_add(&set->index, hash, set->count) != 0)
        return NULL;
    set->entries[set->count] = (struct stream_set_entry){.process_id = process_id,
                                                         .device_id = device_id,
                                                         .context_id = key.context_id,
                                                         .stream_id = stream_id,
                                                         .priority = STORE_NULL,
                                                         .flags = STORE_NULL};
    set->last_hit = set->count++;
    return &set->entries[set->last_hit];
}

int stream_set_note(struct stream_set *set, int64_t process_id, int64_t device_id, int64_t context_id,
                    int64_t stream_id, enum analysis_category category, int64_t start_ns, int64_t end_ns)
{
    struct stream_set_entry *entry = entry_of(set, process_id, device_id, context_id, stream_id);
    if (!entry)
        return -1;
    /* a sum is a stream's busy time: a stream runs its work one item after another, so in a trace
     * the readers accept it stays under its device's span (STORE_MAX_SPAN_NS) plus one operation.
     * Capped there, a hostile file's times (which the store then refuses, or rows that overlap)
     * cannot overflow the sums, nor store_stream_role's tenfold of them. */
    const int64_t cap_ns = 2 * STORE_MAX_SPAN_NS;
    if (end_ns > start_ns) {
        uint64_t duration_ns = (uint64_t)end_ns - (uint64_t)start_ns; /* exact: end > start */
        uint64_t room_ns = (uint64_t)(cap_ns - entry->busy_ns[category]);
        entry->busy_ns[category] += (int64_t)(duration_ns < room_ns ? duration_ns : room_ns);
    }
    return 0;
}

int stream_set_describe(struct stream_set *set, int64_t process_id, int64_t device_id, int64_t context_id,
                        int64_t stream_id, int is_legacy_default, int64_t priority, int64_t flags)
{
    struct stream_set_entry *entry = entry_of(set, process_id, device_id, context_id, stream_id);
    if (!entry)
        return -1;
    entry->is_legacy_default |= is_legacy_default;
    if (priority != STORE_NULL)
        entry->priority = priority;
    if (flags != STORE_NULL)
        entry->flags = flags;
    return 0;
}

int stream_set_write(const struct stream_set *set, store *s, error_info *err)
{
    for (size_t i = 0; i < set->count; i++) {
        const struct stream_set_entry *entry = &set->entries[i];
        int64_t busy_ns = 0;
        for (int category = 0; category < ANALYSIS_CATEGORY_COUNT; category++)
            busy_ns += entry->busy_ns[category];
        const char *label = busy_ns ? store_stream_role(entry->busy_ns, entry->is_legacy_default) : NULL;
        struct store_stream row = {.process_id = entry->process_id,
                                   .device_id = entry->device_id,
                                   .context_id = entry->context_id,
                                   .stream_id = entry->stream_id,
                                   .is_legacy_default = entry->is_legacy_default,
                                   .is_per_thread_default = 0,
                                   .priority = entry->priority,
                                   .flags = entry->flags == STORE_NULL ? 0 : entry->flags,
                                   .label = label};
        if (store_insert_stream(s, &row, err) != 0)
            return -1;
    }
    return 0;
}

void stream_set_free(struct stream_set *set)
{
    free(set->entries);
    key_index_free(&set->index);
    set->entries = NULL;
    set->count = set->capacity = set->last_hit = 0;
}
