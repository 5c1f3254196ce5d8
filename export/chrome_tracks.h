/* chrome_tracks.h: the tracks (tid of a pid) of a Chrome trace-event export, and which track each
 * slice goes on, so that no two slices of one track partially overlap.
 *
 * Perfetto imports a JSON trace's complete events as a stack of slices per thread and does not
 * support slices that overlap without nesting (https://perfetto.dev/docs/faq, "Why are overlapping
 * events on the same thread not displayed correctly?"): it drops or misplaces them. Recorded data can
 * overlap that way (a synchronization record beside the kernels of its stream, kernels of one stream
 * under clock skew, host calls of threads sharing a track), so nesting is guaranteed here by
 * construction: a logical track (one GPU stream, one host thread's API calls, ...) gets overflow
 * tracks, and a slice that would partially overlap an open slice of a track goes to the first of
 * them where it fits.
 *
 * Owns: the track list, each track's stack of open slice ends, and the placements made on overflow
 * tracks (so that a flow arrow can later find the track of a slice). Memory: one entry per track,
 * per open slice and per slice placed on an overflow track. */
#ifndef OVERLAPSCOPE_CHROME_TRACKS_H
#define OVERLAPSCOPE_CHROME_TRACKS_H

#include <stddef.h>
#include <stdint.h>

/* What a logical track holds; the order is the display order inside a device or a process. */
enum chrome_track_kind {
    CHROME_TRACK_WAITS = 0,         /* the analyzer's waits on one device (strict) */
    CHROME_TRACK_IDLE = 1,          /* the causes of one device's idle time (strict) */
    CHROME_TRACK_EXPOSED_COMM = 2,  /* the causes of one device's exposed communication (strict) */
    CHROME_TRACK_STREAM = 3,        /* kernels, copies and memsets of one GPU stream (strict) */
    CHROME_TRACK_STREAM_RANGES = 4, /* NVTX ranges the profiler put on a GPU stream (nesting) */
    CHROME_TRACK_SYNC = 5,          /* the process's CUDA synchronizations (nesting) */
    CHROME_TRACK_API = 6,           /* one host thread's CUDA runtime and driver calls (nesting) */
    CHROME_TRACK_NVTX = 7,          /* one host thread's NVTX ranges (nesting) */
    CHROME_TRACK_EXPOSED_COPY = 8,  /* the causes of one device's exposed copy time (strict; added
                                       last, so that the other tracks keep their order) */
    CHROME_TRACK_KIND_COUNT = 9
};

/* A logical track: device_id is CHROME_TRACK_HOST for host tracks; id is the stream or thread id
 * (0 for per-device and per-process tracks). */
#define CHROME_TRACK_HOST INT64_MAX
struct chrome_track_key {
    int64_t process_id;
    enum chrome_track_kind kind;
    int64_t device_id, id;
};

/* One track as written: the overflow-th track of its logical track (0: the track itself). */
struct chrome_track {
    struct chrome_track_key key;
    int64_t overflow;
    int64_t tid;
};

typedef struct chrome_tracks chrome_tracks;

/* NULL when out of memory. Free with chrome_tracks_free. */
chrome_tracks *chrome_tracks_new(void);
void chrome_tracks_free(chrome_tracks *tracks);

/* Places the slice [start_ns, end_ns] (end_ns >= start_ns) on the first track of key where it
 * nests: on strict kinds (waits, streams) after every earlier slice of the track, on the others
 * inside or after every slice still open. Slices of one key must come in order of start, the
 * longer first on equal starts (a slice out of that order goes to an overflow track). Returns 0
 * and the track's tid, or -1 when out of memory. */
int chrome_tracks_place(chrome_tracks *tracks, const struct chrome_track_key *key, int64_t start_ns,
                        int64_t end_ns, int64_t *tid);

/* The tid of the track a slice of key with exactly these times was placed on; 0 when no slice of
 * key was placed. (Placements on overflow tracks are looked up; any other slice is on the first.) */
int64_t chrome_tracks_find(chrome_tracks *tracks, const struct chrome_track_key *key, int64_t start_ns,
                           int64_t end_ns);

/* Every track, sorted for display: by process, device (host last), kind, id, overflow. Returns a
 * malloc'd array the caller frees (NULL with *count 0 when there is none or out of memory). */
struct chrome_track *chrome_tracks_list(const chrome_tracks *tracks, size_t *count);

#endif
