/* warmup.h: whether an idle gap ends with the first run of work the device repeats (warmup.c). */
#ifndef OVERLAPSCOPE_WARMUP_H
#define OVERLAPSCOPE_WARMUP_H

#include "accountant.h"

/* A kernel name that runs at least this often is the program's repeated work. */
#define WARMUP_MIN_RUNS 2

/* A gap shorter than this before a first run is the first iteration's ordinary gap (every gap of
 * a loop's first iteration ends with a first run) and keeps its cause: one-time work (loading a
 * module, initializing cuBLAS, growing the allocator, compiling) takes milliseconds. */
#define WARMUP_MIN_GAP_NS 1000000

/* The idle label of warm-up time (causes.def, IDLE_WARMUP). */
#define WARMUP_LABEL "first run of a kernel"

/* 1 when the gap [gap_start_ns, op's start], at least WARMUP_MIN_GAP_NS long, ends with op, a kernel whose
 * name the device runs for the first time at op (its earliest start in the whole trace, not only the window)
 * and runs again later; 0 otherwise, and when the names cannot be read. Reads the device's kernel names once
 * (accountant_begin_device resets it). */
int warmup_first_run(accountant *acc, const struct device_state *device, int64_t gap_start_ns,
                     const struct model_op *op);

/* Where the device's repeated work begins: the earliest first run of a kernel name it runs at least
 * WARMUP_MIN_RUNS times; INT64_MIN when none repeats (or the names cannot be read): then no time is
 * told apart as set-up. Before it is the
 * process's set-up (model transfer, NCCL initialization, imports): in a process without steps, the
 * host-work fix does not claim the host's time there (whatif.h, hide-host-work), since set-up cannot
 * run elsewhere. */
int64_t warmup_repeated_work_start(accountant *acc, const struct device_state *device);

#endif
