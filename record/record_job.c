/* record_job.c: finding the collector, guarding the output, and running the job (see record.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "output_file.h"
#include "record.h"

int record_collector_built(void)
{
    return OVERLAPSCOPE_RECORD_HAVE_COLLECTOR;
}

static int is_file(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0 && S_ISREG(info.st_mode);
}

int record_find_collector(char *path, size_t size, error_info *err)
{
    char executable[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", executable, sizeof executable - 1);
    if (length <= 0)
        return error_set(err, "cannot find the overlapscope binary (/proc/self/exe): %s", strerror(errno));
    executable[length] = '\0';
    char *bin = dirname(executable);
    /* Relative to bin: the build tree's layout first, then the install tree's (GNUInstallDirs
     * libdir, as CMake configured it, and the usual spellings of it). */
    const char *const relative[] = {"../collector", "../" OVERLAPSCOPE_INSTALL_LIBDIR "/overlapscope",
                                    "../lib/overlapscope", "../lib64/overlapscope"};
    char looked[2048] = "";
    for (size_t i = 0; i < sizeof relative / sizeof relative[0]; i++) {
        char candidate[PATH_MAX + 128];
        snprintf(candidate, sizeof candidate, "%s/%s/%s", bin, relative[i], RECORD_COLLECTOR_NAME);
        char resolved[PATH_MAX];
        if (is_file(candidate) && realpath(candidate, resolved) && strlen(resolved) < size) {
            snprintf(path, size, "%s", resolved);
            return 0;
        }
        size_t used = strlen(looked);
        snprintf(looked + used, sizeof looked - used, "%s%s/%s", used ? ", " : "", bin, relative[i]);
    }
    return error_set(err, "cannot find %s (looked in %s)", RECORD_COLLECTOR_NAME, looked);
}

/* Appends "folder" to the list of folders looked in, and says whether the library is there. */
static int cupti_in(const char *folder, char *looked, size_t looked_size)
{
    if (!folder || !folder[0])
        return 0;
    size_t used = strlen(looked);
    snprintf(looked + used, looked_size - used, "%s%s", used ? ", " : "", folder);
    char candidate[PATH_MAX + 64];
    snprintf(candidate, sizeof candidate, "%s/%s", folder, OVERLAPSCOPE_CUPTI_SONAME);
    return is_file(candidate);
}

/* Looks in each of a CUDA installation's folders that may hold libcupti. */
static const char *cupti_in_toolkit(const char *root, char *looked, size_t looked_size, char *found,
                                    size_t found_size)
{
    static const char *const below[] = {"extras/CUPTI/lib64", "lib64", "lib"};
    for (size_t i = 0; root && root[0] && i < sizeof below / sizeof below[0]; i++) {
        snprintf(found, found_size, "%s/%s", root, below[i]);
        if (cupti_in(found, looked, looked_size))
            return found;
    }
    return NULL;
}

int record_find_cupti(char *folder, size_t size, error_info *err)
{
    char looked[4096] = "", found[PATH_MAX];
    const char *chosen = getenv("OVERLAPSCOPE_CUPTI");
    if (chosen && chosen[0]) {
        /* the library itself, or its folder */
        snprintf(found, sizeof found, "%s", chosen);
        if (is_file(found) && strchr(found, '/'))
            *strrchr(found, '/') = '\0';
        if (cupti_in(found, looked, sizeof looked))
            return snprintf(folder, size, "%s", found) >= (int)size ? error_set(err, "path too long") : 0;
        return error_set(err,
                         "%s (CUPTI) is not in OVERLAPSCOPE_CUPTI=%s: set it to the folder that holds it "
                         "(the CUDA toolkit's extras/CUPTI/lib64)",
                         OVERLAPSCOPE_CUPTI_SONAME, chosen);
    }
    const char *paths = getenv("LD_LIBRARY_PATH");
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", paths ? paths : "");
    char *saved = NULL;
    for (char *entry = strtok_r(copy, ":", &saved); entry; entry = strtok_r(NULL, ":", &saved))
        if (cupti_in(entry, looked, sizeof looked))
            return snprintf(folder, size, "%s", entry) >= (int)size ? error_set(err, "path too long") : 0;
    const char *const roots[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++)
        if (cupti_in_toolkit(roots[i], looked, sizeof looked, found, sizeof found))
            return snprintf(folder, size, "%s", found) >= (int)size ? error_set(err, "path too long") : 0;
    const char *const system[] = {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64",
                                  "/usr/lib", OVERLAPSCOPE_CUPTI_BUILD_DIR};
    for (size_t i = 0; i < sizeof system / sizeof system[0]; i++)
        if (cupti_in(system[i], looked, sizeof looked))
            return snprintf(folder, size, "%s", system[i]) >= (int)size ? error_set(err, "path too long") : 0;
    return error_set(
        err,
        "cannot find %s (CUPTI, part of the CUDA toolkit, which the collector needs; looked in %s): "
        "install the CUDA toolkit, or set OVERLAPSCOPE_CUPTI to the folder that holds it",
        OVERLAPSCOPE_CUPTI_SONAME, looked);
}

