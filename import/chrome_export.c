/* chrome_export.c: a trace as Chrome trace-event JSON (see chrome_export.h). The format is the
 * "Trace Event Format" document (Google, docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU):
 * ph X complete events with ts/dur in microseconds, ph i instants, ph s/f flow pairs sharing an
 * id, ph M metadata naming processes and threads. Owns: the output FILE while writing. */
#include "chrome_export.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output_file.h"
#include "text_safe.h"

struct writer {
    FILE *out;
    store *trace;
    int64_t origin_ns;
    int64_t flow_id;
    struct chrome_export_counts counts;
};

static void write_string(FILE *out, const char *text)
{
    fputc('"', out);
    text_safe_fputs(text, TEXT_SAFE_JSON, out); /* names that are not UTF-8 would make the file invalid JSON */
    fputc('"', out);
}

/* Nanoseconds as microseconds with exactly three decimals, from integers. */
static void write_microseconds(FILE *out, int64_t nanoseconds)
{
    const char *sign = nanoseconds < 0 ? "-" : "";
    uint64_t magnitude = nanoseconds < 0 ? (uint64_t)0 - (uint64_t)nanoseconds : (uint64_t)nanoseconds;
    fprintf(out, "%s%" PRIu64 ".%03u", sign, magnitude / 1000, (unsigned)(magnitude % 1000));
}

/* The common head of an event: {"ph":..,"cat":..,"name":..,"pid":..,"tid":..,"ts":.. */
static void begin_event(struct writer *w, const char *phase, const char *category, const char *name, int64_t pid,
                        int64_t tid, int64_t start_ns)
{
    fputs(",\n{\"ph\":\"", w->out);
    fputs(phase, w->out);
    fputs("\",\"cat\":", w->out);
    write_string(w->out, category);
    fputs(",\"name\":", w->out);
    write_string(w->out, name);
    fprintf(w->out, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":", pid, tid);
    write_microseconds(w->out, start_ns - w->origin_ns);
}

static void write_duration(struct writer *w, int64_t start_ns, int64_t end_ns)
{
    fputs(",\"dur\":", w->out);
    write_microseconds(w->out, end_ns > start_ns ? end_ns - start_ns : 0);
    w->counts.complete_events++;
}

/* ,"key":value for a column that is not NULL. */
static void arg_int(FILE *out, const char *key, sqlite3_stmt *row, int column)
{
    if (sqlite3_column_type(row, column) != SQLITE_NULL)
        fprintf(out, ",\"%s\":%" PRId64, key, (int64_t)sqlite3_column_int64(row, column));
}

static void arg_text(FILE *out, const char *key, sqlite3_stmt *row, int column)
{
    const unsigned char *text = sqlite3_column_text(row, column);
    if (text) {
        fprintf(out, ",\"%s\":", key);
        write_string(out, (const char *)text);
    }
}

static int64_t column(sqlite3_stmt *row, int index)
{
    return (int64_t)sqlite3_column_int64(row, index);
}

static const char *text_column(sqlite3_stmt *row, int index)
{
    const unsigned char *text = sqlite3_column_text(row, index);
    return text ? (const char *)text : "";
}

typedef void (*row_writer)(struct writer *w, sqlite3_stmt *row);

static int for_each_row(struct writer *w, const char *sql, row_writer write_row, error_info *err)
{
    sqlite3 *db = store_db(w->trace);
    sqlite3_stmt *row = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &row, NULL) != SQLITE_OK)
        return error_set(err, "cannot read '%s': %s", store_path(w->trace), sqlite3_errmsg(db));
    int rc;
    while ((rc = sqlite3_step(row)) == SQLITE_ROW)
        write_row(w, row);
    sqlite3_finalize(row);
    if (rc != SQLITE_DONE)
        return error_set(err, "cannot read '%s': %s", store_path(w->trace), sqlite3_errmsg(db));
    return 0;
}

