/* nsys_target.c: what an Nsight Systems export says about the traced machine (see nsys_parts.h):
 * the session's clock, the host name, the names and command lines of the processes and the names of
 * their threads, the GPUs each process saw, and the streams as they were created (flags, priority,
 * the legacy NULL stream). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_parts.h"
#include "threads.h"

struct device_record {
    struct store_device device;
    int64_t pid;
};

#define DEVICE(member) NSYS_INT64_AT(struct device_record, member)

static int64_t divided(int64_t value, int64_t divisor)
{
    return value == STORE_NULL ? STORE_NULL : value / divisor;
}

static int import_device_row(struct nsys_state *state, void *record, error_info *err)
{
    struct device_record *row = record;
    struct store_device *device = &row->device;
    device->process_id = row->pid == STORE_NULL ? (state->pid_count ? state->pids[0].process_id : 0)
                                                : nsys_process_for_pid(state, row->pid, err);
    if (!device->process_id)
        return row->pid == STORE_NULL ? 0 : -1;
    if (device->max_warps_per_sm != STORE_NULL && device->warp_size != STORE_NULL &&
        __builtin_mul_overflow(device->max_warps_per_sm, device->warp_size, &device->max_threads_per_sm))
        device->max_threads_per_sm = STORE_NULL;
    device->global_memory_bandwidth_kbps = divided(device->global_memory_bandwidth_kbps, 1000); /* B/s */
    device->core_clock_khz = divided(device->core_clock_khz, 1000);                             /* Hz */
    if (device->device_id == STORE_NULL)
        return 0;
    return store_insert_device(state->s, device, err);
}

/* TARGET_INFO_CUDA_DEVICE says which GPU (gpuId) each process saw as which CUDA ordinal (cudaId);
 * without it every GPU is given to every process under its own id. */
int nsys_import_devices(struct nsys_state *state, error_info *err)
{
    if (!store_db_has_table(state->db, "TARGET_INFO_GPU") ||
        !store_db_has_column(state->db, "TARGET_INFO_GPU", "id"))
        return 0;
    int mapped = store_db_has_table(state->db, "TARGET_INFO_CUDA_DEVICE") &&
                 store_db_has_column(state->db, "TARGET_INFO_CUDA_DEVICE", "gpuId") &&
                 store_db_has_column(state->db, "TARGET_INFO_CUDA_DEVICE", "cudaId") &&
                 store_db_has_column(state->db, "TARGET_INFO_CUDA_DEVICE", "pid");
    const struct nsys_column columns[] = {
        {mapped ? "=m.cudaId" : "id", NSYS_INTEGER, DEVICE(device.device_id), 0},
        {mapped ? "=m.pid" : "=NULL", NSYS_INTEGER, DEVICE(pid), 0},
        {"name", NSYS_TEXT, NSYS_TEXT_AT(struct device_record, device.name), 0},
        {"uuid", NSYS_TEXT, NSYS_TEXT_AT(struct device_record, device.uuid), 0},
        {"smCount", NSYS_INTEGER, DEVICE(device.sm_count), 0},
        {"computeMajor", NSYS_INTEGER, DEVICE(device.compute_capability_major), 0},
        {"computeMinor", NSYS_INTEGER, DEVICE(device.compute_capability_minor), 0},
        {"maxBlocksPerSm", NSYS_INTEGER, DEVICE(device.max_blocks_per_sm), 0},
        {"maxWarpsPerSm", NSYS_INTEGER, DEVICE(device.max_warps_per_sm), 0},
        {"maxThreadsPerBlock", NSYS_INTEGER, DEVICE(device.max_threads_per_block), 0},
        {"maxRegistersPerSm", NSYS_INTEGER, DEVICE(device.max_registers_per_sm), 0},
        {"maxRegistersPerBlock", NSYS_INTEGER, DEVICE(device.max_registers_per_block), 0},
        {"maxShmemPerSm", NSYS_INTEGER, DEVICE(device.max_shared_memory_per_sm), 0},
        {"maxShmemPerBlock", NSYS_INTEGER, DEVICE(device.max_shared_memory_per_block), 0},
        {"maxShmemPerBlockOptin", NSYS_INTEGER, DEVICE(device.max_shared_memory_per_block_optin), 0},
        {"totalMemory", NSYS_INTEGER, DEVICE(device.global_memory_bytes), 0},
        {"memoryBandwidth", NSYS_INTEGER, DEVICE(device.global_memory_bandwidth_kbps),
         0}, /* B/s until divided */
        {"l2CacheSize", NSYS_INTEGER, DEVICE(device.l2_cache_bytes), 0},
        {"clockRate", NSYS_INTEGER, DEVICE(device.core_clock_khz), 0}, /* Hz until divided */
        {"asyncEngines", NSYS_INTEGER, DEVICE(device.copy_engine_count), 0},
        {"threadsPerWarp", NSYS_INTEGER, DEVICE(device.warp_size), 0}};
    static const struct device_record defaults = {
        .device = {.pci_bus_id = STORE_NULL, .max_threads_per_sm = STORE_NULL}};
    if (mapped) {
        const struct nsys_table table =
            NSYS_TABLE("TARGET_INFO_GPU", columns,
                       "JOIN TARGET_INFO_CUDA_DEVICE m ON m.gpuId = t.id ORDER BY m.pid, m.cudaId", defaults,
                       NULL, import_device_row);
        return nsys_read_table(state, &table, err);
    }
    /* Unmapped: one copy per process already seen. */
    const struct nsys_table table =
        NSYS_TABLE("TARGET_INFO_GPU", columns, "ORDER BY t.id", defaults, NULL, import_device_row);
    size_t processes = state->pid_count;
    for (size_t p = 0; p < processes; p++) {
        struct nsys_pid_entry first = state->pids[0];
        state->pids[0] = state->pids[p];
        int status = nsys_read_table(state, &table, err);
        state->pids[p] = state->pids[0];
        state->pids[0] = first;
        if (status != 0)
            return -1;
    }
    return 0;
}

