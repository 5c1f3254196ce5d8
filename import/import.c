/* import.c: the import driver: inputs to files, files to formats, formats to importers, one
 * atomic output (see import.h). Owns: the expanded file list and the output store while it is
 * being written. */
#include "import.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "describe.h"
#include "kineto.h"
#include "nsys.h"
#include "output_file.h"
#include "parts.h"
#include "store.h"

struct file_list {
    char **paths;
    size_t count, capacity;
    struct file_list *skipped; /* may be NULL: where a directory's trace-named non-files are listed */
};

static int list_add(struct file_list *list, const char *path, error_info *err)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 16;
        char **grown = realloc(list->paths, capacity * sizeof *grown);
        if (!grown)
            return error_set(err, "out of memory");
        list->paths = grown;
        list->capacity = capacity;
    }
    list->paths[list->count] = strdup(path);
    if (!list->paths[list->count])
        return error_set(err, "out of memory");
    list->count++;
    return 0;
}

static void list_free(struct file_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->paths[i]);
    free(list->paths);
    if (list->skipped)
        list_free(list->skipped);
}

static int has_suffix(const char *name, const char *suffix)
{
    size_t name_length = strlen(name), suffix_length = strlen(suffix);
    return name_length > suffix_length && strcmp(name + name_length - suffix_length, suffix) == 0;
}

/* An Nsight Systems report (.nsys-rep, .qdrep before 2021.4) is nsys's own format: refused with the
 * command that turns it into the SQLite export this reads. */
static int is_nsys_report(const char *path)
{
    return has_suffix(path, ".nsys-rep") || has_suffix(path, ".qdrep");
}

static int refuse_nsys_report(const char *path, error_info *err)
{
    size_t stem = strlen(path) - (has_suffix(path, ".qdrep") ? strlen(".qdrep") : strlen(".nsys-rep"));
    return error_set(
        err,
        "%s: an Nsight Systems report; import its SQLite export, made with: nsys export --type sqlite"
        " --output %.*s.sqlite %s",
        path, (int)stem, path, path);
}

static int compare_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether path is the file at output_info (the output of an earlier import into the same folder,
 * being replaced with --force: not one of the inputs). */
static int is_output(const struct stat *info, const struct stat *output_info)
{
    return output_info && info->st_dev == output_info->st_dev && info->st_ino == output_info->st_ino;
}

/* The traces of a directory, by name (rank 0 before rank 1 when named so), the output excepted. */
static int add_directory(struct file_list *list, const char *directory_path, const struct stat *output_info,
                         error_info *err)
{
    DIR *directory = opendir(directory_path);
    if (!directory)
        return error_set(err, "cannot read '%s': %s", directory_path, strerror(errno));
    size_t first = list->count;
    struct dirent *entry;
    int status = 0;
    char report[4096] = "";
    while (status == 0 && (entry = readdir(directory)) != NULL) {
        if (entry->d_name[0] != '.' && is_nsys_report(entry->d_name) && !report[0])
            snprintf(report, sizeof report, "%s/%s", directory_path, entry->d_name);
        if (entry->d_name[0] == '.' ||
            !(has_suffix(entry->d_name, ".json") || has_suffix(entry->d_name, ".json.gz") ||
              has_suffix(entry->d_name, ".sqlite")))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", directory_path, entry->d_name);
        struct stat info;
        int readable = stat(path, &info) == 0 && S_ISREG(info.st_mode);
        if (readable && !is_output(&info, output_info))
            status = list_add(list, path, err);
        else if (!readable && list->skipped) /* a rank's trace missing would go unnoticed */
            status = list_add(list->skipped, path, err);
    }
    closedir(directory);
    if (status == 0 && list->count == first && report[0])
        return refuse_nsys_report(report, err);
    if (status == 0 && list->count == first)
        return error_set(err, "'%s': no trace files (*.json, *.json.gz, *.sqlite) in this directory",
                         directory_path);
    qsort(list->paths + first, list->count - first, sizeof *list->paths, compare_paths);
    return status;
}

int import_is_trace_name(const char *path)
{
    return has_suffix(path, ".json") || has_suffix(path, ".json.gz") || has_suffix(path, ".sqlite");
}

/* A pipe the shell opened for us (`import <(zcat x.json.gz)`: /dev/fd/N): read once, front to
 * back. A named pipe in the file system is not one: opening it blocks until someone writes,
 * forever when no one does; it is refused like any other file that is not a regular file. */
static int is_open_pipe(const char *path, const struct stat *info)
{
    char target[64];
    ssize_t length = S_ISFIFO(info->st_mode) ? readlink(path, target, sizeof target - 1) : -1;
    if (length <= 0)
        return 0;
    target[length] = '\0';
    return strncmp(target, "pipe:[", 6) == 0;
}

