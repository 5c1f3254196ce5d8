/* append_internal.h: the steps of appending one trace to another (append.c), shared by
 * store_append_trace (any trace, any version, a clock offset) and store_append_part (parts.h: a
 * part this program just wrote). Between store_append_begin and store_append_end the source is
 * attached as `src`, one transaction is open, and the temp tables pm (process ids) and sm (string
 * ids), each keyed by the source's id, map the source's ids to the destination's. */
#ifndef OVERLAPSCOPE_APPEND_INTERNAL_H
#define OVERLAPSCOPE_APPEND_INTERNAL_H

#include "store_internal.h"

/* A kernel shape of the source (alias s, its name's new id in sm) and one of the destination
 * (alias d): the columns of the source's shape, and the test that d is the same shape (IS: NULL
 * matches NULL). */
#define SOURCE_COLUMN(column) ", s." #column
#define MATCHES_SOURCE(column) " AND d." #column " IS s." #column
#define SAME_SHAPE "d.name_id IS sm.new_id" KERNEL_SHAPE_COLUMNS(MATCHES_SOURCE)
#define SHAPE_OF_SOURCE "sm.new_id" KERNEL_SHAPE_COLUMNS(SOURCE_COLUMN)

/* The source's strings not yet in the destination, in the source's order: an import of several
 * files numbers the strings in the order of their first use (also store_names_append). */
#define STORE_APPEND_COPY_STRINGS "INSERT OR IGNORE INTO strings (value) SELECT value FROM src.strings"

/* Checks the source as store_open does and attaches it read-only as `src` (outside any
 * transaction: the destination's is committed first). Returns 0, or -1 with err filled. */
int store_append_attach(store *s, const char *source_path, error_info *err);

/* Checks the source as store_open does, attaches it read-only, registers shift_ns(t) (adds
 * *time_offset_ns, which must outlive the append) and duration_ns(start, end), begins the
 * transaction, fills pm and sm, copies the strings and processes, then the tables that refer to
 * nothing but a process and a string (devices, streams, memcpys, memsets, synchronizations,
 * cuda_events). Returns 0, or -1 with err filled and nothing left attached. */
int store_append_begin(store *s, const char *source_path, int64_t *time_offset_ns,
                       struct store_append_losses *losses, error_info *err);

/* Copies nvtx, collectives (kernel_rowid: the expression of the new rowid of s.kernel_rowid, with
 * kernel_join the join it needs, "" for none), warnings (warnings_in_order: in the source's order,
 * as a sequential import writes them; 0: each process's first, then the trace-wide ones, as merge
 * always has), call sources, threads, origins and the host tables. Returns 0, or -1 with err
 * filled (the caller then passes -1 to store_append_end). */
int store_append_rest(store *s, const char *kernel_rowid, const char *kernel_join, int warnings_in_order,
                      struct store_append_losses *losses, error_info *err);

/* Commits when status is 0 (else rolls back), drops the maps, detaches the source. Returns 0, or -1
 * with err prefixed by the source's name. */
int store_append_end(store *s, int status, const char *source_path, error_info *err);

/* Runs the statements copying src.table and records in losses (may be NULL) how many of its rows
 * they did not carry. */
int store_append_table_rows(store *s, const char *table, const char *const *statements, int statement_count,
                            struct store_append_losses *losses, error_info *err);

#endif