/* One text of the export (the first row of sql), or NULL. Caller frees. */
static char *first_text(sqlite3 *db, const char *sql, const char *bound)
{
    sqlite3_stmt *query = NULL;
    char *text = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &query, NULL) == SQLITE_OK) {
        if (bound)
            sqlite3_bind_text(query, 1, bound, -1, SQLITE_STATIC);
        if (sqlite3_step(query) == SQLITE_ROW && sqlite3_column_text(query, 0))
            text = strdup((const char *)sqlite3_column_text(query, 0));
    }
    sqlite3_finalize(query);
    return text;
}

struct session_record {
    int64_t start_ns;
};

static int note_session_start(struct nsys_state *state, void *record, error_info *err)
{
    const struct session_record *row = record;
    if (row->start_ns == STORE_NULL)
        return 0;
    /* Every time of the export is moved by it: beyond the readers' bounds, all of them would be. */
    if (row->start_ns > STORE_MAX_ABS_TIME_NS || row->start_ns < -STORE_MAX_ABS_TIME_NS)
        return error_set(
            err, "%s: TARGET_INFO_SESSION_START_TIME: utcEpochNs %lld is beyond any clock (+-2^61 ns)",
            state->name, (long long)row->start_ns);
    state->time_offset_ns = row->start_ns;
    return 0;
}

static const struct nsys_column session_columns[] = {
    {"utcEpochNs", NSYS_INTEGER, NSYS_INT64_AT(struct session_record, start_ns), 0}};
static const struct session_record session_defaults;

static int read_session_start(struct nsys_state *state, error_info *err)
{
    static const struct nsys_table table = NSYS_TABLE("TARGET_INFO_SESSION_START_TIME", session_columns,
                                                      "LIMIT 1", session_defaults, NULL, note_session_start);
    return nsys_read_table(state, &table, err);
}

/* The traced machine (TARGET_INFO_SYSTEM_ENV's Hostname; META_DATA_EXPORT's EXPORT_HOST is the
 * machine that ran `nsys export`, not it). */
static void read_host(struct nsys_state *state)
{
    if (store_db_has_table(state->db, "TARGET_INFO_SYSTEM_ENV") &&
        store_db_has_column(state->db, "TARGET_INFO_SYSTEM_ENV", "name") &&
        store_db_has_column(state->db, "TARGET_INFO_SYSTEM_ENV", "value"))
        state->host = first_text(state->db,
                                 "SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'Hostname'"
                                 " AND value != '' LIMIT 1",
                                 NULL);
}

/* The command nsys launched, with its arguments (META_DATA_CAPTURE, nsys 2024.5 on: PROCESS_0:COMMAND,
 * PROCESS_0:ARGUMENT_0 ...), space-joined; NULL when the export does not say. Caller frees. */