struct file_key {
    dev_t device;
    ino_t inode;
    size_t index;
};

static int compare_keys(const void *a, const void *b)
{
    const struct file_key *x = a, *y = b;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    if (x->inode != y->inode)
        return x->inode < y->inode ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

int import_refuse_same_file(const char *const *paths, size_t path_count, error_info *err)
{
    struct file_key *keys = calloc(path_count ? path_count : 1, sizeof *keys);
    if (!keys)
        return error_set(err, "out of memory");
    size_t count = 0;
    for (size_t i = 0; i < path_count; i++) {
        struct stat info;
        if (stat(paths[i], &info) == 0)
            keys[count++] = (struct file_key){info.st_dev, info.st_ino, i};
    }
    qsort(keys, count, sizeof *keys, compare_keys);
    int status = 0;
    for (size_t i = 1; status == 0 && i < count; i++)
        if (keys[i].device == keys[i - 1].device && keys[i].inode == keys[i - 1].inode)
            status =
                error_set(err, "'%s' is the same file as '%s' (one device and inode): name each input once",
                          paths[keys[i].index], paths[keys[i - 1].index]);
    free(keys);
    return status;
}

/* output_path may be NULL: nothing to leave out of a directory's listing. */
static int expand_inputs(struct file_list *list, char *const *inputs, int input_count,
                         const char *output_path, error_info *err)
{
    struct stat output_info;
    int output_exists = output_path && stat(output_path, &output_info) == 0;
    for (int i = 0; i < input_count; i++) {
        struct stat info;
        if (stat(inputs[i], &info) != 0)
            return error_set(err, "cannot open '%s': %s", inputs[i], strerror(errno));
        if (!S_ISDIR(info.st_mode) && !S_ISREG(info.st_mode) && !is_open_pipe(inputs[i], &info))
            return error_set(err, "cannot open '%s': not a regular file", inputs[i]);
        int status = S_ISDIR(info.st_mode)
                         ? add_directory(list, inputs[i], output_exists ? &output_info : NULL, err)
                         : list_add(list, inputs[i], err);
        if (status != 0)
            return -1;
    }
    return import_refuse_same_file((const char *const *)list->paths, list->count, err);
}

/* Python's pickle (protocol 2 and later) starts with its PROTO opcode: what
 * torch.cuda.memory._dump_snapshot writes. */
static int is_pickle(const unsigned char *head, size_t got)
{
    return got >= 2 && head[0] == 0x80 && head[1] >= 2 && head[1] <= 5;
}

/* A memory snapshot is no trace, but the importer names it: readers hand it over. */
static int is_pickle_file(const char *path)
{
    unsigned char head[2];
    FILE *file = fopen(path, "rb");
    size_t got = file ? fread(head, 1, sizeof head, file) : 0;
    if (file)
        fclose(file);
    return is_pickle(head, got);
}

enum import_format import_detect_format(const char *path, error_info *err)
{
    if (is_nsys_report(path)) {
        refuse_nsys_report(path, err);
        return IMPORT_FORMAT_UNKNOWN;
    }
    /* A pipe cannot be read twice (once here, once by the importer), and only a seekable file can
     * be an SQLite export: what comes through a pipe is Kineto JSON, gzipped or not (zlib reads
     * both). */
    struct stat info;
    if (stat(path, &info) == 0 && S_ISFIFO(info.st_mode))
        return IMPORT_FORMAT_KINETO;
    FILE *file = fopen(path, "rb");
    if (!file) {
        error_set(err, "cannot open '%s': %s", path, strerror(errno));
        return IMPORT_FORMAT_UNKNOWN;
    }
    unsigned char head[16];
    size_t got = fread(head, 1, sizeof head, file);
    fclose(file);
    if (got == 0) {
        error_set(err, "%s: empty file", path);
        return IMPORT_FORMAT_UNKNOWN;
    }
    if (got == sizeof head && memcmp(head, "SQLite format 3", 16) == 0)
        return IMPORT_FORMAT_NSYS;
    if (got >= 2 && head[0] == 0x1f && head[1] == 0x8b)
        return IMPORT_FORMAT_KINETO;
    if (is_pickle(head, got)) {
        error_set(err,
                  "%s: a Python pickle (a PyTorch memory snapshot, torch.cuda.memory._dump_snapshot?), not a "
                  "trace: not supported; overlapscope reads the profiler's trace (export_chrome_trace)",
                  path);
        return IMPORT_FORMAT_UNKNOWN;
    }
    for (size_t i = 0; i < got; i++) {
        if (head[i] == '{' || head[i] == '[')
            return IMPORT_FORMAT_KINETO;
        if (head[i] == 0xEF || head[i] == 0xBB || head[i] == 0xBF)
            continue; /* a UTF-8 byte order mark */
        if (head[i] != ' ' && head[i] != '\n' && head[i] != '\r' && head[i] != '\t')
            break;
    }
    error_set(err, "%s: not a Kineto JSON trace (.json, .json.gz) nor an Nsight Systems SQLite export", path);
    return IMPORT_FORMAT_UNKNOWN;
}

int import_is_foreign(const char *path)
{
    struct stat info;
    if (stat(path, &info) != 0)
        return 0;
    if (S_ISDIR(info.st_mode))
        return 1;
    error_info ignored;
    enum import_format format = S_ISREG(info.st_mode) || is_open_pipe(path, &info)
                                    ? import_detect_format(path, &ignored)
                                    : IMPORT_FORMAT_UNKNOWN;
    /* A file named as a Kineto trace that is none (empty, "null", text) is the importer's to name:
     * read as a trace of ours, it was "not an SQLite database" (second red-team pass, issue 33). */
    if (format == IMPORT_FORMAT_UNKNOWN && S_ISREG(info.st_mode) &&
        (has_suffix(path, ".json") || has_suffix(path, ".json.gz")))
        return 1;
    if (format != IMPORT_FORMAT_NSYS)
        return format == IMPORT_FORMAT_KINETO || (S_ISREG(info.st_mode) && is_pickle_file(path));
    /* Any SQLite file says NSYS by its header: only an export's tables make it one. */
    sqlite3 *db = NULL;
    int is_export = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK && nsys_is_export(db);
    sqlite3_close(db);
    return is_export;
}

/* --- identity: which files an import read (import.h) --- */

struct identity_text {
    char *text;
    size_t length, capacity;
};

static int identity_add(struct identity_text *identity, char kind, const struct stat *info, error_info *err)
{
    char line[160];
    int length = snprintf(line, sizeof line, "%c %ju:%ju size=%jd mtime=%jd.%09ld ctime=%jd.%09ld\n", kind,
                          (uintmax_t)info->st_dev, (uintmax_t)info->st_ino, (intmax_t)info->st_size,
                          (intmax_t)info->st_mtim.tv_sec, info->st_mtim.tv_nsec,
                          (intmax_t)info->st_ctim.tv_sec, info->st_ctim.tv_nsec);
    if (identity->length + (size_t)length + 1 > identity->capacity) {
        size_t capacity = (identity->capacity ? identity->capacity * 2 : 256) + (size_t)length;
        char *grown = realloc(identity->text, capacity);
        if (!grown)
            return error_set(err, "out of memory");
        identity->text = grown;
        identity->capacity = capacity;
    }
    memcpy(identity->text + identity->length, line, (size_t)length + 1);
    identity->length += (size_t)length;
    return 0;
}

/* The identity of the directories among inputs and of files (their expansion). */
static int identity_of(char *const *inputs, int input_count, const struct file_list *files, char **identity,
                       error_info *err)
{
    struct identity_text text = {0};
    struct stat info;
    int status = 0;
    for (int i = 0; status == 0 && i < input_count; i++)
        if (stat(inputs[i], &info) == 0 && S_ISDIR(info.st_mode))
            status = identity_add(&text, 'D', &info, err);
    for (size_t i = 0; status == 0 && i < files->count; i++)
        status = stat(files->paths[i], &info) != 0
                     ? error_set(err, "cannot open '%s': %s", files->paths[i], strerror(errno))
                     : identity_add(&text, 'F', &info, err);
    if (status == 0 && !text.text)
        status = identity_add(&text, 'N', &(struct stat){0}, err);
    if (status != 0) {
        free(text.text);
        return -1;
    }
    *identity = text.text;
    return 0;
}

int import_input_identity(char *const *inputs, int input_count, char **identity, error_info *err)
{
    struct file_list files = {0};
    int status = expand_inputs(&files, inputs, input_count, NULL, err);
    if (status == 0)
        status = identity_of(inputs, input_count, &files, identity, err);
    list_free(&files);
    return status;
}

struct identity_line {
    char kind; /* D a directory named, F a file read */
    uintmax_t device, inode;
    intmax_t size;
    char mtime[32], ctime[32];
};

/* Parses the line at text; returns a pointer past it, or NULL at the end or on a malformed line. */
static const char *identity_line_read(const char *text, struct identity_line *line)
{
    if (!*text || sscanf(text, "%c %ju:%ju size=%jd mtime=%31s ctime=%31s", &line->kind, &line->device,
                         &line->inode, &line->size, line->mtime, line->ctime) != 6)
        return NULL;
    const char *end = strchr(text, '\n');
    return end ? end + 1 : text + strlen(text);
}

const char *import_identity_change(const char *was, const char *is)
{
    if (!was)
        return "the cache does not say which file it was made from";
    if (strcmp(was, is) == 0)
        return NULL;
    struct identity_line old_line, new_line;
    for (;;) {
        const char *old_next = identity_line_read(was, &old_line),
                   *new_next = identity_line_read(is, &new_line);
        if (!old_next || !new_next || old_line.kind != new_line.kind)
            return old_next || new_next ? "a file was added or removed" : "the identity kept is damaged";
        if (old_line.device != new_line.device || old_line.inode != new_line.inode)
            return "another file: its device or inode differs";
        if (old_line.size != new_line.size)
            return "its size differs";
        if (strcmp(old_line.mtime, new_line.mtime) != 0)
            return "its modification time differs";
        if (strcmp(old_line.ctime, new_line.ctime) != 0)
            return "its status-change time differs (rewritten, touched or copied over)";
        was = old_next;
        is = new_next;
    }
}

struct part;

struct progress_share {
    const struct import_options *options;
    double done_bytes, file_bytes, total_bytes;
    /* A worker's share (import_in_parallel): its progress goes to forward, for its part. */
    void (*forward)(void *context, double fraction);
    struct part *part;
};

static void report_file_progress(void *context, double fraction)
{
    struct progress_share *share = context;
    if (share->forward) {
        share->forward(share, fraction);
        return;
    }
    if (share->options->progress && share->total_bytes > 0)
        share->options->progress(share->options->progress_context,
                                 (share->done_bytes + fraction * share->file_bytes) / share->total_bytes);
}

static double file_size(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0 ? (double)info.st_size : 0;
}

/* timing may be NULL (a worker's file: the workers' CPU is counted as a whole). */
static int import_one(store *output, const char *path, struct progress_share *share, int *formats_seen,
                      struct phase_timing *timing, error_info *err)
{
    struct phase_mark mark = phase_timing_now();
    enum import_format format = import_detect_format(path, err);
    if (format == IMPORT_FORMAT_UNKNOWN)
        return -1;
    *formats_seen |= 1 << format;
    share->file_bytes = file_size(path);
    struct store_row_mark before;
    int status = store_mark_rows(output, &before, err);
    if (status == 0 && format == IMPORT_FORMAT_NSYS) {
        status = nsys_import_file(output, path, err);
    } else if (status == 0) {
        struct kineto_progress progress = {report_file_progress, share};
        status = kineto_import_file(output, path, &progress, err);
    }
    mark = phase_timing_add(timing, "read files (parse, insert)", mark, 0, 0);
    /* What imports must read: the readers' bounds, applied to this file's rows (issue 20). */
    if (status == 0 && store_check_plausible(output, &before, err) != 0)
        status = error_prefix(err, "%s: not imported, no reader would accept it", path);
    phase_timing_add(timing, "check rows (plausible)", mark, 0, 0);
    share->done_bytes += share->file_bytes;
    report_file_progress(share, 0);
    return status;
}

/* --- several files at once: each read into a part of its own by a worker, the parts appended to
 * the output in the order of the files, so the trace is the same whatever the number of workers
 * (store_append_part re-interns strings and renumbers processes as a sequential import does). */

struct part {
    const char *path;
    char part_path[PATH_MAX];
    int formats_seen, status, done;
    int64_t texts_cut;      /* names stored cut in the part: the output's warning counts them */
    double fraction, bytes; /* of this file read so far; its size, taken before the workers start */
    struct progress_share share;
    struct part_pool *pool;
    error_info err;
};

struct part_pool {
    struct part *parts;
    size_t count, next;
    /* Parts appended so far, and how many may wait read ahead of them: workers faster than the
     * one writer (16 of them are) would otherwise leave every part of the folder on disk at once
     * (the page cache of 256 parts of 1M activities). */
    size_t appended, ahead;
    pthread_mutex_t lock;
    /* Broadcast as each part is read (the appender takes them in order) and as each is appended
     * (a worker held back by ahead may start the next file). */
    pthread_cond_t part_done;
    struct progress_share *share; /* the whole import's */
    int64_t worker_cpu_ns;        /* of the workers that ended, under the lock (phase timing) */
    int locked, signalled;        /* lock and part_done made (parts_end undoes them) */
};

/* A worker's progress within its file, added up over the files under the lock. */
static void report_part_progress(void *context, double fraction)
{
    struct part *part = context;
    struct part_pool *pool = part->pool;
    pthread_mutex_lock(&pool->lock);
    part->fraction = fraction;
    double done = 0;
    for (size_t i = 0; i < pool->count; i++)
        done += pool->parts[i].fraction * pool->parts[i].bytes;
    const struct import_options *options = pool->share->options;
    if (options->progress && pool->share->total_bytes > 0)
        options->progress(options->progress_context, done / pool->share->total_bytes);
    pthread_mutex_unlock(&pool->lock);
}

static void part_forward_progress(void *context, double fraction)
{
    struct progress_share *share = context;
    report_part_progress(share->part, (share->done_bytes + fraction * share->file_bytes) /
                                          (share->file_bytes > 0 ? share->file_bytes : 1));
}

static void import_part(struct part *part)
{
    store *output = store_create(part->part_path, STORE_OVERWRITE | STORE_FAST_UNSAFE, &part->err);
    int status = output && store_begin(output, &part->err) == 0 ? 0 : -1;
    if (status == 0)
        status = import_one(output, part->path, &part->share, &part->formats_seen, NULL, &part->err);
    part->texts_cut = output ? store_texts_cut(output) : 0;
    if (output && store_close(output, status == 0 ? &part->err : NULL) != 0)
        status = -1;
    part->status = status;
}

static void *part_worker(void *argument)
{
    struct part_pool *pool = argument;
    for (;;) {
        pthread_mutex_lock(&pool->lock);
        while (pool->next < pool->count && pool->next >= pool->appended + pool->ahead)
            pthread_cond_wait(&pool->part_done, &pool->lock);
        size_t index = pool->next < pool->count ? pool->next++ : pool->count;
        if (index == pool->count) {
            pool->worker_cpu_ns += phase_timing_now().cpu_ns;
            pthread_mutex_unlock(&pool->lock);
            return NULL;
        }
        pthread_mutex_unlock(&pool->lock);
        import_part(&pool->parts[index]);
        pthread_mutex_lock(&pool->lock);
        pool->parts[index].done = 1;
        pthread_cond_broadcast(&pool->part_done);
        pthread_mutex_unlock(&pool->lock);
    }
}

/* Workers for files: the option's number, or this machine's processors (0), never more than
 * files, at least one. */
static size_t worker_count(int jobs, size_t files)
{
    long wanted = jobs > 0 ? jobs : sysconf(_SC_NPROCESSORS_ONLN);
    if (wanted < 1)
        wanted = 1;
    return (size_t)wanted < files ? (size_t)wanted : files;
}

/* pool over the count files of paths, each read into the part temporary_path ".part" I, workers at
 * most ahead files past the last appended. Returns 0, or -1 with err filled; parts_end undoes it
 * either way. */
static int parts_begin(struct part_pool *pool, char *const *paths, size_t count, size_t ahead,
                       const char *temporary_path, struct progress_share *share, error_info *err)
{
    *pool = (struct part_pool){.count = count, .ahead = ahead, .share = share};
    pool->parts = calloc(count ? count : 1, sizeof *pool->parts);
    pool->locked = pool->parts && pthread_mutex_init(&pool->lock, NULL) == 0;
    pool->signalled = pool->locked && pthread_cond_init(&pool->part_done, NULL) == 0;
    if (!pool->signalled)
        return error_set(err, "out of memory");
    for (size_t i = 0; i < count; i++) {
        struct part *part = &pool->parts[i];
        part->path = paths[i];
        part->bytes = file_size(part->path);
        part->pool = pool;
        part->share = (struct progress_share){.options = share->options, .part = part};
        part->share.forward = part_forward_progress;
        if (snprintf(part->part_path, sizeof part->part_path, "%s.part%zu", temporary_path, i) >=
            (int)sizeof part->part_path)
            return error_set(err, "'%s': the path is too long", temporary_path);
    }
    return 0;
}

/* Removes every part still on disk and frees pool. */
static void parts_end(struct part_pool *pool)
{
    for (size_t i = 0; pool->parts && i < pool->count; i++)
        if (pool->parts[i].part_path[0])
            output_file_remove(pool->parts[i].part_path);
    if (pool->signalled)
        pthread_cond_destroy(&pool->part_done);
    if (pool->locked)
        pthread_mutex_destroy(&pool->lock);
    free(pool->parts);
}

/* Reads files into parts beside out's temporary file on workers while this thread appends the
 * parts to output in file order, each as soon as it is read, and removes it once appended; no
 * worker starts a file more than 2 x workers files ahead of the last appended, so a folder of
 * many ranks never has more than that many parts on disk at once. The first failing file's error is
 * the import's: no file is started after it, the files being read are finished, and every part
 * is removed before this returns (on a signal, output_file removes them). */
static int import_in_parallel(store *output, output_file *out, const struct file_list *files, size_t workers,
                              struct progress_share *share, int *formats_seen, struct phase_timing *timing,
                              error_info *err)
{
    struct part_pool pool;
    pthread_t *threads = calloc(workers, sizeof *threads);
    int status =
        parts_begin(&pool, files->paths, files->count, 2 * workers, output_file_temporary(out), share, err);
    if (status == 0 && !threads)
        status = error_set(err, "out of memory");
    output_file_watch_parts(out, files->count);
    if (status == 0)
        status = store_parts_begin(output, err);
    size_t started = 0;
    for (; status == 0 && started < workers; started++)
        if (pthread_create(&threads[started], NULL, part_worker, &pool) != 0)
            break;
    if (status == 0 && started == 0)
        status = error_set(err, "cannot start a thread to import with");
    struct phase_mark mark = phase_timing_now();
    for (size_t i = 0; i < files->count && status == 0; i++) {
        struct part *part = &pool.parts[i];
        pthread_mutex_lock(&pool.lock);
        while (!part->done)
            pthread_cond_wait(&pool.part_done, &pool.lock);
        pthread_mutex_unlock(&pool.lock);
        mark = phase_timing_add(timing, "wait for a part", mark, 0, 1);
        if (part->status != 0) {
            *err = part->err;
            status = -1;
        } else if (store_append_part(output, part->part_path, err) != 0) {
            status = error_prefix(err, "%s", part->path);
        }
        output_file_remove(part->part_path);
        store_add_texts_cut(output, part->texts_cut);
        *formats_seen |= part->formats_seen;
        pthread_mutex_lock(&pool.lock);
        pool.appended = i + 1;
        pthread_cond_broadcast(&pool.part_done);
        pthread_mutex_unlock(&pool.lock);
        mark = phase_timing_add(timing, "append parts", mark, 0, 1);
    }
    if (pool.signalled) { /* after a failure: no file is started */
        pthread_mutex_lock(&pool.lock);
        pool.next = pool.count;
        pthread_cond_broadcast(&pool.part_done);
        pthread_mutex_unlock(&pool.lock);
    }
    for (size_t i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    phase_timing_add(timing, "read files (workers)", mark, pool.worker_cpu_ns, 1);
    share->done_bytes = share->total_bytes;
    parts_end(&pool);
    free(threads);
    return status == 0 ? store_begin(output, err) : -1;
}

/* meta host is where the trace was recorded: the hosts the inputs name (nsys exports do), else
 * unknown (NULL), never the machine that imports. */
static int write_meta(store *output, int formats_seen, const char *const *more, error_info *err)
{
    int kineto = formats_seen & (1 << IMPORT_FORMAT_KINETO), nsys = formats_seen & (1 << IMPORT_FORMAT_NSYS);
    const char *source = kineto && nsys ? "kineto+nsys" : nsys ? "nsys" : "kineto";
    char *hosts = store_process_hosts(output);
    int status = store_set_meta(output, "source", source, err) ||
                         store_set_meta(output, "clock", source, err) ||
                         store_set_meta(output, "host", hosts, err)
                     ? -1
                     : 0;
    free(hosts);
    if (status != 0)
        return -1;
    for (size_t i = 0; more && more[i] && more[i + 1]; i += 2)
        if (store_set_meta(output, more[i], more[i + 1], err) != 0)
            return -1;
    return 0;
}

/* The inputs still are what was read: a trace replaced or rewritten during the import would
 * otherwise be kept under the identity of what it became, not of what was read. */
static int check_unchanged(char *const *inputs, int input_count, const struct file_list *files,
                           const char *before, error_info *err)
{
    char *after = NULL;
    if (identity_of(inputs, input_count, files, &after, err) != 0)
        return -1;
    const char *change = import_identity_change(before, after);
    free(after);
    if (change)
        return error_set(err, "'%s' changed while it was being imported (%s): not kept", inputs[0], change);
    return 0;
}

/* What a file of this mode is, for a skipped entry's warning. */
static const char *kind_of(mode_t mode)
{
    return S_ISDIR(mode)                    ? "a folder"
           : S_ISFIFO(mode)                 ? "a named pipe"
           : S_ISCHR(mode) || S_ISBLK(mode) ? "a device"
           : S_ISSOCK(mode)                 ? "a socket"
                                            : "not a regular file";
}

/* A warning row, and the caller's warn, for each trace-named entry of a folder that is no file:
 * a FIFO, a device, a folder, a link to nothing or to one of those (named as what it points to: a
 * link to a folder or to /dev/null was "a symbolic link to nothing readable"). */
static int warn_skipped(store *output, const struct file_list *skipped, const struct import_options *options,
                        error_info *err)
{
    for (size_t i = 0; i < skipped->count; i++) {
        char message[4200], link_to[64];
        struct stat info, target;
        const char *what = "cannot be read";
        int listed = lstat(skipped->paths[i], &info) == 0;
        if (listed && !S_ISLNK(info.st_mode)) {
            what = kind_of(info.st_mode);
        } else if (listed && stat(skipped->paths[i], &target) != 0) {
            what = "a symbolic link to nothing readable";
        } else if (listed) {
            snprintf(link_to, sizeof link_to, "a symbolic link to %s", kind_of(target.st_mode));
            what = link_to;
        }
        snprintf(message, sizeof message, "%s: skipped, %s (not a trace file)", skipped->paths[i], what);
        struct store_warning warning = {.process_id = STORE_NULL,
                                        .time_ns = STORE_NULL,
                                        .code = "import-folder-skipped",
                                        .message = message};
        if (store_insert_warning(output, &warning, err) != 0)
            return -1;
        if (options->warn)
            options->warn(options->warn_context, message);
    }
    return 0;
}

int import_run(const char *output_path, char *const *inputs, int input_count,
               const struct import_options *options, error_info *err)
{
    struct phase_mark start = phase_timing_now();
    struct file_list skipped = {0};
    struct file_list files = {.skipped = &skipped};
    if (expand_inputs(&files, inputs, input_count, output_path, err) != 0) {
        list_free(&files);
        return -1;
    }
    char *identity = NULL;
    if (options->identity_meta_key && identity_of(inputs, input_count, &files, &identity, err) != 0) {
        list_free(&files);
        return -1;
    }
    output_file *out = output_file_begin(output_path, options->force, (const char *const *)files.paths,
                                         (int)files.count, err);
    if (!out) {
        free(identity);
        list_free(&files);
        return -1;
    }
    store *output = store_create(output_file_temporary(out), STORE_OVERWRITE | STORE_FAST_UNSAFE, err);
    struct progress_share share = {.options = options};
    for (size_t i = 0; i < files.count; i++)
        share.total_bytes += file_size(files.paths[i]);
    int formats_seen = 0;
    int status = output && store_begin(output, err) == 0 ? 0 : -1;
    size_t workers = worker_count(options->jobs, files.count);
    struct phase_timing *timing = options->timing;
    struct phase_mark mark = phase_timing_add(timing, "list inputs, create the output", start, 0, 0);
    if (status == 0 && workers > 1)
        status = import_in_parallel(output, out, &files, workers, &share, &formats_seen, timing, err);
    for (size_t i = 0; status == 0 && workers <= 1 && i < files.count; i++)
        status = import_one(output, files.paths[i], &share, &formats_seen, timing, err);
    mark = phase_timing_add_rest(timing, "between files", start);
    if (status == 0)
        status = warn_skipped(output, &skipped, options, err);
    if (status == 0)
        status = write_meta(output, formats_seen, options->meta, err);
    if (status == 0 && identity)
        status = store_set_meta(output, options->identity_meta_key, identity, err);
    mark = phase_timing_add(timing, "warnings, meta", mark, 0, 0);
    if (status == 0)
        status = store_finalize(output, err);
    mark = phase_timing_add(timing, "finalize: indexes, ANALYZE, WAL", mark, 0, 0);
    if (status == 0 && options->finish)
        status = options->finish(output, err);
    mark = phase_timing_add(timing, "finish (overview)", mark, 0, 0);
    if (output && store_close(output, status == 0 ? err : NULL) != 0)
        status = -1;
    phase_timing_add(timing, "close", mark, 0, 0);
    if (status == 0 && identity)
        status = check_unchanged(inputs, input_count, &files, identity, err);
    if (status == 0)
        status = output_file_commit(out, err);
    else
        output_file_fail(out, err);
    free(identity);
    int imported = (int)files.count;
    list_free(&files);
    return status == 0 ? imported : -1;
}

/* --- one block of the files, for one of several processes --- */

/* Reads the block's files into parts on workers (all may run ahead: the appends wait for the
 * names), then hands them to names, then appends them in order. Returns 0, or -1 with err filled;
 * the parts are removed either way. */
static int import_block_parts(store *output, const char *temporary_path, char *const *paths, size_t count,
                              size_t workers, struct progress_share *share, int *formats_seen,
                              const struct import_block_names *names, struct phase_timing *timing,
                              error_info *err)
{
    struct phase_mark mark = phase_timing_now();
    struct part_pool pool;
    pthread_t *threads = calloc(workers ? workers : 1, sizeof *threads);
    const char **part_paths = calloc(count ? count : 1, sizeof *part_paths);
    int status = parts_begin(&pool, paths, count, count, temporary_path, share, err);
    if (status == 0 && (!threads || !part_paths))
        status = error_set(err, "out of memory");
    for (size_t i = 0; status == 0 && i < count; i++)
        part_paths[i] = pool.parts[i].part_path;
    size_t started = 0;
    for (; status == 0 && started < workers && started < count; started++)
        if (pthread_create(&threads[started], NULL, part_worker, &pool) != 0)
            break;
    if (status == 0 && count > 0 && started == 0)
        status = error_set(err, "cannot start a thread to import with");
    for (size_t i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    mark = phase_timing_add(timing, "read files (workers)", mark, pool.worker_cpu_ns, started > 1);
    for (size_t i = 0; status == 0 && i < count; i++)
        if (pool.parts[i].status != 0) {
            *err = pool.parts[i].err;
            status = -1;
        }
    /* The names once every part is read (on a failure, the caller tells those that wait for them). */
    if (status == 0)
        status = names->take(names->context, output, part_paths, count, err);
    mark = phase_timing_add(timing, "strings of the files before (chain)", mark, 0, 0);
    if (status == 0)
        status = store_parts_begin(output, err);
    for (size_t i = 0; status == 0 && i < count; i++) {
        if (store_append_part(output, pool.parts[i].part_path, err) != 0)
            status = error_prefix(err, "%s", pool.parts[i].path);
        store_add_texts_cut(output, pool.parts[i].texts_cut);
        *formats_seen |= pool.parts[i].formats_seen;
        output_file_remove(pool.parts[i].part_path);
        if (names->progress)
            names->progress(names->context);
    }
    parts_end(&pool);
    mark = phase_timing_add(timing, "append parts", mark, 0, 0);
    if (status == 0 && names->complete)
        status = names->complete(names->context, output, err);
    phase_timing_add(timing, "every process's strings (process 0)", mark, 0, 0);
    free(part_paths);
    free(threads);
    return status == 0 ? store_begin(output, err) : -1;
}

int import_run_block(const char *output_path, char *const *inputs, int input_count, size_t block,
                     size_t blocks, const struct import_options *options,
                     const struct import_block_names *names, size_t *files_read, size_t *files_total,
                     error_info *err)
{
    struct file_list skipped = {0};
    struct file_list files = {.skipped = &skipped};
    *files_read = *files_total = 0;
    if (blocks == 0 || block >= blocks)
        return error_set(err, "block %zu of %zu: no such block", block, blocks);
    /* Files named one by one: the block is of the names, and only its own need be here (the
     * others may lie on other nodes); a folder is listed whole (every process sees it whole). */
    int named = input_count > 1;
    for (int i = 0; named && i < input_count; i++) {
        struct stat info;
        named = stat(inputs[i], &info) != 0 || !S_ISDIR(info.st_mode);
    }
    size_t count = named ? (size_t)input_count : 0;
    size_t first = count * block / blocks, end = count * (block + 1) / blocks;
    int status = named ? expand_inputs(&files, inputs + first, (int)(end - first), output_path, err)
                       : expand_inputs(&files, inputs, input_count, output_path, err);
    if (status != 0) {
        list_free(&files);
        return -1;
    }
    if (named) { /* files holds the block alone */
        first = 0;
        end = files.count;
    } else {
        count = files.count;
        first = count * block / blocks;
        end = count * (block + 1) / blocks;
    }
    *files_total = count;
    *files_read = end - first;
    output_file *out = output_file_begin(output_path, options->force,
                                         (const char *const *)files.paths + first, (int)(end - first), err);
    if (!out) {
        list_free(&files);
        return -1;
    }
    store *output = store_create(output_file_temporary(out), STORE_OVERWRITE | STORE_FAST_UNSAFE, err);
    struct progress_share share = {.options = options};
    for (size_t i = first; i < end; i++)
        share.total_bytes += file_size(files.paths[i]);
    int formats_seen = 0;
    status = output && store_begin(output, err) == 0 ? 0 : -1;
    if (status == 0)
        status = import_block_parts(output, output_file_temporary(out), files.paths + first, end - first,
                                    worker_count(options->jobs, end - first), &share, &formats_seen, names,
                                    options->timing, err);
    /* Every process lists the folder's skipped entries as the whole import does: its warnings. */
    if (status == 0)
        status = warn_skipped(output, &skipped, options, err);
    if (status == 0)
        status = write_meta(output, formats_seen, options->meta, err);
    struct phase_mark mark = phase_timing_now();
    if (status == 0)
        status = store_finalize(output, err);
    if (output && store_close(output, status == 0 ? err : NULL) != 0)
        status = -1;
    phase_timing_add(options->timing, "finalize: indexes, ANALYZE, WAL", mark, 0, 0);
    if (status == 0)
        status = output_file_commit(out, err);
    else
        output_file_fail(out, err);
    list_free(&files);
    return status;
}
