/* queries_overview.h: the rows of render_overview (store/schema.sql, docs/trace-format.md), the
 * renderer's cache of a trace's whole GPU timeline, written and read here like every other table
 * (STYLE.md: the store owns every query). What the rows hold (coverage cells in 255ths, the kept
 * intervals' records, which columns are current) is render/overview.c's to decide; the store moves
 * them in and out unchanged and says nothing about whether they are plausible.
 *
 * Contract:
 * - Writing: store_overview_clear empties the table; a writer (store_overview_writer_open) then
 *   inserts one header and the parts, inside the caller's transaction (store_begin/commit).
 * - Blobs are stored as given, an empty one as a zero-length blob (not NULL); a part's fields its
 *   kind does not use are written NULL (a device has no stream, kinds, busy, counts or kept).
 * - Reading: pointers a visit receives live until it returns.
 * - Errors: -1 with err filled; the message does not name the trace (the caller's prefix does). */
#ifndef OVERLAPSCOPE_STORE_QUERIES_OVERVIEW_H
#define OVERLAPSCOPE_STORE_QUERIES_OVERVIEW_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "store.h"

/* Column `what` of a row: the one header, a device's concurrency, a stream lane. */
enum { STORE_OVERVIEW_HEADER = 0, STORE_OVERVIEW_DEVICE = 1, STORE_OVERVIEW_LANE = 2 };

/* The header: the span and columns of the overview, and the largest rowid of kernels, memcpys
 * and memsets when it was built (an overview is stale once a GPU table grew past them). */
struct store_overview_header {
    int64_t start_ns, end_ns, columns;
    int64_t gpu_rowids[3];
};

/* A device's (what STORE_OVERVIEW_DEVICE) or a stream lane's (STORE_OVERVIEW_LANE) row. */
struct store_overview_part {
    int64_t part; /* the row's key, as read (ignored when writing) */
    int what;
    int64_t process_id, device_id, stream_id; /* stream_id: lanes only */
    int64_t interval_count;
    int64_t kinds; /* lanes only: bit k set when the lane ran category k */
    const unsigned char *busy, *counts, *cells, *kept; /* busy, counts, kept: lanes only */
    size_t busy_bytes, counts_bytes, cells_bytes, kept_bytes;
};

/* Removes every row (a trace written before the table existed has none: then -1, "cannot replace
 * the overview: ..."). err may be NULL. */
int store_overview_clear(store *trace, error_info *err);

/* The largest rowid of kernels, memcpys and memsets now (0 for an empty or unreadable table). */
void store_overview_gpu_rowids(store *trace, int64_t rowids[3]);

/* The rows of the streams table (0 when unreadable): the overview's lanes, for its memory budget. */
int64_t store_overview_stream_count(store *trace);

struct store_overview_writer;
/* Prepares the insert. Returns 0 and *out (closed with store_overview_writer_close), or -1. */
int store_overview_writer_open(store *trace, struct store_overview_writer **out, error_info *err);
int store_overview_write_header(struct store_overview_writer *w, const struct store_overview_header *header,
                                error_info *err);
int store_overview_write_part(struct store_overview_writer *w, const struct store_overview_part *part,
                              error_info *err);
void store_overview_writer_close(struct store_overview_writer *w);

/* Reads the first header row: returns 1 and *header, 0 when the trace has no render_overview table
 * or no header row, -1 when the table cannot be read. */
int store_overview_read_header(store *trace, struct store_overview_header *header, error_info *err);

/* Hands every row of kind `what` to visit, in the order they were written. A visit returning
 * non-zero stops the walk and that value is returned; -1 on a read error. */
typedef int store_overview_part_visit(void *context, const struct store_overview_part *part);
int store_overview_each_part(store *trace, int what, store_overview_part_visit *visit, void *context,
                             error_info *err);

#endif
