/* mpi_driver.c: --mpi (mpi_driver.h): the share's exchanges through MPI (the sizes by
 * MPI_Allgather, so every process agrees on what follows; the set-up's bytes by MPI_Allgatherv to
 * every process, the fragments' by MPI_Gatherv to process 0), the trace opened by process 0 first,
 * and the end: MPI_Finalize, or MPI_Abort when a process fails while the others wait in a
 * collective for it. Without MPI at build time, --mpi says so. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "mpi_driver.h"
#include "report.h"

#ifdef OVERLAPSCOPE_HAVE_MPI
#include <limits.h>
#include <mpi.h>

/* Out of memory in the middle of a collective: the others wait for this process, which cannot
 * take part; only ending the job frees them. */
static void *allocate_or_abort(size_t size, const char *what)
{
    void *memory = malloc(size ? size : 1);
    if (!memory) {
        fprintf(stderr, "overlapscope: out of memory for %s (%zu bytes)\n", what, size);
        MPI_Abort(MPI_COMM_WORLD, CLI_EXIT_ERROR);
    }
    return memory;
}

/* Every process learns every process's size (MPI_Allgather), so that all decide alike what
 * follows: counts and offsets for MPI_Gatherv or MPI_Allgatherv (the caller frees both), *total
 * their sum. Returns 0, or -1 with err filled (MPI failed, or over the 2 GiB a count can hold). */
static int gather_sizes(struct cli_mpi *mpi, size_t size, const char *what, int **counts, int **offsets,
                        size_t *total, error_info *err)
{
    uint64_t mine = size, *sizes = allocate_or_abort((size_t)mpi->size * sizeof *sizes, what);
    *counts = allocate_or_abort((size_t)mpi->size * sizeof **counts, what);
    *offsets = allocate_or_abort((size_t)mpi->size * sizeof **offsets, what);
    *total = 0;
    int status = 0;
    if (MPI_Allgather(&mine, 1, MPI_UINT64_T, sizes, 1, MPI_UINT64_T, MPI_COMM_WORLD) != MPI_SUCCESS)
        status = error_set(err, "MPI failed to exchange the sizes of %s", what);
    for (int i = 0; status == 0 && i < mpi->size; i++) {
        if (sizes[i] > INT_MAX || *total + sizes[i] > INT_MAX)
            status =
                error_set(err,
                          "%s are over 2 GiB together: run with fewer devices per report (--rank) or on one "
                          "machine (--jobs)",
                          what);
        (*offsets)[i] = (int)*total;
        (*counts)[i] = (int)sizes[i];
        *total += sizes[i];
    }
    free(sizes);
    return status;
}

/* analysis_share.exchange: this process's bytes to process 0. */
static int exchange(void *context, const unsigned char *bytes, size_t size, unsigned char **gathered,
                    size_t *gathered_size, error_info *err)
{
    struct cli_mpi *mpi = context;
    *gathered = NULL;
    *gathered_size = 0;
    int *counts, *offsets;
    size_t total;
    int status = gather_sizes(mpi, size, "the devices' fragments", &counts, &offsets, &total, err);
    mpi->exchanged = 1; /* every process passed the sizes: none waits for another's start any more */
    if (status == 0 && mpi->rank == 0)
        *gathered = allocate_or_abort(total, "the devices' fragments");
    if (status == 0 && MPI_Gatherv(bytes, (int)size, MPI_BYTE, *gathered, counts, offsets, MPI_BYTE, 0,
                                   MPI_COMM_WORLD) != MPI_SUCCESS)
        status = error_set(err, "MPI failed to gather the devices' fragments");
    if (status == 0 && mpi->rank == 0)
        *gathered_size = total;
    else {
        free(*gathered);
        *gathered = NULL;
    }
    free(counts);
    free(offsets);
    return status;
}

/* analysis_share.share_all: this process's bytes to every process. */
static int share_all(void *context, const unsigned char *bytes, size_t size, unsigned char **all,
                     size_t *all_size, error_info *err)
{
    struct cli_mpi *mpi = context;
    *all = NULL;
    *all_size = 0;
    int *counts, *offsets;
    size_t total;
    int status = gather_sizes(mpi, size, "the processes' set-up", &counts, &offsets, &total, err);
    if (status == 0)
        *all = allocate_or_abort(total, "the processes' set-up");
    if (status == 0 && MPI_Allgatherv(bytes, (int)size, MPI_BYTE, *all, counts, offsets, MPI_BYTE,
                                      MPI_COMM_WORLD) != MPI_SUCCESS)
        status = error_set(err, "MPI failed to exchange the processes' set-up");
    if (status == 0)
        *all_size = total;
    else {
        free(*all);
        *all = NULL;
    }
    free(counts);
    free(offsets);
    return status;
}

int cli_mpi_start(struct cli_mpi *mpi, struct analysis_options *options)
{
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        fprintf(stderr, "overlapscope: MPI did not start (MPI_Init failed)\n");
        return CLI_EXIT_ERROR;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mpi->size);
    mpi->share = (struct analysis_share){
        .index = mpi->rank, .count = mpi->size, .share_all = share_all, .exchange = exchange, .context = mpi};
    options->share = &mpi->share;
    options->progress = NULL; /* a progress line per process would interleave */
    return 0;
}

