/* output_file.c: temporary file plus rename (see output_file.h). */
#include "output_file.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *output_file_begin(const char *final_path, int force, error_info *err)
{
    struct stat info;
    if (stat(final_path, &info) == 0) {
        if (S_ISDIR(info.st_mode)) {
            error_set(err, "cannot write '%s': is a directory", final_path);
            return NULL;
        }
        if (!force) {
            error_set(err, "cannot write '%s': file exists (use --force to overwrite)", final_path);
            return NULL;
        }
    }
    char *directory_copy = strdup(final_path), *base_copy = strdup(final_path);
    char *temporary = NULL;
    if (directory_copy && base_copy) {
        const char *directory = dirname(directory_copy), *base = basename(base_copy);
        size_t size = strlen(directory) + strlen(base) + 32;
        temporary = malloc(size);
        if (temporary)
            snprintf(temporary, size, "%s/.%s.partial-XXXXXX", directory, base);
    }
    free(directory_copy);
    free(base_copy);
    if (!temporary) {
        error_set(err, "cannot write '%s': out of memory", final_path);
        return NULL;
    }
    int fd = mkstemp(temporary);
    if (fd < 0) {
        error_set(err, "cannot write '%s': %s", final_path, strerror(errno));
        free(temporary);
        return NULL;
    }
    fchmod(fd, 0644);
    close(fd);
    return temporary;
}

int output_file_commit(const char *temporary_path, const char *final_path, error_info *err)
{
    if (rename(temporary_path, final_path) != 0) {
        int saved = errno;
        output_file_discard(temporary_path);
        return error_set(err, "cannot write '%s': %s", final_path, strerror(saved));
    }
    return 0;
}

void output_file_discard(const char *temporary_path)
{
    if (!temporary_path)
        return;
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s%s", temporary_path, suffixes[i]);
        unlink(path);
    }
}
