/* import.h: `overlapscope import`: turning PyTorch profiler (Kineto) JSON traces and Nsight
 * Systems SQLite exports into one overlapscope trace.
 *
 * Each input is a file or a directory (every *.json, *.json.gz, *.sqlite in it, sorted by name,
 * not recursive). The format is told by content, not by name: SQLite's header, gzip's magic, or
 * JSON. The output is written as output_file.h says (refused when it exists without force, or is
 * an input; a temporary file beside it renamed into place only when every input was read): a
 * failure leaves nothing behind. */
#ifndef OVERLAPSCOPE_IMPORT_H
#define OVERLAPSCOPE_IMPORT_H

#include <time.h>

#include "error.h"
#include "store.h"

struct import_options {
    int force; /* replace an existing output */
    /* Optional: the share of all input bytes read so far (0..1). */
    void (*progress)(void *context, double fraction);
    void *progress_context;
    store_finishing_step *finish; /* may be NULL: run on the finalized trace (store.h) */
    /* May be NULL: more meta rows, as key, value, key, value..., then NULL (a command's cache
     * marks the trace as its own: cli/trace_input.h). */
    const char *const *meta;
};

enum import_format { IMPORT_FORMAT_UNKNOWN = 0, IMPORT_FORMAT_KINETO, IMPORT_FORMAT_NSYS };

/* What the first bytes of a file say it is. Returns IMPORT_FORMAT_UNKNOWN with err filled when it
 * cannot be read, is empty, or is neither. */
enum import_format import_detect_format(const char *path, error_info *err);

/* Whether a command that reads a trace must import path first: 1 for a directory, a Kineto JSON
 * trace (gzipped or not, or a pipe the shell opened: read as one) and an Nsight Systems export; 0
 * for anything else (an overlapscope trace,
 * or a file whose problem the trace reader will name). */
int import_is_foreign(const char *path);

/* The latest modification time among what import_run would read for inputs: each file, and each
 * directory named (a trace added or removed changes it). Returns 0, or -1 with err filled. */
int import_newest_input(char *const *inputs, int input_count, struct timespec *newest, error_info *err);

/* Imports inputs into output_path. Returns the number of files imported (> 0), or -1 with err
 * naming the file and the problem. */
int import_run(const char *output_path, char *const *inputs, int input_count,
               const struct import_options *options, error_info *err);

#endif
