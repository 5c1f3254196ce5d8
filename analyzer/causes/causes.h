/* causes.h: the analyzer's vocabulary of causes and fixes, generated from causes.def (one row
 * each): the enums, and every text, metric name and flag a report, picture, check or manual needs.
 * Nothing here computes: the rules that prove a cause live in explain/ and the accounting, the
 * fixes' models in whatif/. analysis.h and accounting.h include this header, so every consumer of
 * the analyzer sees it. */
#ifndef OVERLAPSCOPE_CAUSES_H
#define OVERLAPSCOPE_CAUSES_H

#include <stddef.h>

/* Why an interval that could have run beside another did not (WAIT_CAUSE rows). */
enum analysis_cause {
#define WAIT_CAUSE(NAME, tag, title, metric, fix, advice, reference) ANALYSIS_CAUSE_##NAME,
#include "causes.def"
    ANALYSIS_CAUSE_COUNT
};

/* Where idle time and exposed communication went (IDLE_CAUSE rows, then COMM_CAUSE rows). */
enum accounting_cause {
#define IDLE_CAUSE(NAME, tag, title, metric, fix, group, label_format, picture) ACCOUNTING_##NAME,
#define COMM_CAUSE(NAME, tag, title, metric, fix, group, label_format, picture) ACCOUNTING_##NAME,
#define COPY_CAUSE(NAME, tag, title, metric, fix, group, label_format, picture) ACCOUNTING_##NAME,
#include "causes.def"
    ACCOUNTING_CAUSE_COUNT
};

/* The change a user would make for a proved cause, as the what-if replay models it (FIX rows). */
enum analysis_fix {
#define FIX(NAME, tag, title, basis, by_design, assumptions) ANALYSIS_FIX_##NAME,
#include "causes.def"
    ANALYSIS_FIX_COUNT
};
/* A cause row's fix column when no fix removes it. */
#define ANALYSIS_FIX_NO_FIX ANALYSIS_FIX_COUNT

/* How the picture's accounting lane draws a cause's time. */
enum cause_picture {
    CAUSE_PICTURE_HOST_BLOCKED,
    CAUSE_PICTURE_IDLE,
    CAUSE_PICTURE_EXPOSED_COMM,
    CAUSE_PICTURE_EXPOSED_COPY,
    /* the host-sample verdicts of host-cpu time: waiting for the loader, the thread's own work
     * (Python, C++, garbage collection), waiting for a lock or the GIL */
    CAUSE_PICTURE_DATA_LOADING,
    CAUSE_PICTURE_HOST_WORK,
    CAUSE_PICTURE_LOCK_WAIT
};

/* Short stable tag ("sm-saturation", "late-launch", ...) used in JSON, check names and pictures,
 * and a human title ("SM saturation"). "?" out of range. */
const char *analysis_cause_tag(enum analysis_cause cause);
const char *analysis_cause_title(enum analysis_cause cause);
/* What to do about a cause ("pin the host buffer (...)"), and the CUDA or NCCL documentation
 * section that says so ("CUDA Runtime API, \"API synchronization behavior\""). */
const char *analysis_cause_advice(enum analysis_cause cause);
const char *analysis_cause_advice_source(enum analysis_cause cause);
/* The check/diff metric of a cause ("sm_saturation_ms"). */
const char *analysis_cause_metric(enum analysis_cause cause);
/* The fix a proved wait of this cause asks for; ANALYSIS_FIX_COUNT when none (unexplained). */
enum analysis_fix analysis_cause_fix(enum analysis_cause cause);

/* Stable tag ("host-sync", "comm-skew", ...) for JSON, check metric names and pictures; a human
 * title ("host blocked in a synchronizing call"); 1 for the idle causes, 0 for exposed
 * communication. */
const char *accounting_cause_tag(enum accounting_cause cause);
const char *accounting_cause_title(enum accounting_cause cause);
const char *accounting_cause_metric(enum accounting_cause cause);
int accounting_cause_is_idle(enum accounting_cause cause);
/* 1 for the exposed-copy causes (COPY_CAUSE rows). */
int accounting_cause_is_copy(enum accounting_cause cause);
/* 1 for step-start, step-end and step-boundary: idle time outside every step's GPU activity. */
int accounting_cause_is_between_steps(enum accounting_cause cause);
enum cause_picture accounting_cause_picture(enum accounting_cause cause);
/* The fix whose what-if removes this cause's time; ANALYSIS_FIX_COUNT when none. */
enum analysis_fix accounting_cause_fix(enum accounting_cause cause);
/* An entry's name for pictures and exports: "host blocked in cudaDeviceSynchronize", "transfer
 * (AllReduce)", or the title alone when the label restates it. Returns buffer. */
char *accounting_cause_name(char *buffer, size_t size, enum accounting_cause cause, const char *label);

/* Stable tag ("pin-host-buffer") and the sentence a report prints ("if you pin the host buffer"). */
const char *analysis_fix_tag(enum analysis_fix fix);
const char *analysis_fix_title(enum analysis_fix fix);
/* What the model assumed for this fix (static text), "" out of range. */
const char *analysis_fix_assumptions(enum analysis_fix fix);
/* What a prediction stands on when no wait's cause asks for the fix ("idle-host-sync", "all"). */
const char *analysis_fix_basis(enum analysis_fix fix);
/* 1 when the program asked for what the fix removes: the gain is the design's price. */
int analysis_fix_by_design(enum analysis_fix fix);

#endif
