/* The collector's blocking-call hook (collector/call_site_cupti.h) driven as CUPTI drives it, with
 * callback data built by hand (no GPU needed): which callback ids are blocking calls, and which
 * calls get a call_sources row. A runtime cudaDeviceSynchronize (correlation 7) with the driver's
 * cuCtxSynchronize inside it (8), a cudaLaunchKernel (9) and a synchronous cudaMemcpy (10):
 *   - with the collector's own callback records (only outer calls are api_calls rows): rows for 7
 *     and 10;
 *   - with CUPTI's API activity records (inner driver calls are rows too): 7, 8 and 10;
 *   - OVERLAPSCOPE_CALL_SOURCES=0: none.
 * This program is not Python and the capture code is linked into it, so the native caller is the
 * first frame outside the program: the C library's start code. */
#include <stdlib.h>
#include <string.h>

#include "call_site_cupti.h"
#include "call_sources.h"
#include "check.h"

static struct call_site_cupti blocking;

static void callback(struct call_site *sites, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                     CUpti_ApiCallbackSite site, uint32_t correlation_id)
{
    CUpti_CallbackData call = {.callbackSite = site, .correlationId = correlation_id};
    call_site_cupti_on_api(&blocking, sites, domain, id, &call);
}

static void call(struct call_site *sites, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                 uint32_t correlation_id)
{
    callback(sites, domain, id, CUPTI_API_ENTER, correlation_id);
    callback(sites, domain, id, CUPTI_API_EXIT, correlation_id);
}

/* The four calls above, written into a fresh trace; returns "ids|kind|source" of its rows. */
static void record(int enabled, int record_inner_calls, const char *directory, char *rows, size_t size)
{
    struct call_site sites;
    error_info err;
    CHECK_INT(call_site_init(&sites, enabled, &err), 0);
    sites.record_inner_calls = record_inner_calls;
    callback(&sites, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
             CUPTI_API_ENTER, 7);
    call(&sites, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, 8);
    callback(&sites, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
             CUPTI_API_EXIT, 7);
    call(&sites, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 9);
    call(&sites, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, 10);
    char path[512];
    snprintf(path, sizeof path, "%s/sources-%d%d.db", directory, enabled, record_inner_calls);
    store *trace = store_create(path, STORE_OVERWRITE | STORE_FAST_UNSAFE, &err);
    CHECK(trace != NULL);
    rows[0] = '\0';
    if (trace) {
        CHECK_INT(store_begin(trace, &err), 0);
        CHECK_INT(call_site_write(&sites, trace, 1, &err), 0);
        CHECK_INT(store_commit(trace, &err), 0);
        sqlite3_stmt *query = NULL;
        sqlite3_prepare_v2(
            store_db(trace),
            "SELECT group_concat(correlation_id), min(kind), max(kind), min(s.value) = max(s.value),"
            " min(s.value) FROM call_sources c JOIN strings s ON s.id = c.source_id",
            -1, &query, NULL);
        if (query && sqlite3_step(query) == SQLITE_ROW && sqlite3_column_type(query, 0) != SQLITE_NULL) {
            const char *source = (const char *)sqlite3_column_text(query, 4);
            snprintf(rows, size, "%s|%d|%d|%d|%s", (const char *)sqlite3_column_text(query, 0),
                     sqlite3_column_int(query, 1), sqlite3_column_int(query, 2), sqlite3_column_int(query, 3),
                     strstr(source, "libc.so") ? "libc" : source);
        }
        sqlite3_finalize(query);
        store_close(trace, NULL);
    }
    call_site_free(&sites);
}

static int blocks(CUpti_CallbackDomain domain, CUpti_CallbackId id)
{
    return domain == CUPTI_CB_DOMAIN_RUNTIME_API ? blocking.runtime[id] : blocking.driver[id];
}

int main(void)
{
    /* a trace without driver API records: no driver call is a blocking call to note */
    call_site_cupti_init(&blocking, 1, 0);
    CHECK_INT(blocking.driver[CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize], 0);
    CHECK_INT(call_site_cupti_ids(&blocking, CUPTI_CB_DOMAIN_DRIVER_API, (CUpti_CallbackId[4]){0}, 4), 0);
    call_site_cupti_init(&blocking, 1, 1);
    static const struct {
        CUpti_CallbackDomain domain;
        CUpti_CallbackId id;
        int blocks;
    } expected[] = {
        {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, 1},
        {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 1},
        {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020, 1},
        {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, 1},
        {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, 1},
        {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, 1},
        {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 0},
        {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, 0},
        {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020, 0},
        {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, 0},
        {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, 1},
        {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, 1},
        {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 0},
    };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        CHECK_INT(blocks(expected[i].domain, expected[i].id), expected[i].blocks);
    CUpti_CallbackId ids[1024];
    int runtime_ids = call_site_cupti_ids(&blocking, CUPTI_CB_DOMAIN_RUNTIME_API, ids, 1024);
    int listed = 0;
    for (int i = 0; i < runtime_ids; i++)
        listed += ids[i] == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020 ||
                  ids[i] == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
    CHECK_INT(listed, 1);

    char directory[] = "/tmp/overlapscope-test-call-site-XXXXXX";
    CHECK(mkdtemp(directory) != NULL);
    char rows[512];
    record(1, 0, directory, rows, sizeof rows);
    CHECK_STR(rows, "7,10|3|3|1|libc");
    record(1, 1, directory, rows, sizeof rows);
    CHECK_STR(rows, "7,8,10|3|3|1|libc");
    record(0, 0, directory, rows, sizeof rows);
    CHECK_STR(rows, "");
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", directory);
    CHECK_INT(system(command), 0);
    return check_finish();
}
