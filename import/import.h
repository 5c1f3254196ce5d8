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
#include "phase_timing.h"
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
    /* May be NULL: the meta key under which the inputs' identity (import_input_identity) is kept.
     * Set, the identity is taken before the first byte is read and again before the output is put
     * in place; an input that changed meanwhile fails the import (nothing is written). */
    const char *identity_meta_key;
    /* May be NULL: called once per entry of a folder that is named like a trace but is no regular
     * file (a FIFO, a device, a folder, a dangling link), with a one-line message that also goes
     * into the trace's warnings (code import-folder-skipped). */
    void (*warn)(void *context, const char *message);
    void *warn_context;
    /* Files read at once, each by a worker thread into a part of its own, the parts then appended
     * in the order of the files (the trace is the same for any number): 0 for this machine's
     * processors, 1 for one file after the other in this thread. */
    int jobs;
    /* May be NULL: where the import's time goes, phase by phase (OVERLAPSCOPE_TIMING=1), the
     * workers' CPU with the phase the writer appends the parts in. */
    struct phase_timing *timing;
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

/* 1 when path is named as a folder's trace files are (*.json, *.json.gz, *.sqlite): what a folder
 * import reads, whether or not the file is here. */
int import_is_trace_name(const char *path);

/* The identity of what import_run would read for inputs: a line per directory named and per file
 * read (symbolic links followed: the target's), each with its device, inode, size, and modification
 * and status-change times in nanoseconds. A file replaced (another inode), rewritten, re-pointed
 * through a link, or given back an old mtime (cp -p, touch -d: the status-change time cannot be
 * set back) has another identity; so has a folder a trace was added to or removed from.
 * Sets *identity (the caller frees it). Returns 0, or -1 with err filled. */
int import_input_identity(char *const *inputs, int input_count, char **identity, error_info *err);

/* What differs between two identities, as a phrase ("another file: its device or inode
 * differs"); NULL when they are equal. was may be NULL (none kept). */
const char *import_identity_change(const char *was, const char *is);

/* One file named twice (`import x.json x.json`, a hard link, a folder and a file in it, `merge
 * a.db a.db`) would be read twice: its ranks counted twice in a world they fill once. Told by
 * device and inode (links followed), not by name. Returns 0, or -1 with err naming both paths.
 * import_run and merge_run refuse such inputs. */
int import_refuse_same_file(const char *const *paths, size_t path_count, error_info *err);

/* Imports inputs into output_path. Returns the number of files imported (> 0), or -1 with err
 * naming the file and the problem. */
int import_run(const char *output_path, char *const *inputs, int input_count,
               const struct import_options *options, error_info *err);

/* What a process importing one block of a folder (import_run_block) does with the names (strings)
 * of the files before its block and of its own (store/names.h): take is called once the block's
 * files are read into parts, before any is appended (it gives output the strings of the blocks
 * before and adds those of parts: store_names_take, store_names_append), and not at all when a
 * file cannot be read or the output made (import_run_block then fails); complete, when not NULL,
 * once they are appended (process 0 takes the strings of every block there). Each returns 0, or
 * -1 with err filled. */
struct import_block_names {
    int (*take)(void *context, store *output, const char *const *parts, size_t part_count, error_info *err);
    int (*complete)(void *context, store *output, error_info *err);
    /* When not NULL, called between the parts' appends: where strings already passed on may move
     * (a transport that moves them only when called). */
    void (*progress)(void *context);
    void *context;
};

/* Imports block (of blocks) of the files inputs name, in import_run's order: files count*block /
 * blocks to count*(block + 1) / blocks - 1, into output_path (several inputs, none a folder: of
 * the names, and only the block's are opened, the others may be absent here; else of the
 * folder's listing), with the ids the import of them all
 * would give when names does its part (a block may hold no file: names is still called, and the
 * trace is empty). *files_read and *files_total: the block's files and all of them. Returns 0, or
 * -1 with err naming the file and the problem. */
int import_run_block(const char *output_path, char *const *inputs, int input_count, size_t block,
                     size_t blocks, const struct import_options *options,
                     const struct import_block_names *names, size_t *files_read, size_t *files_total,
                     error_info *err);

#endif
