/* nsys.h: importing Nsight Systems SQLite exports (`nsys export --type sqlite`) into an
 * overlapscope store.
 *
 * Read tables (created lazily by nsys: each is optional): StringIds, CUPTI_ACTIVITY_KIND_KERNEL,
 * _MEMCPY, _MEMSET, _SYNCHRONIZATION, _RUNTIME, _DRIVER, NVTX_EVENTS, TARGET_INFO_GPU,
 * TARGET_INFO_CUDA_DEVICE, TARGET_INFO_SESSION_START_TIME. The columns relied on are listed in
 * docs/overlapscope-import.md; a column missing from a table is read as unknown (NULL). One store
 * process per profiled process (globalPid / globalTid >> 24). A SQLite file without StringIds and
 * any of those activity tables is refused as "not an Nsight Systems export". */
#ifndef OVERLAPSCOPE_NSYS_H
#define OVERLAPSCOPE_NSYS_H

#include <sqlite3.h>

#include "error.h"
#include "store.h"

/* True when db looks like an nsys export (StringIds plus one activity or target-info table). */
int nsys_is_export(sqlite3 *db);

/* Imports the export at path into s (inside the caller's transaction). Returns 0 or -1 with err
 * naming the file and the problem. */
int nsys_import_file(store *s, const char *path, error_info *err);

/* Same from an open database (the fuzzer deserializes bytes into one); name is for messages. */
int nsys_import_db(store *s, sqlite3 *db, const char *name, error_info *err);

#endif
