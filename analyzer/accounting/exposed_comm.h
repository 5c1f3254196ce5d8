/* exposed_comm.h: exposed communication split per collective instance across ranks
 * (exposed_comm.c), for the driver (accounting.c). */
#ifndef OVERLAPSCOPE_EXPOSED_COMM_H
#define OVERLAPSCOPE_EXPOSED_COMM_H

#include "accountant_state.h"

/* The sweep reached time_ns: cuts the stretches of communication with no compute before it. */
int exposed_comm_advance(accountant *acc, int64_t time_ns);
/* One counted operation (start order): an NCCL kernel opens, a compute kernel covers. 0 or -1. */
int exposed_comm_add(accountant *acc, const struct model_op *op);
/* Ends the device: keeps its NCCL kernels (books->kernels) for the matching. 0, or -1 with err. */
int exposed_comm_end_device(accountant *acc, struct device_books *books, error_info *err);
/* Matches collective instances across ranks, gives each its skew and transfer, and moves the
 * instances into result. 0, or -1 with err. */
int exposed_comm_collect(accountant *acc, struct analysis_result *result, error_info *err);

#endif
