/* test_thread_calls.c: a thread's host calls as the idle accounting reads them (thread_calls.h),
 * from the store's query or from the process's launches (launches.h) when those hold every call:
 * the same rows in the same order either way, ties of start time in the order of the store's
 * (process, thread, start) index, which is rowid order. A process with a call that has no
 * correlation id keeps reading from the store. The launches of a version 2 trace are read without
 * the api_calls view's join (launches.c): a call whose function row is gone still reads as the
 * view gives it. Times are microseconds. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernel_names.h"
#include "launches.h"
#include "thread_calls.h"
#include "trace_builder.h"

static char directory[] = "/tmp/overlapscope-test-thread-calls-XXXXXX";

/* Calls written out of start order, three of them starting at 10 us (a runtime call and the
 * driver calls it made), on three threads. Expected order on thread 7: 5, then the three at 10 in
 * the order written (rowid), then 30. */
static void write_calls(struct builder *b, int64_t process, int with_uncorrelated)
{
    builder_api(b, process, 7, "cudaLaunchKernel", 30, 31, 0);
    builder_api(b, process, 7, "cudaMemcpyAsync", 10, 20, 0);
    builder_api(b, process, 8, "cudaStreamSynchronize", 10, 40, 0);
    builder_api(b, process, 7, "cuMemcpyHtoDAsync", 10, 12, 0);
    builder_api(b, process, 7, "cudaEventRecord", 5, 6, 0);
    builder_api(b, process, 7, "cuLaunchKernel", 10, 11, 0);
    /* Thread 9's calls written in start order (a tie in rowid order): taken as they come. */
    builder_api(b, process, 9, "cudaLaunchKernel", 35, 36, 0);
    builder_api(b, process, 9, "cuLaunchKernel", 40, 41, 0);
    builder_api(b, process, 9, "cudaEventRecord", 40, 42, 0);
    if (with_uncorrelated) {
        struct store_api_call row = {.process_id = process,
                                     .thread_id = 8,
                                     .api_domain = STORE_API_RUNTIME,
                                     .callback_id = STORE_NULL,
                                     .correlation_id = STORE_NULL,
                                     .start_ns = AT(50),
                                     .end_ns = AT(51),
                                     .return_value = 0,
                                     .name = "cudaGetDevice"};
        store_insert_api_call(b->trace, &row, &b->err);
    }
}

static void expect_same_calls(const struct thread_call *a, size_t a_count, const struct thread_call *b,
                              size_t b_count)
{
    CHECK_INT(a_count, b_count);
    for (size_t i = 0; i < a_count && i < b_count; i++) {
        CHECK_INT(a[i].start_ns, b[i].start_ns);
        CHECK_INT(a[i].end_ns, b[i].end_ns);
        CHECK_INT(a[i].correlation_id, b[i].correlation_id);
        CHECK_INT(a[i].name_id, b[i].name_id);
        CHECK_INT(a[i].api_domain, b[i].api_domain);
        CHECK_INT(a[i].has_name, b[i].has_name);
    }
}

/* missing_function: the function row of cudaEventRecord is gone (a damaged version 2 trace): the
 * view's LEFT JOIN gives the call no name and domain 0, and launches.c, which reads the functions
 * apart, must give the same. */
