/* The host sampler's pure parts (collector/host_sampler.h) and the environment allow-list
 * (collector/environment_facts.h): /proc stat lines as the kernel writes them (a name with spaces
 * and parentheses, a zombie, truncated and foreign text), stack deduplication, and a secret that
 * is never stored; then the version 3 tables written and read back as `info` reads them, and
 * merged into another trace as `record` merges per-process files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "check.h"
#include "environment_facts.h"
#include "host_sampler.h"
#include "host_tables.h"
#include "store.h"

static void test_parse_stat(void)
{
    struct host_proc_stat stat;
    const char *line =
        "4242 (python3) R 4200 4242 4200 34816 4242 4194304 8270 0 0 0 153 27 0 0 20 0 3 0 "
        "1234 567890 1234 18446744073709551615 1 1 0 0 0 0 0 16781312 1266 0 0 0 17 1 0 0 0 0 0\n";
    CHECK_INT(host_sampler_parse_stat(line, strlen(line), &stat), 0);
    CHECK_INT(stat.state, 'R');
    CHECK_INT(stat.parent_pid, 4200);
    CHECK_INT(stat.cpu_ticks, 153 + 27);
    CHECK_STR(stat.name, "python3");

    /* A thread may name itself anything, ") S 1 (" included: fields count from the last ')'. */
    const char *odd = "77 (pt ) S 1 (x) D 12 77 12 0 -1 4194560 100 0 0 0 9 1 0 0 20 0 1 0 55 0 0\n";
    CHECK_INT(host_sampler_parse_stat(odd, strlen(odd), &stat), 0);
    CHECK_INT(stat.state, 'D');
    CHECK_INT(stat.parent_pid, 12);
    CHECK_INT(stat.cpu_ticks, 10);
    CHECK_STR(stat.name, "pt ) S 1 (x");

    /* Not NUL-terminated: only length bytes are read. */
    char buffer[256];
    memcpy(buffer, line, strlen(line));
    memset(buffer + strlen(line), 'x', sizeof buffer - strlen(line));
    CHECK_INT(host_sampler_parse_stat(buffer, strlen(line), &stat), 0);
    CHECK_INT(stat.cpu_ticks, 180);

    const char *bad[] = {"",
                         "4242",
                         "4242 (python3",
                         "4242 (python3) R 1 2 3",
                         "garbage) R x y",
                         "1 (a) R 1 2 3 4 5 6 7 8 9 10 z 12\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_INT(host_sampler_parse_stat(bad[i], strlen(bad[i]), &stat), -1);

    /* This process's own line, as the sampler reads it. */
    FILE *file = fopen("/proc/self/stat", "r");
    size_t got = file ? fread(buffer, 1, sizeof buffer, file) : 0;
    if (file)
        fclose(file);
    CHECK_INT(host_sampler_parse_stat(buffer, got, &stat), 0);
    CHECK_INT(stat.state, 'R');
    CHECK_INT(stat.parent_pid, getppid());
}

static void test_stack_table(void)
{
    static struct host_stack_table table;
    memset(&table, 0, sizeof table);
    int is_new = 0;
    CHECK_INT(host_stack_table_intern(&table, "a.py:1 f\nb.py:2 g", &is_new), 1);
    CHECK_INT(is_new, 1);
    CHECK_INT(host_stack_table_intern(&table, "a.py:1 f\nb.py:2 g", &is_new), 1);
    CHECK_INT(is_new, 0);
    CHECK_INT(host_stack_table_intern(&table, "a.py:1 f\nb.py:3 g", &is_new), 2);
    CHECK_INT(is_new, 1);
    /* A stack whose text was never written is taken back and numbered again. */
    host_stack_table_forget_last(&table);
    CHECK_INT(host_stack_table_intern(&table, "a.py:1 f\nb.py:3 g", &is_new), 2);
    CHECK_INT(is_new, 1);
    char text[32];
    int64_t last = 0;
    for (int i = 0; i < HOST_SAMPLER_STACKS + 10; i++) {
        snprintf(text, sizeof text, "s.py:%d f", i);
        last = host_stack_table_intern(&table, text, &is_new);
    }
    CHECK_INT(last, 0); /* full: later stacks are stored without one */
    CHECK_INT(table.count, HOST_SAMPLER_STACKS);
    CHECK_INT(host_stack_table_intern(&table, "a.py:1 f\nb.py:2 g", &is_new), 1);
}

static void test_allow_list(void)
{
    const char *allowed[] = {"CUDA_LAUNCH_BLOCKING",
                             "CUDA_DEVICE_MAX_CONNECTIONS",
                             "NCCL_DEBUG",
                             "NCCL_P2P_DISABLE",
                             "TORCH_NCCL_BLOCKING_WAIT",
                             "PYTORCH_CUDA_ALLOC_CONF",
                             "PYTORCH_NO_CUDA_MEMORY_CACHING",
                             "OMP_NUM_THREADS",
                             "CUBLAS_WORKSPACE_CONFIG"};
    const char *refused[] = {"AWS_SECRET_ACCESS_KEY",
                             "HF_TOKEN",
                             "NCCL_IB_KEY",
                             "NCCL_SOCKET_PASSWORD",
                             "TORCH_NCCL_TOKEN",
                             "NCCL_",
                             "CUDA_LAUNCH_BLOCKING_EXTRA",
                             "PATH",
                             "HOME",
                             "LD_PRELOAD",
                             "cuda_launch_blocking",
                             "",
                             "WANDB_API_KEY",
                             "GITHUB_TOKEN"};
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
        CHECK_INT(environment_facts_allowed(allowed[i]), 1);
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        CHECK_INT(environment_facts_allowed(refused[i]), 0);
}

