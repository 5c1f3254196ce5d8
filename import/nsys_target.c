/* nsys_target.c: what an Nsight Systems export says about the traced machine (see nsys_parts.h):
 * the session's clock, the host name, the names and command lines of the processes and the names of
 * their threads, the GPUs each process saw, and the streams as they were created (flags, priority,
 * the legacy NULL stream). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_parts.h"
#include "threads.h"

enum gpu_column {
    G_CUDA_ID,
    G_PID,
    G_NAME,
    G_UUID,
    G_SM_COUNT,
    G_MAJOR,
    G_MINOR,
    G_BLOCKS_PER_SM,
    G_WARPS_PER_SM,
    G_THREADS_PER_BLOCK,
    G_REGISTERS_PER_SM,
    G_REGISTERS_PER_BLOCK,
    G_SHARED_PER_SM,
    G_SHARED_PER_BLOCK,
    G_SHARED_OPTIN,
    G_MEMORY,
    G_BANDWIDTH,
    G_L2,
    G_CLOCK,
    G_ENGINES,
    G_WARP_SIZE,
    G_COUNT
};

static int64_t divided(int64_t value, int64_t divisor)
{
    return value == STORE_NULL ? STORE_NULL : value / divisor;
}

static int import_device_row(struct nsys_state *state, sqlite3_stmt *row, error_info *err)
{
    int64_t pid = nsys_column_or_null(row, G_PID);
    int64_t process_id = pid == STORE_NULL ? (state->pid_count ? state->pids[0].process_id : 0)
                                           : nsys_process_for_pid(state, pid, err);
    if (!process_id)
        return pid == STORE_NULL ? 0 : -1;
    int64_t warps = nsys_column_or_null(row, G_WARPS_PER_SM),
            warp_size = nsys_column_or_null(row, G_WARP_SIZE);
    int64_t threads_per_sm = STORE_NULL;
    if (warps != STORE_NULL && warp_size != STORE_NULL &&
        __builtin_mul_overflow(warps, warp_size, &threads_per_sm))
        threads_per_sm = STORE_NULL;
    const unsigned char *name = sqlite3_column_text(row, G_NAME), *uuid = sqlite3_column_text(row, G_UUID);
    struct store_device device = {
        .process_id = process_id,
        .device_id = nsys_column_or_null(row, G_CUDA_ID),
        .name = (const char *)name,
        .uuid = (const char *)uuid,
        .pci_bus_id = STORE_NULL,
        .sm_count = nsys_column_or_null(row, G_SM_COUNT),
        .compute_capability_major = nsys_column_or_null(row, G_MAJOR),
        .compute_capability_minor = nsys_column_or_null(row, G_MINOR),
        .max_blocks_per_sm = nsys_column_or_null(row, G_BLOCKS_PER_SM),
        .max_warps_per_sm = warps,
        .max_threads_per_sm = threads_per_sm,
        .max_threads_per_block = nsys_column_or_null(row, G_THREADS_PER_BLOCK),
        .max_registers_per_sm = nsys_column_or_null(row, G_REGISTERS_PER_SM),
        .max_registers_per_block = nsys_column_or_null(row, G_REGISTERS_PER_BLOCK),
        .max_shared_memory_per_sm = nsys_column_or_null(row, G_SHARED_PER_SM),
        .max_shared_memory_per_block = nsys_column_or_null(row, G_SHARED_PER_BLOCK),
        .max_shared_memory_per_block_optin = nsys_column_or_null(row, G_SHARED_OPTIN),
        .global_memory_bytes = nsys_column_or_null(row, G_MEMORY),
        .global_memory_bandwidth_kbps = divided(nsys_column_or_null(row, G_BANDWIDTH), 1000), /* B/s */
        .l2_cache_bytes = nsys_column_or_null(row, G_L2),
        .core_clock_khz = divided(nsys_column_or_null(row, G_CLOCK), 1000), /* Hz */
        .copy_engine_count = nsys_column_or_null(row, G_ENGINES),
        .warp_size = warp_size};
    if (device.device_id == STORE_NULL)
        return 0;
    return store_insert_device(state->s, &device, err);
}

/* TARGET_INFO_CUDA_DEVICE says which GPU (gpuId) each process saw as which CUDA ordinal (cudaId);
 * without it every GPU is given to every process under its own id. */