static void write_metadata(struct writer *w, const char *what, int64_t pid, int64_t tid, const char *name,
                           int64_t sort_index)
{
    fprintf(w->out, ",\n{\"ph\":\"M\",\"name\":\"%s_name\",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"args\":{\"name\":",
            what, pid, tid);
    write_string(w->out, name);
    fprintf(w->out, "}},\n{\"ph\":\"M\",\"name\":\"%s_sort_index\",\"pid\":%" PRId64 ",\"tid\":%" PRId64
                    ",\"args\":{\"sort_index\":%" PRId64 "}}",
            what, pid, tid, sort_index);
    w->counts.metadata_events += 2;
}

static void write_process(struct writer *w, sqlite3_stmt *row)
{
    char name[256];
    int64_t rank = sqlite3_column_type(row, 2) == SQLITE_NULL ? -1 : column(row, 2);
    int length = rank >= 0 ? snprintf(name, sizeof name, "rank %" PRId64 " ", rank) : 0;
    snprintf(name + length, sizeof name - (size_t)length, "pid %" PRId64 "%s%s%s", column(row, 1),
             sqlite3_column_text(row, 3) ? " (" : "", text_column(row, 3), sqlite3_column_text(row, 3) ? ")" : "");
    write_metadata(w, "process", column(row, 0), 0, name, rank >= 0 ? rank : column(row, 0) + 1000000);
}

static void write_stream_name(struct writer *w, sqlite3_stmt *row)
{
    char name[128];
    snprintf(name, sizeof name, "stream %" PRId64 ", GPU %" PRId64 "%s%s", column(row, 2), column(row, 1),
             sqlite3_column_text(row, 3) ? " " : "", text_column(row, 3));
    write_metadata(w, "thread", column(row, 0), column(row, 2), name, column(row, 2));
}

static void write_thread_name(struct writer *w, sqlite3_stmt *row)
{
    char name[64];
    snprintf(name, sizeof name, "thread %" PRId64, column(row, 1));
    write_metadata(w, "thread", column(row, 0), column(row, 1), name, 1000000 + column(row, 1));
}

enum { KERNEL_PROCESS, KERNEL_DEVICE, KERNEL_STREAM, KERNEL_CORRELATION, KERNEL_START, KERNEL_END, KERNEL_NAME,
       KERNEL_GRID_X, KERNEL_GRID_Y, KERNEL_GRID_Z, KERNEL_BLOCK_X, KERNEL_BLOCK_Y, KERNEL_BLOCK_Z,
       KERNEL_REGISTERS, KERNEL_STATIC_SHARED, KERNEL_DYNAMIC_SHARED, COLLECTIVE_OP, COLLECTIVE_BYTES,
       COLLECTIVE_COUNT, COLLECTIVE_DTYPE, COLLECTIVE_COMMUNICATOR, COLLECTIVE_RANK, COLLECTIVE_NRANKS,
       COLLECTIVE_ALGORITHM, COLLECTIVE_PROTOCOL, COLLECTIVE_SEQUENCE };

static void write_kernel(struct writer *w, sqlite3_stmt *row)
{
    FILE *out = w->out;
    begin_event(w, "X", "kernel", text_column(row, KERNEL_NAME), column(row, KERNEL_PROCESS), column(row, KERNEL_STREAM),
                column(row, KERNEL_START));
    write_duration(w, column(row, KERNEL_START), column(row, KERNEL_END));
    fprintf(out, ",\"args\":{\"device\":%" PRId64 ",\"stream\":%" PRId64, column(row, KERNEL_DEVICE),
            column(row, KERNEL_STREAM));
    arg_int(out, "correlation", row, KERNEL_CORRELATION);
    if (sqlite3_column_type(row, KERNEL_GRID_X) != SQLITE_NULL)
        fprintf(out, ",\"grid\":[%" PRId64 ",%" PRId64 ",%" PRId64 "],\"block\":[%" PRId64 ",%" PRId64 ",%" PRId64 "]",
                column(row, KERNEL_GRID_X), column(row, KERNEL_GRID_Y), column(row, KERNEL_GRID_Z),
                column(row, KERNEL_BLOCK_X), column(row, KERNEL_BLOCK_Y), column(row, KERNEL_BLOCK_Z));
    arg_int(out, "registers per thread", row, KERNEL_REGISTERS);
    arg_int(out, "static shared memory", row, KERNEL_STATIC_SHARED);
    arg_int(out, "dynamic shared memory", row, KERNEL_DYNAMIC_SHARED);
    arg_text(out, "collective", row, COLLECTIVE_OP);
    arg_int(out, "bytes", row, COLLECTIVE_BYTES);
    arg_int(out, "elements", row, COLLECTIVE_COUNT);
    arg_text(out, "dtype", row, COLLECTIVE_DTYPE);
    arg_text(out, "communicator", row, COLLECTIVE_COMMUNICATOR);
    arg_int(out, "rank", row, COLLECTIVE_RANK);
    arg_int(out, "nranks", row, COLLECTIVE_NRANKS);
    arg_text(out, "algorithm", row, COLLECTIVE_ALGORITHM);
    arg_text(out, "protocol", row, COLLECTIVE_PROTOCOL);
    arg_int(out, "sequence", row, COLLECTIVE_SEQUENCE);
    fputs("}}", out);
}

