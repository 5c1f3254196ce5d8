/* ranks.cu: rank discovery, self-launch by fork, and NCCL unique id hand-out (ranks.h). */
#include "ranks.h"

#include "common.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void wl_check_nccl(ncclResult_t status, const char *what, const char *file, int line)
{
    if (status != ncclSuccess && status != ncclInProgress)
        wl_fail("%s:%d: %s failed: %s (%s)", file, line, what, ncclGetErrorString(status),
                ncclGetLastError(NULL));
}

static int env_int(const char *name, int fallback)
{
    const char *text = getenv(name);
    if (!text || !*text)
        return fallback;
    char *end = NULL;
    long value = strtol(text, &end, 10);
    if (*end || value < 0 || value > 1000000)
        wl_fail("%s is not a count: '%s'", name, text);
    return (int)value;
}

/* GPUs this process may use, without initializing CUDA. */
static int visible_gpu_count(void)
{
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    if (visible) {
        int count = 0, in_entry = 0;
        for (const char *p = visible; *p; p++) {
            if (*p == ',')
                in_entry = 0;
            else if (!in_entry && *p != ' ')
                count++, in_entry = 1;
        }
        return count;
    }
    DIR *gpus = opendir("/proc/driver/nvidia/gpus");
    if (!gpus)
        return 0;
    int count = 0;
    for (struct dirent *entry; (entry = readdir(gpus)) != NULL;)
        if (entry->d_name[0] != '.')
            count++;
    closedir(gpus);
    return count;
}

static void write_all(int fd, const void *data, size_t size)
{
    const char *bytes = (const char *)data;
    while (size > 0) {
        ssize_t written = write(fd, bytes, size);
        if (written < 0 && errno == EINTR)
            continue;
        if (written <= 0)
            wl_fail("cannot hand out the NCCL id: %s", strerror(errno));
        bytes += written;
        size -= (size_t)written;
    }
}

static void read_all(int fd, void *data, size_t size)
{
    char *bytes = (char *)data;
    while (size > 0) {
        ssize_t got = read(fd, bytes, size);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            wl_fail("cannot receive the NCCL id (rank 0 gone?)");
        bytes += got;
        size -= (size_t)got;
    }
}

/* The parent of self-launched ranks: wait for all; on the first failure stop the others, which
 * would otherwise wait forever for a peer inside NCCL. Never returns. */
