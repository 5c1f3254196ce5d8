/* idle.h: the cause of each idle gap of a device (idle.c), for the driver (accounting.c). */
#ifndef OVERLAPSCOPE_IDLE_H
#define OVERLAPSCOPE_IDLE_H

#include "accountant_state.h"

/* The host-cpu label of a stretch outside CUDA calls with no OS runtime wait in it; a stretch the
 * thread spent in one (nsys imports hold them) is labelled with the call and what it waited for,
 * "pthread_cond_wait (waiting for another thread)". */
#define IDLE_NO_CUDA_CALL "no CUDA call"

/* idle.c: attributes the idle gap [gap_start, gap_end) that `next` ended. Returns 0 or -1. */
int idle_attribute_gap(accountant *acc, struct device_state *device, int64_t gap_start_ns, int64_t gap_end_ns,
                       const struct model_op *next, error_info *err);

/* Fills source with the place in the program of the API call (process, correlation), "" if unknown;
 * a native frame without a function ("libtorch_cuda.so+0xd44816") gets the name of thread_id
 * (STORE_NULL: unknown) where the trace has one: " on thread pt_autograd_0", PyTorch's backward. */
void idle_call_source(accountant *acc, int64_t process_id, int64_t thread_id, int64_t correlation_id,
                      char *source, size_t size);

#endif