static int64_t kind_or_unknown(sqlite3_stmt *row, int index)
{
    return sqlite3_column_type(row, index) == SQLITE_NULL ? 0 : column(row, index);
}

/* Copies and memsets share their first six columns (process, device, stream, correlation, start,
 * end) and carry bytes in bytes_column. */
static void write_transfer(struct writer *w, sqlite3_stmt *row, const char *category, const char *name,
                           int bytes_column)
{
    begin_event(w, "X", category, name, column(row, 0), column(row, 2), column(row, 4));
    write_duration(w, column(row, 4), column(row, 5));
    fprintf(w->out, ",\"args\":{\"device\":%" PRId64 ",\"stream\":%" PRId64 ",\"bytes\":%" PRId64, column(row, 1),
            column(row, 2), column(row, bytes_column));
    arg_int(w->out, "correlation", row, 3);
    fputs("}}", w->out);
}

static void write_memcpy(struct writer *w, sqlite3_stmt *row)
{
    char name[96];
    snprintf(name, sizeof name, "Memcpy %s (%s -> %s)", store_copy_kind_name(column(row, 6)),
             store_memory_kind_name(kind_or_unknown(row, 7)), store_memory_kind_name(kind_or_unknown(row, 8)));
    write_transfer(w, row, "gpu_memcpy", name, 9);
}

static void write_memset(struct writer *w, sqlite3_stmt *row)
{
    char name[64];
    snprintf(name, sizeof name, "Memset (%s)", store_memory_kind_name(kind_or_unknown(row, 6)));
    write_transfer(w, row, "gpu_memset", name, 7);
}

static void write_sync(struct writer *w, sqlite3_stmt *row)
{
    int64_t lane = sqlite3_column_type(row, 1) == SQLITE_NULL ? 0 : column(row, 1);
    begin_event(w, "X", "cuda_sync", store_sync_type_name(column(row, 3)), column(row, 0), lane, column(row, 5));
    write_duration(w, column(row, 5), column(row, 6));
    fputs(",\"args\":{\"sync_type\":", w->out);
    write_string(w->out, store_sync_type_name(column(row, 3)));
    arg_int(w->out, "stream", row, 1);
    arg_int(w->out, "event", row, 2);
    arg_int(w->out, "correlation", row, 4);
    fputs("}}", w->out);
}

static void write_api_call(struct writer *w, sqlite3_stmt *row)
{
    begin_event(w, "X", column(row, 2) == STORE_API_DRIVER ? "cuda_driver" : "cuda_runtime", text_column(row, 3),
                column(row, 0), column(row, 1), column(row, 5));
    write_duration(w, column(row, 5), column(row, 6));
    fputs(",\"args\":{\"thread\":", w->out);
    fprintf(w->out, "%" PRId64, column(row, 1));
    arg_int(w->out, "correlation", row, 4);
    arg_int(w->out, "cbid", row, 7);
    arg_int(w->out, "return", row, 8);
    fputs("}}", w->out);
}

