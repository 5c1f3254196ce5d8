/* test_host_samples.c: the verdict of a host-cpu idle stretch from the trace's host samples
 * (docs/metrics.md, "Idle time", host samples; analyzer/accounting/host_samples.c). One timeline
 * throughout: kernel A runs [0, 10] us, the launching thread (tid 7 of pid 4000) makes no CUDA call
 * until it launches B at [1010, 1020], B runs [1025, 1035]: a host-cpu stretch of exactly 1,000 us,
 * [10, 1010). At 10 kHz its samples fall at 50, 150, ..., 950 us (10 samples); the workers' at 100,
 * 200, ..., 1000 us. Each scenario fills the samples and checks the whole 1,000 us goes to one
 * verdict, with its line, its share and the workers' CPU; without samples nothing changes. */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analyze_builder.h"
#include "check.h"
#include "host_tables.h"

static char directory[] = "/tmp/overlapscope-test-host-samples-XXXXXX";

#define PID 4000 /* builder_process(rank 0) */
#define THREAD 7
#define SIDE_THREAD 8

#define LOADER_STACK                                                                                         \
    "/usr/lib/python3.11/multiprocessing/connection.py:440 _poll\n"                                          \
    "/usr/lib/python3.11/multiprocessing/queues.py:113 get\n"                                                \
    "/site/torch/utils/data/dataloader.py:1145 _try_get_data\n"                                              \
    "/site/torch/utils/data/dataloader.py:1328 _next_data\n/work/train.py:42 <module>"
#define ADAM_STACK "/site/torch/optim/adam.py:160 _single_tensor_adam\n/work/train.py:50 <module>"
#define METRICS_STACK "/work/train.py:55 <module>"
#define LOCK_STACK "/usr/lib/python3.11/threading.py:320 wait\n/work/train.py:60 <module>"
#define SIDE_STACK "/work/side.py:5 spin"
#define GC_STACK "native gc_collect_main (libpython3.11.so.1.0)"

static int64_t stack_ids; /* the last host_stacks id of the current trace */

static void sql(struct builder *b, const char *text)
{
    char *message = NULL;
    if (sqlite3_exec(store_db(b->trace), text, NULL, NULL, &message) != SQLITE_OK)
        fprintf(stderr, "sql: %s: %s\n", message ? message : "?", text);
    CHECK(message == NULL);
    sqlite3_free(message);
}

static struct builder begin(const char *name, const char *sample_hz)
{
    struct builder b;
    CHECK_INT(builder_create(&b, directory, name), 0);
    int64_t process = builder_process(&b, 0);
    builder_h100(&b, process, 0);
    const double launches[][4] = {{-10, -5, 0, 10}, {1010, 1020, 1025, 1035}};
    for (int i = 0; i < 2; i++) {
        struct store_kernel row =
            builder_kernel_row(process, 13, launches[i][2], launches[i][3], 1, 32, "tiny");
        row.correlation_id = b.next_correlation++;
        builder_api(&b, process, THREAD, "cudaLaunchKernel", launches[i][0], launches[i][1],
                    row.correlation_id);
        builder_insert_kernel(&b, row);
    }
    if (sample_hz) {
        char text[128];
        snprintf(text, sizeof text, "INSERT INTO meta(key, value) VALUES ('host_sample_hz', '%s')",
                 sample_hz);
        sql(&b, text);
    }
    stack_ids = 0;
    return b;
}

static int64_t add_stack(struct builder *b, const char *frames)
{
    sqlite3_stmt *query = NULL;
    sqlite3_prepare_v2(store_db(b->trace), "INSERT INTO host_stacks(id, frames) VALUES (?1, ?2)", -1, &query,
                       NULL);
    sqlite3_bind_int64(query, 1, ++stack_ids);
    sqlite3_bind_text(query, 2, frames, -1, SQLITE_STATIC);
    CHECK_INT(sqlite3_step(query), SQLITE_DONE);
    sqlite3_finalize(query);
    return stack_ids;
}

/* Samples first .. first + count - 1 (of the ten at 50 + 100 k us) of thread tid. */
static void add_samples(struct builder *b, int64_t tid, int first, int count, char state, int64_t stack_id)
{
    for (int k = first; k < first + count; k++) {
        char text[256];
        snprintf(text, sizeof text,
                 "INSERT INTO host_samples(pid, tid, time_ns, state, cpu_ns, stack_id) VALUES"
                 " (%d, %lld, %lld, '%c', %d, %lld)",
                 PID, (long long)tid, (long long)AT(50 + 100 * k), state, state == 'R' ? 100000 : 1000,
                 (long long)stack_id);
        sql(b, text);
    }
}

