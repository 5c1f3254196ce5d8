/* ranks.h: one process per GPU for the NCCL workloads (two_batch, ddp). A program either is
 * started by a launcher (torchrun, mpirun, a script) that sets RANK, WORLD_SIZE and LOCAL_RANK and
 * names a file through which rank 0 hands out the NCCL unique id, or launches its ranks itself:
 * it forks one process per visible GPU (or --nproc) and passes the id through pipes. The parent
 * of self-launched ranks never touches CUDA (a CUDA context does not survive fork), so only the
 * rank processes appear in a recording. */
#ifndef WORKLOADS_RANKS_H
#define WORKLOADS_RANKS_H

#include <nccl.h>

#define WL_CHECK_NCCL(call) wl_check_nccl((call), #call, __FILE__, __LINE__)
void wl_check_nccl(ncclResult_t status, const char *what, const char *file, int line);

enum { WL_MAX_RANKS = 64 };

struct wl_ranks {
    int rank, world_size, local_rank;
    int self_launched;
    int id_read_fd;                 /* self-launched rank > 0: where the id arrives */
    int id_write_fds[WL_MAX_RANKS]; /* self-launched rank 0: one pipe per other rank */
    const char *id_file;            /* launcher mode */
};

/* Decides who this process is. With RANK and WORLD_SIZE set, uses them (id_file is required
 * unless WORLD_SIZE is 1). Otherwise forks `nproc` ranks (0: one per visible GPU, counted from
 * CUDA_VISIBLE_DEVICES or /proc/driver/nvidia/gpus) and returns in each of them; the parent waits
 * and exits: 0 when every rank exited 0, else 1 after terminating the remaining ranks. */
void wl_ranks_start(int nproc, const char *id_file, struct wl_ranks *ranks);

/* Creates this rank's communicator (call after selecting the device). Rank 0 makes the unique id
 * and hands it out; the id file, if any, is removed once every rank has joined. */
ncclComm_t wl_ranks_communicator(struct wl_ranks *ranks);

#endif
