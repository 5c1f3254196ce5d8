/* test_op_source.c: a device's kernels as op_source reads them are the rows of the `kernels` view,
 * field by field and in the view's (process, device, start) index order. On a version 2 trace
 * op_source reads kernel_runs and takes each run's shape from memory instead of the view's join
 * (op_source.c), so this holds it to the view: a hand-built trace with shapes that have a priority
 * or none, a run whose shape row is gone (the view's LEFT JOIN gives NULLs), runs that start
 * together; then a recorded H100 golden (version 2) and a version 1 golden. */
#include <stdlib.h>

#include "check.h"
#include "op_source.h"
#include "trace_builder.h"

static char directory[] = "/tmp/overlapscope-test-op-source-XXXXXX";

/* Compares every kernel of (process, device) from op_source with the view's row. */
static void expect_view_rows(sqlite3 *db, int64_t process_id, int64_t device_id, int64_t at_least)
{
    error_info err;
    op_source *source = op_source_new(db, &err);
    CHECK(source != NULL);
    sqlite3_stmt *view = NULL;
    CHECK_INT(
        sqlite3_prepare_v2(db,
                           "SELECT rowid, stream_id, start_ns, end_ns, IFNULL(priority, ?3), name_id,"
                           " grid_x * grid_y * grid_z, block_x * block_y * block_z, registers_per_thread,"
                           " static_shared_bytes, dynamic_shared_bytes, shared_memory_executed_bytes"
                           " FROM kernels WHERE process_id = ?1 AND device_id = ?2 ORDER BY start_ns",
                           -1, &view, NULL),
        SQLITE_OK);
    if (!source || !view) {
        op_source_free(source);
        sqlite3_finalize(view);
        return;
    }
    sqlite3_bind_int64(view, 1, process_id);
    sqlite3_bind_int64(view, 2, device_id);
    sqlite3_bind_int64(view, 3, STORE_NULL);
    CHECK_INT(op_source_open(source, process_id, device_id, INT64_MIN, INT64_MAX, &err), 0);
    struct model_op op;
    int64_t kernels = 0;
    while (op_source_next(source, &op, &err) == 1) {
        if (op.kind != MODEL_KERNEL)
            continue;
        CHECK_INT(sqlite3_step(view), SQLITE_ROW);
        CHECK_INT(op.rowid, sqlite3_column_int64(view, 0));
        CHECK_INT(op.stream_id, sqlite3_column_int64(view, 1));
        CHECK_INT(op.start_ns, sqlite3_column_int64(view, 2));
        CHECK_INT(op.end_ns, sqlite3_column_int64(view, 3));
        CHECK_INT(op.priority, sqlite3_column_int64(view, 4));
        CHECK_INT(op.name_id, sqlite3_column_int64(view, 5));
        CHECK_INT(op.launch.grid_blocks, sqlite3_column_int64(view, 6));
        CHECK_INT(op.launch.threads_per_block, sqlite3_column_int64(view, 7));
        CHECK_INT(op.launch.registers_per_thread, sqlite3_column_int64(view, 8));
        CHECK_INT(op.launch.static_shared_bytes, sqlite3_column_int64(view, 9));
        CHECK_INT(op.launch.dynamic_shared_bytes, sqlite3_column_int64(view, 10));
        CHECK_INT(op.launch.shared_memory_per_sm_bytes, sqlite3_column_int64(view, 11));
        kernels++;
    }
    CHECK_INT(sqlite3_step(view), SQLITE_DONE);
    CHECK(kernels >= at_least);
    sqlite3_finalize(view);
    op_source_free(source);
}

static void test_hand_built(void)
{
    struct builder b;
    CHECK_INT(builder_create(&b, directory, "shapes.db"), 0);
    int64_t process = builder_process(&b, 0);
    builder_h100(&b, process, 0);
    struct store_kernel gemm = builder_kernel_row(process, 7, 0, 10, 264, 256, "sgemm_128x64");
    gemm.priority = -2;
    gemm.shared_memory_executed_bytes = 65536;
    builder_insert_kernel(&b, gemm);
    gemm.start_ns = AT(20);
    gemm.end_ns = AT(30);
    gemm.grid_x = 528;
    builder_insert_kernel(&b, gemm); /* the same shape, another grid */
    builder_insert_kernel(
        &b, builder_kernel_row(process, 8, 20, 25, 4, 64, "add")); /* starts with the second gemm */
    struct store_kernel gone = builder_kernel_row(process, 8, 40, 45, 2, 1024, "norm");
    gone.dynamic_shared_bytes = 4096;
    builder_insert_kernel(&b, gone);
    builder_insert_memcpy(
        &b, builder_memcpy_row(process, 9, 12, 18, STORE_COPY_HTOD, STORE_MEMORY_PINNED, 1 << 20));
    CHECK_INT(builder_finish(&b), 0);
    sqlite3 *db = store_db(b.trace);
    CHECK_INT(
        sqlite3_exec(
            db,
            "DELETE FROM kernel_shapes WHERE shape_id ="
            " (SELECT shape_id FROM kernel_runs WHERE start_ns = (SELECT MAX(start_ns) FROM kernel_runs))",
            NULL, NULL, NULL),
        SQLITE_OK);
    CHECK_INT(sqlite3_changes(db), 1);
    expect_view_rows(db, process, 0, 4);
    /* The run without its shape: what the view's LEFT JOIN gives, no name and no priority. */
    error_info err;
    op_source *source = op_source_new(db, &err);
    struct model_op op, last = {0};
    CHECK_INT(op_source_open(source, process, 0, INT64_MIN, INT64_MAX, &err), 0);
    while (op_source_next(source, &op, &err) == 1)
        last = op;
    CHECK_INT(last.start_ns, AT(40));
    CHECK_INT(last.name_id, 0);
    CHECK_INT(last.priority, STORE_NULL);
    CHECK_INT(last.launch.grid_blocks, 2);
    CHECK_INT(last.launch.dynamic_shared_bytes, 0);
    op_source_free(source);
    builder_close(&b);
}

static void test_golden(const char *folder, int64_t version, int64_t at_least)
{
    const char *data = getenv("OVERLAPSCOPE_TEST_DATA");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/many_streams_8.db", data ? data : "tests/data", folder);
    error_info err;
    store *trace = store_open(path, 1, &err);
    CHECK(trace != NULL);
    if (!trace)
        return;
    CHECK_INT(store_schema_version(trace), version);
    expect_view_rows(store_db(trace), 1, 0, at_least);
    store_close(trace, NULL);
}

int main(void)
{
    if (!mkdtemp(directory))
        return 1;
    test_hand_built();
    test_golden("gpu-h100", 2, 32);
    test_golden("gpu", 1, 32);
    char command[256];
    snprintf(command, sizeof command, "rm -rf %s", directory);
    if (system(command) != 0)
        return 1;
    return check_finish();
}
