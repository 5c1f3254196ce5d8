/* record_merge.c: joining the per-process files of one recording into its trace (see record.h).
 *
 * Each file is appended with store_append_trace into a temporary trace beside the output, which
 * is renamed onto the output only when complete: a reader never sees half a trace, and a failed
 * merge leaves an earlier output in place. A file that store_append_trace refuses (a process
 * killed while SQLite wrote a page, a truncated copy) is first salvaged row by row. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "output_file.h"
#include "record.h"
#include "salvage.h"
#include "store.h"

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The proc-*.db files of directory, sorted (so a merge is reproducible). Caller frees each and the
 * array. */
static char **list_process_files(const char *directory, int *count)
{
    *count = 0;
    DIR *folder = opendir(directory);
    if (!folder)
        return NULL;
    char **names = NULL;
    int capacity = 0;
    struct dirent *entry;
    while ((entry = readdir(folder)) != NULL) {
        size_t length = strlen(entry->d_name);
        if (strncmp(entry->d_name, "proc-", 5) != 0 || length < 8 ||
            strcmp(entry->d_name + length - 3, ".db") != 0)
            continue;
        if (*count == capacity) {
            capacity = capacity ? capacity * 2 : 16;
            char **bigger = realloc(names, (size_t)capacity * sizeof *names);
            if (!bigger)
                break;
            names = bigger;
        }
        size_t size = strlen(directory) + length + 2;
        names[*count] = malloc(size);
        if (!names[*count])
            break;
        snprintf(names[*count], size, "%s/%s", directory, entry->d_name);
        /* Only regular files: a FIFO planted in the run folder would block the open forever. */
        struct stat info;
        if (lstat(names[*count], &info) != 0 || !S_ISREG(info.st_mode)) {
            free(names[*count]);
            continue;
        }
        (*count)++;
    }
    closedir(folder);
    if (*count > 1)
        qsort(names, (size_t)*count, sizeof *names, compare_names);
    return names;
}

/* Waits until no process holds the file's writer lock; returns 1 if it is still held at the end. */
static int wait_for_writer(const char *path, int wait_ms)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    int still_locked = 1;
    for (int waited = 0;; waited += 50) {
        if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
            still_locked = 0;
            break;
        }
        if (waited >= wait_ms)
            break;
        struct timespec pause = {0, 50 * 1000000L};
        nanosleep(&pause, NULL);
    }
    close(fd);
    return still_locked;
}

static int add_warning(store *trace, int64_t process_id, const char *code, const char *message,
                       error_info *err)
{
    struct store_warning row = {
        .process_id = process_id, .time_ns = STORE_NULL, .code = code, .message = message};
    return store_insert_warning(trace, &row, err);
}

/* --- salvage --- */

/* proc-PID-N.db -> PID; 0 when the name does not say. */
static int64_t pid_from_file_name(const char *path)
{
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", path);
    const char *name = basename(copy);
    long long pid = 0;
    return sscanf(name, "proc-%lld-", &pid) == 1 ? pid : 0;
}

/* Copies the damaged file to readable_path with its header's page count (offset 28, SQLite file
 * format §1.3.7) set to the pages really present: SQLite refuses to attach a file shorter than its
 * header says, but reads every table whose pages survived once the two agree. */
static int make_readable_copy(const char *damaged_path, const char *readable_path)
{
    FILE *in = fopen(damaged_path, "rb");
    if (!in)
        return -1;
    FILE *out = fopen(readable_path, "wb");
    if (!out) {
        fclose(in);
        return -1;
    }
    unsigned char chunk[65536];
    size_t got, total = 0;
    unsigned char header[100] = {0};
    while ((got = fread(chunk, 1, sizeof chunk, in)) > 0) {
        if (total == 0 && got >= sizeof header)
            memcpy(header, chunk, sizeof header);
        fwrite(chunk, 1, got, out);
        total += got;
    }
    fclose(in);
    unsigned page_size = (unsigned)header[16] << 8 | header[17];
    if (page_size == 1)
        page_size = 65536;
    if (memcmp(header, "SQLite format 3", 16) != 0 || page_size < 512) {
        fclose(out);
        return -1;
    }
    uint32_t pages = (uint32_t)(total / page_size);
    unsigned char count[4] = {(unsigned char)(pages >> 24), (unsigned char)(pages >> 16),
                              (unsigned char)(pages >> 8), (unsigned char)pages};
    int status = fseek(out, 28, SEEK_SET) == 0 && fwrite(count, 1, 4, out) == 4 ? 0 : -1;
    if (fclose(out) != 0 || truncate(readable_path, (off_t)pages * page_size) != 0)
        status = -1;
    return status;
}

