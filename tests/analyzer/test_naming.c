/* test_naming.c: the names every output shares (analyzer/naming.h): a copy's category and
 * label, a stream's role from its busy time, a process's label, a stretch of idle or exposed
 * communication time's name. */
#include "check.h"
#include "naming.h"
#include "store.h"

static void test_copies(void)
{
    CHECK_INT(store_copy_category(STORE_COPY_HTOD, STORE_NULL, STORE_NULL), ANALYSIS_COPY_HTOD);
    CHECK_INT(store_copy_category(STORE_COPY_DTOH, STORE_NULL, STORE_NULL), ANALYSIS_COPY_DTOH);
    CHECK_INT(store_copy_category(STORE_COPY_DTOD, 0, 0), ANALYSIS_COPY_DTOD);
    CHECK_INT(store_copy_category(STORE_COPY_DTOD, STORE_NULL, 1), ANALYSIS_COPY_DTOD);
    CHECK_INT(store_copy_category(STORE_COPY_DTOD, 0, 1), ANALYSIS_COPY_PEER);
    CHECK_INT(store_copy_category(STORE_COPY_PTOP, STORE_NULL, STORE_NULL), ANALYSIS_COPY_PEER);
    CHECK_INT(store_copy_category(STORE_COPY_HTOH, STORE_NULL, STORE_NULL), ANALYSIS_COPY_OTHER);
    CHECK_INT(store_copy_is_pageable(STORE_MEMORY_PAGEABLE, STORE_MEMORY_DEVICE), 1);
    CHECK_INT(store_copy_is_pageable(STORE_MEMORY_DEVICE, STORE_MEMORY_PAGEABLE), 1);
    CHECK_INT(store_copy_is_pageable(STORE_MEMORY_PINNED, STORE_MEMORY_DEVICE), 0);
    char label[64];
    CHECK_STR(naming_copy(label, sizeof label, STORE_COPY_HTOD, 64 << 20, 1), "HtoD 64.0 MiB (pageable)");
    CHECK_STR(naming_copy(label, sizeof label, STORE_COPY_DTOH, 8, 0), "DtoH 8 B");
}

static void test_roles(void)
{
    int64_t busy[ANALYSIS_CATEGORY_COUNT] = {0};
    CHECK_STR(store_stream_role(busy, 0), "idle");
    CHECK_STR(store_stream_role(busy, 1), "default");
    busy[ANALYSIS_COMMUNICATION] = 90;
    busy[ANALYSIS_COMPUTE] = 10;
    CHECK_STR(store_stream_role(busy, 0), "nccl"); /* 90% of its busy time */
    busy[ANALYSIS_COMPUTE] = 11;
    CHECK_STR(store_stream_role(busy, 0), "mixed");
    int64_t copies[ANALYSIS_CATEGORY_COUNT] = {
        [ANALYSIS_COPY_HTOD] = 50, [ANALYSIS_COPY_DTOH] = 45, [ANALYSIS_MEMSET] = 5};
    CHECK_STR(store_stream_role(copies, 0), "copy");
    copies[ANALYSIS_MEMSET] = 20; /* a memset is not a copy */
    CHECK_STR(store_stream_role(copies, 0), "mixed");
    int64_t compute[ANALYSIS_CATEGORY_COUNT] = {[ANALYSIS_COMPUTE] = 100};
    CHECK_STR(store_stream_role(compute, 0), "compute");
}

static void test_processes(void)
{
    char label[32];
    CHECK_STR(naming_process(label, sizeof label, 3, 1685, 1), "rank 3");
    CHECK_STR(naming_process(label, sizeof label, -1, 1685, 1), "pid 1685");
    CHECK_STR(naming_process(label, sizeof label, -1, -1, 2), "process 2");
}

/* The label says which call, rank or collective; where it only restates the cause, the title. */
static void test_accounting(void)
{
    char name[160];
    CHECK_STR(naming_accounting(name, sizeof name, ACCOUNTING_IDLE_HOST_SYNC, "cudaDeviceSynchronize"),
              "host blocked in cudaDeviceSynchronize");
    CHECK_STR(naming_accounting(name, sizeof name, ACCOUNTING_COMM_SKEW, "rank 0"), "waiting for rank 0");
    CHECK_STR(naming_accounting(name, sizeof name, ACCOUNTING_COMM_TRANSFER, "AllReduce"),
              "transfer (AllReduce)");
    CHECK_STR(naming_accounting(name, sizeof name, ACCOUNTING_IDLE_UNEXPLAINED, "no API records"),
              "unexplained (no API records)");
    CHECK_STR(naming_accounting(name, sizeof name, ACCOUNTING_IDLE_HOST_CPU, "no CUDA call"),
              accounting_cause_title(ACCOUNTING_IDLE_HOST_CPU));
    CHECK_STR(naming_accounting(name, sizeof name, ACCOUNTING_IDLE_HOST_SYNC, ""),
              accounting_cause_title(ACCOUNTING_IDLE_HOST_SYNC));
}

int main(void)
{
    test_copies();
    test_roles();
    test_processes();
    test_accounting();
    return check_finish();
}
