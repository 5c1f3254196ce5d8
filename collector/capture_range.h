/* capture_range.h: which part of a job `record` keeps (record --capture-range, --delay,
 * --duration, as nsys names them): the parsing of the options and the state machine that says, at
 * each event the collector sees (the process starting, cudaProfilerStart/Stop, an NVTX range
 * opening or closing, the clock), whether GPU activity collection turns on or off, and the windows
 * it was on. Pure C, no CUDA and no clock of its own (every call is given the time), so that the
 * rules are tested on any machine; collector.c calls cuptiActivityEnable/Disable on its answers.
 *
 *   --capture-range=cudaProfilerApi   on at cudaProfilerStart, off at cudaProfilerStop (again at
 *                                     each pair)
 *   --capture-range=nvtx:NAME[@N]     on while an NVTX range with message NAME is open (nested
 *                                     ranges of that name count once), for the first N of them
 *                                     (default: every one)
 *   --delay SECONDS                   nothing before SECONDS after the process started; with a
 *                                     capture range, its events before then are ignored
 *   --duration SECONDS                off SECONDS after the first capture began, for good
 * Without any of them everything is captured (the state starts on and never changes). */
#ifndef OVERLAPSCOPE_CAPTURE_RANGE_H
#define OVERLAPSCOPE_CAPTURE_RANGE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

enum capture_range_kind {
    CAPTURE_RANGE_ALL = 0,      /* no --capture-range */
    CAPTURE_RANGE_PROFILER_API, /* cudaProfilerApi */
    CAPTURE_RANGE_NVTX          /* nvtx:NAME[@N] */
};

#define CAPTURE_RANGE_NAME_MAX 256
#define CAPTURE_RANGE_MAX_WINDOWS 64

struct capture_range_spec {
    enum capture_range_kind kind;
    char nvtx_name[CAPTURE_RANGE_NAME_MAX]; /* CAPTURE_RANGE_NVTX */
    int64_t nvtx_count;                     /* 0: every range of that name */
    int64_t delay_ns;                       /* 0: none */
    int64_t duration_ns;                    /* 0: no limit */
};

/* Parses a --capture-range value ("cudaProfilerApi", "nvtx:NAME", "nvtx:NAME@N") into spec->kind,
 * nvtx_name and nvtx_count, leaving the rest. Returns 0, or -1 with err saying what is wrong. */
int capture_range_parse(const char *text, struct capture_range_spec *spec, error_info *err);

/* Parses a --delay or --duration value in seconds ("2", "0.5", "1.5s"; positive, at most a week)
 * into nanoseconds. Returns 0, or -1 with err saying what is wrong. */
int capture_range_parse_seconds(const char *text, int64_t *nanoseconds, error_info *err);

/* 1 when spec captures less than everything (a range, a delay or a duration). */
int capture_range_restricts(const struct capture_range_spec *spec);

/* What spec asks for, for a trace's meta row and the one line info prints: "cudaProfilerApi",
 * "nvtx:train@3", "delay 2 s, duration 5 s"... Returns buffer. */
char *capture_range_describe(const struct capture_range_spec *spec, char *buffer, size_t size);

/* What the collector must do after an event. */
enum capture_action { CAPTURE_KEEP = 0, CAPTURE_START, CAPTURE_STOP };

struct capture_window {
    int64_t start_ns, end_ns; /* end_ns: INT64_MAX while open */
};

struct capture_state {
    struct capture_range_spec spec;
    int64_t process_start_ns;
    int capturing;
    int finished;           /* the duration ran out, or the N-th NVTX range closed: never again */
    int64_t nvtx_depth;     /* open ranges named spec.nvtx_name */
    int64_t nvtx_seen;      /* ranges of that name that opened after the delay */
    int64_t first_start_ns; /* when the first capture began; INT64_MIN before */
    int profiler_started;   /* between cudaProfilerStart and Stop (whether or not capturing) */
    struct capture_window windows[CAPTURE_RANGE_MAX_WINDOWS];
    size_t window_count;
    size_t windows_dropped; /* windows past the array (the first ones are kept) */
};

/* Starts the machine at process_start_ns. Returns CAPTURE_START when collection starts at once
 * (no range and no delay), else CAPTURE_KEEP: collection stays off until an event turns it on. */
enum capture_action capture_state_init(struct capture_state *state, const struct capture_range_spec *spec,
                                       int64_t process_start_ns);

enum capture_action capture_state_profiler_start(struct capture_state *state, int64_t now_ns);
enum capture_action capture_state_profiler_stop(struct capture_state *state, int64_t now_ns);
/* An NVTX range (push/pop or start/end) with message name opened or closed. */
enum capture_action capture_state_nvtx_open(struct capture_state *state, const char *name, int64_t now_ns);
enum capture_action capture_state_nvtx_close(struct capture_state *state, const char *name, int64_t now_ns);
/* The clock: the delay's end and the duration's end (the collector calls it periodically and at
 * exit). */
enum capture_action capture_state_tick(struct capture_state *state, int64_t now_ns);
/* The nanoseconds until the next tick that could change something (the delay's or duration's
 * end), or -1 when no tick can now (a capture that starts later may need one again: ask then). */
int64_t capture_state_next_tick_ns(const struct capture_state *state, int64_t now_ns);
/* Closes an open window at the process's end (end_ns). */
void capture_state_finish(struct capture_state *state, int64_t end_ns);

/* The windows as "start:end,start:end" (ns, absolute), for the trace's meta row. Returns buffer
 * (truncated to size, always terminated). */
char *capture_state_windows_text(const struct capture_state *state, char *buffer, size_t size);

#endif
