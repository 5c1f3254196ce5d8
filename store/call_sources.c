/* call_sources.c: see call_sources.h. */
#include "call_sources.h"

#include <stdlib.h>

#include "cuda_api.h"

struct store_frames {
    store *s;
    sqlite3_stmt *insert;
    int64_t frame_count;
    /* The last API call written before the process's first (store_frames_new comes before the
     * process's calls): derive reads the calls after it, not the whole table (no index on the
     * process while a trace is written), which each file of a folder read one after the other
     * scanned again, every earlier file's calls included. */
    int64_t calls_before;
};

static int failed(store *s, error_info *err, const char *what)
{
    return error_set(err, "%s: cannot %s: %s", store_path(s), what, sqlite3_errmsg(store_db(s)));
}

int store_insert_call_source(store *s, int64_t process_id, int64_t correlation_id, int64_t kind,
                             const char *source, error_info *err)
{
    int64_t source_id = store_intern(s, source, err);
    if (source_id == 0)
        return -1;
    sqlite3_stmt *insert = NULL;
    if (sqlite3_prepare_v2(store_db(s), "INSERT INTO call_sources VALUES (?1, ?2, ?3, ?4)", -1, &insert,
                           NULL) != SQLITE_OK)
        return failed(s, err, "write a call source");
    sqlite3_bind_int64(insert, 1, process_id);
    sqlite3_bind_int64(insert, 2, correlation_id);
    sqlite3_bind_int64(insert, 3, kind);
    sqlite3_bind_int64(insert, 4, source_id);
    int status = sqlite3_step(insert) == SQLITE_DONE ? 0 : failed(s, err, "write a call source");
    sqlite3_finalize(insert);
    return status;
}

store_frames *store_frames_new(store *s, error_info *err)
{
    store_frames *frames = calloc(1, sizeof *frames);
    if (!frames) {
        error_set(err, "out of memory");
        return NULL;
    }
    frames->s = s;
    /* A call queued and not yet written gets a rowid above this one when it is. */
    sqlite3_stmt *last = NULL;
    if (sqlite3_prepare_v2(store_db(s), "SELECT MAX(rowid) FROM api_call_runs", -1, &last, NULL) ==
            SQLITE_OK &&
        sqlite3_step(last) == SQLITE_ROW)
        frames->calls_before = sqlite3_column_int64(last, 0);
    sqlite3_finalize(last);
    if (sqlite3_exec(store_db(s),
                     "DROP TABLE IF EXISTS temp.host_frames;"
                     "CREATE TEMP TABLE host_frames (thread_id INTEGER, start_ns INTEGER, end_ns INTEGER,"
                     " kind INTEGER, name TEXT);",
                     NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(store_db(s), "INSERT INTO temp.host_frames VALUES (?1, ?2, ?3, ?4, ?5)", -1,
                           &frames->insert, NULL) != SQLITE_OK) {
        failed(s, err, "collect host frames");
        store_frames_free(frames);
        return NULL;
    }
    return frames;
}

int store_frames_add(store_frames *frames, const struct store_host_frame *frame, error_info *err)
{
    sqlite3_stmt *insert = frames->insert;
    sqlite3_bind_int64(insert, 1, frame->thread_id);
    sqlite3_bind_int64(insert, 2, frame->start_ns);
    sqlite3_bind_int64(insert, 3, frame->end_ns);
    sqlite3_bind_int64(insert, 4, frame->kind);
    sqlite3_bind_text(insert, 5, frame->name, -1, SQLITE_TRANSIENT);
    int status = sqlite3_step(insert) == SQLITE_DONE ? 0 : failed(frames->s, err, "collect a host frame");
    sqlite3_reset(insert);
    frames->frame_count++;
    return status;
}

/* The innermost range of a kind enclosing each call (the latest to start among those that enclose
 * it), Python frames first: a user's line says more than the operator it called. One pass that
 * prefers the Python frame: a second pass for operators, skipping calls the first had given a
 * source, looked each call up in call_sources, which has no index while a trace is written; 20,000
 * calls in one profiler step took 12 s, 100,000 about five minutes. */
#define ENCLOSING_FRAME(kind)                                                                                \
    "(SELECT g.rowid FROM temp.host_frames g WHERE g.kind = " kind " AND g.thread_id = a.thread_id"          \
    " AND g.start_ns <= a.start_ns AND g.end_ns >= a.end_ns ORDER BY g.start_ns DESC LIMIT 1)"
#define PYTHON_ELSE_OPERATOR "COALESCE(" ENCLOSING_FRAME("?2") ", " ENCLOSING_FRAME("?3") ")"
static const char *const derive_sql =
    "INSERT INTO call_sources (process_id, correlation_id, kind, source_id)"
    " SELECT a.process_id, a.correlation_id, f.kind, s.id FROM api_calls a"
    " JOIN temp.host_frames f ON f.rowid = " PYTHON_ELSE_OPERATOR " JOIN strings s ON s.value = f.name"
    " WHERE a.rowid > ?4 AND a.process_id = ?1 AND a.correlation_id IS NOT NULL";

/* The innermost Python frame (the user's or a library's) enclosing call a. */
#define INNERMOST_PYTHON                                                                                     \
    "(SELECT g.rowid FROM temp.host_frames g WHERE g.kind IN (?2, ?3) AND g.thread_id = a.thread_id"         \
    " AND g.start_ns <= a.start_ns AND g.end_ns >= a.end_ns ORDER BY g.start_ns DESC LIMIT 1)"
static const char *const wrapper_frames_sql =
    "INSERT INTO temp.wrapper_frames SELECT DISTINCT f.rowid FROM api_calls a"
    " JOIN strings n ON n.id = a.name_id JOIN temp.host_frames f ON f.rowid = " INNERMOST_PYTHON
    " WHERE a.rowid > ?4 AND a.process_id = ?1 AND f.kind = ?3 AND overlapscope_blocks_host(n.value)";
static const char *const wrapper_names_sql =
    "INSERT OR IGNORE INTO strings (value) SELECT DISTINCT f.name FROM temp.wrapper_frames w"
    " JOIN temp.host_frames f ON f.rowid = w.frame";
static const char *const wrappers_sql =
    "INSERT INTO framework_calls (process_id, thread_id, start_ns, end_ns, function_id)"
    " SELECT ?1, f.thread_id, f.start_ns, f.end_ns, s.id FROM temp.wrapper_frames w"
    " JOIN temp.host_frames f ON f.rowid = w.frame JOIN strings s ON s.value = f.name"
    " ORDER BY f.thread_id, f.start_ns";

static void blocks_host(sqlite3_context *context, int count, sqlite3_value **values)
{
    const unsigned char *name = count == 1 ? sqlite3_value_text(values[0]) : NULL;
    sqlite3_result_int(context, name && cuda_api_blocks_host((const char *)name));
}

/* Runs sql (its parameters: ?1 the process, ?2 and ?3 the frame kinds, ?4 the first call's rowid
 * bound, where it has them) to its end. Returns 0 or -1. */
static int run_bound(sqlite3 *db, const char *sql, const store_frames *frames, int64_t process_id)
{
    sqlite3_stmt *statement = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &statement, NULL) != SQLITE_OK)
        return -1;
    int parameters = sqlite3_bind_parameter_count(statement);
    if (parameters >= 1)
        sqlite3_bind_int64(statement, 1, process_id);
    if (parameters >= 3) {
        sqlite3_bind_int64(statement, 2, STORE_SOURCE_PYTHON);
        sqlite3_bind_int64(statement, 3, STORE_FRAME_LIBRARY);
    }
    if (parameters >= 4)
        sqlite3_bind_int64(statement, 4, frames->calls_before);
    int status = sqlite3_step(statement) == SQLITE_DONE ? 0 : -1;
    sqlite3_finalize(statement);
    return status;
}