static char *launched_command(struct nsys_state *state, char **command)
{
    *command = NULL;
    if (!store_db_has_table(state->db, "META_DATA_CAPTURE") ||
        !store_db_has_column(state->db, "META_DATA_CAPTURE", "name") ||
        !store_db_has_column(state->db, "META_DATA_CAPTURE", "value"))
        return NULL;
    static const char *const sql = "SELECT value FROM META_DATA_CAPTURE WHERE name = ?1 LIMIT 1";
    *command = first_text(state->db, sql, "PROCESS_0:COMMAND");
    if (!*command)
        return NULL;
    size_t size = strlen(*command) + 1;
    char *line = malloc(size);
    if (!line)
        return NULL;
    memcpy(line, *command, size);
    /* The store keeps 4096 bytes of a text: no need to read further arguments than that. */
    for (int i = 0; i < 4096 && size < 2 * STORE_MAX_TEXT_BYTES; i++) {
        char key[48];
        snprintf(key, sizeof key, "PROCESS_0:ARGUMENT_%d", i);
        char *argument = first_text(state->db, sql, key);
        if (!argument)
            break;
        size_t length = strlen(argument);
        char *grown = realloc(line, size + length + 1);
        if (grown) {
            line = grown;
            line[size - 1] = ' ';
            memcpy(line + size, argument, length + 1);
            size += length + 1;
        }
        free(argument);
        if (!grown)
            break;
    }
    return line;
}

/* PROCESSES (every process of the machine, by pid) into an indexed temporary table the process
 * map names processes from; the launched process gets its arguments. */
static int read_process_names(struct nsys_state *state, error_info *err)
{
    if (!store_db_has_table(state->db, "PROCESSES") || !store_db_has_column(state->db, "PROCESSES", "name"))
        return 0;
    const char *pid =
        store_db_has_column(state->db, "PROCESSES", "pid") ? "pid" : "(globalPid >> 24) & 16777215";
    char sql[512];
    snprintf(sql, sizeof sql,
             "DROP TABLE IF EXISTS temp.overlapscope_process_names;"
             "CREATE TEMP TABLE overlapscope_process_names (pid INTEGER PRIMARY KEY, name TEXT);"
             "INSERT OR IGNORE INTO temp.overlapscope_process_names SELECT %s, name FROM PROCESSES"
             " WHERE name IS NOT NULL AND name != ''",
             pid);
    if (nsys_exec(state, sql, "PROCESSES", err) != 0)
        return -1;
    char *command = NULL, *line = launched_command(state, &command);
    int status = 0;
    if (line) {
        sqlite3_stmt *update = NULL;
        if (sqlite3_prepare_v2(state->db,
                               "UPDATE temp.overlapscope_process_names SET name = ?1 WHERE name = ?2", -1,
                               &update, NULL) == SQLITE_OK) {
            sqlite3_bind_text(update, 1, line, -1, SQLITE_STATIC);
            sqlite3_bind_text(update, 2, command, -1, SQLITE_STATIC);
            if (sqlite3_step(update) != SQLITE_DONE)
                status =
                    error_set(err, "%s: cannot read PROCESSES: %s", state->name, sqlite3_errmsg(state->db));
        }
        sqlite3_finalize(update);
    }
    free(line);
    free(command);
    if (status == 0 &&
        sqlite3_prepare_v2(state->db, "SELECT name FROM temp.overlapscope_process_names WHERE pid = ?1", -1,
                           &state->process_name_query, NULL) != SQLITE_OK)
        status = error_set(err, "%s: cannot read PROCESSES: %s", state->name, sqlite3_errmsg(state->db));
    return status;
}

int nsys_read_target(struct nsys_state *state, error_info *err)
{
    if (read_session_start(state, err) != 0)
        return -1;
    read_host(state);
    return read_process_names(state, err);
}

/* --- streams --- */

/* The contexts' devices, from the tables that give them (the activity gave the rest), and their
 * NULL streams. */
struct context_record {
    int64_t pid, context_id, device_id, null_stream;
};

static int note_context_row(struct nsys_state *state, void *record, error_info *err)
{
    const struct context_record *row = record;
    int64_t process_id = nsys_known_process(state, row->pid);
    if (!process_id)
        return 0;
    if (nsys_note_context(state, process_id, row->context_id, row->device_id) != 0)
        return error_set(err, "%s: out of memory", state->name);
    if (row->null_stream == STORE_NULL || row->context_id == STORE_NULL)
        return 0;
    /* The context's NULL stream: the legacy default stream (CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL). */
    if (stream_set_describe(&state->streams, process_id,
                            nsys_device_of_context(state, process_id, row->context_id), row->context_id,
                            row->null_stream, 1, STORE_NULL, 3) != 0)
        return error_set(err, "%s: out of memory", state->name);
    return 0;
}

#define CONTEXT(member) NSYS_INT64_AT(struct context_record, member)

/* 2024.5 on: TARGET_INFO_CUDA_CONTEXT_INFO.nullStreamId; 2022.2: TARGET_INFO_CUDA_NULL_STREAM. */
static const struct nsys_column context_columns[] = {{"processId", NSYS_INTEGER, CONTEXT(pid), 0},
                                                     {"contextId", NSYS_INTEGER, CONTEXT(context_id), 0},
                                                     {"deviceId", NSYS_INTEGER, CONTEXT(device_id), 0},
                                                     {"nullStreamId", NSYS_ID, CONTEXT(null_stream), 0}};
