/* record.h: the CPU side of `overlapscope record`: finding the collector, guarding the output,
 * running the job with the collector injected, and merging what every process wrote.
 *
 * The flow (cli/cmd_record.c drives it and does all printing):
 *   record_find_collector      liboverlapscope-collector.so relative to the running binary
 *   record_find_cupti          the folder of libcupti, which the collector needs
 *   output_file_check          the output is refused before the job starts (output_file.h)
 *   record_lock_output         one recording per output file; refuse to overwrite without force
 *   record_make_run_directory  a private folder beside the output for the per-process files
 *   record_set_environment     CUDA_INJECTION64_PATH, NVTX_INJECTION64_PATH, OVERLAPSCOPE_*
 *   record_run_job             execvp (no shell), SIGINT/SIGTERM forwarded, wait
 *   record_merge               every proc-*.db into one trace, written as output_file.h says
 * Library code: never prints, never exits; errors in an error_info. */
#ifndef OVERLAPSCOPE_RECORD_H
#define OVERLAPSCOPE_RECORD_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "store.h"

#define RECORD_COLLECTOR_NAME "liboverlapscope-collector.so"

/* 1 when this build has the collector (the CUDA toolkit with CUPTI was found), else 0. */
int record_collector_built(void);

/* Finds the collector relative to the running binary (/proc/self/exe): beside it in the build
 * tree (<build>/cli/overlapscope -> <build>/collector/) or in the install tree
 * (<prefix>/bin/overlapscope -> <prefix>/<libdir>/overlapscope/). Writes its absolute path.
 * Returns 0, or -1 with err listing where it looked. */
int record_find_collector(char *path, size_t size, error_info *err);

/* Finds the folder holding the libcupti the collector was linked against (its soname, e.g.
 * libcupti.so.13): CUPTI ships with the CUDA toolkit, not as a Debian package, and the installed
 * collector carries no path to it. Looks, in order, in $OVERLAPSCOPE_CUPTI (a folder, or the
 * library itself), each folder of $LD_LIBRARY_PATH, $CUDA_HOME and $CUDA_PATH (extras/CUPTI/lib64,
 * lib64, lib), /usr/local/cuda (the same three), the system's library folders, and the folder
 * this build found it in. Writes the folder (the job gets it at the front of LD_LIBRARY_PATH).
 * Returns 0, or -1 with err naming the library and where it looked. */
int record_find_cupti(char *folder, size_t size, error_info *err);

/* Checks that the output may be written (output_file_check), then takes the exclusive lock
 * "<output>.lock" (another record into the same output fails; a lock name that is a symbolic
 * link is refused, never followed). Returns the lock's descriptor, or -1 with err filled. */
int record_lock_output(const char *output, int force, error_info *err);
/* Releases and removes the lock. */
void record_unlock_output(const char *output, int lock_fd);

/* Creates a private (0700) folder beside output for the per-process files. */
int record_make_run_directory(const char *output, char *directory, size_t size, error_info *err);
/* Removes the folder and the per-process files in it. */
void record_remove_run_directory(const char *directory);

struct record_settings {
    const char *collector_path;
    const char *cupti_folder; /* NULL: none to add; else put first in the job's LD_LIBRARY_PATH */
    int nvtx;                 /* 1: NVTX_INJECTION64_PATH names the collector (unless the user set it) */
    const char *run_directory;
    const char *kinds;           /* NULL: all */
    int flush_ms;                /* 0: the collector's default */
    int sample_hz;               /* host samples per second (collector/host_sampler.h); 0: off */
    int64_t buffer_bytes;        /* 0: default */
    int buffer_count;            /* 0: default */
    int64_t device_buffer_bytes; /* 0: CUPTI's default */
    const char *api;             /* OVERLAPSCOPE_API: analysis, all or none (NULL: analysis) */
    int nccl;
    /* record --capture-range, --delay, --duration as the user wrote them (capture_range.h), checked
     * already; NULL: none (the variable is removed, so that an outer one does not leak in) */
    const char *capture_range, *delay, *duration;
};

/* Sets the variables the collector and CUDA read, in this process's environment (the job
 * inherits it, and every process the job starts inherits it again). Returns 0 or -1. */
int record_set_environment(const struct record_settings *settings, error_info *err);

struct record_job_status {
    int64_t pid;     /* the job's process id */
    int exit_code;   /* when the job exited */
    int term_signal; /* when a signal killed it; 0 otherwise */
};

/* Runs argv with execvp (no shell) and waits for it, forwarding SIGINT and SIGTERM sent to this
 * process (a terminal's Ctrl-C already reaches the job: it is not sent twice). Returns 0 with
 * status filled, or -1 with err filled and *exec_errno set when the program could not be
 * started (127 for "not found", 126 otherwise is what a shell would exit with). */
int record_run_job(char *const argv[], struct record_job_status *status, int *exec_errno, error_info *err);

struct record_merge_result {
    int files;         /* per-process files found */
    int damaged_files; /* merged only as far as readable */
    int64_t processes, kernels, collectives, dropped_records, warnings;
    int competing_profiler; /* a competing-profiler warning was stored */
};

struct record_meta {
    const char *command; /* the recorded command line */
    const struct record_job_status *job;
    const char *api_records; /* the API set recorded (meta api_records); NULL: not stored */
    int sample_hz;           /* meta host_sample_hz (record --sample-hz; 0: not sampled) */
};

/* Merges every proc-*.db of run_directory into output: waits (up to wait_ms) for processes still
 * writing, appends each file (a damaged one as far as it reads, with a warning row), stores meta
 * (source=record, clock=cupti, command, exit_status, api_records, host_sample_hz,
 * competing_profiler) and the job's
 * fate, finalizes, runs finish (may be NULL; store.h) and writes output as output_file.h says
 * (force: replace an existing one). Returns 0, or -1 with err filled (output then untouched, and
 * no temporary file or SQLite sidecar left). */
int record_merge(const char *run_directory, const char *output, int force, store_finishing_step *finish,
                 const struct record_meta *meta, int wait_ms, struct record_merge_result *result,
                 error_info *err);

/* Copies what can still be read of a damaged per-process file into a new trace at salvaged_path.
 * Rows are copied table by table until the first unreadable page; a processes row is made up from
 * the file name (proc-PID-N.db) when none could be read. Returns the rows copied, or -1. */
int64_t record_salvage(const char *damaged_path, const char *salvaged_path, error_info *err);

#endif
