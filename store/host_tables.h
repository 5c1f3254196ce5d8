/* host_tables.h: the host side of a trace (schema version 3, store/schema.sql's last four tables):
 * per-thread samples of the recorded processes (scheduler state, CPU time, Python stack), the CPU
 * time of every process of the job, children included, and the allow-listed environment
 * variables (collector/environment_facts.h). The collector writes them through the inserts below
 * (cached statements, inside the writer's transaction like every other insert of writes.c);
 * `info` reads the summary. A trace of version 1 or 2 has none of the tables: the summary then
 * says so (has_tables 0) instead of failing. */
#ifndef OVERLAPSCOPE_STORE_HOST_TABLES_H
#define OVERLAPSCOPE_STORE_HOST_TABLES_H

#include <stdint.h>

#include "error.h"
#include "store.h"

/* Whether name is one of the four tables version 3 added (store/checks.c lets a version 2 trace
 * lack them). */
int store_is_host_table(const char *name);

struct store_host_sample {
    int64_t pid, tid, time_ns;
    char state; /* the letter of /proc/PID/task/TID/stat: R, S, D, ... */
    int64_t cpu_ns;
    int64_t stack_id; /* host_stacks.id, or STORE_NULL */
};

struct store_process_cpu_sample {
    int64_t pid, parent_pid, time_ns, cpu_ns;
    char state;
    const char *name;
};

/* Each returns 0 or -1 with err filled. store_insert_host_stack writes the stack under the id the
 * caller chose (the collector numbers its stacks as it meets them); frames as schema.sql says. */
int store_insert_host_stack(store *s, int64_t id, const char *frames, error_info *err);
int store_insert_host_sample(store *s, const struct store_host_sample *row, error_info *err);
int store_insert_process_cpu_sample(store *s, const struct store_process_cpu_sample *row, error_info *err);
int store_insert_environment_variable(store *s, int64_t pid, const char *name, const char *value,
                                      error_info *err);

/* What `info` says about the host side. */
struct store_host_summary {
    int has_tables;    /* 0: a trace of version 1 or 2 (or an import): nothing below */
    int recorded;      /* meta host_sample_hz is set: written by record (imports have no host side) */
    int64_t sample_hz; /* meta host_sample_hz; 0 when not sampled or not a whole positive number */
    int hz_invalid;    /* host_sample_hz is neither 0 nor a whole positive number: the samples are not used */
    char hz_text[32];  /* host_sample_hz as stored (cut), to name it when invalid */
    int64_t thread_samples, stacks, process_samples, processes_sampled;
};
int store_host_summary(store *trace, struct store_host_summary *summary, error_info *err);

/* Every stored environment variable, ordered by pid then name; stops at a non-zero return of
 * visit and returns it. A trace without the table has none (returns 0). */
typedef int store_environment_visit(void *context, int64_t pid, const char *name, const char *value);
int store_each_environment_variable(store *trace, store_environment_visit *visit, void *context,
                                    error_info *err);

#endif
