/* fuzz_harness.h: what the fuzz targets share: a scratch directory and an output store that is
 * re-created every few thousand inputs so it does not grow without end. Harness state lives in
 * one struct per target (libFuzzer calls a plain function). */
#ifndef OVERLAPSCOPE_FUZZ_HARNESS_H
#define OVERLAPSCOPE_FUZZ_HARNESS_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "store.h"

#define FUZZ_STORE_RECREATE_EVERY 2000

struct fuzz_harness {
    char directory[64];
    char store_path[128];
    store *output;
    unsigned long runs;
};

static inline const char *fuzz_scratch_directory(struct fuzz_harness *harness)
{
    if (!harness->directory[0]) {
        snprintf(harness->directory, sizeof harness->directory, "/tmp/overlapscope-fuzz-XXXXXX");
        if (!mkdtemp(harness->directory))
            abort();
    }
    return harness->directory;
}

/* Writes the input to the scratch directory's file `name` with mode (its SQLite sidecars of an
 * earlier input removed first: they would be read with it), its path into path. */
static inline void fuzz_write_input(struct fuzz_harness *harness, const char *name, const uint8_t *data,
                                    size_t size, mode_t mode, char *path, size_t path_size)
{
    snprintf(path, path_size, "%s/%s", fuzz_scratch_directory(harness), name);
    static const char *const suffixes[] = {"-wal", "-shm", "-journal"};
    for (size_t i = 0; i < 3; i++) {
        char sidecar[256];
        snprintf(sidecar, sizeof sidecar, "%s%s", path, suffixes[i]);
        unlink(sidecar);
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
        abort();
    close(fd);
}

/* The output store for this input, inside an open transaction. */
static inline store *fuzz_output_store(struct fuzz_harness *harness)
{
    if (harness->output && harness->runs++ % FUZZ_STORE_RECREATE_EVERY != 0)
        return harness->output;
    error_info err;
    store_close(harness->output, NULL);
    snprintf(harness->store_path, sizeof harness->store_path, "%s/output.db",
             fuzz_scratch_directory(harness));
    harness->output = store_create(harness->store_path, STORE_OVERWRITE | STORE_FAST_UNSAFE, &err);
    if (!harness->output || store_begin(harness->output, &err) != 0) {
        fprintf(stderr, "fuzz harness: %s\n", err.message);
        abort();
    }
    return harness->output;
}

#endif
