/* queries_whatif.c: the what-if replay's questions to the store (queries_whatif.h). Each reader is
 * a prepared statement and the connection it reports errors from. */
#include "queries_whatif.h"

#include <stdlib.h>

/* One prepared statement and its connection: every reader of this file. */
struct reader {
    sqlite3 *db;
    sqlite3_stmt *statement;
};

/* A reader of sql, NULL with err filled ("cannot read <what>: ...") when it cannot be prepared. */
static struct reader *reader_open(sqlite3 *db, const char *sql, const char *what, error_info *err)
{
    struct reader *reader = calloc(1, sizeof *reader);
    if (!reader) {
        error_set(err, "out of memory");
        return NULL;
    }
    reader->db = db;
    if (sqlite3_prepare_v2(db, sql, -1, &reader->statement, NULL) != SQLITE_OK) {
        error_set(err, "cannot read %s: %s", what, sqlite3_errmsg(db));
        sqlite3_finalize(reader->statement);
        free(reader);
        return NULL;
    }
    return reader;
}

/* reader_open of a query of one process (?1). */
static struct reader *reader_of_process(sqlite3 *db, const char *sql, const char *what, int64_t process_id,
                                        error_info *err)
{
    struct reader *reader = reader_open(db, sql, what, err);
    if (reader)
        sqlite3_bind_int64(reader->statement, 1, process_id);
    return reader;
}

/* sqlite3_step: 1 a row, 0 done, -1 with err filled. */
static int reader_step(struct reader *reader, const char *what, error_info *err)
{
    int step = sqlite3_step(reader->statement);
    if (step == SQLITE_ROW)
        return 1;
    if (step == SQLITE_DONE)
        return 0;
    return error_set(err, "cannot read %s: %s", what, sqlite3_errmsg(reader->db));
}

static void reader_free(struct reader *reader)
{
    if (!reader)
        return;
    sqlite3_finalize(reader->statement);
    free(reader);
}

struct store_correlated_calls {
    struct reader reader;
};

store_correlated_calls *store_correlated_calls_open(sqlite3 *db, int64_t process_id, error_info *err)
{
    return (store_correlated_calls *)reader_of_process(
        db,
        "SELECT thread_id, start_ns, end_ns, correlation_id, name_id FROM api_calls"
        " WHERE process_id = ?1 AND correlation_id IS NOT NULL",
        "host calls", process_id, err);
}

int store_correlated_calls_next(store_correlated_calls *calls, struct store_correlated_call_row *row,
                                error_info *err)
{
    sqlite3_stmt *query = calls->reader.statement;
    int got = reader_step(&calls->reader, "host calls", err);
    if (got == 1)
        *row = (struct store_correlated_call_row){.thread_id = sqlite3_column_int64(query, 0),
                                                  .start_ns = sqlite3_column_int64(query, 1),
                                                  .end_ns = sqlite3_column_int64(query, 2),
                                                  .correlation_id = sqlite3_column_int64(query, 3),
                                                  .name_id = sqlite3_column_int64(query, 4),
                                                  .has_name = sqlite3_column_type(query, 4) != SQLITE_NULL};
    return got;
}

void store_correlated_calls_free(store_correlated_calls *calls)
{
    reader_free((struct reader *)calls);
}

struct store_string_reader {
    struct reader reader;
};

store_string_reader *store_string_reader_open(sqlite3 *db, error_info *err)
{
    return (store_string_reader *)reader_open(db, "SELECT value FROM strings WHERE id = ?1", "strings", err);
}

int store_string_reader_find(store_string_reader *reader, int64_t id, const char **text, error_info *err)
{
    sqlite3_stmt *lookup = reader->reader.statement;
    sqlite3_reset(lookup);
    sqlite3_bind_int64(lookup, 1, id);
    int got = reader_step(&reader->reader, "strings", err);
    if (got < 0)
        return -1;
    *text = got == 1 ? (const char *)sqlite3_column_text(lookup, 0) : NULL;
    return 0;
}

void store_string_reader_release(store_string_reader *reader)
{
    sqlite3_reset(reader->reader.statement);
}

void store_string_reader_free(store_string_reader *reader)
{
    reader_free((struct reader *)reader);
}

struct store_stream_waits {
    struct reader reader;
};

store_stream_waits *store_stream_waits_open(sqlite3 *db, int64_t process_id, error_info *err)
{
    return (store_stream_waits *)reader_of_process(
        db,
        "SELECT stream_id, correlation_id, event_id FROM synchronizations WHERE"
        " process_id = ?1 AND sync_type = 2 AND stream_id IS NOT NULL AND correlation_id IS NOT NULL",
        "event dependencies", process_id, err);
}

int store_stream_waits_next(store_stream_waits *waits, struct store_stream_wait_row *row, error_info *err)
{
    sqlite3_stmt *query = waits->reader.statement;
    int got = reader_step(&waits->reader, "event dependencies", err);
    if (got == 1)
        *row = (struct store_stream_wait_row){sqlite3_column_int64(query, 0), sqlite3_column_int64(query, 1),
                                              sqlite3_column_int64(query, 2)};
    return got;
}

void store_stream_waits_free(store_stream_waits *waits)
{
    reader_free((struct reader *)waits);
}

struct store_event_records {
    struct reader reader;
};

store_event_records *store_event_records_open(sqlite3 *db, error_info *err)
{
    return (store_event_records *)reader_open(
        db,
        "SELECT stream_id, correlation_id FROM cuda_events WHERE process_id = ?1 AND"
        " event_id = ?2 AND correlation_id < ?3 ORDER BY correlation_id DESC LIMIT 1",
        "event records", err);
}

int store_event_record_before(store_event_records *records, int64_t process_id, int64_t event_id,
                              int64_t before, int64_t *stream_id, int64_t *recorded, error_info *err)
{
    sqlite3_stmt *record = records->reader.statement;
    sqlite3_reset(record);
    sqlite3_bind_int64(record, 1, process_id);
    sqlite3_bind_int64(record, 2, event_id);
    sqlite3_bind_int64(record, 3, before);
    int got = reader_step(&records->reader, "event records", err);
    if (got == 1 && sqlite3_column_type(record, 0) != SQLITE_NULL) {
        *stream_id = sqlite3_column_int64(record, 0);
        *recorded = sqlite3_column_int64(record, 1);
        return 1;
    }
    return got < 0 ? -1 : 0;
}

void store_event_records_free(store_event_records *records)
{
    reader_free((struct reader *)records);
}