static const struct nsys_column null_stream_columns[] = {{"processId", NSYS_INTEGER, CONTEXT(pid), 0},
                                                         {"contextId", NSYS_INTEGER, CONTEXT(context_id), 0},
                                                         {"deviceId", NSYS_INTEGER, CONTEXT(device_id), 0},
                                                         {"streamId", NSYS_ID, CONTEXT(null_stream), 0}};
static const struct context_record context_defaults;

struct stream_record {
    int64_t pid, context_id, stream_id, priority, flag;
};

static int describe_stream_row(struct nsys_state *state, void *record, error_info *err)
{
    const struct stream_record *row = record;
    int64_t process_id = nsys_known_process(state, row->pid);
    if (!process_id || row->context_id == STORE_NULL || row->stream_id == STORE_NULL)
        return 0;
    /* CUpti_ActivityStreamFlag (ENUM_CUPTI_STREAM_TYPE): 1 default (blocking), 2 non-blocking, 3 the
     * NULL stream; the priority is CUPTI's int32, which nsys writes unsigned (-5 as 4294967291). */
    int64_t flag = row->flag < 0 || row->flag > 3 ? 0 : row->flag;
    int64_t priority = row->priority == STORE_NULL ? STORE_NULL : (int32_t)(uint32_t)row->priority;
    if (stream_set_describe(&state->streams, process_id,
                            nsys_device_of_context(state, process_id, row->context_id), row->context_id,
                            row->stream_id, flag == 3, priority, flag) != 0)
        return error_set(err, "%s: out of memory", state->name);
    return 0;
}

#define STREAM(member) NSYS_INT64_AT(struct stream_record, member)

static const struct nsys_column stream_columns[] = {{"processId", NSYS_INTEGER, STREAM(pid), 0},
                                                    {"contextId", NSYS_INTEGER, STREAM(context_id), 0},
                                                    {"streamId", NSYS_ID, STREAM(stream_id), 0},
                                                    {"priority", NSYS_INTEGER, STREAM(priority), 0},
                                                    {"flag", NSYS_INTEGER, STREAM(flag), 0}};
static const struct stream_record stream_defaults;

int nsys_import_streams(struct nsys_state *state, error_info *err)
{
    static const struct nsys_table tables[] = {NSYS_TABLE("TARGET_INFO_CUDA_CONTEXT_INFO", context_columns,
                                                          "", context_defaults, NULL, note_context_row),
                                               NSYS_TABLE("TARGET_INFO_CUDA_NULL_STREAM", null_stream_columns,
                                                          "", context_defaults, NULL, note_context_row),
                                               NSYS_TABLE("TARGET_INFO_CUDA_STREAM", stream_columns,
                                                          "ORDER BY t.streamId", stream_defaults, NULL,
                                                          describe_stream_row)};
    state->has_stream_table = store_db_has_table(state->db, "TARGET_INFO_CUDA_STREAM");
    int status = 0;
    for (size_t i = 0; status == 0 && i < sizeof tables / sizeof tables[0]; i++)
        status = nsys_read_table(state, &tables[i], err);
    if (status == 0)
        status = stream_set_write(&state->streams, state->s, err);
    return status;
}

/* --- thread names --- */

struct thread_record {
    int64_t global_tid;
    const char *name;
};

static int name_thread_row(struct nsys_state *state, void *record, error_info *err)
{
    const struct thread_record *row = record;
    int64_t process_id = nsys_known_process(state, nsys_pid_of_global(row->global_tid));
    if (!process_id || row->global_tid == STORE_NULL || !row->name || !*row->name)
        return 0;
    return store_insert_thread_name(state->s, process_id, nsys_tid_of_global(row->global_tid), row->name,
                                    err);
}

static const struct nsys_column thread_columns[] = {
    {"globalTid", NSYS_INTEGER, NSYS_INT64_AT(struct thread_record, global_tid), 0},
    {"@nameId", NSYS_TEXT, NSYS_TEXT_AT(struct thread_record, name), 0}};
static const struct thread_record thread_defaults;

int nsys_import_thread_names(struct nsys_state *state, error_info *err)
{
    /* A thread renamed (prctl) has a row per name: the last one, as nsys shows it, stays. */
    static const struct nsys_table table =
        NSYS_TABLE("ThreadNames", thread_columns, "ORDER BY t.rowid", thread_defaults, NULL, name_thread_row);
    if (store_db_has_table(state->db, "ThreadNames") &&
        !store_db_has_column(state->db, "ThreadNames", "nameId"))
        return 0;
    return nsys_read_table(state, &table, err);
}