/* A worker child of PID sampled ten times at 100 .. 1000 us, each sample cpu_ns of CPU; the first
 * disk_waits samples in D, the rest in state. */
static void add_worker(struct builder *b, int64_t pid, int64_t cpu_ns, int disk_waits, char state)
{
    for (int k = 1; k <= 10; k++) {
        char text[256];
        snprintf(text, sizeof text,
                 "INSERT INTO process_cpu_samples(pid, parent_pid, time_ns, cpu_ns, state, name) VALUES"
                 " (%lld, %d, %lld, %lld, '%c', 'pt_data_worker')",
                 (long long)pid, PID, (long long)AT(100 * k), (long long)cpu_ns,
                 k <= disk_waits ? 'D' : state);
        sql(b, text);
    }
}

/* How many "could not be checked" lines name the host samples. */
static int64_t unchecked_samples(const struct analysis_result *result)
{
    int64_t count = 0;
    for (size_t i = 0; result && i < result->unchecked_count; i++)
        count += strstr(result->unchecked[i].record, "--sample-hz") != NULL;
    return count;
}

static const struct analysis_accounting *whole_device(const struct analysis_result *result)
{
    for (size_t i = 0; result && i < result->accounting_count; i++)
        if (result->accountings[i].device == 0 && result->accountings[i].step < 0)
            return &result->accountings[i];
    return NULL;
}

/* The host's 1,000 us went, whole, to cause with label, evidence holding each of the texts; no
 * other entry holds host time but the launch (launch-bound 15 us). */
static void expect_verdict(struct builder *b, enum accounting_cause cause, const char *label,
                           const char *texts[])
{
    int status = 0;
    struct analysis_result *result = builder_analyze(b, &status);
    CHECK_INT(status, 0);
    const struct analysis_accounting *accounting = whole_device(result);
    CHECK(accounting != NULL);
    if (!accounting) {
        analysis_free(result);
        return;
    }
    const struct accounting_entry *found = NULL;
    int64_t sum = 0;
    for (size_t i = 0; i < accounting->idle.entry_count; i++) {
        const struct accounting_entry *entry = &accounting->idle.entries[i];
        sum += entry->ns;
        if (entry->cause == cause && strcmp(entry->label, label) == 0)
            found = entry;
        else if (entry->cause != ACCOUNTING_IDLE_LAUNCH_BOUND)
            fprintf(stderr, "  unexpected %s [%s] %lld\n", accounting_cause_tag(entry->cause), entry->label,
                    (long long)entry->ns);
        CHECK(entry->cause == cause || entry->cause == ACCOUNTING_IDLE_LAUNCH_BOUND);
    }
    CHECK_INT(sum, accounting->idle.ns);
    CHECK_INT(accounting->idle.ns, US(1015));
    CHECK(found != NULL);
    if (!found) {
        for (size_t i = 0; i < accounting->idle.entry_count; i++)
            fprintf(stderr, "    %s [%s] %lld: %s\n", accounting_cause_tag(accounting->idle.entries[i].cause),
                    accounting->idle.entries[i].label, (long long)accounting->idle.entries[i].ns,
                    accounting->idle.entries[i].evidence);
    } else {
        CHECK_INT(found->ns, US(1000));
        CHECK_INT(found->count, 1);
        for (const char **text = texts; *text; text++)
            CHECK_CONTAINS(found->evidence, *text);
    }
    CHECK_INT(unchecked_samples(result), 0);
    /* The verdict's time is still the host's own work: its what-if applies as host-cpu's did. */
    int hides_host_work = 0;
    for (size_t i = 0; result && i < result->what_if_count; i++)
        hides_host_work |= result->what_if[i].fix == ANALYSIS_FIX_HOST_WORK;
    CHECK(hides_host_work);
    analysis_free(result);
}

/* The main thread sleeps in the loader's queue the whole stretch while two workers use 95% of their
 * CPU: CPU-bound data loading. */