static void test_from_launches(int with_uncorrelated, int missing_function)
{
    struct builder b;
    char name[64];
    snprintf(name, sizeof name, "calls-%d-%d.db", with_uncorrelated, missing_function);
    CHECK_INT(builder_create(&b, directory, name), 0);
    int64_t process = builder_process(&b, 0);
    builder_h100(&b, process, 0);
    write_calls(&b, process, with_uncorrelated);
    CHECK_INT(builder_finish(&b), 0);
    sqlite3 *db = store_db(b.trace);
    if (missing_function) {
        CHECK_INT(sqlite3_exec(db,
                               "DELETE FROM api_functions WHERE name_id ="
                               " (SELECT id FROM strings WHERE value = 'cudaEventRecord')",
                               NULL, NULL, NULL),
                  SQLITE_OK);
        CHECK_INT(sqlite3_changes(db), 1);
    }
    error_info err;
    kernel_names *names = kernel_names_new(db, &err);
    struct launches launches = {0};
    CHECK_INT(launches_load(db, process, &launches, &err), 0);
    CHECK_INT(launches.complete, 1);
    CHECK_INT(launches.every_call, !with_uncorrelated);
    thread_calls *from_launches = thread_calls_new(db, names), *from_store = thread_calls_new(db, names);
    for (int64_t thread = 7; thread <= 9; thread++) {
        size_t count = 0, store_count = 0;
        const struct thread_call *calls = thread_calls_of(from_launches, process, thread, &launches, &count);
        const struct thread_call *stored = thread_calls_of(from_store, process, thread, NULL, &store_count);
        CHECK(calls != NULL && stored != NULL);
        CHECK_INT(count, thread == 7 ? 5 : thread == 9 ? 3 : 1 + with_uncorrelated);
        if (calls && stored)
            expect_same_calls(calls, count, stored, store_count);
        if (calls && thread == 7 && count == 5) {
            static const double starts[] = {5, 10, 10, 10, 30};
            static const char *const names_in_order[] = {"cudaEventRecord", "cudaMemcpyAsync",
                                                         "cuMemcpyHtoDAsync", "cuLaunchKernel",
                                                         "cudaLaunchKernel"};
            for (size_t i = 0; i < 5; i++) {
                CHECK_INT(calls[i].start_ns, AT(starts[i]));
                const char *call_name = thread_calls_name(from_launches, &calls[i]);
                if (missing_function && i == 0)
                    CHECK(call_name == NULL);
                else
                    CHECK(call_name && strcmp(call_name, names_in_order[i]) == 0);
            }
        }
    }
    thread_calls_free(from_launches);
    thread_calls_free(from_store);
    launches_free(&launches);
    kernel_names_free(names);
    builder_close(&b);
}

/* A process of one thread (issue 33): its calls in start order are the launches' own array, lent
 * (no copy beside it), and read as the store gives them; written out of start order, they are a
 * copy in start order, and the launches' stay in correlation order. */
static void test_one_thread(int in_start_order)
{
    struct builder b;
    char name[64];
    snprintf(name, sizeof name, "one-thread-%d.db", in_start_order);
    CHECK_INT(builder_create(&b, directory, name), 0);
    int64_t process = builder_process(&b, 0);
    builder_h100(&b, process, 0);
    builder_api(&b, process, 7, "cudaEventRecord", 5, 6, 0);
    builder_api(&b, process, 7, "cudaMemcpyAsync", 10, 20, 0);
    builder_api(&b, process, 7, "cuLaunchKernel", in_start_order ? 25 : 3, 26, 0);
    builder_api(&b, process, 7, "cudaLaunchKernel", 30, 31, 0);
    CHECK_INT(builder_finish(&b), 0);
    sqlite3 *db = store_db(b.trace);
    error_info err;
    kernel_names *names = kernel_names_new(db, &err);
    struct launches launches = {0};
    CHECK_INT(launches_load(db, process, &launches, &err), 0);
    CHECK_INT(launches.every_call, 1);
    thread_calls *from_launches = thread_calls_new(db, names), *from_store = thread_calls_new(db, names);
    size_t count = 0, store_count = 0;
    const struct thread_call *calls = thread_calls_of(from_launches, process, 7, &launches, &count);
    const struct thread_call *stored = thread_calls_of(from_store, process, 7, NULL, &store_count);
    CHECK(calls != NULL && stored != NULL);
    CHECK_INT(count, 4);
    CHECK_INT(calls == launches.calls, in_start_order);
    if (calls && stored)
        expect_same_calls(calls, count, stored, store_count);
    CHECK_INT(launches.calls[2].start_ns, AT(in_start_order ? 25 : 3)); /* still by correlation id */
    thread_calls_release(from_launches); /* lent: not freed here (ASan: a double free otherwise) */
    thread_calls_free(from_launches);
    thread_calls_free(from_store);
    launches_free(&launches);
    kernel_names_free(names);
    builder_close(&b);
}