static void write_nvtx(struct writer *w, sqlite3_stmt *row)
{
    int on_gpu = sqlite3_column_type(row, 2) != SQLITE_NULL;
    int64_t lane = on_gpu ? column(row, 2) : column(row, 1);
    int is_mark = column(row, 3) == STORE_NVTX_MARK;
    begin_event(w, is_mark ? "i" : "X", on_gpu ? "gpu_user_annotation" : "nvtx", text_column(row, 4), column(row, 0),
                lane, column(row, 6));
    if (is_mark) {
        fputs(",\"s\":\"t\"", w->out);
        w->counts.instant_events++;
    } else {
        write_duration(w, column(row, 6), column(row, 7));
    }
    fputs(",\"args\":{", w->out);
    fputs("\"domain\":", w->out);
    write_string(w->out, sqlite3_column_text(row, 5) ? text_column(row, 5) : "default");
    fputs("}}", w->out);
}

/* Launch (API call) to GPU op: a flow start at the call and an end bound to the op's slice. */
static void write_flow(struct writer *w, sqlite3_stmt *row)
{
    int64_t id = ++w->flow_id;
    fprintf(w->out, ",\n{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"launch\",\"id\":%" PRId64 ",\"pid\":%" PRId64
                    ",\"tid\":%" PRId64 ",\"ts\":",
            id, column(row, 0), column(row, 1));
    write_microseconds(w->out, column(row, 2) - w->origin_ns);
    fprintf(w->out, "},\n{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"ac2g\",\"name\":\"launch\",\"id\":%" PRId64
                    ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":",
            id, column(row, 0), column(row, 3));
    write_microseconds(w->out, column(row, 4) - w->origin_ns);
    fputs("}", w->out);
    w->counts.flow_events += 2;
}

static int64_t trace_origin(store *trace)
{
    static const char *const sql = "SELECT MIN(m) FROM (SELECT MIN(start_ns) m FROM kernels UNION ALL"
                                   " SELECT MIN(start_ns) FROM memcpys UNION ALL SELECT MIN(start_ns) FROM memsets"
                                   " UNION ALL SELECT MIN(start_ns) FROM api_calls UNION ALL"
                                   " SELECT MIN(start_ns) FROM nvtx UNION ALL SELECT MIN(start_ns) FROM synchronizations)";
    sqlite3_stmt *query = NULL;
    int64_t origin = 0;
    if (sqlite3_prepare_v2(store_db(trace), sql, -1, &query, NULL) == SQLITE_OK && sqlite3_step(query) == SQLITE_ROW)
        origin = sqlite3_column_int64(query, 0);
    sqlite3_finalize(query);
    return origin;
}