int cli_mpi_open_input(struct cli_mpi *mpi, struct cli_trace_input *input, const char *command,
                       const char *argument)
{
    if (!mpi->on)
        return cli_trace_input_open(input, command, argument);
    int status = 0;
    if (mpi->rank == 0)
        status = cli_trace_input_open(input, command, argument);
    else
        *input = (struct cli_trace_input){0};
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (status != 0) {
        mpi->agreed = 1; /* process 0 said why */
        return status;
    }
    if (mpi->rank != 0)
        status = cli_trace_input_open(input, command, argument);
    return status;
}

int cli_mpi_end(struct cli_mpi *mpi, int status)
{
    if (!mpi->on)
        return status;
    if (status != CLI_EXIT_OK && !mpi->exchanged && !mpi->agreed && !mpi->share.agreed && mpi->size > 1) {
        fflush(NULL);
        MPI_Abort(MPI_COMM_WORLD, status);
    }
    MPI_Finalize();
    return status;
}

#else

/* analysis_share.share_all: this process's bytes to every process. Out of memory here ends the job
 * (the others wait in the collective for this one). */
static int share_all(void *context, const unsigned char *bytes, size_t size, unsigned char **all,
                     size_t *all_size, error_info *err)
{
    struct cli_mpi *mpi = context;
    *all = NULL;
    *all_size = 0;
    uint64_t mine = size, *sizes = calloc((size_t)mpi->size, sizeof *sizes);
    int *counts = calloc((size_t)mpi->size, sizeof *counts),
        *offsets = calloc((size_t)mpi->size, sizeof *offsets);
    if (!sizes || !counts || !offsets) {
        fputs("overlapscope: out of memory for the processes' set-up\n", stderr);
        MPI_Abort(MPI_COMM_WORLD, CLI_EXIT_ERROR);
    }
    int status = 0;
    if (MPI_Allgather(&mine, 1, MPI_UINT64_T, sizes, 1, MPI_UINT64_T, MPI_COMM_WORLD) != MPI_SUCCESS)
        status = error_set(err, "MPI failed to exchange the set-up's sizes");
    uint64_t total = 0;
    for (int i = 0; status == 0 && i < mpi->size; i++) {
        if (sizes[i] > INT_MAX || total + sizes[i] > INT_MAX)
            status = error_set(err, "the processes' set-up (their steps) is over 2 GiB together");
        offsets[i] = (int)total;
        counts[i] = (int)sizes[i];
        total += sizes[i];
    }
    if (status == 0 && !(*all = malloc(total ? total : 1))) {
        fputs("overlapscope: out of memory for the processes' set-up\n", stderr);
        MPI_Abort(MPI_COMM_WORLD, CLI_EXIT_ERROR);
    }
    if (status == 0 && MPI_Allgatherv(bytes, (int)size, MPI_BYTE, *all, counts, offsets, MPI_BYTE,
                                      MPI_COMM_WORLD) != MPI_SUCCESS)
        status = error_set(err, "MPI failed to exchange the set-up");
    if (status == 0)
        *all_size = (size_t)total;
    else {
        free(*all);
        *all = NULL;
    }
    free(sizes);
    free(counts);
    free(offsets);
    return status;
}

int cli_mpi_start(struct cli_mpi *mpi, struct analysis_options *options)
{
    (void)mpi;
    (void)options;
    fputs("overlapscope was built without MPI: install libopenmpi-dev and rebuild\n", stderr);
    return CLI_EXIT_ERROR;
}

int cli_mpi_open_input(struct cli_mpi *mpi, struct cli_trace_input *input, const char *command,
                       const char *argument)
{
    (void)mpi;
    return cli_trace_input_open(input, command, argument);
}

int cli_mpi_end(struct cli_mpi *mpi, int status)
{
    (void)mpi;
    return status;
}

#endif

struct analysis_result *cli_mpi_analyze(struct cli_mpi *mpi, const char *command, const char *argument,
                                        const struct analysis_options *options, char *input_path,
                                        size_t input_path_size, int *status)
{
    struct cli_trace_input input;
    *status = CLI_EXIT_ERROR;
    if (cli_mpi_open_input(mpi, &input, command, argument) != 0) {
        cli_trace_input_release(&input);
        return NULL;
    }
    error_info err;
    struct analysis_result *result = report_analyze_file(input.path, options, &err);
    snprintf(input_path, input_path_size, "%s", input.path);
    cli_trace_input_release(&input);
    const struct analysis_share *share = &mpi->share;
    if (mpi->on && getenv("OVERLAPSCOPE_MPI_SHARES")) /* what the tests check: each read its share */
        fprintf(
            stderr,
            "overlapscope: --mpi process %d of %d: mapped %zu of %zu steps, read the GPU span of %zu of %zu "
            "devices\n",
            mpi->rank, mpi->size, share->steps_read, share->steps_total, share->devices_read,
            share->devices_total);
    if (result)
        *status = CLI_EXIT_OK;
    else if (mpi->share.sent)
        *status = CLI_EXIT_OK;
    else if (cli_mpi_writes(mpi) || (!mpi->exchanged && !mpi->share.agreed)) /* else process 0 says it */
        cli_error(command, "%s", err.message);
    return result;
}

int cli_mpi_writes(const struct cli_mpi *mpi)
{
    return !mpi->on || mpi->rank == 0;
}