static void folder_of(const char *path, char *folder, size_t size)
{
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", path);
    snprintf(folder, size, "%s", dirname(copy));
}

int record_lock_output(const char *output, int force, error_info *err)
{
    if (output_file_check(output, force, NULL, 0, err) != 0)
        return -1;
    char lock_path[PATH_MAX + 8];
    snprintf(lock_path, sizeof lock_path, "%s.lock", output);
    int lock_fd = open(lock_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (lock_fd < 0)
        return error_set(err, "cannot create '%s': %s", lock_path,
                         errno == ELOOP ? "it is a symbolic link (never followed)" : strerror(errno));
    if (flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
        close(lock_fd);
        return error_set(err, "cannot write '%s': another 'overlapscope record' is writing it (%s is locked)",
                         output, lock_path);
    }
    /* Checked again under the lock: another record may have finished it meanwhile. */
    if (output_file_check(output, force, NULL, 0, err) != 0) {
        record_unlock_output(output, lock_fd);
        return -1;
    }
    return lock_fd;
}

void record_unlock_output(const char *output, int lock_fd)
{
    char lock_path[PATH_MAX + 8];
    snprintf(lock_path, sizeof lock_path, "%s.lock", output);
    unlink(lock_path); /* while still holding it: a waiting record then makes its own */
    if (lock_fd >= 0)
        close(lock_fd);
}

int record_make_run_directory(const char *output, char *directory, size_t size, error_info *err)
{
    char folder[PATH_MAX];
    folder_of(output, folder, sizeof folder);
    /* Absolute: the job may change its working directory before CUDA starts. */
    char absolute[PATH_MAX];
    if (!realpath(folder, absolute))
        return error_set(err, "cannot write '%s': %s", output, strerror(errno));
    snprintf(directory, size, "%s/.overlapscope-record-XXXXXX", absolute);
    if (!mkdtemp(directory))
        return error_set(err, "cannot create a folder in '%s': %s", absolute, strerror(errno));
    return 0;
}

void record_remove_run_directory(const char *directory)
{
    DIR *folder = opendir(directory);
    if (folder) {
        struct dirent *entry;
        while ((entry = readdir(folder)) != NULL) {
            if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
                continue;
            char path[PATH_MAX + 256];
            snprintf(path, sizeof path, "%s/%s", directory, entry->d_name);
            unlink(path);
        }
        closedir(folder);
    }
    rmdir(directory);
}

static int set_variable(const char *name, const char *value, error_info *err)
{
    if (setenv(name, value, 1) != 0)
        return error_set(err, "cannot set %s: %s", name, strerror(errno));
    return 0;
}

/* The folder first in LD_LIBRARY_PATH, for the collector's libcupti (record_find_cupti). */
static int prepend_library_path(const char *folder, error_info *err)
{
    const char *old = getenv("LD_LIBRARY_PATH");
    size_t size = strlen(folder) + (old ? strlen(old) : 0) + 2;
    char *value = malloc(size);
    if (!value)
        return error_set(err, "out of memory");
    snprintf(value, size, "%s%s%s", folder, old && old[0] ? ":" : "", old ? old : "");
    int status = set_variable("LD_LIBRARY_PATH", value, err);
    free(value);
    return status;
}

/* OVERLAPSCOPE_CAPTURE_RANGE, _DELAY and _DURATION (collector_options.h) */
static int set_capture_variables(const struct record_settings *settings, error_info *err)
{
    const char *const names[] = {"OVERLAPSCOPE_CAPTURE_RANGE", "OVERLAPSCOPE_DELAY", "OVERLAPSCOPE_DURATION"};
    const char *const values[] = {settings->capture_range, settings->delay, settings->duration};
    for (int i = 0; i < 3; i++) {
        if (values[i] ? set_variable(names[i], values[i], err) != 0 : unsetenv(names[i]) != 0)
            return values[i] ? -1 : error_set(err, "cannot remove %s from the environment", names[i]);
    }
    return 0;
}

int record_set_environment(const struct record_settings *settings, error_info *err)
{
    char number[32];
    if (settings->cupti_folder && prepend_library_path(settings->cupti_folder, err) != 0)
        return -1;
    if (set_variable("CUDA_INJECTION64_PATH", settings->collector_path, err) != 0 ||
        set_variable("OVERLAPSCOPE_OUTPUT_DIR", settings->run_directory, err) != 0 ||
        set_variable("OVERLAPSCOPE_NO_API", "0", err) != 0 ||
        set_variable("OVERLAPSCOPE_API", settings->api ? settings->api : "analysis", err) != 0 ||
        set_variable("OVERLAPSCOPE_NCCL", settings->nccl ? "1" : "0", err) != 0)
        return -1;
    if (settings->kinds && set_variable("OVERLAPSCOPE_KINDS", settings->kinds, err) != 0)
        return -1;
    snprintf(number, sizeof number, "%d", settings->sample_hz);
    if (set_variable("OVERLAPSCOPE_SAMPLE_HZ", number, err) != 0 || set_capture_variables(settings, err) != 0)
        return -1;
    if (settings->flush_ms > 0) {
        snprintf(number, sizeof number, "%d", settings->flush_ms);
        if (set_variable("OVERLAPSCOPE_FLUSH_MS", number, err) != 0)
            return -1;
    }
    const struct {
        const char *name;
        int64_t value;
    } sizes[] = {{"OVERLAPSCOPE_BUFFER_BYTES", settings->buffer_bytes},
                 {"OVERLAPSCOPE_BUFFER_COUNT", settings->buffer_count},
                 {"OVERLAPSCOPE_DEVICE_BUFFER_BYTES", settings->device_buffer_bytes}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        if (sizes[i].value <= 0)
            continue;
        snprintf(number, sizeof number, "%lld", (long long)sizes[i].value);
        if (set_variable(sizes[i].name, number, err) != 0)
            return -1;
    }
    /* NCCL (>= 2.25) loads the collector as its profiler plugin for collective details
     * (collector/nccl_profiler.h); a plugin the user chose is theirs, and the collector stores a
     * warning saying the details are missing. */
    if (settings->nccl && !getenv("NCCL_PROFILER_PLUGIN") &&
        set_variable("NCCL_PROFILER_PLUGIN", settings->collector_path, err) != 0)
        return -1;
    /* NVTX reaches CUPTI only through NVTX's injection hook (CUPTI docs, "NVTX"); the collector
     * exports InitializeInjectionNvtx2 and hands the call to the libcupti it uses itself
     * (collector.c says why not libcupti's path). A value the user set is theirs. */
    if (settings->nvtx && !getenv("NVTX_INJECTION64_PATH") &&
        set_variable("NVTX_INJECTION64_PATH", settings->collector_path, err) != 0)
        return -1;
    return 0;
}

/* The child: reports exec's errno through the close-on-exec pipe, which closes silently when
 * exec succeeds. */
static void exec_child(char *const argv[], const sigset_t *original_mask, int report_fd)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigprocmask(SIG_SETMASK, original_mask, NULL);
    execvp(argv[0], argv);
    int failure = errno;
    if (write(report_fd, &failure, sizeof failure) != (ssize_t)sizeof failure)
        _exit(127);
    _exit(failure == ENOENT ? 127 : 126);
}

