/* output_file.h: writing an output file atomically: work on a temporary file beside it and
 * rename it into place only when everything succeeded, so a failed or interrupted import, export
 * or merge never leaves a partial file under the name the user asked for.
 *
 * The temporary file lives in the output's directory (rename(2) is atomic only within one file
 * system) and is named ".NAME.partial-XXXXXX". */
#ifndef OVERLAPSCOPE_OUTPUT_FILE_H
#define OVERLAPSCOPE_OUTPUT_FILE_H

#include "error.h"

/* Checks that final_path may be written (absent, or force) and reserves a temporary path.
 * Returns a malloc'd temporary path (an empty file exists there; the caller may replace it) or
 * NULL with err filled. */
char *output_file_begin(const char *final_path, int force, error_info *err);

/* Renames temporary_path to final_path. Returns 0, or -1 with err filled (the temporary file is
 * then removed). */
int output_file_commit(const char *temporary_path, const char *final_path, error_info *err);

/* Removes the temporary file and any SQLite sidecar (-wal, -shm, -journal) beside it. NULL is a
 * no-op. */
void output_file_discard(const char *temporary_path);

#endif