int64_t record_salvage(const char *damaged_path, const char *salvaged_path, error_info *err)
{
    char readable[PATH_MAX + 16];
    snprintf(readable, sizeof readable, "%s.src", salvaged_path);
    const char *source = make_readable_copy(damaged_path, readable) == 0 ? readable : damaged_path;
    store *copy = store_create(salvaged_path, STORE_FAST_UNSAFE | STORE_OVERWRITE, err);
    if (!copy) {
        unlink(readable);
        return -1;
    }
    int64_t processes = 0;
    int64_t copied = store_salvage_rows(copy, source, &processes);
    unlink(readable);
    int status = 0;
    if (processes == 0) {
        /* Rows point at process 1, the only process of a per-process file. */
        struct store_process row = store_process_unknown();
        row.process_id = 1;
        row.pid = pid_from_file_name(damaged_path);
        row.source_file = damaged_path;
        status = store_insert_process(copy, &row, err);
    }
    if (store_close(copy, status ? NULL : err) != 0 || status != 0)
        return -1;
    return copied;
}

/* --- merging --- */

/* Appends one per-process file, salvaging it first when it cannot be appended as it is. */
static int append_process_file(store *trace, const char *path, int still_writing,
                               struct record_merge_result *result, error_info *err)
{
    error_info append_err;
    int64_t first_new_process = store_next_process_id(trace);
    char message[1536];
    if (store_append_trace(trace, path, 0, NULL, &append_err) == 0) {
        if (still_writing) {
            snprintf(
                message, sizeof message,
                "'%s' was still being written when the job ended (a process outlived it): merged as far as"
                " written then",
                path);
            if (store_begin(trace, err) != 0 ||
                add_warning(trace, first_new_process, "still-running", message, err))
                return -1;
            return store_commit(trace, err);
        }
        return 0;
    }
    char salvaged[PATH_MAX + 16];
    snprintf(salvaged, sizeof salvaged, "%s.salvaged", path);
    error_info salvage_err;
    int64_t rows = record_salvage(path, salvaged, &salvage_err);
    result->damaged_files++;
    if (rows < 0 || store_append_trace(trace, salvaged, 0, NULL, &salvage_err) != 0) {
        snprintf(message, sizeof message, "%s; nothing of it could be read (%s)", append_err.message,
                 salvage_err.message);
        unlink(salvaged);
        if (store_begin(trace, err) != 0 || add_warning(trace, STORE_NULL, "damaged-file", message, err) != 0)
            return -1;
        return store_commit(trace, err);
    }
    unlink(salvaged);
    snprintf(message, sizeof message, "%s; merged as far as readable (%lld rows)", append_err.message,
             (long long)rows);
    if (store_begin(trace, err) != 0 ||
        add_warning(trace, first_new_process, "damaged-file", message, err) != 0)
        return -1;
    return store_commit(trace, err);
}

/* The collector's rate, which every process file also holds. */
static int set_sample_hz(store *trace, int sample_hz, error_info *err)
{
    char text[16];
    snprintf(text, sizeof text, "%d", sample_hz);
    return store_set_meta(trace, "host_sample_hz", text, err);
}

static int describe_job(store *trace, const struct record_meta *meta, error_info *err)
{
    const struct record_job_status *job = meta->job;
    char text[64];
    snprintf(text, sizeof text, "%d", job->term_signal ? 128 + job->term_signal : job->exit_code);
    if (store_set_meta(trace, "source", "record", err) != 0 ||
        store_set_meta(trace, "clock", "cupti", err) != 0 ||
        store_set_meta(trace, "command", meta->command ? meta->command : "", err) != 0 ||
        store_set_meta(trace, "exit_status", text, err) != 0 ||
        (meta->api_records && store_set_meta(trace, "api_records", meta->api_records, err) != 0) ||
        set_sample_hz(trace, meta->sample_hz, err) != 0)
        return -1;
    if (job->term_signal) {
        snprintf(text, sizeof text, "%d", job->term_signal);
        if (store_set_meta(trace, "term_signal", text, err) != 0)
            return -1;
        char message[256];
        snprintf(message, sizeof message, "the job was killed by signal %d (%s)", job->term_signal,
                 strsignal(job->term_signal));
        if (add_warning(trace, STORE_NULL, "killed", message, err) != 0)
            return -1;
    }
    /* The job's own process cannot say how it ended when a signal it could not catch killed it. */
    struct store_process fate = store_process_unknown();
    fate.pid = job->pid;
    if (job->term_signal)
        fate.term_signal = job->term_signal;
    else
        fate.exit_status = job->exit_code;
    return store_update_process(trace, STORE_NULL, &fate, STORE_UPDATE_FILL, err);
}

