/* origins.h: which writer made each process's rows, the table process_origins
 * (docs/trace-format.md): the format the rows were read from or recorded in, the tool that wrote
 * that input and its version where the input says it. Every writer says it explicitly when it
 * adds a process (import/kineto.c, import/nsys_export.c, collector/process_file.c; merge copies
 * it); readers ask store_process_origin, never a file name. What to advise differs by origin (the
 * idle accounting's "record with --no-api" vs "torch.profiler(...)" vs "nsys profile"). */
#ifndef OVERLAPSCOPE_ORIGINS_H
#define OVERLAPSCOPE_ORIGINS_H

#include <sqlite3.h>
#include <stdint.h>

#include "store.h"

/* process_origins.format's values. */
#define STORE_FORMAT_RECORD "record"
#define STORE_FORMAT_KINETO "kineto"
#define STORE_FORMAT_NSYS "nsys"

/* Says process_id's rows came from format (STORE_FORMAT_*), written by tool (its version, NULL when
 * the input does not say). A later call replaces an earlier one. 0, or -1 with err filled. */
int store_insert_process_origin(store *s, int64_t process_id, const char *format, const char *tool,
                                const char *version, error_info *err);

enum store_origin { STORE_ORIGIN_RECORD, STORE_ORIGIN_KINETO, STORE_ORIGIN_NSYS };

/* The origin of process_id's rows: its process_origins row's format. The legacy reading, for traces
 * written before the table (or a process without a row, or a format this version does not know):
 * from processes.source_file, the input it came from: a name holding ".json" is Kineto's, one
 * holding ".sqlite", ".nsys-rep" or ".qdrep" an nsys export's, any other (the collector's
 * per-process files end in .db) or none a recording's. */
enum store_origin store_process_origin(sqlite3 *db, int64_t process_id);

#endif