static void test_starved_loader_cpu_bound(void)
{
    struct builder b = begin("loader-cpu.db", "10000");
    add_samples(&b, THREAD, 0, 10, 'S', add_stack(&b, LOADER_STACK));
    add_worker(&b, 4101, 95000, 0, 'R');
    add_worker(&b, 4102, 95000, 0, 'R');
    expect_verdict(
        &b, ACCOUNTING_IDLE_DATA_LOADING, "CPU-bound",
        (const char *[]){"1.00 ms over 1 stretch", "10 host samples", "100% sleeping in the DataLoader",
                         "2 worker processes busy 95% of their CPU (CPU-bound: more workers", NULL});
}

/* The same wait while the workers use 10% of their CPU and sit in disk wait 6 samples of 10. */
static void test_starved_loader_io_bound(void)
{
    struct builder b = begin("loader-io.db", "10000");
    add_samples(&b, THREAD, 0, 10, 'S', add_stack(&b, LOADER_STACK));
    add_worker(&b, 4101, 10000, 6, 'S');
    add_worker(&b, 4102, 10000, 6, 'S');
    expect_verdict(
        &b, ACCOUNTING_IDLE_DATA_LOADING, "I/O-bound",
        (const char *[]){"2 worker processes busy 10% of their CPU, 60% of their samples in disk wait",
                         "I/O-bound", NULL});
}

/* The thread runs Python: the optimizer's line in 7 samples, a metrics line in 3. */
static void test_python_work(void)
{
    struct builder b = begin("python-work.db", "10000");
    add_samples(&b, THREAD, 0, 7, 'R', add_stack(&b, ADAM_STACK));
    add_samples(&b, THREAD, 7, 3, 'R', add_stack(&b, METRICS_STACK));
    expect_verdict(
        &b, ACCOUNTING_IDLE_PYTHON_WORK, "adam.py:160 _single_tensor_adam",
        (const char *[]){"70% at adam.py:160 _single_tensor_adam, computing",
                         "adam.py:160 _single_tensor_adam 70% (computing), train.py:55 <module> 30% "
                         "(computing)",
                         NULL});
}

/* The thread sleeps in a threading Condition's wait while a side thread runs: a lock wait (the lock's
 * frame names it before the GIL could). */
static void test_lock_wait(void)
{
    struct builder b = begin("lock.db", "10000");
    add_samples(&b, THREAD, 0, 10, 'S', add_stack(&b, LOCK_STACK));
    add_samples(&b, SIDE_THREAD, 0, 10, 'R', add_stack(&b, SIDE_STACK));
    expect_verdict(&b, ACCOUNTING_IDLE_LOCK_WAIT, "threading.py:320 wait",
                   (const char *[]){"100% sleeping in threading.py:320 wait", NULL});
}

/* The thread sleeps with a plain Python stack while the side thread runs Python: the GIL. */
static void test_gil_wait(void)
{
    struct builder b = begin("gil.db", "10000");
    add_samples(&b, THREAD, 0, 10, 'S', add_stack(&b, METRICS_STACK));
    add_samples(&b, SIDE_THREAD, 0, 10, 'R', add_stack(&b, SIDE_STACK));
    expect_verdict(&b, ACCOUNTING_IDLE_LOCK_WAIT, "GIL", (const char *[]){"waiting for the GIL", NULL});
}

/* The process itself (PID, its parent not recorded) sampled ten times at 100 .. 1000 us, each
 * sample cpu_ns of CPU: all its threads, sampled or not. */
static void add_own_cpu(struct builder *b, int64_t cpu_ns)
{
    for (int k = 1; k <= 10; k++) {
        char text[256];
        snprintf(text, sizeof text,
                 "INSERT INTO process_cpu_samples(pid, parent_pid, time_ns, cpu_ns, state, name) VALUES"
                 " (%d, 1, %lld, %lld, 'S', 'python3')",
                 PID, (long long)AT(100 * k), (long long)cpu_ns);
        sql(b, text);
    }
}

/* The thread sleeps in Python code (`with lock:` is C: no threading.py frame) while a thread that is
 * not sampled (it never calls CUDA) burns the CPU: the process used 900 us of CPU in the 1 ms
 * stretch, its sampled thread 10 us. A lock that thread holds, or the GIL: "lock or GIL". Its twin,
 * with the process as idle as its thread, is the thread's own (waiting) Python work. */