int nsys_import_devices(struct nsys_state *state, error_info *err)
{
    static const char *const limits[] = {"name",
                                         "uuid",
                                         "smCount",
                                         "computeMajor",
                                         "computeMinor",
                                         "maxBlocksPerSm",
                                         "maxWarpsPerSm",
                                         "maxThreadsPerBlock",
                                         "maxRegistersPerSm",
                                         "maxRegistersPerBlock",
                                         "maxShmemPerSm",
                                         "maxShmemPerBlock",
                                         "maxShmemPerBlockOptin",
                                         "totalMemory",
                                         "memoryBandwidth",
                                         "l2CacheSize",
                                         "clockRate",
                                         "asyncEngines",
                                         "threadsPerWarp"};
    if (!nsys_table_exists(state->db, "TARGET_INFO_GPU") ||
        !nsys_column_exists(state->db, "TARGET_INFO_GPU", "id"))
        return 0;
    int mapped = nsys_table_exists(state->db, "TARGET_INFO_CUDA_DEVICE") &&
                 nsys_column_exists(state->db, "TARGET_INFO_CUDA_DEVICE", "gpuId") &&
                 nsys_column_exists(state->db, "TARGET_INFO_CUDA_DEVICE", "cudaId") &&
                 nsys_column_exists(state->db, "TARGET_INFO_CUDA_DEVICE", "pid");
    const char *columns[G_COUNT];
    columns[G_CUDA_ID] = mapped ? "=m.cudaId" : "id";
    columns[G_PID] = mapped ? "=m.pid" : "=NULL";
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
        columns[G_NAME + i] = limits[i];
    if (mapped)
        return nsys_for_each_row(state, "TARGET_INFO_GPU", columns, G_COUNT,
                                 "JOIN TARGET_INFO_CUDA_DEVICE m ON m.gpuId = t.id ORDER BY m.pid, m.cudaId",
                                 import_device_row, err);
    /* Unmapped: one copy per process already seen. */
    size_t processes = state->pid_count;
    for (size_t p = 0; p < processes; p++) {
        struct nsys_pid_entry first = state->pids[0];
        state->pids[0] = state->pids[p];
        int status = nsys_for_each_row(state, "TARGET_INFO_GPU", columns, G_COUNT, "ORDER BY t.id",
                                       import_device_row, err);
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

static void read_session_start(struct nsys_state *state)
{
    if (!nsys_table_exists(state->db, "TARGET_INFO_SESSION_START_TIME") ||
        !nsys_column_exists(state->db, "TARGET_INFO_SESSION_START_TIME", "utcEpochNs"))
        return;
    sqlite3_stmt *query = NULL;
    if (sqlite3_prepare_v2(state->db, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1", -1,
                           &query, NULL) == SQLITE_OK &&
        sqlite3_step(query) == SQLITE_ROW)
        state->time_offset_ns = sqlite3_column_int64(query, 0);
    sqlite3_finalize(query);
}

/* The traced machine (TARGET_INFO_SYSTEM_ENV's Hostname; META_DATA_EXPORT's EXPORT_HOST is the
 * machine that ran `nsys export`, not it). */
static void read_host(struct nsys_state *state)
{
    if (nsys_table_exists(state->db, "TARGET_INFO_SYSTEM_ENV") &&
        nsys_column_exists(state->db, "TARGET_INFO_SYSTEM_ENV", "name") &&
        nsys_column_exists(state->db, "TARGET_INFO_SYSTEM_ENV", "value"))
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
    if (!nsys_table_exists(state->db, "META_DATA_CAPTURE") ||
        !nsys_column_exists(state->db, "META_DATA_CAPTURE", "name") ||
        !nsys_column_exists(state->db, "META_DATA_CAPTURE", "value"))
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
    if (!nsys_table_exists(state->db, "PROCESSES") || !nsys_column_exists(state->db, "PROCESSES", "name"))
        return 0;
    const char *pid =
        nsys_column_exists(state->db, "PROCESSES", "pid") ? "pid" : "(globalPid >> 24) & 16777215";
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
    read_session_start(state);
    read_host(state);
    return read_process_names(state, err);
}

/* --- streams --- */

/* The contexts' devices, from the tables that give them (the activity gave the rest). */
enum context_column { X_PID, X_CONTEXT, X_DEVICE, X_NULL_STREAM, X_COUNT };

static int note_context_row(struct nsys_state *state, sqlite3_stmt *row, error_info *err)
{
    int64_t process_id = nsys_known_process(state, nsys_column_or_null(row, X_PID));
    int64_t context_id = nsys_column_or_null(row, X_CONTEXT), device_id = nsys_column_or_null(row, X_DEVICE);
    if (!process_id)
        return 0;
    if (nsys_note_context(state, process_id, context_id, device_id) != 0)
        return error_set(err, "%s: out of memory", state->name);
    int64_t null_stream = nsys_id_or_null(nsys_column_or_null(row, X_NULL_STREAM));
    if (null_stream == STORE_NULL || context_id == STORE_NULL)
        return 0;
    /* The context's NULL stream: the legacy default stream (CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL). */
    if (stream_set_describe(&state->streams, process_id,
                            nsys_device_of_context(state, process_id, context_id), context_id, null_stream, 1,
                            STORE_NULL, 3) != 0)
        return error_set(err, "%s: out of memory", state->name);
    return 0;
}

enum stream_column { T_PID, T_CONTEXT, T_STREAM, T_PRIORITY, T_FLAG, T_COUNT };

static int describe_stream_row(struct nsys_state *state, sqlite3_stmt *row, error_info *err)
{
    int64_t process_id = nsys_known_process(state, nsys_column_or_null(row, T_PID));
    int64_t context_id = nsys_column_or_null(row, T_CONTEXT);
    int64_t stream_id = nsys_id_or_null(nsys_column_or_null(row, T_STREAM));
    if (!process_id || context_id == STORE_NULL || stream_id == STORE_NULL)
        return 0;
    /* CUpti_ActivityStreamFlag (ENUM_CUPTI_STREAM_TYPE): 1 default (blocking), 2 non-blocking, 3 the
     * NULL stream; the priority is CUPTI's int32, which nsys writes unsigned (-5 as 4294967291). */
    int64_t flag = nsys_column_or_null(row, T_FLAG), priority = nsys_column_or_null(row, T_PRIORITY);
    if (flag < 0 || flag > 3)
        flag = 0;
    if (priority != STORE_NULL)
        priority = (int32_t)(uint32_t)priority;
    if (stream_set_describe(&state->streams, process_id,
                            nsys_device_of_context(state, process_id, context_id), context_id, stream_id,
                            flag == 3, priority, flag) != 0)
        return error_set(err, "%s: out of memory", state->name);
    return 0;
}

int nsys_import_streams(struct nsys_state *state, error_info *err)
{
    static const char *const context_info[X_COUNT] = {"processId", "contextId", "deviceId", "nullStreamId"};
    static const char *const null_streams[X_COUNT] = {"processId", "contextId", "deviceId", "streamId"};
    static const char *const streams[T_COUNT] = {"processId", "contextId", "streamId", "priority", "flag"};
    int status = nsys_for_each_row(state, "TARGET_INFO_CUDA_CONTEXT_INFO", context_info, X_COUNT, "",
                                   note_context_row, err);
    if (status == 0)
        status = nsys_for_each_row(state, "TARGET_INFO_CUDA_NULL_STREAM", null_streams, X_COUNT, "",
                                   note_context_row, err);
    state->has_stream_table = nsys_table_exists(state->db, "TARGET_INFO_CUDA_STREAM");
    if (status == 0)
        status = nsys_for_each_row(state, "TARGET_INFO_CUDA_STREAM", streams, T_COUNT, "ORDER BY t.streamId",
                                   describe_stream_row, err);
    if (status == 0)
        status = stream_set_write(&state->streams, state->s, err);
    return status;
}

/* --- thread names --- */

enum thread_column { H_TID, H_NAME, H_COUNT };

static int name_thread_row(struct nsys_state *state, sqlite3_stmt *row, error_info *err)
{
    int64_t global_tid = nsys_column_or_null(row, H_TID);
    const char *name = (const char *)sqlite3_column_text(row, H_NAME);
    int64_t process_id = nsys_known_process(state, nsys_pid_of_global(global_tid));
    if (!process_id || global_tid == STORE_NULL || !name || !*name)
        return 0;
    return store_insert_thread_name(state->s, process_id, nsys_tid_of_global(global_tid), name, err);
}

int nsys_import_thread_names(struct nsys_state *state, error_info *err)
{
    static const char *const columns[H_COUNT] = {"globalTid",
                                                 "=(SELECT value FROM StringIds WHERE id = t.nameId)"};
    if (nsys_table_exists(state->db, "ThreadNames") &&
        !nsys_column_exists(state->db, "ThreadNames", "nameId"))
        return 0;
    /* A thread renamed (prctl) has a row per name: the last one, as nsys shows it, stays. */
    return nsys_for_each_row(state, "ThreadNames", columns, H_COUNT, "ORDER BY t.rowid", name_thread_row,
                             err);
}
