/* origins.c: see origins.h. */
#include "origins.h"

#include <string.h>

int store_insert_process_origin(store *s, int64_t process_id, const char *format, const char *tool,
                                const char *version, error_info *err)
{
    sqlite3 *db = store_db(s);
    sqlite3_stmt *insert = NULL;
    int rc = sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO process_origins VALUES (?1, ?2, ?3, ?4)", -1,
                                &insert, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(insert, 1, process_id);
        sqlite3_bind_text(insert, 2, format, -1, SQLITE_STATIC);
        sqlite3_bind_text(insert, 3, tool, -1, SQLITE_STATIC);
        if (version)
            sqlite3_bind_text(insert, 4, version, -1, SQLITE_STATIC);
        rc = sqlite3_step(insert);
    }
    sqlite3_finalize(insert);
    if (rc != SQLITE_DONE)
        return error_set(err, "cannot write the origin of process %lld: %s", (long long)process_id,
                         sqlite3_errmsg(db));
    return 0;
}

/* The text column 0 of sql's first row (?1: process_id) into buffer ("" when none). */
static void read_text(sqlite3 *db, const char *sql, int64_t process_id, char *buffer, size_t size)
{
    buffer[0] = '\0';
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &query, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(query, 1, process_id);
        const char *text =
            sqlite3_step(query) == SQLITE_ROW ? (const char *)sqlite3_column_text(query, 0) : NULL;
        if (text) {
            size_t length = strnlen(text, size - 1);
            memcpy(buffer, text, length);
            buffer[length] = '\0';
        }
    }
    sqlite3_finalize(query);
}

enum store_origin store_process_origin(sqlite3 *db, int64_t process_id)
{
    char text[4096];
    if (store_db_has_table(db, "process_origins")) {
        read_text(db, "SELECT format FROM process_origins WHERE process_id = ?1", process_id, text,
                  sizeof text);
        if (strcmp(text, STORE_FORMAT_RECORD) == 0)
            return STORE_ORIGIN_RECORD;
        if (strcmp(text, STORE_FORMAT_KINETO) == 0)
            return STORE_ORIGIN_KINETO;
        if (strcmp(text, STORE_FORMAT_NSYS) == 0)
            return STORE_ORIGIN_NSYS;
    }
    /* The legacy reading: traces written before process_origins said it by their file names. */
    read_text(db, "SELECT source_file FROM processes WHERE process_id = ?1", process_id, text, sizeof text);
    if (strstr(text, ".json"))
        return STORE_ORIGIN_KINETO;
    if (strstr(text, ".sqlite") || strstr(text, ".nsys-rep") || strstr(text, ".qdrep"))
        return STORE_ORIGIN_NSYS;
    return STORE_ORIGIN_RECORD;
}
