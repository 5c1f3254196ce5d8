/* import.c: the import driver: inputs to files, files to formats, formats to importers, one
 * atomic output (see import.h). Owns: the expanded file list and the output store while it is
 * being written. */
#include "import.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "describe.h"
#include "kineto.h"
#include "nsys.h"
#include "output_file.h"
#include "store.h"

struct file_list {
    char **paths;
    size_t count, capacity;
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
        if (stat(path, &info) == 0 && S_ISREG(info.st_mode) && !is_output(&info, output_info))
            status = list_add(list, path, err);
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
    return 0;
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
    if (format != IMPORT_FORMAT_NSYS)
        return format == IMPORT_FORMAT_KINETO || (S_ISREG(info.st_mode) && is_pickle_file(path));
    /* Any SQLite file says NSYS by its header: only an export's tables make it one. */
    sqlite3 *db = NULL;
    int is_export = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK && nsys_is_export(db);
    sqlite3_close(db);
    return is_export;
}

static void keep_newer(struct timespec *newest, const struct stat *info)
{
    if (info->st_mtim.tv_sec > newest->tv_sec ||
        (info->st_mtim.tv_sec == newest->tv_sec && info->st_mtim.tv_nsec > newest->tv_nsec))
        *newest = info->st_mtim;
}

int import_newest_input(char *const *inputs, int input_count, struct timespec *newest, error_info *err)
{
    struct file_list files = {0};
    *newest = (struct timespec){0};
    int status = expand_inputs(&files, inputs, input_count, NULL, err);
    struct stat info;
    for (int i = 0; status == 0 && i < input_count; i++)
        if (stat(inputs[i], &info) == 0 && S_ISDIR(info.st_mode))
            keep_newer(newest, &info);
    for (size_t i = 0; status == 0 && i < files.count; i++) {
        if (stat(files.paths[i], &info) != 0)
            status = error_set(err, "cannot open '%s': %s", files.paths[i], strerror(errno));
        else
            keep_newer(newest, &info);
    }
    list_free(&files);
    return status;
}

struct progress_share {
    const struct import_options *options;
    double done_bytes, file_bytes, total_bytes;
};

static void report_file_progress(void *context, double fraction)
{
    struct progress_share *share = context;
    if (share->options->progress && share->total_bytes > 0)
        share->options->progress(share->options->progress_context,
                                 (share->done_bytes + fraction * share->file_bytes) / share->total_bytes);
}

static double file_size(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0 ? (double)info.st_size : 0;
}

static int import_one(store *output, const char *path, struct progress_share *share, int *formats_seen,
                      error_info *err)
{
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
    /* What imports must read: the readers' bounds, applied to this file's rows (issue 20). */
    if (status == 0 && store_check_plausible(output, &before, err) != 0)
        status = error_prefix(err, "%s: not imported, no reader would accept it", path);
    share->done_bytes += share->file_bytes;
    report_file_progress(share, 0);
    return status;
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

int import_run(const char *output_path, char *const *inputs, int input_count,
               const struct import_options *options, error_info *err)
{
    struct file_list files = {0};
    if (expand_inputs(&files, inputs, input_count, output_path, err) != 0) {
        list_free(&files);
        return -1;
    }
    output_file *out = output_file_begin(output_path, options->force, (const char *const *)files.paths,
                                         (int)files.count, err);
    if (!out) {
        list_free(&files);
        return -1;
    }
    store *output = store_create(output_file_temporary(out), STORE_OVERWRITE | STORE_FAST_UNSAFE, err);
    struct progress_share share = {.options = options};
    for (size_t i = 0; i < files.count; i++)
        share.total_bytes += file_size(files.paths[i]);
    int formats_seen = 0;
    int status = output && store_begin(output, err) == 0 ? 0 : -1;
    for (size_t i = 0; status == 0 && i < files.count; i++)
        status = import_one(output, files.paths[i], &share, &formats_seen, err);
    if (status == 0)
        status = write_meta(output, formats_seen, options->meta, err);
    if (status == 0)
        status = store_finalize(output, err);
    if (status == 0 && options->finish)
        status = options->finish(output, err);
    if (output && store_close(output, status == 0 ? err : NULL) != 0)
        status = -1;
    if (status == 0)
        status = output_file_commit(out, err);
    else
        output_file_fail(out, err);
    int imported = (int)files.count;
    list_free(&files);
    return status == 0 ? imported : -1;
}
