/* test_names.c: the strings of an import shared among processes (store/names.h): a store that
 * takes the strings of the parts before its own and appends its part gets the ids the import of
 * every part gives; strings that disagree and damaged bytes are refused. */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "names.h"
#include "parts.h"
#include "store.h"

static char directory[] = "/tmp/overlapscope-test-names-XXXXXX";

static const char *path_in(const char *name)
{
    static char path[4][512];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, 512, "%s/%s", directory, name);
    return p;
}

/* A part holding strings (in that order of first use) and processes processes. */
static void write_part(const char *path, const char *const *strings, size_t count, int processes)
{
    error_info err;
    store *part = store_create(path, STORE_OVERWRITE | STORE_FAST_UNSAFE, &err);
    CHECK(part != NULL);
    if (!part)
        return;
    CHECK_INT(store_begin(part, &err), 0);
    for (size_t i = 0; i < count; i++)
        CHECK(store_intern(part, strings[i], &err) > 0);
    for (int i = 0; i < processes; i++) {
        struct store_process row = store_process_unknown();
        row.pid = 100 + i;
        CHECK_INT(store_insert_process(part, &row, &err), 0);
    }
    CHECK_INT(store_close(part, &err), 0);
}

static store *new_store(const char *path)
{
    error_info err;
    store *s = store_create(path, STORE_OVERWRITE | STORE_FAST_UNSAFE, &err);
    CHECK(s != NULL);
    return s;
}

static int64_t id_of(store *s, const char *value)
{
    sqlite3_stmt *q = NULL;
    int64_t id = -1;
    if (sqlite3_prepare_v2(store_db(s), "SELECT id FROM strings WHERE value = ?", -1, &q, NULL) ==
        SQLITE_OK) {
        sqlite3_bind_text(q, 1, value, -1, SQLITE_STATIC);
        if (sqlite3_step(q) == SQLITE_ROW)
            id = sqlite3_column_int64(q, 0);
    }
    sqlite3_finalize(q);
    return id;
}

static int64_t first_process(store *s)
{
    sqlite3_stmt *q = NULL;
    int64_t id = -1;
    if (sqlite3_prepare_v2(store_db(s), "SELECT MIN(process_id) FROM processes", -1, &q, NULL) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW)
        id = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    return id;
}

int main(void)
{
    if (!mkdtemp(directory))
        return 1;
    static const char *const first[] = {"gemm", "shared", "rank0_only"};
    static const char *const second[] = {"rank1_only", "shared", "gemm", "later"};
    write_part(path_in("a.part"), first, 3, 2);
    write_part(path_in("b.part"), second, 4, 1);
    error_info err;

    /* the import of both parts, one after the other */
    store *whole = new_store(path_in("whole.db"));
    CHECK_INT(store_parts_begin(whole, &err), 0);
    CHECK_INT(store_append_part(whole, path_in("a.part"), &err), 0);
    CHECK_INT(store_append_part(whole, path_in("b.part"), &err), 0);

    /* the first process: its part's strings, passed on with the next process id */
    store *own_first = new_store(path_in("first.db"));
    int64_t processes = 0;
    CHECK_INT(store_names_append(own_first, path_in("a.part"), &processes, &err), 0);
    CHECK_INT(processes, 2);
    unsigned char *bytes = NULL;
    size_t size = 0;
    CHECK_INT(store_names_give(own_first, &bytes, &size, &err), 0);

    /* the second process: the strings before its part, then its part's, then its part's rows */
    store *own_second = new_store(path_in("second.db"));
    CHECK_INT(store_names_take(own_second, bytes, size, 1 + processes, &err), 0);
    processes = 0;
    CHECK_INT(store_names_append(own_second, path_in("b.part"), &processes, &err), 0);
    CHECK_INT(processes, 1);
    CHECK_INT(store_parts_begin(own_second, &err), 0);
    CHECK_INT(store_append_part(own_second, path_in("b.part"), &err), 0);
    for (size_t i = 0; i < 4; i++) {
        CHECK(id_of(own_second, second[i]) > 0);
        CHECK_INT(id_of(own_second, second[i]), id_of(whole, second[i]));
    }
    CHECK_INT(id_of(own_second, "rank1_only"), 4); /* after the first part's 3 */
    CHECK_INT(first_process(own_second), 3);       /* after the first part's 2 processes */

    /* a string the store holds under another id: refused, with why */
    store *other = new_store(path_in("other.db"));
    CHECK(store_intern(other, "shared", &err) == 1);
    CHECK_INT(store_names_take(other, bytes, size, 1, &err), -1);
    CHECK(strstr(err.message, "is another here") != NULL);

    /* damaged bytes: a string cut short, a length past the end */
    store *damaged = new_store(path_in("damaged.db"));
    CHECK_INT(store_names_take(damaged, bytes, size - 1, 1, &err), -1);
    CHECK(strstr(err.message, "cut short") != NULL);
    CHECK_INT(store_names_take(damaged, bytes, 5, 1, &err), -1);
    CHECK(strstr(err.message, "cut short") != NULL);
    free(bytes);

    store *all[] = {whole, own_first, own_second, other, damaged};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        store_close(all[i], NULL);
    static const char *const files[] = {"a.part",    "b.part",   "whole.db",  "first.db",
                                        "second.db", "other.db", "damaged.db"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char name[600];
        for (const char *suffix = ""; suffix; suffix = *suffix ? NULL : "-wal") {
            snprintf(name, sizeof name, "%s%s", path_in(files[i]), suffix);
            unlink(name);
        }
        snprintf(name, sizeof name, "%s-shm", path_in(files[i]));
        unlink(name);
    }
    rmdir(directory);
    return check_finish();
}