static void summarize(store *trace, struct record_merge_result *result)
{
    struct store_trace_totals totals;
    store_trace_totals(trace, &totals);
    result->processes = totals.processes;
    result->kernels = totals.kernels;
    result->collectives = totals.collectives;
    result->dropped_records = totals.dropped_records;
    result->warnings = totals.warnings;
    result->competing_profiler = totals.competing_profiler_warnings > 0;
}

/* record --capture-range: what each process captured (capture_cupti.h writes its file's meta),
 * joined: the range asked for, every window, and the processes' first start to last end. */
struct capture_meta {
    char range[320];
    char *windows; /* malloc'd, "start:end,..."; NULL: none */
    int64_t first_ns, last_ns;
    int seen;
};

static void read_capture_meta(const char *path, struct capture_meta *capture)
{
    error_info ignored;
    store *source = store_open(path, 1, &ignored);
    if (!source)
        return;
    char *range = store_get_meta(source, "capture_range");
    char *windows = store_get_meta(source, "capture_windows");
    char *process = store_get_meta(source, "capture_process");
    long long start = 0, end = 0;
    if (range && process && sscanf(process, "%lld:%lld", &start, &end) == 2) {
        snprintf(capture->range, sizeof capture->range, "%s", range);
        capture->first_ns = !capture->seen || start < capture->first_ns ? start : capture->first_ns;
        capture->last_ns = !capture->seen || end > capture->last_ns ? end : capture->last_ns;
        capture->seen = 1;
        if (windows && windows[0]) {
            size_t old = capture->windows ? strlen(capture->windows) : 0;
            char *joined = realloc(capture->windows, old + strlen(windows) + 2);
            if (joined) {
                snprintf(joined + old, strlen(windows) + 2, "%s%s", old ? "," : "", windows);
                capture->windows = joined;
            }
        }
    }
    free(range);
    free(windows);
    free(process);
    store_close(source, NULL);
}

static int write_capture_meta(store *trace, const struct capture_meta *capture, error_info *err)
{
    if (!capture->seen)
        return 0;
    char process[48];
    snprintf(process, sizeof process, "%lld:%lld", (long long)capture->first_ns, (long long)capture->last_ns);
    if (store_set_meta(trace, "capture_range", capture->range, err) != 0 ||
        store_set_meta(trace, "capture_windows", capture->windows ? capture->windows : "", err) != 0 ||
        store_set_meta(trace, "capture_process", process, err) != 0)
        return -1;
    return 0;
}

static int merge_into(store *trace, char **files, int count, const struct record_meta *meta, int wait_ms,
                      store_finishing_step *finish, struct record_merge_result *result, error_info *err)
{
    struct capture_meta capture = {{0}};
    for (int i = 0; i < count; i++) {
        int still_writing = wait_for_writer(files[i], wait_ms);
        read_capture_meta(files[i], &capture);
        if (append_process_file(trace, files[i], still_writing, result, err) != 0) {
            free(capture.windows);
            return -1;
        }
    }
    int written = write_capture_meta(trace, &capture, err);
    free(capture.windows);
    if (written != 0)
        return -1;
    if (store_begin(trace, err) != 0)
        return -1;
    if (count == 0 &&
        add_warning(trace, STORE_NULL, "no-process",
                    "no process of the job initialised CUDA with the collector: nothing was recorded",
                    err) != 0)
        return -1;
    if (describe_job(trace, meta, err) != 0 || store_fill_ranks_from_nccl(trace, err) < 0 ||
        store_commit(trace, err) != 0)
        return -1;
    summarize(trace, result);
    if (result->competing_profiler && store_set_meta(trace, "competing_profiler", "1", err) != 0)
        return -1;
    if (store_finalize(trace, err) != 0)
        return -1;
    return finish ? finish(trace, err) : 0;
}

int record_merge(const char *run_directory, const char *output, int force, store_finishing_step *finish,
                 const struct record_meta *meta, int wait_ms, struct record_merge_result *result,
                 error_info *err)
{
    memset(result, 0, sizeof *result);
    output_file *out = output_file_begin(output, force, NULL, 0, err);
    store *trace =
        out ? store_create(output_file_temporary(out), STORE_FAST_UNSAFE | STORE_OVERWRITE, err) : NULL;
    if (!trace) {
        output_file_fail(out, err);
        return error_prefix(err, "cannot merge the recording into '%s'", output);
    }
    int count = 0;
    char **files = list_process_files(run_directory, &count);
    result->files = count;
    int status = merge_into(trace, files, count, meta, wait_ms, finish, result, err);
    for (int i = 0; i < count; i++)
        free(files[i]);
    free(files);
    if (store_close(trace, status ? NULL : err) != 0)
        status = -1;
    if (status == 0)
        status = output_file_commit(out, err);
    else
        output_file_fail(out, err);
    if (status != 0)
        error_prefix(err, "cannot merge the recording into '%s'", output);
    return status;
}
