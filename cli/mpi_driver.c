/* mpi_driver.c: --mpi (mpi_driver.h): the share's exchanges through MPI: the set-up's bytes to
 * every process (their sizes by MPI_Iallgather, so every process agrees on what follows, then
 * MPI_Iallgatherv), the count of the intervals before each process (MPI_Iexscan), and each
 * process's fragments to process 0 by point-to-point messages, received process after process, so
 * that process 0 holds one process's bytes at a time; the trace opened by process 0 first; and the
 * end: MPI_Finalize, or MPI_Abort when a process fails while the others wait for it. A process that
 * waits sleeps between tests of the request (wait_politely). Without MPI at build time, --mpi says
 * so. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mpi_driver.h"
#include "report.h"

#ifdef OVERLAPSCOPE_HAVE_MPI
#include <limits.h>
#include <mpi.h>
#include <time.h>

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

/* Waits for request, sleeping between tests rather than polling: a process that waits for the
 * others (process 0's merge, the slowest walk, a folder's import) leaves its core to those that
 * work, on a machine of fewer cores than processes too, and its CPU time is its own work. The
 * sleep doubles from 10 us to 1 ms: a short wait ends at once, a long one costs a test a
 * millisecond. Returns 0, or -1 (MPI failed). */
static int wait_politely(MPI_Request *request)
{
    long sleep_ns = 10000;
    for (;;) {
        int done = 0;
        if (MPI_Test(request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return -1;
        if (done)
            return 0;
        nanosleep(&(struct timespec){.tv_nsec = sleep_ns}, NULL);
        sleep_ns = sleep_ns < 1000000 ? 2 * sleep_ns : 1000000;
    }
}

/* Every process learns every process's size (MPI_Iallgather), so that all decide alike what
 * follows: counts and offsets for MPI_Iallgatherv (the caller frees both), *total their sum.
 * Returns 0, or -1 with err filled (MPI failed, or over the 2 GiB a count can hold). */
static int gather_sizes(struct cli_mpi *mpi, size_t size, const char *what, int **counts, int **offsets,
                        size_t *total, error_info *err)
{
    uint64_t mine = size, *sizes = allocate_or_abort((size_t)mpi->size * sizeof *sizes, what);
    *counts = allocate_or_abort((size_t)mpi->size * sizeof **counts, what);
    *offsets = allocate_or_abort((size_t)mpi->size * sizeof **offsets, what);
    *total = 0;
    int status = 0;
    MPI_Request request;
    if (MPI_Iallgather(&mine, 1, MPI_UINT64_T, sizes, 1, MPI_UINT64_T, MPI_COMM_WORLD, &request) !=
            MPI_SUCCESS ||
        wait_politely(&request) != 0)
        status = error_set(err, "MPI failed to exchange the sizes of %s", what);
    for (int i = 0; status == 0 && i < mpi->size; i++) {
        if (sizes[i] > INT_MAX || *total + sizes[i] > INT_MAX)
            status = error_set(err, "%s are over 2 GiB together", what);
        (*offsets)[i] = (int)*total;
        (*counts)[i] = (int)sizes[i];
        *total += sizes[i];
    }
    free(sizes);
    return status;
}

/* The fragments travel by point-to-point messages, each process's bytes as their size, then
 * pieces of at most this many (an MPI count is an int): no limit on their sum. */
#define FRAGMENT_PIECE ((size_t)1 << 30)
enum { TAG_SIZE = 1, TAG_PIECE = 2 };

/* analysis_share.sum_before: MPI_Iexscan of value (undefined on process 0: 0 there). */
static int sum_before(void *context, uint64_t value, uint64_t *before, error_info *err)
{
    struct cli_mpi *mpi = context;
    MPI_Request request;
    *before = 0;
    if (MPI_Iexscan(&value, before, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD, &request) != MPI_SUCCESS ||
        wait_politely(&request) != 0)
        return error_set(err, "MPI failed to count the devices' intervals");
    if (mpi->rank == 0)
        *before = 0;
    return 0;
}

/* Sends (receive 0) or receives count bytes at buffer with process peer, tag. Returns 0 or -1. */
static int move(int receive, void *buffer, int count, MPI_Datatype type, int peer, int tag)
{
    MPI_Request request;
    int status = receive ? MPI_Irecv(buffer, count, type, peer, tag, MPI_COMM_WORLD, &request)
                         : MPI_Isend(buffer, count, type, peer, tag, MPI_COMM_WORLD, &request);
    return status == MPI_SUCCESS && wait_politely(&request) == 0 ? 0 : -1;
}

/* analysis_share.send: this process's bytes to process 0. */
static int send_fragments(void *context, const unsigned char *bytes, size_t size, error_info *err)
{
    struct cli_mpi *mpi = context;
    uint64_t total = size;
    int status = move(0, &total, 1, MPI_UINT64_T, 0, TAG_SIZE);
    for (size_t at = 0; status == 0 && at < size; at += FRAGMENT_PIECE) {
        size_t piece = size - at < FRAGMENT_PIECE ? size - at : FRAGMENT_PIECE;
        status = move(0, (void *)(bytes + at), (int)piece, MPI_BYTE, 0, TAG_PIECE);
    }
    if (status != 0)
        return error_set(err, "MPI failed to send the devices' fragments to process 0");
    mpi->exchanged = 1; /* process 0 has them: none waits for this one any more */
    return 0;
}

/* analysis_share.receive: process's bytes, on process 0, into *bytes (grown to *capacity). */
static int receive_fragments(void *context, int process, unsigned char **bytes, size_t *capacity,
                             size_t *size, error_info *err)
{
    struct cli_mpi *mpi = context;
    uint64_t total = 0;
    *size = 0;
    int status = move(1, &total, 1, MPI_UINT64_T, process, TAG_SIZE);
    if (status == 0 && total > SIZE_MAX - 1)
        status = -1;
    if (status == 0 && total > *capacity) {
        free(*bytes);
        *bytes = allocate_or_abort((size_t)total, "the devices' fragments");
        *capacity = (size_t)total;
    }
    for (size_t at = 0; status == 0 && at < total; at += FRAGMENT_PIECE) {
        size_t piece = total - at < FRAGMENT_PIECE ? (size_t)total - at : FRAGMENT_PIECE;
        status = move(1, *bytes + at, (int)piece, MPI_BYTE, process, TAG_PIECE);
    }
    if (status != 0)
        return error_set(err, "MPI failed to receive the devices' fragments of process %d", process);
    *size = (size_t)total;
    if (process == mpi->size - 1)
        mpi->exchanged = 1; /* every process's received: none waits for process 0's start */
    return 0;
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
    MPI_Request request;
    if (status == 0)
        *all = allocate_or_abort(total, "the processes' set-up");
    if (status == 0 && (MPI_Iallgatherv(bytes, (int)size, MPI_BYTE, *all, counts, offsets, MPI_BYTE,
                                        MPI_COMM_WORLD, &request) != MPI_SUCCESS ||
                        wait_politely(&request) != 0))
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
    mpi->share = (struct analysis_share){.index = mpi->rank,
                                         .count = mpi->size,
                                         .share_all = share_all,
                                         .sum_before = sum_before,
                                         .send = send_fragments,
                                         .receive = receive_fragments,
                                         .context = mpi};
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
    MPI_Request request; /* the others wait while process 0 may import a folder */
    if (MPI_Ibcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD, &request) != MPI_SUCCESS ||
        wait_politely(&request) != 0)
        status = CLI_EXIT_ERROR; /* Open MPI's default handler ends the job before this */
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
    /* The others wait here for process 0's report, asleep (MPI_Finalize's own wait may poll). */
    MPI_Request request;
    if (mpi->size > 1 && MPI_Ibarrier(MPI_COMM_WORLD, &request) == MPI_SUCCESS)
        wait_politely(&request);
    MPI_Finalize();
    return status;
}

#else

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

/* OVERLAPSCOPE_TIMING=1 on a process other than 0 (which writes its table with the report): its
 * phases, each line led by "process R: " and written at once, so that the processes' tables do
 * not interleave line by line. */
static void write_timing(const struct cli_mpi *mpi, const struct phase_timing *timing)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (!out)
        return;
    phase_timing_write(timing, 0, out);
    fclose(out);
    char *prefixed = malloc(size + 32 * ((size_t)timing->count + 8) + 1);
    size_t at = 0;
    for (const char *line = text; prefixed && *line;) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) + 1 : strlen(line);
        at += (size_t)sprintf(prefixed + at, "process %d: ", mpi->rank);
        memcpy(prefixed + at, line, length);
        at += length;
        line += length;
    }
    if (prefixed)
        fwrite(prefixed, 1, at, stderr);
    free(prefixed);
    free(text);
}

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
    if (mpi->on && !result && mpi->share.sent && options->timing)
        write_timing(mpi, options->timing);
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
