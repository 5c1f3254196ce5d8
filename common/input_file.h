/* input_file.h: the first look every reader of a file takes before opening it: the file is there
 * and is not a directory. One function, so that the trace store and the JSON reader refuse the
 * same inputs with the same words ("cannot open 'x': is a directory"). */
#ifndef OVERLAPSCOPE_INPUT_FILE_H
#define OVERLAPSCOPE_INPUT_FILE_H

#include <sys/stat.h>

#include "error.h"

/* stat(2)s path into *info. Returns 0, or -1 with err filled when path cannot be looked at or is a
 * directory. What else a reader accepts (a FIFO, a device) is its own choice: info says what it
 * is. */
int input_file_stat(const char *path, struct stat *info, error_info *err);

#endif
