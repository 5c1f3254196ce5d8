/* accounting.h: where every idle and every exposed-communication nanosecond of a device went
 * (issue 16, docs/metrics.md "Idle time" and "Exposed communication"). Part of the analyzer's
 * public contract (analysis.h includes it): analysis_run fills one analysis_accounting per device
 * and one per device and step, each a breakdown of the device's idle time (span minus busy) and
 * of its exposed communication (NCCL time with no compute kernel running) into causes whose
 * nanoseconds sum to the total exactly. The analyzer never prints: evidence is one line of text
 * that reports quote as is. */
#ifndef OVERLAPSCOPE_ACCOUNTING_H
#define OVERLAPSCOPE_ACCOUNTING_H

#include <stddef.h>
#include <stdint.h>

#include "causes.h"

/* One cause, grouped by what the trace names for it: the blocking call, the late rank, the
 * collective, the step-boundary gap's host state, and the place in the program. */
struct accounting_entry {
    enum accounting_cause cause;
    char label[64];   /* "cudaDeviceSynchronize", "rank 0", "AllReduce", "host-cpu", "no API records" */
    char source[128]; /* where in the program ("train.py:17 step"), "" when the trace cannot know */
    int64_t ns;       /* time of this cause */
    int64_t count;    /* idle gaps (idle causes) or collective instances (communication) it covers */
    /* What the trace shows, one line (at most ACCOUNTING_EVIDENCE_BYTES - 1 characters), never NULL;
     * owned by the breakdown. Held at its length: a trace of 100,000 steps has 800,000 entries, and
     * a fixed buffer each was a third of a report's memory. */
    char *evidence;
};
enum { ACCOUNTING_EVIDENCE_BYTES = 384 };

/* A total and its parts, largest first; the parts' ns sum to ns exactly. */
struct accounting_breakdown {
    int64_t ns;
    struct accounting_entry *entries;
    size_t entry_count;
};
/* Frees a breakdown's entries and their evidence, and leaves it empty (an empty one too). */
void accounting_breakdown_free(struct accounting_breakdown *breakdown);

struct analysis_accounting {
    size_t device; /* index into analysis_result.devices */
    int64_t step;  /* -1: the device's whole span; else analysis_step.number of the device's process */
    struct accounting_breakdown idle, exposed_communication;
    /* Copy time with no kernel running, by cause (exposed_copy.h): the whole span's only (step -1);
     * empty in a step's. */
    struct accounting_breakdown exposed_copy;
};

/* A stretch of time given to one cause, for pictures and exports (adjacent stretches of one cause
 * merged). */
struct accounting_interval {
    size_t device; /* index into analysis_result.devices */
    enum accounting_cause cause;
    int64_t start_ns, end_ns;
    char label[64]; /* the label of the device's whole-span entry it went to (accounting_entry.label) */
};
/* Intervals kept in analysis_result.accounting_intervals (the earliest); totals cover all. */
#define ACCOUNTING_MAX_INTERVALS 100000

/* A cause the trace lacks the data to check on a process, and what to record to get it: the
 * report says so rather than guess (no API records, a Kineto trace without cuda_sync events, no
 * call sources, one rank of a job). */
struct accounting_unchecked {
    size_t device;     /* the process's first device (index into analysis_result.devices) */
    char causes[64];   /* the cause tags, "host-sync, launch-bound, host-cpu", or "source" */
    char missing[160]; /* what the trace lacks */
    char record[256];  /* how to record it */
};

/* One collective instance matched across ranks (exposed_comm.c): who arrived last, how late, and
 * the transfer after that. */
struct accounting_instance {
    char op[24], communicator[48];
    int64_t instance;   /* the sequence number, or the order within the communicator on each device from 1 */
    int by_order;       /* 1: matched by order (the trace has no sequence numbers) */
    int64_t ranks;      /* devices whose kernel of it is in the trace */
    size_t last_device; /* the one that arrived last (index into analysis_result.devices), SIZE_MAX
                           when it is not shown (another rank than report --rank's) */
    int64_t last_rank, last_pid, last_device_id; /* that device, shown or not */
    int64_t skew_ns;     /* how late it was: the longest kernel's duration minus the shortest */
    int64_t transfer_ns; /* the shortest kernel's duration */
    int64_t bytes;       /* STORE_NULL when the trace has no byte count */
};
/* Instances kept in analysis_result.collective_instances (the first in communicator order). */
#define ACCOUNTING_MAX_INSTANCES 100000

/* A rank that arrived last at collectives again and again. */
struct accounting_straggler {
    int64_t rank; /* -1: none */
    int64_t
        late_count; /* collective instances it arrived last at, with a skew above ACCOUNTING_SKEW_MIN_NS */
    int64_t instance_count; /* instances matched across ranks with such a skew */
    int64_t late_ns;        /* the other ranks' exposed waiting for it */
    char evidence[384];     /* also names its own top idle cause, or its load imbalance */
    /* Load imbalance (imbalance.h): its GPU computed at least 1.2x the other ranks' mean; then its
     * compute time, the others' mean and every rank's mean (the balanced figure). */
    int load_imbalance;
    int64_t compute_ns, peer_compute_ns, mean_compute_ns;
};
/* A skew below this is NCCL's own entry jitter, not a late rank. */
#define ACCOUNTING_SKEW_MIN_NS 10000

#endif
