/* stream_set.c: streams seen by an importer (see stream_set.h). Lookups scan from the newest
 * entry: consecutive activities mostly hit the same few streams, and a trace has tens of them. */
#include "stream_set.h"

#include <stdlib.h>

int stream_set_note(struct stream_set *set, int64_t process_id, int64_t device_id, int64_t context_id,
                    int64_t stream_id, int what_ran)
{
    if (context_id == STORE_NULL)
        context_id = 0;
    for (size_t i = set->count; i-- > 0;) {
        struct stream_set_entry *entry = &set->entries[i];
        if (entry->stream_id == stream_id && entry->device_id == device_id && entry->context_id == context_id &&
            entry->process_id == process_id) {
            entry->what_ran |= what_ran;
            return 0;
        }
    }
    if (set->count == set->capacity) {
        size_t capacity = set->capacity ? set->capacity * 2 : 16;
        struct stream_set_entry *grown = realloc(set->entries, capacity * sizeof *grown);
        if (!grown)
            return -1;
        set->entries = grown;
        set->capacity = capacity;
    }
    set->entries[set->count++] = (struct stream_set_entry){process_id, device_id, context_id, stream_id, what_ran};
    return 0;
}

int stream_set_write(const struct stream_set *set, store *s, error_info *err)
{
    for (size_t i = 0; i < set->count; i++) {
        const struct stream_set_entry *entry = &set->entries[i];
        const char *label = (entry->what_ran & STREAM_SET_NCCL)     ? "nccl"
                            : (entry->what_ran & STREAM_SET_KERNEL) ? "compute"
                            : (entry->what_ran & STREAM_SET_COPY)   ? "copy"
                                                                    : NULL;
        struct store_stream row = {.process_id = entry->process_id, .device_id = entry->device_id,
                                   .context_id = entry->context_id, .stream_id = entry->stream_id,
                                   .is_legacy_default = 0, .is_per_thread_default = 0, .priority = STORE_NULL,
                                   .flags = 0, .label = label};
        if (store_insert_stream(s, &row, err) != 0)
            return -1;
    }
    return 0;
}

void stream_set_free(struct stream_set *set)
{
    free(set->entries);
    set->entries = NULL;
    set->count = set->capacity = 0;
}
