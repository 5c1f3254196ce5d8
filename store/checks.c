/* checks.c: what a reader trusts: the file is whole, is ours, its tables are real tables of the
 * columns its schema version has, its views are ours, and reading it is bounded in work (see
 * store.h's store_check_real_tables and store_work_limit_*). */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "host_tables.h"
#include "store_internal.h"
#include "store_sql.h"

/* The header records the database size in pages; a file shorter than that lost its tail. A
 * WAL file beside it may hold pages not yet in the main file, so the check is skipped then. */
int store_check_not_truncated(store *s, const char *path, error_info *err)
{
    char wal[4096];
    snprintf(wal, sizeof wal, "%s-wal", path);
    struct stat wal_info;
    if (stat(wal, &wal_info) == 0 && wal_info.st_size > 0)
        return 0;
    unsigned char header[100];
    FILE *file = fopen(path, "rb");
    if (!file)
        return error_set(err, "cannot open '%s': %s", path, strerror(errno));
    size_t got = fread(header, 1, sizeof header, file);
    fclose(file);
    if (got == 0)
        return error_set(err, "cannot open '%s': empty file, not an SQLite database", path);
    if (got < sizeof header)
        return error_set(err, "cannot open '%s': not an SQLite database (file too short)", path);
    if (memcmp(header, "SQLite format 3", 16) != 0)
        return error_set(err, "cannot open '%s': not an SQLite database", path);
    unsigned page_size = (unsigned)header[16] << 8 | header[17];
    if (page_size == 1)
        page_size = 65536;
    uint32_t page_count =
        (uint32_t)header[28] << 24 | (uint32_t)header[29] << 16 | (uint32_t)header[30] << 8 | header[31];
    struct stat info;
    if (stat(path, &info) != 0)
        return error_set(err, "cannot open '%s': %s", path, strerror(errno));
    if (page_count > 0 && (uint64_t)info.st_size < (uint64_t)page_count * page_size)
        return error_set(err, "cannot open '%s': database is truncated (%lld of %llu bytes)", path,
                         (long long)info.st_size, (unsigned long long)page_count * page_size);
    (void)s;
    return 0;
}

/* --- what a reader trusts --- */

#define STORE_WORK_TICK_STEPS 4096 /* SQLite virtual-machine steps between progress-handler calls */
/* The budget: 2^15 steps per KiB of file plus 2^24. The most any command needs on the golden
 * traces is about 500 steps per KiB (export; info and report 100 to 250), so a real trace has a
 * 60-fold margin, while a small hostile file is stopped within a second or two (a recursive view:
 * about 3e7 steps a second). */
#define STORE_WORK_STEPS_PER_KIB (INT64_C(1) << 15)
#define STORE_WORK_BASE_STEPS (INT64_C(1) << 24)

static int work_tick(void *context)
{
    struct store_work_limit *limit = context;
    /* Relaxed: the count alone matters, and every connection sharing it sees the budget end. */
    if (atomic_fetch_sub_explicit(&limit->ticks_left, 1, memory_order_relaxed) > 0)
        return 0;
    atomic_store(&limit->exceeded, 1);
    return 1; /* interrupts the statement (SQLITE_INTERRUPT), and every later one */
}

void store_work_limit_install(sqlite3 *db, struct store_work_limit *limit, int64_t file_bytes)
{
    int64_t kib = file_bytes > 0 ? file_bytes / 1024 + 1 : 1;
    if (kib > (INT64_C(1) << 30))
        kib = INT64_C(1) << 30; /* 1 TiB: keeps the product below 2^63 */
    limit->ticks_left = (kib * STORE_WORK_STEPS_PER_KIB + STORE_WORK_BASE_STEPS) / STORE_WORK_TICK_STEPS;
    limit->exceeded = 0;
    sqlite3_progress_handler(db, STORE_WORK_TICK_STEPS, work_tick, limit);
}

void store_work_limit_share(sqlite3 *db, struct store_work_limit *limit)
{
    sqlite3_progress_handler(db, STORE_WORK_TICK_STEPS, work_tick, limit);
}

