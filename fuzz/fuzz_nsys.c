/* fuzz_nsys.c: arbitrary bytes as an SQLite file given to the Nsight Systems importer (opened in
 * memory with sqlite3_deserialize). Corrupt pages, wrong column types, missing tables: an error
 * line or an import, never a crash. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_harness.h"
#include "nsys.h"

static struct fuzz_harness harness;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    store *output = fuzz_output_store(&harness);
    sqlite3 *db = NULL;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK)
        abort();
    unsigned char *copy = sqlite3_malloc64(size ? size : 1);
    if (!copy)
        abort();
    memcpy(copy, data, size);
    if (sqlite3_deserialize(db, "main", copy, (sqlite3_int64)size, (sqlite3_int64)size,
                            SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY) == SQLITE_OK) {
        error_info err;
        if (nsys_import_db(output, db, "fuzz.sqlite", &err) != 0 && err.message[0] == '\0')
            abort();
    }
    sqlite3_close(db);
    return 0;
}