/* thread_calls_first_from looks outwards from its hint (the previous gap's place): from every
 * hint, the answer is the first call starting at or after the time, as a scan finds it. Starts
 * with runs of ties, before the first call, between, on one, after the last. */
static void test_first_from(void)
{
    static const int64_t starts[] = {3, 5, 5, 5, 8, 13, 13, 21, 34, 34, 34, 34, 55, 89, 89, 144};
    enum { COUNT = sizeof starts / sizeof starts[0] };
    struct thread_call calls[COUNT];
    for (size_t i = 0; i < COUNT; i++)
        calls[i] = (struct thread_call){.start_ns = starts[i], .end_ns = starts[i] + 1};
    size_t wrong = 0;
    for (size_t count = 0; count <= COUNT; count++)
        for (int64_t time = 0; time <= 150; time++) {
            size_t expected = 0;
            while (expected < count && calls[expected].start_ns < time)
                expected++;
            for (size_t near = 0; near <= count + 2; near++)
                wrong += thread_calls_first_from(calls, count, time, near) != expected;
        }
    CHECK_INT(wrong, 0);
}

/* launches_find_earliest from every hint: the call of the id that started first, the first of them
 * on a tie, as a scan finds it; NULL for an id no call has (before, between and after them). */
static void test_find_earliest(void)
{
    static const int64_t ids[] = {2, 4, 4, 4, 5, 9, 9, 12, 13, 14, 15, 16, 17, 30, 30, 31};
    static const int64_t starts[] = {1, 9, 7, 7, 3, 5, 6, 1, 1, 1, 1, 1, 1, 8, 2, 4};
    enum { COUNT = sizeof ids / sizeof ids[0] };
    struct thread_call calls[COUNT];
    struct call_origin origins[COUNT];
    for (size_t i = 0; i < COUNT; i++) {
        calls[i] = (struct thread_call){.correlation_id = ids[i], .start_ns = starts[i]};
        origins[i] = (struct call_origin){.thread_id = 7, .rowid = (int64_t)i + 1};
    }
    struct launches launches = {.calls = calls, .origins = origins, .count = COUNT, .complete = 1};
    size_t wrong = 0;
    for (int64_t id = 0; id <= 33; id++) {
        const struct thread_call *expected = NULL;
        for (size_t i = 0; i < COUNT; i++)
            if (ids[i] == id && (!expected || starts[i] < expected->start_ns))
                expected = &calls[i];
        for (size_t near = 0; near <= COUNT + 2; near++) {
            size_t hint = near;
            wrong += launches_find_earliest(&launches, id, &hint) != expected;
        }
    }
    CHECK_INT(wrong, 0);
    size_t hint = 0; /* ids asked in rising order, each from the last answer's place */
    CHECK_INT(launches_find_earliest(&launches, 4, &hint) - calls, 2);
    CHECK_INT(launches_find_earliest(&launches, 9, &hint) - calls, 5);
    CHECK_INT(launches_find_earliest(&launches, 30, &hint) - calls, 14);
    CHECK(launches_find_earliest(&launches, 29, &hint) == NULL);
}

int main(void)
{
    test_first_from();
    test_find_earliest();
    if (!mkdtemp(directory))
        return 1;
    test_from_launches(0, 0);
    test_from_launches(1, 0);
    test_from_launches(0, 1);
    test_one_thread(1);
    test_one_thread(0);
    char command[256];
    snprintf(command, sizeof command, "rm -rf %s", directory);
    if (system(command) != 0)
        return 1;
    return check_finish();
}