static void supervise(const pid_t *children, int count)
{
    int failed = 0, running = count;
    while (running > 0) {
        int status = 0;
        pid_t pid = wait(&status);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        running--;
        int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (!ok && !failed) {
            failed = 1;
            fprintf(stderr, "%s: rank process %d failed (%s %d); stopping the others\n",
                    wl_program_name(), (int)pid, WIFEXITED(status) ? "status" : "signal",
                    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
            for (int i = 0; i < count; i++)
                if (children[i] != pid)
                    kill(children[i], SIGTERM);
        }
    }
    exit(failed ? 1 : 0);
}

static void self_launch(int nproc, struct wl_ranks *ranks)
{
    int world = nproc > 0 ? nproc : visible_gpu_count();
    if (world < 1)
        wl_fail("no GPU visible (CUDA_VISIBLE_DEVICES, /proc/driver/nvidia/gpus)");
    if (world > WL_MAX_RANKS)
        wl_fail("at most %d ranks", WL_MAX_RANKS);
    ranks->world_size = world;
    ranks->self_launched = 1;
    if (world == 1) {
        ranks->rank = ranks->local_rank = 0;
        return;
    }
    int pipes[WL_MAX_RANKS][2];
    for (int r = 1; r < world; r++)
        if (pipe(pipes[r]) != 0)
            wl_fail("pipe: %s", strerror(errno));
    fflush(stdout);
    fflush(stderr);
    pid_t children[WL_MAX_RANKS];
    for (int r = 0; r < world; r++) {
        pid_t pid = fork();
        if (pid < 0)
            wl_fail("fork: %s", strerror(errno));
        if (pid == 0) {
            ranks->rank = ranks->local_rank = r;
            /* What a launcher (torchrun, mpirun) would set: profilers and tools read the rank from
             * here, before this process touches CUDA. */
            char value[16];
            snprintf(value, sizeof value, "%d", r);
            setenv("RANK", value, 1);
            setenv("LOCAL_RANK", value, 1);
            snprintf(value, sizeof value, "%d", world);
            setenv("WORLD_SIZE", value, 1);
            for (int k = 1; k < world; k++) {
                if (r == 0) {
                    close(pipes[k][0]);
                    ranks->id_write_fds[k] = pipes[k][1];
                } else {
                    close(pipes[k][1]);
                    if (k == r)
                        ranks->id_read_fd = pipes[k][0];
                    else
                        close(pipes[k][0]);
                }
            }
            return;
        }
        children[r] = pid;
    }
    for (int k = 1; k < world; k++) {
        close(pipes[k][0]);
        close(pipes[k][1]);
    }
    supervise(children, world);
}

void wl_ranks_start(int nproc, const char *id_file, struct wl_ranks *ranks)
{
    memset(ranks, 0, sizeof *ranks);
    ranks->id_read_fd = -1;
    if (getenv("RANK") && getenv("WORLD_SIZE")) {
        ranks->rank = env_int("RANK", 0);
        ranks->world_size = env_int("WORLD_SIZE", 1);
        ranks->local_rank = env_int("LOCAL_RANK", ranks->rank);
        ranks->id_file = id_file;
        if (ranks->world_size < 1 || ranks->rank >= ranks->world_size)
            wl_fail("RANK %d is not below WORLD_SIZE %d", ranks->rank, ranks->world_size);
        if (ranks->world_size > 1 && !id_file)
            wl_fail("started by a launcher (RANK/WORLD_SIZE set): --id-file PATH is required");
        return;
    }
    self_launch(nproc, ranks);
}

static void publish_id_file(const char *path, const ncclUniqueId *id)
{
    char temporary[4096];
    snprintf(temporary, sizeof temporary, "%s.%d.tmp", path, (int)getpid());
    FILE *file = fopen(temporary, "wb");
    if (!file || fwrite(id, sizeof *id, 1, file) != 1 || fclose(file) != 0)
        wl_fail("cannot write the NCCL id to '%s': %s", temporary, strerror(errno));
    if (rename(temporary, path) != 0)
        wl_fail("cannot rename '%s' to '%s': %s", temporary, path, strerror(errno));
}

static void wait_id_file(const char *path, ncclUniqueId *id)
{
    for (int waited_ms = 0; waited_ms < 120000; waited_ms += 10) {
        FILE *file = fopen(path, "rb");
        if (file) {
            size_t got = fread(id, sizeof *id, 1, file);
            fclose(file);
            if (got == 1)
                return;
        }
        usleep(10000);
    }
    wl_fail("no NCCL id appeared in '%s' within 120 s", path);
}

ncclComm_t wl_ranks_communicator(struct wl_ranks *ranks)
{
    ncclUniqueId id;
    if (ranks->rank == 0) {
        WL_CHECK_NCCL(ncclGetUniqueId(&id));
        if (ranks->self_launched)
            for (int k = 1; k < ranks->world_size; k++) {
                write_all(ranks->id_write_fds[k], &id, sizeof id);
                close(ranks->id_write_fds[k]);
            }
        else if (ranks->world_size > 1)
            publish_id_file(ranks->id_file, &id);
    } else if (ranks->self_launched) {
        read_all(ranks->id_read_fd, &id, sizeof id);
        close(ranks->id_read_fd);
    } else {
        wait_id_file(ranks->id_file, &id);
    }
    ncclComm_t comm;
    WL_CHECK_NCCL(ncclCommInitRank(&comm, ranks->world_size, id, ranks->rank));
    if (ranks->rank == 0 && !ranks->self_launched && ranks->world_size > 1)
        unlink(ranks->id_file); /* every rank has joined: nobody reads it again */
    return comm;
}