static int write_events(struct writer *w, error_info *err)
{
    static const struct {
        const char *sql;
        row_writer write_row;
    } passes[] = {
        {"SELECT process_id, pid, rank, host FROM processes ORDER BY process_id", write_process},
        {"SELECT process_id, device_id, stream_id, label FROM streams UNION SELECT DISTINCT process_id, device_id,"
         " stream_id, NULL FROM (SELECT process_id, device_id, stream_id FROM kernels UNION SELECT process_id,"
         " device_id, stream_id FROM memcpys UNION SELECT process_id, device_id, stream_id FROM memsets)"
         " WHERE (process_id, stream_id) NOT IN (SELECT process_id, stream_id FROM streams)"
         " ORDER BY 1, 3",
         write_stream_name},
        {"SELECT DISTINCT process_id, thread_id FROM api_calls UNION SELECT DISTINCT process_id, thread_id FROM nvtx"
         " WHERE thread_id IS NOT NULL AND device_id IS NULL ORDER BY 1, 2",
         write_thread_name},
        {"SELECT k.process_id, k.device_id, k.stream_id, k.correlation_id, k.start_ns, k.end_ns, s.value, k.grid_x,"
         " k.grid_y, k.grid_z, k.block_x, k.block_y, k.block_z, k.registers_per_thread, k.static_shared_bytes,"
         " k.dynamic_shared_bytes, c.op, c.bytes, c.element_count, c.dtype, c.communicator, c.rank, c.nranks,"
         " c.algorithm, c.protocol, c.sequence_number FROM kernels k JOIN strings s ON s.id = k.name_id"
         " LEFT JOIN collectives c ON c.kernel_rowid = k.rowid ORDER BY k.process_id, k.start_ns",
         write_kernel},
        {"SELECT process_id, device_id, stream_id, correlation_id, start_ns, end_ns, copy_kind, src_kind, dst_kind,"
         " bytes FROM memcpys ORDER BY process_id, start_ns",
         write_memcpy},
        {"SELECT process_id, device_id, stream_id, correlation_id, start_ns, end_ns, memory_kind, bytes FROM memsets"
         " ORDER BY process_id, start_ns",
         write_memset},
        {"SELECT process_id, stream_id, event_id, sync_type, correlation_id, start_ns, end_ns FROM synchronizations"
         " ORDER BY process_id, start_ns",
         write_sync},
        {"SELECT a.process_id, a.thread_id, a.api_domain, s.value, a.correlation_id, a.start_ns, a.end_ns,"
         " a.callback_id, a.return_value FROM api_calls a JOIN strings s ON s.id = a.name_id"
         " ORDER BY a.process_id, a.start_ns",
         write_api_call},
        {"SELECT n.process_id, n.thread_id, n.stream_id, n.kind, m.value, d.value, n.start_ns, n.end_ns FROM nvtx n"
         " JOIN strings m ON m.id = n.message_id LEFT JOIN strings d ON d.id = n.domain_id"
         " ORDER BY n.process_id, n.start_ns",
         write_nvtx},
        {"SELECT a.process_id, a.thread_id, a.start_ns, g.stream_id, g.start_ns FROM api_calls a JOIN"
         " (SELECT process_id, correlation_id, stream_id, start_ns FROM kernels UNION ALL"
         "  SELECT process_id, correlation_id, stream_id, start_ns FROM memcpys UNION ALL"
         "  SELECT process_id, correlation_id, stream_id, start_ns FROM memsets) g"
         " ON g.process_id = a.process_id AND g.correlation_id = a.correlation_id"
         " ORDER BY a.process_id, a.start_ns",
         write_flow},
    };
    for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++)
        if (for_each_row(w, passes[i].sql, passes[i].write_row, err) != 0)
            return -1;
    return 0;
}

static int write_document(struct writer *w, error_info *err)
{
    char *source = store_get_meta(w->trace, "source");
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"overlapscope\",\"origin_ns\":", w->out);
    fprintf(w->out, "\"%" PRId64 "\",\"source\":", w->origin_ns);
    write_string(w->out, source ? source : "unknown");
    free(source);
    /* An empty first event keeps every later one free to start with a comma. */
    fputs("},\n\"traceEvents\":[\n{\"ph\":\"M\",\"name\":\"trace_origin\",\"pid\":0,\"tid\":0,\"args\":{\"origin_ns\":",
          w->out);
    fprintf(w->out, "%" PRId64 "}}", w->origin_ns);
    w->counts.metadata_events++;
    if (write_events(w, err) != 0)
        return -1;
    fputs("\n]}\n", w->out);
    return 0;
}

int chrome_export_write(store *trace, const char *output_path, int force, struct chrome_export_counts *counts,
                        error_info *err)
{
    struct writer w = {.trace = trace, .origin_ns = trace_origin(trace)};
    int to_stdout = strcmp(output_path, "-") == 0;
    const char *input = store_path(trace);
    output_file *output = to_stdout ? NULL : output_file_begin(output_path, force, &input, 1, err);
    if (!to_stdout && !output)
        return -1;
    w.out = to_stdout ? stdout : output_file_stream(output, err);
    if (!w.out) {
        output_file_discard(output);
        return -1;
    }
    char *buffer = to_stdout ? NULL : malloc(1 << 20);
    if (buffer)
        setvbuf(w.out, buffer, _IOFBF, 1 << 20);
    int status = write_document(&w, err);
    if (to_stdout) {
        if (fflush(stdout) != 0 && status == 0)
            status = error_set(err, "cannot write to stdout");
    } else if (status == 0) {
        status = output_file_commit(output, err); /* closes w.out, before its buffer goes */
    } else {
        output_file_discard(output);
    }
    free(buffer);
    if (status == 0 && counts)
        *counts = w.counts;
    return status;
}
