/* nsys.c: Nsight Systems SQLite exports into the store (see nsys.h): which file is an export, and
 * the order in which the parts (nsys_parts.h) read one. */
#include "nsys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nsys_parts.h"

int nsys_is_export(sqlite3 *db)
{
    static const char *const activity_tables[] = {"CUPTI_ACTIVITY_KIND_KERNEL",
                                                  "CUPTI_ACTIVITY_KIND_MEMCPY",
                                                  "CUPTI_ACTIVITY_KIND_MEMSET",
                                                  "CUPTI_ACTIVITY_KIND_RUNTIME",
                                                  "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                                                  "NVTX_EVENTS",
                                                  "TARGET_INFO_GPU"};
    if (!store_db_has_table(db, "StringIds"))
        return 0;
    for (size_t i = 0; i < sizeof activity_tables / sizeof activity_tables[0]; i++)
        if (store_db_has_table(db, activity_tables[i]))
            return 1;
    return 0;
}

static int refuse_foreign(sqlite3 *db, const char *name, error_info *err)
{
    if (store_db_has_table(db, "meta") && store_db_has_column(db, "meta", "key") &&
        store_db_has_table(db, "kernels"))
        return error_set(
            err, "%s: already an overlapscope trace (use 'overlapscope merge' to combine traces)", name);
    return error_set(
        err,
        "%s: an SQLite database but not an Nsight Systems export (no StringIds and CUPTI_ACTIVITY_KIND_*"
        " / NVTX_EVENTS tables; make one with 'nsys export --type sqlite')",
        name);
}

int nsys_import_db(store *s, sqlite3 *db, const char *name, error_info *err)
{
    sqlite3_stmt *probe = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM sqlite_master", -1, &probe, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(probe);
    sqlite3_finalize(probe);
    if (rc != SQLITE_ROW)
        return error_set(err, "%s: cannot read the SQLite database: %s", name, sqlite3_errmsg(db));
    if (!nsys_is_export(db))
        return refuse_foreign(db, name, err);
    /* A view in place of a table the import reads could run forever (issue 20, reproduction 12). */
    static const char *const read_tables[] = {"StringIds",
                                              "CUPTI_ACTIVITY_KIND_KERNEL",
                                              "CUPTI_ACTIVITY_KIND_MEMCPY",
                                              "CUPTI_ACTIVITY_KIND_MEMSET",
                                              "CUPTI_ACTIVITY_KIND_RUNTIME",
                                              "CUPTI_ACTIVITY_KIND_DRIVER",
                                              "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                                              "NVTX_EVENTS",
                                              "TARGET_INFO_GPU",
                                              "TARGET_INFO_CUDA_DEVICE",
                                              "TARGET_INFO_SESSION_START_TIME",
                                              "ENUM_NSYS_EVENT_TYPE",
                                              "CUPTI_ACTIVITY_KIND_CUDA_EVENT",
                                              "TARGET_INFO_CUDA_STREAM",
                                              "TARGET_INFO_CUDA_NULL_STREAM",
                                              "TARGET_INFO_CUDA_CONTEXT_INFO",
                                              "TARGET_INFO_SYSTEM_ENV",
                                              "PROCESSES",
                                              "META_DATA_CAPTURE",
                                              "OSRT_API",
                                              "PROFILER_OVERHEAD",
                                              "DIAGNOSTIC_EVENT",
                                              "ThreadNames",
                                              NULL};
    if (store_check_real_tables(db, name, read_tables, "Nsight Systems export", err) != 0)
        return -1;
    struct nsys_state state = {.s = s, .db = db, .name = name};
    /* Names and the host before the activity makes processes; NCCL's sizes before the kernels;
     * streams and devices once the activity said which contexts live where. */
    int status = nsys_read_target(&state, err);
    if (status == 0)
        status = nsys_prepare_nccl_sizes(&state, err);
    if (status == 0)
        status = nsys_import_gpu_activity(&state, err);
    nsys_finish_nccl_sizes(&state);
    if (status == 0)
        status = nsys_import_host_activity(&state, err);
    if (status == 0)
        status = nsys_import_devices(&state, err);
    if (status == 0)
        status = nsys_import_streams(&state, err);
    if (status == 0)
        status = nsys_import_thread_names(&state, err);
    if (status == 0)
        status = nsys_import_notes(&state, err);
    nsys_state_free(&state);
    return status;
}

int nsys_import_file(store *s, const char *path, error_info *err)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        error_set(err, "cannot open '%s': %s", path, db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return -1;
    }
    struct stat info;
    struct store_work_limit limit;
    store_work_limit_install(db, &limit, stat(path, &info) == 0 ? (int64_t)info.st_size : 0);
    int status = nsys_import_db(s, db, path, err);
    if (status != 0)
        store_work_limit_error(&limit, path, err);
    sqlite3_close(db);
    return status;
}
