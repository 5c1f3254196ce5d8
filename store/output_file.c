/* output_file.c: checked, temporary-then-exclusive-rename output files (see output_file.h).
 *
 * Owns: each output_file handle (its temporary path, descriptor or stream) and the table of
 * temporary files a signal must remove. That table is the one piece of process-wide state here:
 * a signal handler can reach nothing else, and only async-signal-safe calls touch it there. */
#include "output_file.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct output_file {
    char *final_path;
    char *temporary_path;
    int force;
    int fd;       /* the reserved temporary file, until a stream takes it over or commit closes it */
    FILE *stream; /* output_file_stream's, owned here */
    int slot;     /* in the signal table, or -1 */
    mode_t mode;  /* the output's permissions (output_mode) */
};

/* --- removal on SIGINT, SIGTERM, SIGHUP --- */

#define SIGNAL_SLOTS 8
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define CLEANUP_SIGNAL_COUNT (sizeof cleanup_signals / sizeof cleanup_signals[0])
/* The temporary files being written and the handlers in place (see the top of this file). */
static struct {
    char paths[SIGNAL_SLOTS][PATH_MAX];
    volatile sig_atomic_t used[SIGNAL_SLOTS];
    volatile sig_atomic_t part_counts[SIGNAL_SLOTS]; /* output_file_watch_parts */
    struct sigaction previous_actions[CLEANUP_SIGNAL_COUNT];
    int handler_installed[CLEANUP_SIGNAL_COUNT];
} pending;

void output_file_remove(const char *path)
{
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
    size_t length = strlen(path);
    char name[PATH_MAX + 16];
    if (length >= PATH_MAX)
        return;
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        memcpy(name, path, length);
        memcpy(name + length, suffixes[i], strlen(suffixes[i]) + 1);
        unlink(name);
    }
}

/* Removes path ".part" N for N below count, and their sidecars. Async-signal-safe. */
static void remove_parts(const char *path, sig_atomic_t count)
{
    size_t length = strlen(path);
    char name[PATH_MAX + 32];
    if (length >= PATH_MAX)
        return;
    memcpy(name, path, length);
    memcpy(name + length, ".part", 5);
    for (sig_atomic_t part = 0; part < count; part++) {
        char digits[24];
        size_t digit_count = 0;
        for (sig_atomic_t rest = part; digit_count == 0 || rest > 0; rest /= 10)
            digits[digit_count++] = (char)('0' + rest % 10);
        for (size_t i = 0; i < digit_count; i++)
            name[length + 5 + i] = digits[digit_count - 1 - i];
        name[length + 5 + digit_count] = '\0';
        output_file_remove(name);
    }
}

static void remove_on_signal(int signal_number)
{
    for (int i = 0; i < SIGNAL_SLOTS; i++)
        if (pending.used[i]) {
            output_file_remove(pending.paths[i]);
            remove_parts(pending.paths[i], pending.part_counts[i]);
        }
    /* Die of the signal as the process would have without us. */
    for (size_t i = 0; i < CLEANUP_SIGNAL_COUNT; i++)
        if (cleanup_signals[i] == signal_number)
            sigaction(signal_number, &pending.previous_actions[i], NULL);
    raise(signal_number);
}

/* Installs the handler for the signals that would have killed the process outright; a program
 * that ignores or handles one itself keeps its own way. */
static void install_handlers(void)
{
    for (size_t i = 0; i < CLEANUP_SIGNAL_COUNT; i++) {
        struct sigaction current;
        if (pending.handler_installed[i] || sigaction(cleanup_signals[i], NULL, &current) != 0 ||
            current.sa_handler != SIG_DFL)
            continue;
        struct sigaction action = {0};
        action.sa_handler = remove_on_signal;
        sigemptyset(&action.sa_mask);
        for (size_t j = 0; j < CLEANUP_SIGNAL_COUNT; j++)
            sigaddset(&action.sa_mask, cleanup_signals[j]);
        if (sigaction(cleanup_signals[i], &action, &pending.previous_actions[i]) == 0)
            pending.handler_installed[i] = 1;
    }
}

static void restore_handlers(void)
{
    for (size_t i = 0; i < CLEANUP_SIGNAL_COUNT; i++)
        if (pending.handler_installed[i]) {
            sigaction(cleanup_signals[i], &pending.previous_actions[i], NULL);
            pending.handler_installed[i] = 0;
        }
}

