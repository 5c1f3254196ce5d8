/* stats.h: `overlapscope stats`: summary tables of a trace like `nsys stats` (kernels, CUDA API
 * calls, NVTX ranges, copies, memsets, synchronizations, NCCL collectives), per device and rank,
 * over the selection an analysis_run resolved (the same --rank, --device, --stream, --window,
 * --range and --step as report), as text, CSV, JSON or Markdown. Meanings: docs/overlapscope-stats.md.
 *
 * stats_build reads the rows through the store (store/queries_stats.h) and counts each one by the
 * part of it inside the selected time, measured with the analysis's own selected clock
 * (analysis_select_process, selection_clock), so that a device's kernel time equals the busy time
 * the report gives its streams (tested). The tables are plain data: one writer per format renders
 * any table from its columns. Writers print only to the FILE* they are given. */
#ifndef OVERLAPSCOPE_REPORT_STATS_H
#define OVERLAPSCOPE_REPORT_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "analysis.h"
#include "error.h"
#include "store.h"

enum stats_report {
    STATS_KERNELS = 0,
    STATS_API,
    STATS_NVTX,
    STATS_COPIES,
    STATS_MEMSETS,
    STATS_SYNC,
    STATS_NCCL,
    STATS_REPORT_COUNT
};
#define STATS_ALL_REPORTS ((1u << STATS_REPORT_COUNT) - 1)

/* "kernels", "api", "nvtx", "copies", "memsets", "sync", "nccl": --report's names and the JSON's. */
const char *stats_report_tag(enum stats_report report);
/* Parses --report's comma-separated names into a bit set (bit 1u << report). Returns 0, or -1 with
 * err naming the first unknown name and the known ones. */
int stats_parse_reports(const char *list, unsigned *reports, error_info *err);

/* How a column's values read. */
enum stats_unit {
    STATS_TEXT = 0, /* a name */
    STATS_COUNT,    /* an integer */
    STATS_NS,       /* an integer duration */
    STATS_BYTES,    /* an integer byte count */
    STATS_PERCENT,  /* a share, 0-100 */
    STATS_GBPS      /* a bandwidth in GB/s (10^9 bytes per second) */
};

/* Where the text writer puts a column: in the row's line (width: at least this many columns;
 * STATS_REST: what the line leaves, the name), in an indented second line (STATS_DETAIL), or
 * nowhere (STATS_NOT_IN_TEXT: a demangled name wider than any terminal; CSV, JSON and Markdown
 * carry it). */
enum { STATS_DETAIL = 0, STATS_REST = -1, STATS_NOT_IN_TEXT = -2 };

struct stats_column {
    const char *key;   /* the CSV header's and JSON's name, units in it ("total_ns") */
    const char *title; /* the text's and Markdown's header ("Total") */
    enum stats_unit unit;
    int text_width;
};

/* A value: null (not known), an integer, a real or a text (owned by the table). */
enum stats_cell_kind { STATS_NULL = 0, STATS_INTEGER, STATS_REAL, STATS_STRING };
struct stats_cell {
    enum stats_cell_kind kind;
    int64_t integer;
    double real;
    char *text;
};

/* One report of one device (kernels, copies, memsets, nccl) or one process (api, nvtx, sync). */
struct stats_table {
    enum stats_report report;
    int64_t process_id, pid, rank; /* pid, rank: -1 when unknown */
    int64_t device_id;             /* -1 for the per-process reports */
    char device_name[64];
    const struct stats_column *columns;
    size_t column_count;
    struct stats_cell *cells; /* row-major, row_count * column_count */
    size_t row_count;
    int64_t total_ns; /* the rows' time summed: the share's whole */
    int64_t total_count;
};

struct stats_result {
    struct stats_table *tables;
    size_t table_count;
    int time_restricted; /* the selection cut time: every row counts the part inside it */
};

/* Builds the reports asked for (bits of reports) for every device of result (the analysis of trace
 * with options) and every process of those devices. Returns 0, or -1 with err filled; free with
 * stats_free either way. */
int stats_build(store *trace, const struct analysis_result *result, const struct analysis_options *options,
                unsigned reports, struct stats_result *out, error_info *err);
void stats_free(struct stats_result *stats);

enum stats_format { STATS_FORMAT_TEXT = 0, STATS_FORMAT_CSV, STATS_FORMAT_JSON, STATS_FORMAT_MARKDOWN };
/* Parses --format's name. Returns 0, or -1 with err filled. */
int stats_parse_format(const char *name, enum stats_format *format, error_info *err);

/* Writes the tables. width: the text's columns (0: 80). trace_path: what the JSON names. Returns 0,
 * or -1 with err filled (out of memory). A write error shows in ferror(out). */
int stats_write(FILE *out, const struct stats_result *stats, enum stats_format format, const char *trace_path,
                int width, error_info *err);

#endif