static void test_lock_or_gil_from_process_cpu(void)
{
    struct builder b = begin("lock-or-gil.db", "10000");
    add_samples(&b, THREAD, 0, 10, 'S', add_stack(&b, METRICS_STACK));
    add_own_cpu(&b, 90000);
    expect_verdict(&b, ACCOUNTING_IDLE_LOCK_WAIT, "lock or GIL",
                   (const char *[]){"train.py:55 <module>", NULL});
    b = begin("sleeping-alone.db", "10000");
    add_samples(&b, THREAD, 0, 10, 'S', add_stack(&b, METRICS_STACK));
    add_own_cpu(&b, 1000);
    expect_verdict(&b, ACCOUNTING_IDLE_PYTHON_WORK, "train.py:55 <module>",
                   (const char *[]){"train.py:55 <module> 100% (waiting)", NULL});
}

/* The native stack names the collector in 8 samples of 10. */
static void test_garbage_collection(void)
{
    struct builder b = begin("gc.db", "10000");
    add_samples(&b, THREAD, 0, 8, 'R', add_stack(&b, GC_STACK));
    add_samples(&b, THREAD, 8, 2, 'R', add_stack(&b, METRICS_STACK));
    expect_verdict(&b, ACCOUNTING_IDLE_GARBAGE_COLLECTION, "native gc_collect_main (libpython3.11.so.1.0)",
                   (const char *[]){"80% at native gc_collect_main", NULL});
}

/* The recorder's gc hook marked 7 samples of 10 above the training loop's line (an allocation there
 * started a collection): garbage collection, named by that line, not by the marker. */
static void test_garbage_collection_marked(void)
{
    struct builder b = begin("gc-marked.db", "10000");
    add_samples(&b, THREAD, 0, 7, 'R', add_stack(&b, STORE_HOST_GC_FRAME "\n" METRICS_STACK));
    add_samples(&b, THREAD, 7, 3, 'R', add_stack(&b, METRICS_STACK));
    expect_verdict(&b, ACCOUNTING_IDLE_GARBAGE_COLLECTION, "train.py:55 <module>",
                   (const char *[]){"70% at train.py:55 <module>", NULL});
}

/* 6 samples in the loader, 4 of Python work: the whole stretch is data loading (no worker sampled:
 * the main process loads). */
static void test_mixed_goes_to_majority(void)
{
    struct builder b = begin("mixed.db", "10000");
    add_samples(&b, THREAD, 0, 6, 'S', add_stack(&b, LOADER_STACK));
    add_samples(&b, THREAD, 6, 4, 'R', add_stack(&b, ADAM_STACK));
    expect_verdict(&b, ACCOUNTING_IDLE_DATA_LOADING, "in the main process",
                   (const char *[]){"60% sleeping in the DataLoader", "no worker process was sampled", NULL});
}

/* No samples: host-cpu as before; a recording that says it sampled at 0 Hz adds one "could not be
 * checked" line naming record --sample-hz, an older trace (no meta row) none. */
static void test_without_samples(const char *sample_hz)
{
    struct builder b = begin(sample_hz ? "off.db" : "old.db", sample_hz);
    int status = 0;
    struct analysis_result *result = builder_analyze(&b, &status);
    CHECK_INT(status, 0);
    const struct analysis_accounting *accounting = whole_device(result);
    CHECK(accounting && accounting->idle.entry_count == 2 &&
          accounting->idle.entries[0].cause == ACCOUNTING_IDLE_HOST_CPU &&
          accounting->idle.entries[0].ns == US(1000) &&
          strcmp(accounting->idle.entries[0].label, "no CUDA call") == 0);
    CHECK_INT(unchecked_samples(result), sample_hz ? 1 : 0);
    for (size_t i = 0; result && i < result->unchecked_count; i++)
        if (strstr(result->unchecked[i].record, "--sample-hz")) {
            CHECK_STR(result->unchecked[i].causes,
                      "data-loading, python-work, garbage-collection, lock-wait");
            CHECK_STR(result->unchecked[i].record, "overlapscope record --sample-hz N");
        }
    analysis_free(result);
}

int main(void)
{
    if (!mkdtemp(directory))
        return 1;
    test_starved_loader_cpu_bound();
    test_starved_loader_io_bound();
    test_python_work();
    test_lock_wait();
    test_gil_wait();
    test_lock_or_gil_from_process_cpu();
    test_garbage_collection();
    test_garbage_collection_marked();
    test_mixed_goes_to_majority();
    test_without_samples(NULL);
    test_without_samples("0");
    char command[256];
    snprintf(command, sizeof command, "rm -rf %s", directory);
    if (system(command) != 0)
        return 1;
    return check_finish();
}
