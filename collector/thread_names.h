/* thread_names.h: the names of the recorded process's threads, for the trace's threads table
 * (store/threads.h), so that what the report says about a thread can name it: PyTorch runs the
 * backward pass of each CUDA device on a thread of its own ("pt_autograd_0"), whose blocking calls
 * have no Python frame and, in a stripped library, no function name ("libtorch_cuda.so+0xd44816").
 *
 * A thread is noted the first time it makes a recorded call (thread_names_note: once per thread,
 * a prctl and a mutex, off the per-call path), keeping the name it had then. At the end of the
 * recording, thread_names_write reads every thread still running from /proc/self/task/TID/comm,
 * so a name set after the first call wins, and threads that recorded nothing through the callbacks
 * (calls from CUPTI's activity kinds) are named too; the threads that ended keep their noted name.
 * Linux only; no CUDA. */
#ifndef OVERLAPSCOPE_THREAD_NAMES_H
#define OVERLAPSCOPE_THREAD_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

/* At most this many threads are noted; later ones are named only if running at the end. */
#define THREAD_NAMES_MAX 4096

/* Notes the calling thread, whose OS id is tid, under its current name. Thread-safe. */
void thread_names_note(uint32_t tid);

/* Writes the names into trace's threads table for process_id, in one transaction. Returns the
 * number of threads named, or -1 with err filled. */
int thread_names_write(store *trace, int64_t process_id, error_info *err);

/* The OS ids of the threads noted so far, first noted first (at most capacity of them into tids);
 * returns how many. The host sampler (host_sampler.h) samples these threads. Thread-safe. */
size_t thread_names_tids(uint32_t *tids, size_t capacity);

/* In a fork child: the parent's threads are not this process's. */
void thread_names_forget_after_fork(void);

#endif
