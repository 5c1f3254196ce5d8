/* host_samples.h: the verdict of a host-cpu idle stretch from the trace's host samples (schema 3,
 * store/host_tables.h; docs/metrics.md, "Host samples"). The launching thread's samples over the
 * stretch are sorted into data loading, garbage collection, a lock or GIL wait and the thread's own
 * Python/C++ work; the whole stretch goes to the kind that holds most of its samples (the samples
 * are taken at one rate, so their count is their time), so the idle sums stay exact. A trace without
 * samples, or a stretch no sample fell in, gets no verdict: the stretch stays host-cpu. */
#ifndef OVERLAPSCOPE_HOST_SAMPLES_H
#define OVERLAPSCOPE_HOST_SAMPLES_H

#include <sqlite3.h>
#include <stdint.h>

#include "causes.h"
#include "error.h"
#include "ledger.h"

typedef struct host_samples host_samples;

/* Opens the questions on db (which must outlive it). NULL with err filled on failure (out of memory,
 * a host table that cannot be read); a trace without the tables gives one that answers nothing. */
host_samples *host_samples_new(sqlite3 *db, error_info *err);
void host_samples_free(host_samples *samples);

/* 1 when the trace was sampled (meta host_sample_hz > 0). */
int host_samples_recorded(const host_samples *samples);
/* 1 when the trace says its sampling rate, 0 included: a recording that could have sampled (an older
 * trace, an import or a rewrite of one says nothing). */
int host_samples_could_record(const host_samples *samples);

/* A stretch's verdict: its cause, the label of its bucket ("CPU-bound", "train.py:42 step"), the
 * figures that sum over stretches (samples, the label line's share, the workers' CPU) and a
 * sentence of the stretch's top lines (figures.detail points into detail). */
struct host_verdict {
    enum accounting_cause cause;
    char label[64];
    char detail[256];
    struct evidence_figures figures;
};

/* The verdict of [start_ns, end_ns) on thread thread_id of trace process process_id. Returns 1 with
 * verdict filled, 0 when the samples prove nothing (none there, or not sampled), -1 on a read error
 * (err filled). */
int host_samples_verdict(host_samples *samples, int64_t process_id, int64_t thread_id, int64_t start_ns,
                         int64_t end_ns, struct host_verdict *verdict, error_info *err);

/* part / whole in percent, rounded to the nearest (halves up); 0 when whole is 0. The shares of the
 * evidence (host samples, the workers' CPU) are computed by this one rule. */
int host_samples_percent(int64_t part, int64_t whole);

#endif