/* Returns the slot, or -1 when the table is full (the file is then only removed on errors). */
static int watch_temporary(const char *path)
{
    if (strlen(path) >= PATH_MAX)
        return -1;
    for (int i = 0; i < SIGNAL_SLOTS; i++) {
        if (pending.used[i])
            continue;
        memcpy(pending.paths[i], path, strlen(path) + 1);
        pending.part_counts[i] = 0;
        pending.used[i] = 1;
        install_handlers();
        return i;
    }
    return -1;
}

void output_file_watch_parts(output_file *out, size_t count)
{
    if (out->slot >= 0)
        pending.part_counts[out->slot] = count < (size_t)INT_MAX ? (sig_atomic_t)count : INT_MAX;
}

static void unwatch_temporary(int slot)
{
    if (slot < 0)
        return;
    pending.used[slot] = 0;
    for (int i = 0; i < SIGNAL_SLOTS; i++)
        if (pending.used[i])
            return;
    restore_handlers();
}

/* --- checks --- */

/* The folder part of path ("." when none); 0, or -1 when it does not fit. */
static int folder_of(const char *path, char *folder, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return snprintf(folder, size, ".") < (int)size ? 0 : -1;
    size_t length = slash == path ? 1 : (size_t)(slash - path);
    if (length >= size)
        return -1;
    memcpy(folder, path, length);
    folder[length] = '\0';
    return 0;
}

static int refuse_input(const char *final_path, const struct stat *output, const char *const *inputs,
                        int input_count, error_info *err)
{
    for (int i = 0; inputs && i < input_count; i++) {
        struct stat input;
        if (inputs[i] && stat(inputs[i], &input) == 0 && input.st_dev == output->st_dev &&
            input.st_ino == output->st_ino)
            return error_set(
                err, "cannot write '%s': it is the input '%s' (overlapscope never writes onto its input)",
                final_path, inputs[i]);
    }
    return 0;
}

int output_file_check(const char *final_path, int force, const char *const *inputs, int input_count,
                      error_info *err)
{
    if (!final_path || final_path[0] == '\0')
        return error_set(err, "cannot write '': empty file name");
    /* "-" is standard output where a writer streams (export --chrome -); elsewhere it never
     * silently names a file: a trace or a picture is not written to a terminal. */
    if (strcmp(final_path, "-") == 0)
        return error_set(err,
                         "cannot write '-': this output cannot go to standard output (name a file; ./- for a"
                         " file called '-')");
    if (final_path[strlen(final_path) - 1] == '/')
        return error_set(err, "cannot write '%s': names a folder, not a file", final_path);
    char folder[PATH_MAX];
    struct stat info;
    if (folder_of(final_path, folder, sizeof folder) != 0)
        return error_set(err, "cannot write '%s': %s", final_path, strerror(ENAMETOOLONG));
    if (stat(folder, &info) != 0)
        return error_set(err, "cannot write '%s': folder '%s': %s", final_path, folder, strerror(errno));
    if (!S_ISDIR(info.st_mode))
        return error_set(err, "cannot write '%s': '%s' is not a folder", final_path, folder);
    if (access(folder, W_OK | X_OK) != 0)
        return error_set(err, "cannot write '%s': folder '%s': %s", final_path, folder, strerror(errno));
    if (lstat(final_path, &info) != 0) {
        if (errno == ENOENT)
            return 0;
        return error_set(err, "cannot write '%s': %s", final_path, strerror(errno));
    }
    if (S_ISLNK(info.st_mode))
        return error_set(err,
                         "cannot write '%s': it is a symbolic link (overlapscope neither follows nor replaces"
                         " one: name the file itself)",
                         final_path);
    if (S_ISDIR(info.st_mode))
        return error_set(err, "cannot write '%s': is a directory", final_path);
    if (!S_ISREG(info.st_mode))
        return error_set(err, "cannot write '%s': not a regular file", final_path);
    if (refuse_input(final_path, &info, inputs, input_count, err) != 0)
        return -1;
    if (!force)
        return error_set(err, "cannot write '%s': file exists (use --force to overwrite)", final_path);
    return 0;
}

/* --- permissions --- */