static int count_rows(store *s, const char *sql)
{
    sqlite3_stmt *query = NULL;
    int count = -1;
    if (sqlite3_prepare_v2(store_db(s), sql, -1, &query, NULL) == SQLITE_OK &&
        sqlite3_step(query) == SQLITE_ROW)
        count = sqlite3_column_int(query, 0);
    sqlite3_finalize(query);
    return count;
}

struct seen_environment {
    char text[512];
};

static int collect(void *context, int64_t pid, const char *name, const char *value)
{
    struct seen_environment *seen = context;
    size_t used = strlen(seen->text);
    snprintf(seen->text + used, sizeof seen->text - used, "%lld %s=%s;", (long long)pid, name, value);
    return 0;
}

static void write_host_rows(store *s, int64_t pid)
{
    error_info err = {{0}};
    char *environment[] = {"CUDA_LAUNCH_BLOCKING=1",
                           "AWS_SECRET_ACCESS_KEY=hunter2",
                           "NCCL_DEBUG=INFO",
                           "HF_TOKEN=hf_abc",
                           "NCCL_IB_KEY=k",
                           "PATH=/usr/bin",
                           "NOEQUALS",
                           NULL};
    CHECK(store_begin(s, &err) == 0);
    CHECK_INT(environment_facts_write(s, pid, environment, &err), 2);
    CHECK(store_set_meta(s, "host_sample_hz", "100", &err) == 0);
    CHECK(store_insert_host_stack(s, 1, "train.py:12 step\ntrain.py:30 main", &err) == 0);
    for (int i = 0; i < 3; i++) {
        struct store_host_sample sample = {.pid = pid,
                                           .tid = pid,
                                           .time_ns = 1000 + i,
                                           .state = i ? 'S' : 'R',
                                           .cpu_ns = 5000,
                                           .stack_id = i == 2 ? STORE_NULL : 1};
        CHECK(store_insert_host_sample(s, &sample, &err) == 0);
    }
    struct store_process_cpu_sample worker = {.pid = pid + 1,
                                              .parent_pid = pid,
                                              .time_ns = 1000,
                                              .cpu_ns = 9000,
                                              .state = 'R',
                                              .name = "pt_data_worker"};
    CHECK(store_insert_process_cpu_sample(s, &worker, &err) == 0);
    CHECK(store_commit(s, &err) == 0);
}

static void test_tables(void)
{
    error_info err = {{0}};
    char folder[] = "/tmp/overlapscope-test-host-XXXXXX";
    CHECK(mkdtemp(folder) != NULL);
    char path[128], merged_path[128];
    snprintf(path, sizeof path, "%s/proc.db", folder);
    snprintf(merged_path, sizeof merged_path, "%s/merged.db", folder);
    store *s = store_create(path, STORE_OVERWRITE, &err);
    CHECK(s != NULL);
    if (!s)
        return;
    write_host_rows(s, 4242);
    CHECK(store_finalize(s, &err) == 0);
    store_close(s, NULL);

    s = store_open(path, 1, &err);
    CHECK(s != NULL);
    if (!s)
        return;
    struct store_host_summary summary;
    CHECK(store_host_summary(s, &summary, &err) == 0);
    CHECK_INT(summary.has_tables, 1);
    CHECK_INT(summary.recorded, 1);
    CHECK_INT(summary.sample_hz, 100);
    CHECK_INT(summary.thread_samples, 3);
    CHECK_INT(summary.stacks, 1);
    CHECK_INT(summary.process_samples, 1);
    struct seen_environment seen = {""};
    CHECK(store_each_environment_variable(s, collect, &seen, &err) == 0);
    CHECK_STR(seen.text, "4242 CUDA_LAUNCH_BLOCKING=1;4242 NCCL_DEBUG=INFO;");
    /* The secrets are nowhere in the file. */
    CHECK_INT(count_rows(s, "SELECT COUNT(*) FROM process_environment WHERE value LIKE '%hunter2%'"
                            " OR value LIKE 'hf_%' OR name LIKE '%KEY%' OR name = 'PATH'"),
              0);
    store_close(s, NULL);

    /* Two per-process files merged: stacks by their text, times shifted. */
    store *merged = store_create(merged_path, STORE_OVERWRITE, &err);
    CHECK(merged != NULL);
    if (!merged)
        return;
    CHECK(store_append_trace(merged, path, 0, NULL, &err) == 0);
    CHECK(store_append_trace(merged, path, 10, NULL, &err) == 0);
    CHECK_INT(count_rows(merged, "SELECT COUNT(*) FROM host_stacks"), 1);
    CHECK_INT(count_rows(merged, "SELECT COUNT(*) FROM host_samples WHERE stack_id = 1"), 4);
    CHECK_INT(count_rows(merged, "SELECT COUNT(*) FROM host_samples WHERE stack_id IS NULL"), 2);
    CHECK_INT(count_rows(merged, "SELECT MAX(time_ns) FROM host_samples"), 1012);
    CHECK_INT(count_rows(merged, "SELECT COUNT(*) FROM process_cpu_samples WHERE name = 'pt_data_worker'"),
              2);
    CHECK_INT(count_rows(merged, "SELECT COUNT(*) FROM process_environment"), 4);
    store_close(merged, NULL);
    unlink(path);
    unlink(merged_path);
    rmdir(folder);
}

int main(void)
{
    test_parse_stat();
    test_stack_table();
    test_allow_list();
    test_tables();
    return check_finish();
}
