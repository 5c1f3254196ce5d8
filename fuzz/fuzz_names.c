/* fuzz_names.c: the strings one MPI process passes the next (store/names.h, --mpi on rank files),
 * as store_names_take reads them: any bytes must be taken whole or refused with a reason, never read
 * past their end, and a refusal must leave no string half taken that another id holds. The store
 * is made once; each input's strings are removed after it. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "names.h"
#include "store.h"

static store *trace;

static void remove_trace(void)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/fuzz_names-%d.db", (int)getpid());
    store_close(trace, NULL);
    unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    error_info err;
    if (!trace) {
        char path[64];
        snprintf(path, sizeof path, "/tmp/fuzz_names-%d.db", (int)getpid());
        trace = store_create(path, STORE_OVERWRITE | STORE_FAST_UNSAFE, &err);
        if (!trace)
            abort();
        atexit(remove_trace);
    }
    int status = store_names_take(trace, data, size, 1, &err);
    if (status != 0 && status != -1)
        abort();
    if (status != 0 && !err.message[0])
        abort(); /* a refusal says why */
    sqlite3_exec(store_db(trace), "DELETE FROM strings", NULL, NULL, NULL);
    return 0;
}