/* The process's umask, read without changing it (umask(2) can only set it: setting and restoring
 * it would race with any other thread creating a file). */
static mode_t current_umask(void)
{
    FILE *status = fopen("/proc/self/status", "re");
    char line[128];
    unsigned mask = 0;
    int found = 0;
    while (status && !found && fgets(line, sizeof line, status))
        found = sscanf(line, "Umask: %o", &mask) == 1;
    if (status)
        fclose(status);
    if (found)
        return (mode_t)mask;
    mode_t previous = umask(022);
    umask(previous);
    return previous;
}

/* What the group and others may do with an output: what the umask leaves them, and no more than
 * they may do with every input (a private trace never gets a readable copy). The owner always
 * reads and writes: the writer (SQLite) opens the file again by name. */
static mode_t output_mode(const char *const *inputs, int input_count)
{
    mode_t others = 0066 & ~current_umask();
    for (int i = 0; inputs && i < input_count; i++) {
        struct stat info;
        if (inputs[i] && stat(inputs[i], &info) == 0 && S_ISREG(info.st_mode))
            others &= info.st_mode;
    }
    return 0600 | (others & 0066);
}

/* --- writing --- */

static void free_handle(output_file *out)
{
    unwatch_temporary(out->slot);
    free(out->final_path);
    free(out->temporary_path);
    free(out);
}

/* ".NAME.partial-XXXXXX" in final_path's folder. */
static char *temporary_template(const char *final_path)
{
    const char *slash = strrchr(final_path, '/');
    const char *name = slash ? slash + 1 : final_path;
    size_t folder_length = slash ? (size_t)(slash - final_path) + 1 : 0;
    size_t size = folder_length + 1 + strlen(name) + sizeof OUTPUT_FILE_PARTIAL_MARK + 6;
    char *path = malloc(size);
    if (path)
        snprintf(path, size, "%.*s.%s" OUTPUT_FILE_PARTIAL_MARK "XXXXXX", (int)folder_length, final_path,
                 name);
    return path;
}

output_file *output_file_begin(const char *final_path, int force, const char *const *inputs, int input_count,
                               error_info *err)
{
    if (output_file_check(final_path, force, inputs, input_count, err) != 0)
        return NULL;
    output_file *out = calloc(1, sizeof *out);
    if (out) {
        out->fd = -1;
        out->slot = -1;
        out->force = force;
        out->final_path = strdup(final_path);
        out->temporary_path = temporary_template(final_path);
    }
    if (!out || !out->final_path || !out->temporary_path) {
        if (out)
            free_handle(out);
        error_set(err, "cannot write '%s': out of memory", final_path);
        return NULL;
    }
    out->fd = mkostemp(out->temporary_path, O_CLOEXEC);
    if (out->fd < 0) {
        error_set(err, "cannot write '%s': %s", final_path, strerror(errno));
        free_handle(out);
        return NULL;
    }
    out->slot = watch_temporary(out->temporary_path);
    out->mode = output_mode(inputs, input_count);
    fchmod(out->fd, out->mode);
    return out;
}

const char *output_file_temporary(const output_file *out)
{
    return out->temporary_path;
}

FILE *output_file_stream(output_file *out, error_info *err)
{
    if (out->stream)
        return out->stream;
    if (out->fd < 0) {
        error_set(err, "cannot write '%s': its temporary file was closed", out->final_path);
        return NULL;
    }
    out->stream = fdopen(out->fd, "wb");
    if (!out->stream) {
        error_set(err, "cannot write '%s': %s", out->final_path, strerror(errno));
        return NULL;
    }
    out->fd = -1;
    return out->stream;
}

static int write_error(const output_file *out, int error_number, error_info *err)
{
    return error_set(err, "cannot write '%s': %s", out->final_path,
                     strerror(error_number ? error_number : EIO));
}

