/* key_index.c: see key_index.h. */
#include "key_index.h"

#include <stdlib.h>

uint64_t key_index_hash(int64_t a, int64_t b, int64_t c, int64_t d)
{
    uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ull;
    h = (h ^ (h >> 31) ^ (uint64_t)b) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 29) ^ (uint64_t)c) * 0x94D049BB133111EBull;
    h = (h ^ (h >> 32) ^ (uint64_t)d) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

long key_index_find(const struct key_index *index, uint64_t hash,
                    int (*matches)(const void *context, size_t position), const void *context)
{
    if (index->capacity == 0)
        return -1;
    size_t mask = index->capacity - 1;
    for (size_t slot = hash & mask; index->slots[slot].position_plus_one; slot = (slot + 1) & mask) {
        const struct key_index_slot *entry = &index->slots[slot];
        if (entry->hash == hash && matches(context, entry->position_plus_one - 1))
            return (long)(entry->position_plus_one - 1);
    }
    return -1;
}

static void place(struct key_index_slot *slots, size_t capacity, uint64_t hash, size_t position_plus_one)
{
    size_t mask = capacity - 1, slot = hash & mask;
    while (slots[slot].position_plus_one)
        slot = (slot + 1) & mask;
    slots[slot] = (struct key_index_slot){hash, position_plus_one};
}

int key_index_add(struct key_index *index, uint64_t hash, size_t position)
{
    if ((index->count + 1) * 2 > index->capacity) {
        size_t capacity = index->capacity ? index->capacity * 2 : 64;
        struct key_index_slot *slots = calloc(capacity, sizeof *slots);
        if (!slots)
            return -1;
        for (size_t i = 0; i < index->capacity; i++)
            if (index->slots[i].position_plus_one)
                place(slots, capacity, index->slots[i].hash, index->slots[i].position_plus_one);
        free(index->slots);
        index->slots = slots;
        index->capacity = capacity;
    }
    place(index->slots, index->capacity, hash, position + 1);
    index->count++;
    return 0;
}

void key_index_free(struct key_index *index)
{
    free(index->slots);
    index->slots = NULL;
    index->capacity = index->count = 0;
}
