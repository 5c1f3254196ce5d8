/* output_file.h: the one way overlapscope writes a file the user named (render's pictures,
 * import's, merge's and record's traces, export's JSON), so that no writer can destroy a user's
 * file or leave something that reads as a finished result.
 *
 * The discipline, for every writer:
 *   - "-" is refused: it means standard output, which a writer that streams handles before
 *     calling here (export --chrome -), and never names a file ("./-" does);
 *   - an existing output is refused unless force; a directory, a symbolic link (its target is
 *     never followed nor replaced) or anything but a regular file is always refused, and so is
 *     an output that is one of the writer's inputs (same st_dev/st_ino, through links too);
 *   - the work goes to a temporary file in the output's folder (rename(2) is atomic only within
 *     one file system) named ".NAME.partial-XXXXXX": readers refuse such a name with one line
 *     (output_file_is_unfinished), so a writer killed by SIGKILL leaves nothing that reads as a
 *     trace; SIGINT, SIGTERM and SIGHUP remove it before the process dies;
 *   - the result is flushed and fsync'ed (a full disk or a failed close is an error, never a
 *     truncated output with exit status 0), then moved into place: without force exclusively
 *     (renameat2 RENAME_NOREPLACE, else link(2)), so of two writers racing for one name exactly
 *     one succeeds and the other fails naming the file; with force by rename(2).
 * Nothing here prints; errors are one line in an error_info naming the file. */
#ifndef OVERLAPSCOPE_OUTPUT_FILE_H
#define OVERLAPSCOPE_OUTPUT_FILE_H

#include <stdio.h>

#include "error.h"

/* The marker in a temporary file's name: ".NAME" OUTPUT_FILE_PARTIAL_MARK "XXXXXX". */
#define OUTPUT_FILE_PARTIAL_MARK ".partial-"

typedef struct output_file output_file;

/* Checks that final_path may be written: a non-empty name, a folder that exists and is writable,
 * and nothing there unless force (then only a regular file that is none of the input_count paths
 * of inputs; inputs may be NULL). Returns 0, or -1 with err filled. For writers that must refuse
 * before a long job (record); output_file_begin checks the same again. */
int output_file_check(const char *final_path, int force, const char *const *inputs, int input_count,
                      error_info *err);

/* output_file_check, then reserves the temporary file (created empty; its mode, kept through the
 * commit: read-write for the owner, and for group and others what the umask leaves them and every
 * regular file among inputs allows them: a copy is never more readable than what it was made
 * from) and arranges its
 * removal on SIGINT/SIGTERM/SIGHUP. Returns the handle (end it with output_file_commit or
 * output_file_discard), or NULL with err filled. */
output_file *output_file_begin(const char *final_path, int force, const char *const *inputs, int input_count,
                               error_info *err);

/* The temporary file's path, for writers that create the file themselves (a trace store: it may
 * replace the empty file there). Valid until commit or discard. */
const char *output_file_temporary(const output_file *out);

/* A stream writing the temporary file, owned by out (commit closes it, checking every error).
 * Returns NULL with err filled. */
FILE *output_file_stream(output_file *out, error_info *err);

/* The files "TEMPORARY.part0" ... "TEMPORARY.partN" (N = count - 1: a parallel import's parts,
 * import.c) and their SQLite sidecars are out's too: removed with the temporary file on SIGINT,
 * SIGTERM and SIGHUP. Otherwise the writer removes them (a part is removed once appended). */
void output_file_watch_parts(output_file *out, size_t count);

/* Flushes and fsyncs the temporary file and moves it onto the final name (see above). Frees out
 * either way. Returns 0, or -1 with err filled and nothing left behind. */
int output_file_commit(output_file *out, error_info *err);

/* Removes the temporary file and its SQLite sidecars (-wal, -shm, -journal) and frees out.
 * NULL is a no-op. */
void output_file_discard(output_file *out);

/* output_file_discard after a failure: where err names the temporary file (a trace store's
 * message), it is made to name the output the user asked for. Returns -1. */
int output_file_fail(output_file *out, error_info *err);

/* 1 when path's file name is that of a temporary file of this module (an unfinished write),
 * else 0. Readers refuse such files. */
int output_file_is_unfinished(const char *path);

/* Removes the trace at path and the files SQLite keeps beside it (-wal, -shm, -journal): a part, a
 * temporary trace. Async-signal-safe (no snprintf). */
void output_file_remove(const char *path);

#endif