/* Everything written reaches the disk, or an error: a full disk shows here, at the latest. */
static int flush_and_sync(output_file *out, error_info *err)
{
    if (out->stream) {
        FILE *stream = out->stream;
        out->stream = NULL;
        errno = 0;
        int failed = fflush(stream) != 0 || ferror(stream);
        int saved = errno;
        if (!failed && fchmod(fileno(stream), out->mode) != 0) {
            failed = 1;
            saved = errno;
        }
        if (!failed && fsync(fileno(stream)) != 0) {
            failed = 1;
            saved = errno;
        }
        if (fclose(stream) != 0 && !failed) {
            failed = 1;
            saved = errno;
        }
        return failed ? write_error(out, saved, err) : 0;
    }
    if (out->fd >= 0)
        close(out->fd); /* the writer may have replaced the file: sync what is there now */
    out->fd = -1;
    /* SQLite folds its write-ahead log into the file when the last connection closes; a log
     * left behind holds pages the renamed file would lose. */
    char wal[PATH_MAX + 8];
    struct stat info;
    snprintf(wal, sizeof wal, "%s-wal", out->temporary_path);
    if (lstat(wal, &info) == 0 && info.st_size > 0)
        return error_set(err, "cannot write '%s': the database was not completely written (its log remains)",
                         out->final_path);
    int fd = open(out->temporary_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return write_error(out, errno, err);
    /* The writer may have created the file anew (with its own mode): the rule holds again. */
    int status = fchmod(fd, out->mode) == 0 && fsync(fd) == 0 ? 0 : write_error(out, errno, err);
    close(fd);
    return status;
}

static int exists_error(const output_file *out, error_info *err)
{
    return error_set(err,
                     "cannot write '%s': file exists (another writer created it meanwhile; use --force to"
                     " overwrite)",
                     out->final_path);
}

/* Without force: never over an existing name, even one created after output_file_check. */
static int move_exclusively(output_file *out, error_info *err)
{
    if (renameat2(AT_FDCWD, out->temporary_path, AT_FDCWD, out->final_path, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno == EEXIST)
        return exists_error(out, err);
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
        return write_error(out, errno, err);
    /* A file system without RENAME_NOREPLACE: link(2) fails on an existing name just as well. */
    if (link(out->temporary_path, out->final_path) != 0)
        return errno == EEXIST ? exists_error(out, err) : write_error(out, errno, err);
    unlink(out->temporary_path);
    return 0;
}

static int move_over(output_file *out, error_info *err)
{
    struct stat info;
    if (lstat(out->final_path, &info) == 0 && !S_ISREG(info.st_mode))
        return error_set(err, "cannot write '%s': it became a %s while being written", out->final_path,
                         S_ISLNK(info.st_mode) ? "symbolic link" : "non-regular file");
    return rename(out->temporary_path, out->final_path) == 0 ? 0 : write_error(out, errno, err);
}

/* The rename itself survives a power cut only once the folder is synced; best effort, as some
 * file systems refuse fsync on a folder. */
static void sync_folder(const char *final_path)
{
    char folder[PATH_MAX];
    if (folder_of(final_path, folder, sizeof folder) != 0)
        return;
    int fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

int output_file_commit(output_file *out, error_info *err)
{
    int status = flush_and_sync(out, err);
    if (status == 0)
        status = out->force ? move_over(out, err) : move_exclusively(out, err);
    if (status == 0)
        sync_folder(out->final_path);
    /* Sidecars named after the temporary file would never be found again under the final name. */
    output_file_remove(out->temporary_path);
    free_handle(out);
    return status;
}

void output_file_discard(output_file *out)
{
    if (!out)
        return;
    if (out->stream)
        fclose(out->stream);
    else if (out->fd >= 0)
        close(out->fd);
    output_file_remove(out->temporary_path);
    free_handle(out);
}

int output_file_fail(output_file *out, error_info *err)
{
    if (out && err) {
        char *at = strstr(err->message, out->temporary_path);
        if (at) {
            char rest[sizeof err->message];
            snprintf(rest, sizeof rest, "%s", at + strlen(out->temporary_path));
            snprintf(at, sizeof err->message - (size_t)(at - err->message), "%s%s", out->final_path, rest);
        }
    }
    output_file_discard(out);
    return -1;
}

int output_file_is_unfinished(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    const char *mark = strstr(name, OUTPUT_FILE_PARTIAL_MARK);
    if (name[0] != '.' || !mark)
        return 0;
    const char *suffix = mark + strlen(OUTPUT_FILE_PARTIAL_MARK);
    if (*suffix == '\0')
        return 0;
    for (; *suffix; suffix++)
        if (!isalnum((unsigned char)*suffix))
            return 0;
    return 1;
}
