/* chrome_tracks.c: see chrome_tracks.h. Logical tracks live in an array indexed by an
 * open-addressing hash of their key; each holds its physical tracks, each with a stack of the
 * ends of its open slices. */
#include "chrome_tracks.h"

#include <stdlib.h>
#include <string.h>

struct physical {
    int64_t tid;
    int64_t last_start;
    int64_t *open_ends; /* ends of the slices still open, outermost first */
    size_t depth, capacity;
};

/* A slice placed on an overflow track. */
struct placement {
    int64_t start_ns, end_ns, tid;
};

struct logical {
    struct chrome_track_key key;
    struct physical *tracks;
    size_t track_count;
    /* Its slices on overflow tracks, in placement order: by start, the longer first, as the caller
     * places them (sorted again only when a caller did not). */
    struct placement *placements;
    size_t placement_count, placement_capacity;
    int placements_unsorted;
};

struct chrome_tracks {
    struct logical *logicals;
    size_t logical_count, logical_capacity;
    size_t *slots; /* hash table of logical index + 1 (0: empty) */
    size_t slot_count;
    size_t last; /* logical index + 1 of the last lookup: rows of one track come together */
    int64_t next_tid;
};

static int grow(void **items, size_t *capacity, size_t needed, size_t size)
{
    if (needed <= *capacity)
        return 0;
    size_t next = *capacity ? *capacity * 2 : 16;
    while (next < needed)
        next *= 2;
    void *grown = realloc(*items, next * size);
    if (!grown)
        return -1;
    *items = grown;
    *capacity = next;
    return 0;
}

static int same_key(const struct chrome_track_key *a, const struct chrome_track_key *b)
{
    return a->process_id == b->process_id && a->kind == b->kind && a->device_id == b->device_id &&
           a->id == b->id;
}

static size_t hash_key(const struct chrome_track_key *key)
{
    uint64_t h = (uint64_t)key->process_id * 0x9E3779B97F4A7C15u;
    h ^= (uint64_t)key->kind + 0x632BE59BD9B4E019u + (h << 6) + (h >> 2);
    h ^= (uint64_t)key->device_id * 0xBF58476D1CE4E5B9u + (h << 6) + (h >> 2);
    h ^= (uint64_t)key->id * 0x94D049BB133111EBu + (h << 6) + (h >> 2);
    return (size_t)(h ^ (h >> 31));
}

chrome_tracks *chrome_tracks_new(void)
{
    return calloc(1, sizeof(chrome_tracks));
}

void chrome_tracks_free(chrome_tracks *tracks)
{
    if (!tracks)
        return;
    for (size_t i = 0; i < tracks->logical_count; i++) {
        for (size_t j = 0; j < tracks->logicals[i].track_count; j++)
            free(tracks->logicals[i].tracks[j].open_ends);
        free(tracks->logicals[i].tracks);
        free(tracks->logicals[i].placements);
    }
    free(tracks->logicals);
    free(tracks->slots);
    free(tracks);
}

/* The slot of key: where it is, or the empty slot where it would go. */
static size_t slot_of(const chrome_tracks *tracks, const struct chrome_track_key *key)
{
    size_t mask = tracks->slot_count - 1, slot = hash_key(key) & mask;
    while (tracks->slots[slot] && !same_key(&tracks->logicals[tracks->slots[slot] - 1].key, key))
        slot = (slot + 1) & mask;
    return slot;
}

static int rehash(chrome_tracks *tracks)
{
    size_t count = tracks->slot_count ? tracks->slot_count * 2 : 64;
    size_t *slots = calloc(count, sizeof *slots);
    if (!slots)
        return -1;
    free(tracks->slots);
    tracks->slots = slots;
    tracks->slot_count = count;
    for (size_t i = 0; i < tracks->logical_count; i++)
        tracks->slots[slot_of(tracks, &tracks->logicals[i].key)] = i + 1;
    return 0;
}

/* The logical track of key, or NULL (create 0); NULL also when out of memory (create 1). */
static struct logical *logical_of(chrome_tracks *tracks, const struct chrome_track_key *key, int create)
{
    if (tracks->last && same_key(&tracks->logicals[tracks->last - 1].key, key))
        return &tracks->logicals[tracks->last - 1];
    if (tracks->slot_count) {
        size_t slot = slot_of(tracks, key);
        if (tracks->slots[slot]) {
            tracks->last = tracks->slots[slot];
            return &tracks->logicals[tracks->last - 1];
        }
    }
    if (!create)
        return NULL;
    if ((tracks->logical_count + 1) * 2 > tracks->slot_count && rehash(tracks) != 0)
        return NULL;
    if (grow((void **)&tracks->logicals, &tracks->logical_capacity, tracks->logical_count + 1,
             sizeof *tracks->logicals) != 0)
        return NULL;
    struct logical *logical = &tracks->logicals[tracks->logical_count++];
    *logical = (struct logical){.key = *key};
    tracks->slots[slot_of(tracks, key)] = tracks->logical_count;
    tracks->last = tracks->logical_count;
    return logical;
}

