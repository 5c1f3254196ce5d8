/* trace_input.h: the trace a reading command (info, report, check, diff, render, export) opens,
 * from whatever the user named: an overlapscope trace as it is; a PyTorch profiler trace (.json,
 * .json.gz), a folder of them or an Nsight Systems export (import.h: import_is_foreign) imported
 * first, the way an HTA or `nsys stats` user expects.
 *
 * The import goes to a cache beside the input, INPUT.overlapscope.db (a folder's beside the
 * folder), written through output_file.h (complete or absent) and marked as a cache in its meta
 * (cache_of: the input's name; cache_identity: import.h's identity of every file it read, taken
 * before the import and checked again at its end). It is read again only while the input's
 * identity now (device, inode, size, mtime and ctime in ns, links followed to their target) is the
 * one kept; otherwise, and when it is damaged (an overlapscope trace that no longer opens), it is
 * imported again with one line on stderr saying why. A file of that name that is not such a cache
 * is never touched. Where the folder is not writable, or holds a file of that name that is not a
 * cache,
 * the import goes to a temporary folder removed when the command ends; so does a pipe the shell
 * opened (`report <(zcat rank0.json.gz)`). Either way one line on
 * stderr says which trace the command reads. Manual: docs/overlapscope-import.md, "Reading other
 * traces directly". */
#ifndef OVERLAPSCOPE_CLI_TRACE_INPUT_H
#define OVERLAPSCOPE_CLI_TRACE_INPUT_H

#include <limits.h>

struct cli_trace_input {
    const char *path;                       /* what to open: the argument, or the imported trace */
    char imported_path[PATH_MAX + 32];      /* the cache or temporary trace; "" when none */
    char temporary_directory[PATH_MAX + 1]; /* "" unless the import went to a temporary folder */
};

/* Resolves argument (the command's trace argument) into input->path. Returns 0, or prints one
 * line naming the input and returns CLI_EXIT_ERROR. Call cli_trace_input_release in both cases. */
int cli_trace_input_open(struct cli_trace_input *input, const char *command, const char *argument);

/* The same for several arguments (rank files: each a trace import_is_foreign names): imported
 * together into a temporary trace, as `overlapscope import ARGUMENTS...` would, with one line on
 * stderr calling them name. One argument: cli_trace_input_open. */
int cli_trace_inputs_open(struct cli_trace_input *input, const char *command, char *const *arguments,
                          int argument_count, const char *name);

/* Removes a temporary import (a cache stays). */
void cli_trace_input_release(struct cli_trace_input *input);

#endif
