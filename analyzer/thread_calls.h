/* thread_calls.h: one thread's host calls (its CUDA API calls, and the OS runtime waits an import
 * holds), read once into memory in start order and then asked by time. The idle accounting looks
 * at the launching thread's calls around every idle gap of the GPU, and on a host-bound job nearly
 * every gap between two kernels is one: a ResNet-50 recording of 200k kernels had 200k gaps and
 * spent half of `report` in the two queries each gap made. Memory: one record per call of the
 * threads asked about (the last THREAD_CALLS_THREADS of them), a thread with more than
 * THREAD_CALLS_MAX calls not held (the caller asks the store instead); none for a thread whose
 * calls are all of its process's launches, in its order: those are lent (issue 33). */
#ifndef OVERLAPSCOPE_THREAD_CALLS_H
#define OVERLAPSCOPE_THREAD_CALLS_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel_names.h"
#include "launches.h"

#define THREAD_CALLS_MAX (4u << 20)
#define THREAD_CALLS_THREADS 4

/* struct thread_call: launches.h. */

typedef struct thread_calls thread_calls;

/* NULL when out of memory (the caller then asks the store). db and names must outlive it. */
thread_calls *thread_calls_new(sqlite3 *db, kernel_names *names);
void thread_calls_free(thread_calls *calls);
/* Lets go of every thread held (the next ask reads it again): a device's walk ends with it, so
 * that its threads' calls are not held through the what-if replay. calls may be NULL. */
void thread_calls_release(thread_calls *calls);

/* The calls of thread_id in process_id, in start order, ties in the order of the store's
 * (process_id, thread_id, start_ns) index: the order its queries return them. *count is set. NULL
 * when they are not held (more than THREAD_CALLS_MAX, out of memory, a read error): the caller asks
 * the store. A thread not held yet is read from the store, or from launches (the process's calls,
 * read for the device; may be NULL) when they hold every call of the process (every_call): the same
 * rows in the same order, without reading them twice; when the thread made every one of them and
 * they are in its order already, the array is launches->calls itself. The array stays valid until
 * THREAD_CALLS_THREADS other threads have been asked for, thread_calls_release, or (lent) the
 * launches are loaded again or freed: release before either. */
const struct thread_call *thread_calls_of(thread_calls *calls, int64_t process_id, int64_t thread_id,
                                          const struct launches *launches, size_t *count);

/* The index of the first call starting at or after time_ns (count when none), looked for from near
 * outwards: any near gives the same answer, one close to it a cheaper search (the idle gaps of a
 * device come in time order, and each looks just after the one before). */
size_t thread_calls_first_from(const struct thread_call *calls, size_t count, int64_t time_ns, size_t near);

/* The call's name as the store holds it (kernel_names_text), NULL when it has none. */
const char *thread_calls_name(thread_calls *calls, const struct thread_call *call);

#endif
