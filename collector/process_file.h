/* process_file.h: the per-process trace file a collector writes, and who that process is.
 *
 * Every injected process (and every child it forks) writes <dir>/proc-<pid>-<n>.db, created
 * with STORE_FAST_UNSAFE (WAL, no fsync: `record` merges it right after the job). While the
 * process writes, it holds an flock on the file, so `record` can tell a file still being written
 * (a process outliving the job) from a finished one. The processes row is written when the
 * file is created, so a process killed mid-run is still named in the trace, and completed by
 * process_file_finish. Needs no CUDA: tested on any machine. */
#ifndef OVERLAPSCOPE_PROCESS_FILE_H
#define OVERLAPSCOPE_PROCESS_FILE_H

#include <limits.h>
#include <stdint.h>

#include "error.h"
#include "store.h"

/* Who this process is: pid, parent, host, command line and its rank in a distributed job. */
struct process_identity {
    int64_t pid, parent_pid;
    int64_t rank, local_rank, world_size; /* STORE_NULL when no launcher variable says */
    char host[256];
    char command_line[4096];
};

/* Fills identity from getpid/getppid, gethostname, /proc/self/cmdline (arguments joined by
 * spaces, truncated to fit) and the launchers' variables: RANK, OMPI_COMM_WORLD_RANK, PMI_RANK,
 * SLURM_PROCID; LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID;
 * WORLD_SIZE, OMPI_COMM_WORLD_SIZE, PMI_SIZE, SLURM_NTASKS (first one set wins). */
void process_identity_read(struct process_identity *identity);

struct process_file {
    store *trace;
    int64_t process_id; /* the store's id of this process in its own file (1) */
    int lock_fd;        /* flock held while writing; -1 when none */
    char path[PATH_MAX];
};

/* Creates <directory>/proc-<pid>-<n>.db (n the first number not taken), takes its lock and
 * writes the processes row (start_ns given, end_ns NULL). Returns 0 or -1 with err filled. */
int process_file_create(struct process_file *file, const char *directory,
                        const struct process_identity *identity, int64_t start_ns, error_info *err);

/* Completes the processes row (end time, exit status or signal, dropped records; ranks read
 * again from the environment if they were unknown at start, as launchers like mp.spawn set
 * them after the process started), closes the store and releases the lock. Any int64_t may be
 * STORE_NULL. Returns 0 or -1 with err filled; the file is closed either way. */
int process_file_finish(struct process_file *file, int64_t end_ns, int64_t exit_status, int64_t term_signal,
                        int64_t dropped_records, error_info *err);

#endif
