/* input_file.c: see input_file.h. */
#include "input_file.h"

#include <errno.h>
#include <string.h>

int input_file_stat(const char *path, struct stat *info, error_info *err)
{
    if (stat(path, info) != 0)
        return error_set(err, "cannot open '%s': %s", path, strerror(errno));
    if (S_ISDIR(info->st_mode))
        return error_set(err, "cannot open '%s': is a directory", path);
    return 0;
}
