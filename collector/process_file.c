/* process_file.c: creating, locking and completing a per-process trace file (see process_file.h). */
#include "process_file.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "origins.h"
#include "version.h"

/* The first of the variables that is set and holds an integer; STORE_NULL when none. */
static int64_t first_integer_variable(const char *const *names)
{
    for (; *names; names++) {
        const char *value = getenv(*names);
        if (!value || !*value)
            continue;
        char *end;
        long long number = strtoll(value, &end, 10);
        if (*end == '\0')
            return number;
    }
    return STORE_NULL;
}

static void read_ranks(struct process_identity *identity)
{
    static const char *const rank_names[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID",
                                             NULL};
    static const char *const local_names[] = {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                              "SLURM_LOCALID", NULL};
    static const char *const size_names[] = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS",
                                             NULL};
    identity->rank = first_integer_variable(rank_names);
    identity->local_rank = first_integer_variable(local_names);
    identity->world_size = first_integer_variable(size_names);
}

static void read_command_line(char *text, size_t size)
{
    text[0] = '\0';
    FILE *file = fopen("/proc/self/cmdline", "rb");
    if (!file)
        return;
    size_t length = fread(text, 1, size - 1, file);
    fclose(file);
    text[length] = '\0';
    while (length > 0 && text[length - 1] == '\0')
        length--;
    for (size_t i = 0; i < length; i++)
        if (text[i] == '\0')
            text[i] = ' ';
}

void process_identity_read(struct process_identity *identity)
{
    identity->pid = getpid();
    identity->parent_pid = getppid();
    if (gethostname(identity->host, sizeof identity->host) != 0)
        snprintf(identity->host, sizeof identity->host, "unknown");
    identity->host[sizeof identity->host - 1] = '\0';
    read_command_line(identity->command_line, sizeof identity->command_line);
    read_ranks(identity);
}

/* The file is created by store_create with O_EXCL, so two processes never share one name. */
int process_file_create(struct process_file *file, const char *directory,
                        const struct process_identity *identity, int64_t start_ns, error_info *err)
{
    file->trace = NULL;
    file->lock_fd = -1;
    for (int n = 0; n < 1000 && !file->trace; n++) {
        snprintf(file->path, sizeof file->path, "%s/proc-%lld-%d.db", directory, (long long)identity->pid, n);
        if (access(file->path, F_OK) == 0)
            continue; /* an earlier process with this pid (pid reuse) or an earlier exec */
        file->trace = store_create(file->path, STORE_FAST_UNSAFE | STORE_BATCHED_INSERTS, err);
        if (!file->trace)
            return -1;
    }
    if (!file->trace)
        return error_set(err, "cannot create a per-process file in '%s'", directory);
    /* flock and SQLite's POSIX locks are independent on Linux, so this lock does not disturb
     * SQLite; the kernel releases it when the process dies, however it dies. */
    file->lock_fd = open(file->path, O_RDONLY | O_CLOEXEC);
    if (file->lock_fd >= 0 && flock(file->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        close(file->lock_fd);
        file->lock_fd = -1;
    }
    struct store_process row = {.process_id = 0,
                                .pid = identity->pid,
                                .parent_pid = identity->parent_pid,
                                .host = identity->host,
                                .command_line = identity->command_line,
                                .rank = identity->rank,
                                .local_rank = identity->local_rank,
                                .world_size = identity->world_size,
                                .start_ns = start_ns,
                                .end_ns = STORE_NULL,
                                .exit_status = STORE_NULL,
                                .term_signal = STORE_NULL,
                                .dropped_records = 0,
                                .source_file = file->path};
    if (store_insert_process(file->trace, &row, err) != 0 ||
        store_insert_process_origin(file->trace, row.process_id, STORE_FORMAT_RECORD,
                                    "overlapscope collector", OVERLAPSCOPE_VERSION, err) != 0) {
        store_close(file->trace, NULL);
        file->trace = NULL;
        return -1;
    }
    file->process_id = row.process_id;
    return 0;
}

int process_file_finish(struct process_file *file, int64_t end_ns, int64_t exit_status, int64_t term_signal,
                        int64_t dropped_records, error_info *err)
{
    struct process_identity late = {0};
    read_ranks(&late);
    struct store_process ended = store_process_unknown(), late_ranks = store_process_unknown();
    ended.end_ns = end_ns;
    ended.exit_status = exit_status;
    ended.term_signal = term_signal;
    ended.dropped_records = dropped_records == STORE_NULL ? 0 : dropped_records;
    /* The ranks a launcher set only after the process started fill what was not known then. */
    late_ranks.rank = late.rank;
    late_ranks.local_rank = late.local_rank;
    late_ranks.world_size = late.world_size;
    int status = 0;
    if (store_commit(file->trace, err) != 0 ||
        store_update_process(file->trace, file->process_id, &ended, STORE_UPDATE_SET, err) != 0 ||
        store_update_process(file->trace, file->process_id, &late_ranks, STORE_UPDATE_FILL, err) != 0)
        status = error_prefix(err, "cannot complete '%s'", file->path);
    if (store_close(file->trace, status ? NULL : err) != 0)
        status = -1;
    file->trace = NULL;
    if (file->lock_fd >= 0)
        close(file->lock_fd);
    file->lock_fd = -1;
    return status;
}
