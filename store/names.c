/* names.c: the strings of an import shared among processes (names.h), as bytes between them. */
#include <stdlib.h>
#include <string.h>

#include "append_internal.h"
#include "names.h"

/* The bytes being written; grown by doubling. */
struct name_bytes {
    unsigned char *bytes;
    size_t size, capacity;
};

static int put(struct name_bytes *out, const void *data, size_t size)
{
    if (out->capacity - out->size < size) {
        size_t capacity = out->capacity ? out->capacity : 4096;
        while (capacity - out->size < size)
            capacity *= 2;
        unsigned char *grown = realloc(out->bytes, capacity);
        if (!grown)
            return -1;
        out->bytes = grown;
        out->capacity = capacity;
    }
    memcpy(out->bytes + out->size, data, size);
    out->size += size;
    return 0;
}

static void put_le(unsigned char *at, uint64_t value, size_t size)
{
    for (size_t i = 0; i < size; i++)
        at[i] = (unsigned char)(value >> (8 * i));
}

static uint64_t get_le(const unsigned char *at, size_t size)
{
    uint64_t value = 0;
    for (size_t i = 0; i < size; i++)
        value |= (uint64_t)at[i] << (8 * i);
    return value;
}

int store_names_give(store *trace, unsigned char **bytes, size_t *size, error_info *err)
{
    *bytes = NULL;
    *size = 0;
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(trace->db, "SELECT id, value FROM strings ORDER BY id", -1, &query, NULL) !=
        SQLITE_OK)
        return store_sql_error(trace, err, "read the strings");
    struct name_bytes out = {0};
    int rc, status = 0;
    while (status == 0 && (rc = sqlite3_step(query)) == SQLITE_ROW) {
        unsigned char head[12];
        const void *text = sqlite3_column_text(query, 1);
        size_t length = (size_t)sqlite3_column_bytes(query, 1);
        put_le(head, (uint64_t)sqlite3_column_int64(query, 0), 8);
        put_le(head + 8, length, 4);
        if (put(&out, head, sizeof head) != 0 || put(&out, text ? text : "", length) != 0)
            status = error_set(err, "out of memory");
    }
    if (status == 0 && rc != SQLITE_DONE)
        status = store_sql_error(trace, err, "read the strings");
    sqlite3_finalize(query);
    if (status != 0) {
        free(out.bytes);
        return -1;
    }
    *bytes = out.bytes;
    *size = out.size;
    return 0;
}

int store_names_take(store *trace, const unsigned char *bytes, size_t size, int64_t next_process_id,
                     error_info *err)
{
    sqlite3_stmt *add = NULL, *find = NULL;
    if (sqlite3_prepare_v2(trace->db, "INSERT OR IGNORE INTO strings (id, value) VALUES (?1, ?2)", -1, &add,
                           NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(trace->db, "SELECT value = ?2 FROM strings WHERE id = ?1", -1, &find, NULL) !=
            SQLITE_OK) {
        sqlite3_finalize(add);
        return store_sql_error(trace, err, "add the strings");
    }
    int status = 0;
    for (size_t at = 0; status == 0 && at < size;) {
        if (size - at < 12) {
            status = error_set(err, "the strings received are cut short");
            break;
        }
        int64_t id = (int64_t)get_le(bytes + at, 8);
        uint64_t length = get_le(bytes + at + 8, 4);
        at += 12;
        if (length > size - at) {
            status = error_set(err, "the strings received are cut short");
            break;
        }
        for (sqlite3_stmt *statement = add; statement; statement = statement == add ? find : NULL) {
            sqlite3_bind_int64(statement, 1, id);
            sqlite3_bind_text(statement, 2, (const char *)bytes + at, (int)length, SQLITE_STATIC);
        }
        if (sqlite3_step(add) != SQLITE_DONE)
            status = store_sql_error(trace, err, "add the strings");
        else if (sqlite3_step(find) != SQLITE_ROW || sqlite3_column_int(find, 0) != 1)
            status = error_set(err,
                               "string %lld is another here: the processes did not import one folder's "
                               "files in order",
                               (long long)id);
        sqlite3_reset(add);
        sqlite3_reset(find);
        at += length;
    }
    sqlite3_finalize(add);
    sqlite3_finalize(find);
    if (status == 0 && next_process_id > trace->next_process_id)
        trace->next_process_id = next_process_id;
    return status;
}

int store_names_append(store *trace, const char *part_path, int64_t *processes, error_info *err)
{
    if (store_append_attach(trace, part_path, err) != 0)
        return -1;
    int status = store_exec_sql(trace, STORE_APPEND_COPY_STRINGS, err, "copy strings");
    int64_t count = store_single_int64(trace, "SELECT COUNT(*) FROM src.processes", -1);
    if (status == 0 && count < 0)
        status = error_set(err, "cannot count the processes of '%s'", part_path);
    if (status == 0)
        *processes += count;
    sqlite3_exec(trace->db, "DETACH DATABASE src", NULL, NULL, NULL);
    return status;
}