/* framework_calls from the library frames: the frames first, then their names interned (only
 * theirs: a trace's strings are what its rows name), then the rows. The table is absent in traces
 * of an older schema: then nothing is written. */
static int derive_wrappers(store_frames *frames, int64_t process_id, error_info *err)
{
    sqlite3 *db = store_db(frames->s);
    if (!store_db_has_table(db, "framework_calls"))
        return 0;
    int status =
        sqlite3_create_function(db, "overlapscope_blocks_host", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                                blocks_host, NULL, NULL) == SQLITE_OK &&
                sqlite3_exec(db,
                             "DROP TABLE IF EXISTS temp.wrapper_frames;"
                             " CREATE TEMP TABLE wrapper_frames (frame INTEGER)",
                             NULL, NULL, NULL) == SQLITE_OK &&
                run_bound(db, wrapper_frames_sql, frames, process_id) == 0 &&
                run_bound(db, wrapper_names_sql, frames, process_id) == 0 &&
                run_bound(db, wrappers_sql, frames, process_id) == 0
            ? 0
            : failed(frames->s, err, "find the wrappers of blocking calls");
    sqlite3_exec(db, "DROP TABLE IF EXISTS temp.wrapper_frames", NULL, NULL, NULL);
    return status;
}

int store_frames_derive(store_frames *frames, int64_t process_id, error_info *err)
{
    if (frames->frame_count == 0)
        return 0; /* no call has a frame to come from */
    sqlite3 *db = store_db(frames->s);
    /* the sources' names: a library frame's is interned only where it is a wrapper (derive_wrappers) */
    char *prepare =
        sqlite3_mprintf("CREATE INDEX IF NOT EXISTS temp.host_frames_by_thread ON host_frames (kind,"
                        " thread_id, start_ns);"
                        "INSERT OR IGNORE INTO strings (value) SELECT DISTINCT name FROM"
                        " temp.host_frames WHERE kind <> %d;",
                        (int)STORE_FRAME_LIBRARY);
    int prepared = prepare && sqlite3_exec(db, prepare, NULL, NULL, NULL) == SQLITE_OK;
    sqlite3_free(prepare);
    if (!prepared)
        return failed(frames->s, err, "index host frames");
    sqlite3_stmt *derive = NULL;
    if (sqlite3_prepare_v2(db, derive_sql, -1, &derive, NULL) != SQLITE_OK)
        return failed(frames->s, err, "find call sources");
    sqlite3_bind_int64(derive, 1, process_id);
    sqlite3_bind_int64(derive, 2, STORE_SOURCE_PYTHON);
    sqlite3_bind_int64(derive, 3, STORE_SOURCE_CPU_OP);
    sqlite3_bind_int64(derive, 4, frames->calls_before);
    int status = sqlite3_step(derive) == SQLITE_DONE ? 0 : failed(frames->s, err, "find call sources");
    sqlite3_finalize(derive);
    return status == 0 ? derive_wrappers(frames, process_id, err) : -1;
}

void store_frames_free(store_frames *frames)
{
    if (!frames)
        return;
    sqlite3_finalize(frames->insert);
    sqlite3_exec(store_db(frames->s), "DROP TABLE IF EXISTS temp.host_frames", NULL, NULL, NULL);
    free(frames);
}
