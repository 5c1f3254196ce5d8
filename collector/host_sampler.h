/* host_sampler.h: what the host was doing while the GPU waited (issue 31). A thread of the
 * collector wakes `hz` times a second (record --sample-hz, OVERLAPSCOPE_SAMPLE_HZ) and takes:
 *   - for the process's main thread and each thread that has made a recorded CUDA call
 *     (thread_names.h): its scheduler state (R running, S sleeping, D disk wait, ... field 3 of
 *     /proc/self/task/TID/stat), the CPU time it used since its previous sample (its thread CPU
 *     clock, in ns; stat's utime+stime in clock ticks where that clock is refused), and its Python
 *     stack (python_frames_stack: the top HOST_SAMPLER_FRAMES frames, read without the GIL through
 *     process_vm_readv), deduplicated into host_stacks. A thread with no Python frame gets none
 *     (its native caller cannot be read from another thread without stopping it);
 *   - for the process itself and every child and grandchild (DataLoader workers: forked or
 *     spawned, never touching CUDA; found through /proc/PID/task/TID/children every
 *     HOST_SAMPLER_CHILD_SCAN ticks): state, parent, name and the CPU time of all its threads
 *     since its previous sample (its process CPU clock).
 * Rows go into the trace's version 3 tables (store/host_tables.h) through the collector's writer
 * thread: samples are appended to one of HOST_SAMPLER_BUFFERS preallocated buffers, handed to the
 * writer when full or every half second, and returned by host_sampler_release. When every buffer
 * is still with the writer, the tick's samples are dropped and counted (host_sampler_counts):
 * the sampler never waits for the writer, and the program never waits for the sampler.
 * No CUDA, no CPython call (but two at start, and Py_AddPendingCall to have the main thread install
 * the garbage collector's hook: python_gc.h), no allocation after host_sampler_start. A sample of
 * the thread that is collecting starts with STORE_HOST_GC_FRAME. */
#ifndef OVERLAPSCOPE_HOST_SAMPLER_H
#define OVERLAPSCOPE_HOST_SAMPLER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"
#include "store.h"

#define HOST_SAMPLER_FRAMES 8      /* Python frames kept per sample, innermost first */
#define HOST_SAMPLER_THREADS 64    /* threads sampled per process (main first, then in noted order) */
#define HOST_SAMPLER_PROCESSES 256 /* processes sampled: this one and its descendants */
#define HOST_SAMPLER_STACKS 8192   /* distinct stacks per process; later ones are stored without one */
#define HOST_SAMPLER_BUFFERS 8     /* buffers in the ring */
#define HOST_SAMPLER_BUFFER_BYTES 65536
#define HOST_SAMPLER_STACK_TEXT 2048 /* bytes of one stack's text */
#define HOST_SAMPLER_CHILD_SCAN 10   /* ticks between two searches for child processes */

typedef struct host_sampler host_sampler;

/* Hands a filled buffer to the writer (collector_writer_submit_with with host_sampler_consume and
 * host_sampler_release). Returns 0, or -1 when it was not taken (the sampler then takes it back). */
typedef int host_sampler_submit(void *context, uint8_t *buffer, size_t valid_bytes);

struct host_sampler_config {
    int hz;                  /* ticks per second, 1 to 1000 */
    int64_t (*now_ns)(void); /* the trace's clock (collector.c's now_ns) */
    host_sampler_submit *submit;
    void *submit_context;
    /* The threads to sample beside the main one (thread_names_tids); NULL: the main one only. */
    size_t (*thread_ids)(uint32_t *tids, size_t capacity);
    /* Every process's CPU time is sampled by one sampler, its parent's when the parent records
     * itself, else its own: a parent outlives a forked DataLoader worker, which leaves through
     * _exit (multiprocessing) and loses its own last samples (seen on an H200: a worker's samples
     * ended 0.5 s into a 1.2 s life). records_itself(pid): whether process pid records itself,
     * so that its own children are its to sample (a forkserver's), not this process's; NULL: none
     * does. parent_samples_me: this process's parent records itself and samples it. */
    int (*records_itself)(pid_t pid);
    int parent_samples_me;
};

/* Starts the sampler thread. Returns NULL with err filled (out of memory, no thread). */
host_sampler *host_sampler_start(const struct host_sampler_config *config, error_info *err);

/* Stops and joins the thread and hands the last buffer over: call before the writer's final
 * drain. The sampler stays allocated until host_sampler_free (the writer may still hold buffers). */
void host_sampler_stop(host_sampler *sampler);

/* Frees it; call after the writer has stopped (every buffer released). NULL is fine. */
void host_sampler_free(host_sampler *sampler);

/* In a fork child: the sampler thread does not exist here and its buffers may be the writer's in
 * the parent; forget it (not freed: its memory is the parent's copy). */
void host_sampler_forget_after_fork(host_sampler *sampler);

/* The writer's side (collector_writer_consume and _release, context = the sampler). */
int host_sampler_consume(void *context, store *trace, const uint8_t *buffer, size_t valid_bytes,
                         error_info *err);
void host_sampler_release(void *context, uint8_t *buffer);

struct host_sampler_counts {
    int64_t ticks, thread_samples, process_samples, stacks;
    int64_t dropped_samples;   /* no free buffer, or the writer refused one */
    int64_t stackless_samples; /* a Python thread whose stack could not be read or stored */
    char python_note[160];     /* why a CPython's stacks cannot be read; "" when they are, or no CPython */
};
void host_sampler_counts(const host_sampler *sampler, struct host_sampler_counts *counts);

/* --- the pure parts, for the tests --- */

struct host_proc_stat {
    char state;         /* field 3 */
    int64_t parent_pid; /* field 4 */
    int64_t cpu_ticks;  /* fields 14 + 15, utime + stime */
    char name[16];      /* field 2, without its parentheses */
};

/* Parses the text of /proc/PID/stat or /proc/PID/task/TID/stat (length bytes, not necessarily
 * NUL-terminated). The name may hold spaces and parentheses: fields are counted from the last ')'.
 * Returns 0, or -1 when the text is not such a line. */
int host_sampler_parse_stat(const char *text, size_t length, struct host_proc_stat *stat);

/* Distinct stacks, numbered 1, 2, ... as met; a table of 64-bit text hashes (FNV-1a), so two
 * different stacks share an id only on a hash collision (about 1 in 10^11 at the table's size). */
struct host_stack_table {
    uint64_t hashes[2 * HOST_SAMPLER_STACKS]; /* open addressing; 0: empty */
    int64_t ids[2 * HOST_SAMPLER_STACKS];
    int64_t count;
    int64_t last_slot; /* of the newest entry; -1 after host_stack_table_forget_last */
};

/* The id of text (1...), with *is_new 1 the first time; 0 when the table is full. */
int64_t host_stack_table_intern(struct host_stack_table *table, const char *text, int *is_new);

/* Takes back the entry the last host_stack_table_intern added (its text was never written). */
void host_stack_table_forget_last(struct host_stack_table *table);

#endif
