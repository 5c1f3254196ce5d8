/* queries_whatif.h: the store's answers to the what-if replay (analyzer/whatif/): a process's
 * host calls that have a correlation id, its cudaStreamWaitEvent calls, the record of an event last
 * launched before a call, and an API name's text. Each reader holds one prepared statement, made
 * once and asked as often as the caller likes (a device's replay asks one per host call or wait),
 * and is freed with its _free (NULL is a no-op). On a read error a function returns -1 with err
 * filled "cannot read <what>: <SQLite's message>". */
#ifndef OVERLAPSCOPE_QUERIES_WHATIF_H
#define OVERLAPSCOPE_QUERIES_WHATIF_H

#include <sqlite3.h>
#include <stdint.h>

#include "error.h"

/* --- api_calls of one process with a correlation id, in the table's order --- */

struct store_correlated_call_row {
    int64_t thread_id, start_ns, end_ns, correlation_id;
    int64_t name_id; /* when has_name */
    int has_name;
};

typedef struct store_correlated_calls store_correlated_calls;

/* NULL with err filled when the query cannot be prepared or memory runs out. */
store_correlated_calls *store_correlated_calls_open(sqlite3 *db, int64_t process_id, error_info *err);
/* 1 with *row filled, 0 after the last row, -1 on a read error (err filled). */
int store_correlated_calls_next(store_correlated_calls *calls, struct store_correlated_call_row *row,
                                error_info *err);
void store_correlated_calls_free(store_correlated_calls *calls);

/* --- the text of a strings row (an API call's name) --- */

typedef struct store_string_reader store_string_reader;

store_string_reader *store_string_reader_open(sqlite3 *db, error_info *err);
/* 0 with *text the value of strings row id (NULL when there is no such row or it is NULL; valid
 * until the reader's next use), -1 on a read error (err filled). */
int store_string_reader_find(store_string_reader *reader, int64_t id, const char **text, error_info *err);
/* Ends the last find (its text is no longer valid): a reader holding a row keeps the trace's read
 * open, which a caller that keeps the reader between uses (a name cache) ends. */
void store_string_reader_release(store_string_reader *reader);
void store_string_reader_free(store_string_reader *reader);

/* --- cudaStreamWaitEvent calls of one process with a stream and a correlation id --- */

struct store_stream_wait_row {
    int64_t stream_id, correlation_id, event_id;
};

typedef struct store_stream_waits store_stream_waits;

store_stream_waits *store_stream_waits_open(sqlite3 *db, int64_t process_id, error_info *err);
/* 1 with *row filled, 0 after the last row, -1 on a read error (err filled). */
int store_stream_waits_next(store_stream_waits *waits, struct store_stream_wait_row *row, error_info *err);
void store_stream_waits_free(store_stream_waits *waits);

/* --- the record of an event (cuda_events) last launched before a call --- */

typedef struct store_event_records store_event_records;

store_event_records *store_event_records_open(sqlite3 *db, error_info *err);
/* The record of event_id in process_id with the largest correlation id below `before`: 1 with
 * *stream_id and *recorded (its correlation id) filled, 0 when there is none or its stream is not
 * known, -1 on a read error (err filled). */
int store_event_record_before(store_event_records *records, int64_t process_id, int64_t event_id,
                              int64_t before, int64_t *stream_id, int64_t *recorded, error_info *err);
void store_event_records_free(store_event_records *records);

#endif
