/* threads.h: the names of a process's threads, the optional table threads (docs/trace-format.md).
 * Writers whose input names its threads write them (the nsys importer, from ThreadNames; the
 * collector, collector/thread_names.h); `info` names the threads that made CUDA calls, the
 * launching threads the report's evidence speaks of ("thread 4242"). Traces written before the
 * table (and version 1 traces) have none: readers check for it. */
#ifndef OVERLAPSCOPE_THREADS_H
#define OVERLAPSCOPE_THREADS_H

#include <sqlite3.h>
#include <stdint.h>

#include "store.h"

/* Names thread_id of process_id (a later name replaces an earlier one). Returns 0 or -1 with err. */
int store_insert_thread_name(store *s, int64_t process_id, int64_t thread_id, const char *name,
                             error_info *err);

/* Each thread of process_id that made CUDA calls (api_calls of domain 1 or 2), by thread id, with
 * its name or NULL when the trace does not name it. A callback returning non-zero stops the walk
 * and its value is returned; -1 with err filled on a read error. */
typedef int store_thread_visit(void *context, int64_t thread_id, const char *name);
int store_each_cuda_thread(store *trace, int64_t process_id, store_thread_visit *visit, void *context,
                           error_info *err);

/* The named threads of process_id on db, by thread id, at most 4096 (a trace naming more is cut
 * there), each handed to visit (its name valid during the call). A visit returning non-zero stops the
 * walk. Traces without the table have none: the caller checks store_db_has_table(db, "threads")
 * first. A read error ends the walk early, as if the rows ended there (the names are decoration). */
typedef int store_thread_name_visit(void *context, int64_t thread_id, const char *name);
void store_each_thread_name(sqlite3 *db, int64_t process_id, store_thread_name_visit *visit, void *context);

#endif