int store_work_limit_error(const struct store_work_limit *limit, const char *path, error_info *err)
{
    if (!limit->exceeded)
        return 0;
    return error_set(
        err, "'%s' is damaged or hostile: reading it took more work than any trace of its size needs", path);
}

int store_work_exceeded(const store *trace, error_info *err)
{
    return trace ? store_work_limit_error(trace->limit, trace->path, err) : 0;
}

static int in_list(const char *name, const char *const *names)
{
    for (size_t i = 0; names[i]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

int store_check_real_tables(sqlite3 *db, const char *path, const char *const *tables, const char *what,
                            error_info *err)
{
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(db, "SELECT type, name, tbl_name, sql FROM main.sqlite_schema", -1, &query,
                           NULL) != SQLITE_OK)
        return error_set(err, "cannot open '%s': %s", path, sqlite3_errmsg(db));
    int status = 0, rc;
    while (status == 0 && (rc = sqlite3_step(query)) == SQLITE_ROW) {
        const char *type = (const char *)sqlite3_column_text(query, 0);
        const char *name = (const char *)sqlite3_column_text(query, 1);
        const char *table = (const char *)sqlite3_column_text(query, 2);
        const char *sql = (const char *)sqlite3_column_text(query, 3);
        if (!type || !name || !table)
            continue;
        /* Triggers only run on writes, but a file with one was not written by us or a profiler. */
        if (strcmp(type, "trigger") == 0)
            status = error_set(err, "cannot open '%s': damaged %s (a trigger on table '%.64s')", path, what,
                               table);
        else if (in_list(name, tables) && strcmp(type, "table") != 0)
            status = error_set(err, "cannot open '%s': damaged %s ('%.64s' is a %s, not a table)", path, what,
                               name, type);
        else if (in_list(name, tables) && sql && strncasecmp(sql, "CREATE VIRTUAL", 14) == 0)
            status =
                error_set(err, "cannot open '%s': damaged %s ('%.64s' is a virtual table)", path, what, name);
    }
    if (status == 0 && rc != SQLITE_DONE)
        status = error_set(err, "cannot open '%s': %s", path, sqlite3_errmsg(db));
    sqlite3_finalize(query);
    return status;
}

/* "name TYPE pk hidden" for each column of table in db, in order, or NULL when db has no such
 * table. Caller frees. */
static char *describe_columns(sqlite3 *db, const char *table)
{
    sqlite3_stmt *query = NULL;
    char *columns = NULL;
    if (sqlite3_prepare_v2(
            db,
            "SELECT group_concat(name || ' ' || upper(type) || ' ' || pk || ' ' || hidden, ',')"
            " FROM (SELECT * FROM pragma_table_xinfo(?1, 'main') ORDER BY cid)",
            -1, &query, NULL) == SQLITE_OK) {
        sqlite3_bind_text(query, 1, table, -1, SQLITE_STATIC);
        if (sqlite3_step(query) == SQLITE_ROW && sqlite3_column_text(query, 0))
            columns = strdup((const char *)sqlite3_column_text(query, 0));
    }
    sqlite3_finalize(query);
    return columns;
}

/* The tables and views of one schema version's DDL, and each one's columns, from a copy of the
 * schema built in memory: the reference a file's shape is compared with. */
struct schema_reference {
    sqlite3 *db;
    char *tables[33]; /* NULL-ended: the plain tables */
    char *names[41];  /* NULL-ended: the tables and the views, each of whose columns is compared */
    size_t table_count, name_count;
};

static void reference_free(struct schema_reference *reference)
{
    for (size_t i = 0; i < reference->name_count; i++)
        free(reference->names[i]);
    sqlite3_close(reference->db);
    *reference = (struct schema_reference){0};
}

/* ddl: store_schema_sql (the version written) or store_schema_v1_ddl (store/schema_v1.sql). */
static int reference_open(struct schema_reference *reference, const char *ddl)
{
    *reference = (struct schema_reference){0};
    sqlite3_stmt *objects = NULL;
    if (sqlite3_open_v2(":memory:", &reference->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
            SQLITE_OK ||
        sqlite3_exec(reference->db, ddl, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(reference->db,
                           "SELECT name, type = 'table' FROM sqlite_schema WHERE type IN ('table', 'view')"
                           " ORDER BY type = 'view', rowid",
                           -1, &objects, NULL) != SQLITE_OK) {
        reference_free(reference);
        return -1;
    }
    int status = 0;
    while (status == 0 && reference->name_count < 40 && sqlite3_step(objects) == SQLITE_ROW) {
        char *name = strdup((const char *)sqlite3_column_text(objects, 0));
        status = name ? 0 : -1;
        if (name) {
            reference->names[reference->name_count++] = name;
            if (sqlite3_column_int(objects, 1) && reference->table_count < 32)
                reference->tables[reference->table_count++] = name;
        }
    }
    sqlite3_finalize(objects);
    if (status != 0)
        reference_free(reference);
    return status;
}

/* Tables added within a schema version that older traces of it lack: render_overview (a cache;
 * its readers take its absence as "no overview"), call_sources (no call has a known source),
 * threads (version 2: no thread has a known name), framework_calls (version 3: no wrapper was timed),
 * process_origins (version 3: the legacy reading of store/origins.h serves), and version 3's host tables (a
 * version 1 or 2 trace: not sampled, no environment kept). */
static int optional_table(const char *name, int schema_version)
{
    if (schema_version < 3 && store_is_host_table(name))
        return 1; /* version 3's host tables: a version 2 trace is version 3 without them */
    return strcmp(name, "render_overview") == 0 || strcmp(name, "call_sources") == 0 ||
           strcmp(name, "threads") == 0 || strcmp(name, "process_origins") == 0 ||
           strcmp(name, "framework_calls") == 0;
}

/* Every table and view of the reference present with its columns in order (optional_table ones
 * may be absent). Indexes are not compared: they have changed within a version, and one of
 * another shape only changes how fast a reader goes (the work limit bounds that). */
static int check_columns(store *s, const struct schema_reference *reference, error_info *err)
{
    int status = 0;
    for (size_t i = 0; status == 0 && i < reference->name_count; i++) {
        const char *name = reference->names[i];
        char *expected = describe_columns(reference->db, name), *found = describe_columns(s->db, name);
        if (!expected)
            status = error_set(err, "cannot open '%s': out of memory", s->path);
        else if (!found && optional_table(name, s->schema_version))
            status = 0;
        else if (!found)
            status =
                error_set(err, "cannot open '%s': damaged overlapscope trace (no %s table)", s->path, name);
        else if (strcmp(found, expected) != 0)
            status = error_set(err,
                               "cannot open '%s': damaged overlapscope trace (table %s has other columns than"
                               " this overlapscope reads)",
                               s->path, name);
        free(expected);
        free(found);
    }
    return status;
}

/* The file's views are the current schema's, word for word (a view runs whatever its text says:
 * one of ours over tables checked by check_columns reads what ours reads). Before the first read
 * of the file's tables, like store_check_real_tables. */
static int check_views(store *s, const struct schema_reference *current, error_info *err)
{
    sqlite3_stmt *views = NULL, *expected = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT name, sql FROM main.sqlite_schema WHERE type = 'view'", -1, &views,
                           NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(current->db, "SELECT sql FROM sqlite_schema WHERE type = 'view' AND name = ?1", -1,
                           &expected, NULL) != SQLITE_OK) {
        sqlite3_finalize(views);
        return error_set(err, "cannot open '%s': %s", s->path, sqlite3_errmsg(s->db));
    }
    int status = 0, rc;
    while (status == 0 && (rc = sqlite3_step(views)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(views, 0);
        const char *sql = (const char *)sqlite3_column_text(views, 1);
        sqlite3_bind_text(expected, 1, name ? name : "", -1, SQLITE_TRANSIENT);
        int known = sqlite3_step(expected) == SQLITE_ROW && sql && sqlite3_column_text(expected, 0) &&
                    strcmp(sql, (const char *)sqlite3_column_text(expected, 0)) == 0;
        sqlite3_reset(expected);
        if (!known)
            status =
                error_set(err, "cannot open '%s': damaged overlapscope trace (a view '%.64s' of its own)",
                          s->path, name ? name : "");
    }
    if (status == 0 && rc != SQLITE_DONE)
        status = error_set(err, "cannot open '%s': %s", s->path, sqlite3_errmsg(s->db));
    sqlite3_finalize(views);
    sqlite3_finalize(expected);
    return status;
}

/* The schema version as meta holds it: exactly a decimal number that fits an int, else -1. */
static int parse_schema_version(const char *text)
{
    if (!text || !*text || strlen(text) > 9)
        return -1;
    int value = 0;
    for (const char *c = text; *c; c++) {
        if (*c < '0' || *c > '9')
            return -1;
        value = value * 10 + (*c - '0');
    }
    return value;
}

static int pragma_int(sqlite3 *db, const char *sql, int *value)
{
    sqlite3_stmt *query = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &query, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(query);
        if (rc == SQLITE_ROW)
            *value = sqlite3_column_int(query, 0);
    }
    sqlite3_finalize(query);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : rc ? rc : sqlite3_extended_errcode(db);
}

/* Reads the file's identity and schema (application id, user_version, meta's schema_version, the
 * tables and views against the reference DDL of its version), setting s->schema_version. */
int store_check_shape(store *s, error_info *err)
{
    const char *path = s->path;
    struct schema_reference reference = {0};
    if (reference_open(&reference, store_schema_sql) != 0) {
        error_set(err, "cannot open '%s': out of memory", path);
        goto fail;
    }
    sqlite3_stmt *query = NULL;
    int application_id = 0, user_version = 0;
    int rc = pragma_int(s->db, "PRAGMA application_id", &application_id);
    if (rc == 0)
        rc = pragma_int(s->db, "PRAGMA user_version", &user_version);
    if (rc != 0) {
        int primary = rc & 0xff;
        if (primary == SQLITE_NOTADB)
            error_set(err, "cannot open '%s': not an SQLite database", path);
        else if (primary == SQLITE_CORRUPT)
            error_set(err, "cannot open '%s': database is corrupt", path);
        else if (primary == SQLITE_BUSY)
            /* A live writer holds the lock: nothing to repair, only to wait for (issue 33). */
            error_set(err,
                      "cannot open '%s': another process is writing it now (the file is locked); run again"
                      " once that writer has finished",
                      path);
        else if (primary == SQLITE_READONLY || primary == SQLITE_CANTOPEN)
            /* A hot journal (or WAL) left by a killed writer must be rolled back before anyone reads. */
            error_set(
                err,
                "cannot open '%s': it holds an unfinished write (a journal or WAL beside it) that cannot"
                " be recovered read-only; open it once where it is writable",
                path);
        else
            error_set(err, "cannot open '%s': %s", path, sqlite3_errmsg(s->db));
        goto fail;
    }
    /* Traces before application_id and user_version were set carry 0 in both. */
    if (application_id != 0 && application_id != STORE_APPLICATION_ID) {
        error_set(err, "cannot open '%s': not an overlapscope trace (application id 0x%08x)", path,
                  (unsigned)application_id);
        goto fail;
    }
    /* Before the first read of a table (meta, next): a view in its place could run forever. */
    if (store_check_real_tables(s->db, path, (const char *const *)reference.tables, "overlapscope trace",
                                err) != 0 ||
        check_views(s, &reference, err) != 0)
        goto fail;
    char *version = NULL;
    rc = sqlite3_prepare_v2(s->db, "SELECT value FROM meta WHERE key = 'schema_version'", -1, &query, NULL);
    if (rc != SQLITE_OK) {
        int primary = sqlite3_extended_errcode(s->db) & 0xff;
        if (primary == SQLITE_CORRUPT)
            error_set(err, "cannot open '%s': database is corrupt", path);
        else if (application_id == STORE_APPLICATION_ID)
            error_set(err, "cannot open '%s': damaged overlapscope trace (no meta table)", path);
        else
            error_set(err, "cannot open '%s': not an overlapscope trace (no meta table)", path);
        goto fail;
    }
    rc = sqlite3_step(query);
    if (rc == SQLITE_ROW && sqlite3_column_text(query, 0))
        version = strdup((const char *)sqlite3_column_text(query, 0));
    sqlite3_finalize(query);
    if ((rc & 0xff) == SQLITE_CORRUPT) {
        error_set(err, "cannot open '%s': database is corrupt", path);
        goto fail;
    }
    if (!version) {
        error_set(err, "cannot open '%s': not an overlapscope trace (no schema_version in meta)", path);
        goto fail;
    }
    int schema_version = parse_schema_version(version);
    if (schema_version < 0) {
        for (char *c = version; *c; c++)
            *c = *c >= ' ' && *c <= '~' ? *c : '?'; /* said, not sent to the terminal */
        error_set(err,
                  "cannot open '%s': damaged overlapscope trace (schema version '%.32s' is not a number)",
                  path, version);
        free(version);
        goto fail;
    }
    free(version);
    if (schema_version < STORE_OLDEST_SCHEMA_VERSION || schema_version > STORE_SCHEMA_VERSION) {
        error_set(err, "cannot open '%s': trace schema version %d, this overlapscope reads versions %d to %d",
                  path, schema_version, STORE_OLDEST_SCHEMA_VERSION, STORE_SCHEMA_VERSION);
        goto fail;
    }
    if (user_version != 0 && user_version != schema_version) {
        error_set(err, "cannot open '%s': damaged overlapscope trace (schema version %d but user_version %d)",
                  path, schema_version, user_version);
        goto fail;
    }
    s->schema_version = schema_version;
    /* A version 1 trace: its own tables, under the names that are views in version 2. */
    if (schema_version == 1) {
        reference_free(&reference);
        if (reference_open(&reference, store_schema_v1_ddl) != 0) {
            error_set(err, "cannot open '%s': out of memory", path);
            goto fail;
        }
        if (store_check_real_tables(s->db, path, (const char *const *)reference.tables, "overlapscope trace",
                                    err) != 0)
            goto fail;
    }
    if (check_columns(s, &reference, err) != 0)
        goto fail;
    reference_free(&reference);
    return 0;
fail:
    reference_free(&reference);
    return -1;
}

int store_verify(store *s, error_info *err)
{
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(s->db, "PRAGMA quick_check(1)", -1, &query, NULL) != SQLITE_OK)
        return error_set(err, "'%s' is damaged: %s", s->path, sqlite3_errmsg(s->db));
    int rc = sqlite3_step(query);
    const char *answer = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(query, 0) : NULL;
    int sound = answer && strcmp(answer, "ok") == 0;
    if (!sound) {
        /* SQLite prefixes its first finding with a "*** in database main ***" line: keep one line. */
        const char *finding = answer ? answer : sqlite3_errmsg(s->db);
        const char *line = strrchr(finding, '\n');
        error_set(err, "'%s' is damaged: %s", s->path, line ? line + 1 : finding);
    }
    sqlite3_finalize(query);
    return sound ? 0 : -1;
}

/* Tables and views alike: nsys exports name some of what they hold views, and a trace of ours has
 * no view under an optional table's name (check_views refuses it before anyone asks). */
int store_schema_has_table(sqlite3 *db, const char *schema, const char *table)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT 1 FROM %s.sqlite_master WHERE type IN ('table', 'view') AND name = ?1",
             schema);
    sqlite3_stmt *query = NULL;
    int found = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &query, NULL) == SQLITE_OK) {
        sqlite3_bind_text(query, 1, table, -1, SQLITE_STATIC);
        found = sqlite3_step(query) == SQLITE_ROW;
    }
    sqlite3_finalize(query);
    return found;
}

int store_db_has_table(sqlite3 *db, const char *table)
{
    return store_schema_has_table(db, "main", table);
}

int store_db_has_column(sqlite3 *db, const char *table, const char *column)
{
    sqlite3_stmt *query = NULL;
    int found = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &query, NULL) ==
        SQLITE_OK) {
        sqlite3_bind_text(query, 1, table, -1, SQLITE_STATIC);
        sqlite3_bind_text(query, 2, column, -1, SQLITE_STATIC);
        found = sqlite3_step(query) == SQLITE_ROW;
    }
    sqlite3_finalize(query);
    return found;
}