static void fill_status(int wait_status, struct record_job_status *status)
{
    status->exit_code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 0;
    status->term_signal = WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0;
}

/* Waits for the job, forwarding the terminating signals sent to us. The signals are blocked and
 * taken with sigwaitinfo: no handler and no global state. */
static int wait_forwarding(pid_t job, const sigset_t *watched, struct record_job_status *status,
                           error_info *err)
{
    for (;;) {
        int wait_status;
        pid_t done = waitpid(job, &wait_status, WNOHANG);
        if (done == job) {
            fill_status(wait_status, status);
            return 0;
        }
        if (done < 0 && errno != EINTR)
            return error_set(err, "cannot wait for the job: %s", strerror(errno));
        siginfo_t info;
        int signal_number = sigwaitinfo(watched, &info);
        if (signal_number == SIGINT || signal_number == SIGTERM) {
            /* SI_KERNEL: the terminal sent it to the whole foreground group, the job too. */
            if (info.si_code != SI_KERNEL)
                kill(job, signal_number);
        }
    }
}

int record_run_job(char *const argv[], struct record_job_status *status, int *exec_errno, error_info *err)
{
    *exec_errno = 0;
    memset(status, 0, sizeof *status);
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0)
        return error_set(err, "cannot run '%s': %s", argv[0], strerror(errno));
    sigset_t watched, original;
    sigemptyset(&watched);
    sigaddset(&watched, SIGINT);
    sigaddset(&watched, SIGTERM);
    sigaddset(&watched, SIGCHLD);
    sigprocmask(SIG_BLOCK, &watched, &original);
    pid_t job = fork();
    if (job < 0) {
        int failure = errno;
        sigprocmask(SIG_SETMASK, &original, NULL);
        close(report[0]);
        close(report[1]);
        return error_set(err, "cannot run '%s': %s", argv[0], strerror(failure));
    }
    if (job == 0)
        exec_child(argv, &original, report[1]);
    close(report[1]);
    status->pid = job;
    int failure = 0;
    ssize_t got;
    do
        got = read(report[0], &failure, sizeof failure);
    while (got < 0 && errno == EINTR);
    close(report[0]);
    int result;
    if (got == (ssize_t)sizeof failure) {
        int ignored;
        waitpid(job, &ignored, 0);
        *exec_errno = failure;
        result = error_set(err, "cannot run '%s': %s", argv[0], strerror(failure));
    } else {
        result = wait_forwarding(job, &watched, status, err);
    }
    /* A SIGCHLD still pending must not fire once unblocked: it is ours, already handled. */
    struct timespec no_wait = {0, 0};
    while (sigtimedwait(&watched, NULL, &no_wait) > 0) {
    }
    sigprocmask(SIG_SETMASK, &original, NULL);
    return result;
}