static int strict_kind(enum chrome_track_kind kind)
{
    return kind == CHROME_TRACK_WAITS || kind == CHROME_TRACK_IDLE || kind == CHROME_TRACK_EXPOSED_COMM ||
           kind == CHROME_TRACK_EXPOSED_COPY || kind == CHROME_TRACK_STREAM;
}

/* 1 when [start, end] nests on track (after its open slices that ended are closed). */
static int fits(struct physical *track, int strict, int64_t start, int64_t end)
{
    if (start < track->last_start)
        return 0;
    while (track->depth && track->open_ends[track->depth - 1] <= start)
        track->depth--;
    return track->depth == 0 || (!strict && end <= track->open_ends[track->depth - 1]);
}

static struct physical *add_physical(chrome_tracks *tracks, struct logical *logical)
{
    struct physical *grown = realloc(logical->tracks, (logical->track_count + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    logical->tracks = grown;
    struct physical *track = &grown[logical->track_count++];
    /* tids are unique over the whole export; one equal to a pid would read as that process's main thread. */
    if (++tracks->next_tid == logical->key.process_id)
        ++tracks->next_tid;
    *track = (struct physical){.tid = tracks->next_tid, .last_start = INT64_MIN};
    return track;
}

static int compare_int64(int64_t a, int64_t b)
{
    return a < b ? -1 : a > b;
}

/* Placement order: by start, the longer first. */
static int compare_placements(const void *left, const void *right)
{
    const struct placement *a = left, *b = right;
    int order = compare_int64(a->start_ns, b->start_ns);
    return order ? order : compare_int64(b->end_ns, a->end_ns);
}

static int remember_placement(struct logical *logical, int64_t start_ns, int64_t end_ns, int64_t tid)
{
    if (grow((void **)&logical->placements, &logical->placement_capacity, logical->placement_count + 1,
             sizeof *logical->placements) != 0)
        return -1;
    struct placement placement = {.start_ns = start_ns, .end_ns = end_ns, .tid = tid};
    if (logical->placement_count &&
        compare_placements(&logical->placements[logical->placement_count - 1], &placement) > 0)
        logical->placements_unsorted = 1;
    logical->placements[logical->placement_count++] = placement;
    return 0;
}

int chrome_tracks_place(chrome_tracks *tracks, const struct chrome_track_key *key, int64_t start_ns,
                        int64_t end_ns, int64_t *tid)
{
    struct logical *logical = logical_of(tracks, key, 1);
    if (!logical)
        return -1;
    int strict = strict_kind(key->kind);
    size_t index = 0;
    while (index < logical->track_count && !fits(&logical->tracks[index], strict, start_ns, end_ns))
        index++;
    struct physical *track =
        index < logical->track_count ? &logical->tracks[index] : add_physical(tracks, logical);
    if (!track ||
        grow((void **)&track->open_ends, &track->capacity, track->depth + 1, sizeof *track->open_ends) != 0)
        return -1;
    track->open_ends[track->depth++] = end_ns;
    track->last_start = start_ns;
    *tid = track->tid;
    if (index > 0 && remember_placement(logical, start_ns, end_ns, track->tid) != 0)
        return -1;
    return 0;
}

static int compare_keys(const struct chrome_track_key *a, const struct chrome_track_key *b)
{
    int order = compare_int64(a->process_id, b->process_id);
    if (!order)
        order = compare_int64(a->device_id, b->device_id);
    if (!order)
        order = compare_int64(a->kind, b->kind);
    return order ? order : compare_int64(a->id, b->id);
}

int64_t chrome_tracks_find(chrome_tracks *tracks, const struct chrome_track_key *key, int64_t start_ns,
                           int64_t end_ns)
{
    struct logical *logical = logical_of(tracks, key, 0);
    if (!logical)
        return 0;
    if (logical->placements_unsorted) {
        qsort(logical->placements, logical->placement_count, sizeof *logical->placements, compare_placements);
        logical->placements_unsorted = 0;
    }
    struct placement wanted = {.start_ns = start_ns, .end_ns = end_ns};
    const struct placement *found = logical->placement_count
                                        ? bsearch(&wanted, logical->placements, logical->placement_count,
                                                  sizeof *logical->placements, compare_placements)
                                        : NULL;
    return found ? found->tid : logical->tracks[0].tid;
}

static int compare_tracks(const void *left, const void *right)
{
    const struct chrome_track *a = left, *b = right;
    int order = compare_keys(&a->key, &b->key);
    return order ? order : compare_int64(a->overflow, b->overflow);
}

struct chrome_track *chrome_tracks_list(const chrome_tracks *tracks, size_t *count)
{
    size_t total = 0;
    for (size_t i = 0; i < tracks->logical_count; i++)
        total += tracks->logicals[i].track_count;
    *count = 0;
    struct chrome_track *list = total ? malloc(total * sizeof *list) : NULL;
    if (!list)
        return NULL;
    for (size_t i = 0; i < tracks->logical_count; i++)
        for (size_t j = 0; j < tracks->logicals[i].track_count; j++)
            list[(*count)++] = (struct chrome_track){.key = tracks->logicals[i].key,
                                                     .overflow = (int64_t)j,
                                                     .tid = tracks->logicals[i].tracks[j].tid};
    qsort(list, total, sizeof *list, compare_tracks);
    return list;
}
