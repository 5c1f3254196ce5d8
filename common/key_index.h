/* key_index.h: a hash index over an array the caller owns, from a key of a few int64 fields (a
 * stream's process, device, context and stream ids) to the entry's position. Lists that grow with
 * what an input holds (streams, devices) were scanned per lookup: quadratic when an input puts
 * every kernel on a stream of its own (issue 20 items 14, 15). Open addressing, at most half
 * full; slots keep the hash, so growing needs no callback.
 *
 * Owns: the slot table only; the entries stay in the caller's array. */
#ifndef OVERLAPSCOPE_KEY_INDEX_H
#define OVERLAPSCOPE_KEY_INDEX_H

#include <stddef.h>
#include <stdint.h>

struct key_index_slot {
    uint64_t hash;
    size_t position_plus_one; /* 0: empty */
};

struct key_index {
    struct key_index_slot *slots;
    size_t capacity, count;
};

/* The hash of a key of four fields (pass 0 for the unused ones). */
uint64_t key_index_hash(int64_t a, int64_t b, int64_t c, int64_t d);

/* The position of the entry with this hash for which matches(context, position) says 1, or -1. */
long key_index_find(const struct key_index *index, uint64_t hash,
                    int (*matches)(const void *context, size_t position), const void *context);

/* Adds position under hash. Returns 0, or -1 when out of memory (the index is then unchanged). */
int key_index_add(struct key_index *index, uint64_t hash, size_t position);

void key_index_free(struct key_index *index);

#endif
