/* queries_export.h: the store's queries for the Chrome trace-event exporter (export/): the rows of
 * each pass in the order the export writes them, a kernel's, copy's or memset's details by rowid,
 * the first activity and the shared correlation ids. The SQL lives here so the schema stays the
 * store's to change; the exporter reads the columns of the rows it is handed, in the order listed
 * below (its column enums follow these lists). */
#ifndef OVERLAPSCOPE_STORE_QUERIES_EXPORT_H
#define OVERLAPSCOPE_STORE_QUERIES_EXPORT_H

#include <sqlite3.h>
#include <stdint.h>

#include "error.h"
#include "store.h"

enum store_export_pass {
    STORE_EXPORT_PROCESSES,        /* process_id, pid, rank, host; by process */
    STORE_EXPORT_API_CALLS,        /* process_id, thread_id, api_domain, name_id, correlation_id, start_ns,
                                      end_ns, callback_id, return_value; by process, thread, start */
    STORE_EXPORT_NVTX,             /* process_id, thread_id, device_id, stream_id, kind, message_id,
                                      domain_id, start_ns, end_ns; host ranges first per process */
    STORE_EXPORT_SYNCHRONIZATIONS, /* process_id, stream_id, event_id, sync_type, correlation_id, start_ns,
                                      end_ns; by process, start */
    STORE_EXPORT_GPU_OPS, /* kind (0 kernel, 1 copy, 2 memset), rowid, process_id, device_id, stream_id,
                             correlation_id, start_ns, end_ns, and the first API call of its correlation
                             id: thread_id, start_ns, end_ns; in stream order */
    STORE_EXPORT_PASS_COUNT
};

/* Hands each row of pass to visit (the row valid until it returns); a non-zero return stops the
 * walk and is returned. -1 with err filled ("cannot read 'PATH': ...") when the trace cannot be
 * read. */
typedef int store_export_row_visit(void *context, sqlite3_stmt *row);
int store_export_each_row(store *trace, enum store_export_pass pass, store_export_row_visit *visit,
                          void *context, error_info *err);

/* The detail queries, prepared once per export. */
typedef struct store_export_details store_export_details;
enum store_export_detail {
    STORE_EXPORT_KERNEL, /* name_id, grid x y z, block x y z, registers_per_thread, static and dynamic shared
                            bytes, then its collective's op, bytes, element_count, dtype, communicator, rank,
                            nranks, algorithm, protocol, sequence_number (NULL without one) */
    STORE_EXPORT_MEMCPY, /* copy_kind, src_kind, dst_kind, bytes */
    STORE_EXPORT_MEMSET, /* memory_kind, bytes */
    STORE_EXPORT_DETAIL_COUNT
};
store_export_details *store_export_details_new(store *trace, error_info *err); /* NULL, err filled */
void store_export_details_free(store_export_details *details);                 /* NULL allowed */

/* The detail row of the kernel, copy or memset with that rowid, valid until the next call for the
 * same kind; NULL when there is none. */
sqlite3_stmt *store_export_detail(store_export_details *details, enum store_export_detail kind,
                                  int64_t rowid);

/* The first start within store.h's time bounds of any kernel, copy, memset, API call, NVTX range
 * or synchronization; 0 when none or unreadable. */
int64_t store_export_first_activity(store *trace);

/* How many (process, correlation id) pairs more than one API call shares; 0 when unreadable. */
int64_t store_count_shared_correlation_ids(store *trace);

#endif
