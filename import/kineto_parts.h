/* kineto_parts.h: what the Kineto importer's files share (kineto.c: the trace's members, duration
 * events and finishing; kineto_events.c: one handler per event category). Private to import/. */
#ifndef OVERLAPSCOPE_KINETO_PARTS_H
#define OVERLAPSCOPE_KINETO_PARTS_H

#include <stdint.h>

#include "call_sources.h"
#include "json_stream.h"
#include "kineto.h"
#include "python_source.h"
#include "stream_set.h"

#define MAX_UNKNOWN_NAMES 8
#define SEEN_EVENT_SLOTS 4096 /* power of two: cuda_events already written, (event, record) pairs */

struct unknown_category {
    char name[48];
    uint64_t count;
};

/* A duration event's 'B' half, kept (a deep copy: the parser reuses its tree) until the 'E' on
 * the same pid and tid closes it; the pair is then imported as one complete event. */
struct open_range {
    struct json_value *begin;
    char *pid, *tid;
    int64_t start_ns; /* 'ts', scaled, without the base time */
    size_t bytes;     /* what the copy takes */
};
/* Open ranges kept at once, and the bytes their copies may take: beyond them a 'B' is dropped
 * (counted with the odd fields), so memory does not grow with a file's unclosed ranges. */
#define MAX_OPEN_RANGES 1024
#define MAX_OPEN_RANGE_BYTES (16u << 20)

/* The duplicate finder's table: at most 2^20 slots of 16 bytes (16 MiB), so that an import's memory
 * does not grow with its events; once full, a lookup probes this many slots. */
#define KINETO_MAX_FINGERPRINTS (1u << 20)
#define KINETO_FULL_PROBES 8

struct kineto_state {
    store *s;
    const char *name;
    int64_t process_id;
    int64_t host_pid;         /* pid of the host-side events; STORE_NULL until seen */
    int64_t rank, world_size; /* distributedInfo */
    int64_t base_ns;          /* baseTimeNanoseconds */
    int64_t applied_base_ns;  /* what the rows written so far include */
    uint64_t events_seen;
    int64_t trace_start_ns, trace_end_ns;
    struct stream_set streams;
    struct unknown_category unknown[MAX_UNKNOWN_NAMES];
    uint64_t unknown_total, unknown_other;
    uint64_t odd_fields; /* optional fields of an unexpected type, ignored */
    uint64_t gpu_events;
    uint64_t sync_events;          /* cuda_sync: only with the profiler's enable_cuda_sync_events */
    uint64_t other_vendor_devices; /* deviceProperties not of NVIDIA GPUs (ROCm) */
    uint64_t mtia_events;          /* mtia_runtime, mtia_ccp_events...: Meta's accelerator */
    uint64_t seen_events[SEEN_EVENT_SLOTS];
    const struct kineto_progress *progress;
    store_frames *frames;           /* Python frames and CPU operators: where each API call was made */
    struct open_range *open_ranges; /* 'B' events waiting for their 'E' */
    size_t open_count, open_capacity, open_bytes;
    /* The GPU events imported so far, by two 64-bit fingerprints of what makes one (kineto_events.c
     * gpu_duplicate): an exact copy of one is imported once and counted. 16 bytes a slot, the
     * table at most half full until it reaches KINETO_MAX_FINGERPRINTS slots. */
    uint64_t (*fingerprints)[2]; /* at most KINETO_MAX_FINGERPRINTS */
    size_t fingerprint_count, fingerprint_capacity;
    uint64_t duplicates;
};

/* Fails the import at event index: "event N (category): problem". Returns -1. */
int kineto_fail_event(struct kineto_state *state, uint64_t index, const char *category, const char *problem,
                      error_info *err);
/* An optional integer member of object: its value, STORE_NULL when absent (an odd type counted). */
int64_t kineto_optional_int(struct kineto_state *state, const struct json_value *object, const char *key);
/* One complete event (an 'X', or a 'B'...'E' pair joined): into the store by its category. Returns 0
 * or -1 with err filled. */
int kineto_import_event(struct kineto_state *state, uint64_t index, const struct json_value *event,
                        error_info *err);

#endif
