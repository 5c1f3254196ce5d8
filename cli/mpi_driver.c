/* mpi_driver.c: --mpi (mpi_driver.h): the share's exchanges through MPI: the set-up's bytes to
 * every process (their sizes by MPI_Iallgather, so every process agrees on what follows, then
 * MPI_Iallgatherv), the count of the intervals before each process (MPI_Iexscan), and each
 * process's fragments to process 0 by point-to-point messages, received process after process, so
 * that process 0 holds one process's bytes at a time; process 0's asks of another process's trace
 * and their answers (rank files); one trace opened by process 0 first, or rank files imported
 * block by block with the strings passed down a chain of the processes (names_chain); and the
 * end: MPI_Finalize, or MPI_Abort when a process fails while the others wait for it. A process that
 * waits sleeps between tests of the request (wait_politely). Without MPI at build time, --mpi says
 * so. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "import.h"
#include "mpi_driver.h"
#include "report.h"

#ifdef OVERLAPSCOPE_HAVE_MPI
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <time.h>
#include <unistd.h>

#include "names.h"
#include "output_file.h"

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
static int wait_politely_for(MPI_Request *request, MPI_Status *status)
{
    long sleep_ns = 10000;
    for (;;) {
        int done = 0;
        if (MPI_Test(request, &done, status ? status : MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return -1;
        if (done)
            return 0;
        nanosleep(&(struct timespec){.tv_nsec = sleep_ns}, NULL);
        sleep_ns = sleep_ns < 1000000 ? 2 * sleep_ns : 1000000;
    }
}

static int wait_politely(MPI_Request *request)
{
    return wait_politely_for(request, NULL);
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
enum { TAG_SIZE = 1, TAG_PIECE, TAG_NAMES, TAG_ASK, TAG_ANSWER };

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

/* analysis_share.ask: a request to process, its reply back. */
static int ask(void *context, int process, const void *request, size_t size, void *reply, size_t reply_size,
               error_info *err)
{
    (void)context;
    if (move(0, (void *)request, (int)size, MPI_BYTE, process, TAG_ASK) != 0 ||
        move(1, reply, (int)reply_size, MPI_BYTE, process, TAG_ANSWER) != 0)
        return error_set(err, "MPI failed to ask process %d for what its trace holds", process);
    return 0;
}

/* analysis_share.serve: process 0's requests answered until an empty one (release). */
static int serve(void *context, size_t request_size, size_t reply_size,
                 void (*answer)(void *answer_context, const void *request, size_t size, void *reply),
                 void *answer_context, error_info *err)
{
    (void)context;
    unsigned char *request = allocate_or_abort(request_size, "a request"),
                  *reply = allocate_or_abort(reply_size, "a reply");
    int status = 0;
    for (;;) {
        MPI_Request pending;
        MPI_Status received;
        int count = 0;
        if (MPI_Irecv(request, (int)request_size, MPI_BYTE, 0, TAG_ASK, MPI_COMM_WORLD, &pending) !=
                MPI_SUCCESS ||
            wait_politely_for(&pending, &received) != 0 ||
            MPI_Get_count(&received, MPI_BYTE, &count) != MPI_SUCCESS) {
            status = error_set(err, "MPI failed to receive process 0's request");
            break;
        }
        if (count == 0)
            break; /* released */
        answer(answer_context, request, (size_t)count, reply);
        if (move(0, reply, (int)reply_size, MPI_BYTE, 0, TAG_ANSWER) != 0) {
            status = error_set(err, "MPI failed to answer process 0");
            break;
        }
    }
    free(request);
    free(reply);
    return status;
}

/* analysis_share.release: an empty request to every other process. */
static int release(void *context, error_info *err)
{
    struct cli_mpi *mpi = context;
    int status = 0;
    for (int process = 1; process < mpi->size; process++)
        if (move(0, NULL, 0, MPI_BYTE, process, TAG_ASK) != 0 && status == 0)
            status = error_set(err, "MPI failed to tell process %d that process 0 is done", process);
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
    MPI_Comm node;
    mpi->node_size = 1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, mpi->rank, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_size(node, &mpi->node_size);
        MPI_Comm_free(&node);
    }
    mpi->share = (struct analysis_share){.index = mpi->rank,
                                         .count = mpi->size,
                                         .share_all = share_all,
                                         .sum_before = sum_before,
                                         .send = send_fragments,
                                         .receive = receive_fragments,
                                         .ask = ask,
                                         .serve = serve,
                                         .release = release,
                                         .context = mpi};
    options->share = &mpi->share;
    options->progress = NULL; /* a progress line per process would interleave */
    return 0;
}

int cli_mpi_open_input(struct cli_mpi *mpi, struct cli_trace_input *input, const char *command,
                       char *const *arguments, int argument_count, const char *name)
{
    if (!mpi->on)
        return cli_trace_inputs_open(input, command, arguments, argument_count, name);
    const char *argument = arguments[0]; /* one trace: rank files go to analyze_blocks */
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
    analysis_share_free(&mpi->share);
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

/* --- --mpi on rank files: the strings' chain of import_run_block (store/names.h) --- */

/* What a process passes on: the next process id and its strings (sent without waiting; done by
 * names_chain_end), or a failure (a size of -1, no strings): a process that could not import its
 * files, or that heard of one before it, tells the processes after it, which then stop too. */
struct names_chain {
    struct cli_mpi *mpi;
    int64_t header[2]; /* the next process id, the strings' size (-1: a process failed) */
    unsigned char *bytes;
    MPI_Request sent[2];
    int sending, passed, failed_before, received_last;
};

/* The header from process from and, unless it says a process failed (*failed), its strings into
 * output (NULL: received and dropped), *next_process_id the id after its processes. Returns 0, or
 * -1 with err filled. */
static int receive_names(int from, store *output, int64_t *next_process_id, int *failed, error_info *err)
{
    int64_t header[2];
    *failed = 0;
    if (move(1, header, 2, MPI_INT64_T, from, TAG_NAMES) != 0 || header[1] < -1 ||
        (header[1] > 0 && (uint64_t)header[1] > FRAGMENT_PIECE))
        return error_set(err, "MPI failed to receive the strings of process %d", from);
    *next_process_id = header[0];
    if (header[1] < 0) {
        *failed = 1;
        return error_set(err, "process %d could not import its files", from);
    }
    unsigned char *bytes = allocate_or_abort((size_t)header[1], "the strings");
    int status = move(1, bytes, (int)header[1], MPI_BYTE, from, TAG_NAMES) != 0
                     ? error_set(err, "MPI failed to receive the strings of process %d", from)
                 : output ? store_names_take(output, bytes, (size_t)header[1], header[0], err)
                          : 0;
    free(bytes);
    return status;
}

/* Sends the header and, unless it says a failure, chain->bytes to the next process (the last's to
 * process 0). Returns 0, or -1 with err filled. */
static int pass_names(struct names_chain *chain, error_info *err)
{
    struct cli_mpi *mpi = chain->mpi;
    int next = (mpi->rank + 1) % mpi->size;
    chain->passed = 1;
    if (MPI_Isend(chain->header, 2, MPI_INT64_T, next, TAG_NAMES, MPI_COMM_WORLD, &chain->sent[0]) !=
        MPI_SUCCESS)
        return error_set(err, "MPI failed to pass the strings on to process %d", next);
    chain->sending = 1;
    if (chain->header[1] >= 0) { /* else a failure: no strings follow */
        if (MPI_Isend(chain->bytes, (int)chain->header[1], MPI_BYTE, next, TAG_NAMES, MPI_COMM_WORLD,
                      &chain->sent[1]) != MPI_SUCCESS)
            return error_set(err, "MPI failed to pass the strings on to process %d", next);
        chain->sending = 2;
    }
    /* Finished now, the next process waiting for them: a send Open MPI moves only while this
     * process is in MPI would otherwise wait for the end of this process's import (every hop of the
     * chain an import's append: 8.6 s a hop at 64 ranks of 1M on 16 processes). The last
     * process's, to process 0, which takes them after its own appends, ends in names_chain_end. */
    if (next != 0)
        for (; chain->sending > 0; chain->sending--)
            if (wait_politely(&chain->sent[chain->sending - 1]) != 0)
                return error_set(err, "MPI failed to pass the strings on to process %d", next);
    return 0;
}

/* import_block_names.take: the strings of the processes before (from the one before), this
 * process's parts' added, the sum passed on to the next (the last's to process 0). */
static int take_names(void *context, store *output, const char *const *parts, size_t part_count,
                      error_info *err)
{
    struct names_chain *chain = context;
    struct cli_mpi *mpi = chain->mpi;
    int64_t next_process_id = 1, processes = 0;
    int status = mpi->rank > 0
                     ? receive_names(mpi->rank - 1, output, &next_process_id, &chain->failed_before, err)
                     : 0;
    for (size_t i = 0; status == 0 && i < part_count; i++)
        status = store_names_append(output, parts[i], &processes, err);
    if (mpi->size < 2)
        return status;
    size_t size = 0;
    if (status == 0 && store_names_give(output, &chain->bytes, &size, err) != 0)
        status = -1;
    if (status == 0 && size > FRAGMENT_PIECE)
        status = error_set(err, "the files' strings are over 1 GiB");
    chain->header[0] = next_process_id + processes;
    chain->header[1] = status == 0 ? (int64_t)size : -1;
    error_info passing;
    return pass_names(chain, status == 0 ? err : &passing) != 0 ? -1 : status;
}

/* After this process's import: where it failed before taking its part of the chain, the processes
 * after it still wait for it (told of the failure); process 0 receives the last process's strings
 * whatever happened (nothing is left in flight); every send done. */
static void names_chain_end(struct names_chain *chain)
{
    struct cli_mpi *mpi = chain->mpi;
    error_info ignored;
    int64_t next_process_id;
    int failed;
    if (!chain->passed && mpi->size > 1) {
        if (mpi->rank > 0)
            receive_names(mpi->rank - 1, NULL, &next_process_id, &failed, &ignored);
        chain->header[0] = 0;
        chain->header[1] = -1;
        pass_names(chain, &ignored);
    }
    if (mpi->rank == 0 && mpi->size > 1 && !chain->received_last)
        receive_names(mpi->size - 1, NULL, &next_process_id, &failed, &ignored);
    for (int i = 0; i < chain->sending; i++)
        wait_politely(&chain->sent[i]);
    free(chain->bytes);
}

/* import_block_names.progress: the last process's strings to process 0 move whenever process 0
 * is ready for them, not only at the end of this process's import (process 0 waited 27 s for
 * them at 256 ranks of 1M on 16 processes). */
static void move_names(void *context)
{
    struct names_chain *chain = context;
    for (int i = 0; i < chain->sending; i++) {
        int done = 0;
        MPI_Test(&chain->sent[i], &done, MPI_STATUS_IGNORE);
    }
}

/* import_block_names.complete: process 0 takes every process's strings (the last one's sum), so
 * that it can name any kernel. */
static int complete_names(void *context, store *output, error_info *err)
{
    struct names_chain *chain = context;
    int64_t ignored;
    if (chain->mpi->rank != 0 || chain->mpi->size < 2)
        return 0;
    chain->received_last = 1;
    return receive_names(chain->mpi->size - 1, output, &ignored, &chain->failed_before, err);
}

/* 1 when any process's import failed (every process learns it alike). */
static int any_failed(int failed)
{
    int any = failed;
    MPI_Request request;
    if (MPI_Iallreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &request) != MPI_SUCCESS ||
        wait_politely(&request) != 0)
        return 1;
    return any;
}

/* Removes the folder of this process's trace and what is in it. */
static void remove_block(const char *directory, const char *path)
{
    output_file_remove(path);
    rmdir(directory);
}

/* --mpi on rank files: this process imports its block of them into a trace of its own in a new
 * folder of $TMPDIR (the node's own disk), with the ids of the whole import, analyses its own
 * devices (analysis_share.local), and removes it. Returns the result (process 0), or NULL with err
 * filled (*said: already said on stderr, the import's failure). */
static struct analysis_result *analyze_blocks(struct cli_mpi *mpi, const char *command, char *const *inputs,
                                              int input_count, const struct analysis_options *options,
                                              error_info *err, int *said)
{
    const char *temporary = getenv("TMPDIR");
    char directory[PATH_MAX], path[PATH_MAX + 16];
    snprintf(directory, sizeof directory, "%s/overlapscope-mpi-XXXXXX",
             temporary && *temporary ? temporary : "/tmp");
    *said = 1;
    if (!mkdtemp(directory)) {
        cli_error(command, "cannot make a folder for this process's trace in '%s': %s",
                  temporary && *temporary ? temporary : "/tmp", strerror(errno));
        return NULL;
    }
    snprintf(path, sizeof path, "%s/block.db", directory);
    struct names_chain chain = {.mpi = mpi};
    struct import_block_names names = {take_names, complete_names, move_names, &chain};
    /* Files read at once: --jobs, else this machine's processors shared among its processes (16
     * processes of 16 files each on 16 cores: one worker each, not 256 parsers at once). */
    long processors = sysconf(_SC_NPROCESSORS_ONLN);
    int workers = processors > mpi->node_size ? (int)(processors / mpi->node_size) : 1;
    struct import_options import = {.jobs = options->jobs > 0 ? options->jobs : workers,
                                    .timing = options->timing};
    size_t read = 0, total = 0;
    int imported = import_run_block(path, inputs, input_count, (size_t)mpi->rank, (size_t)mpi->size, &import,
                                    &names, &read, &total, err);
    names_chain_end(&chain);
    struct analysis_result *result = NULL;
    /* A process that cannot import its files says why; every process then stops alike (no
     * MPI_Abort: each removes its own trace). */
    if (any_failed(imported != 0)) {
        if (imported != 0 && !chain.failed_before)
            cli_error(command, "%s", err->message);
        mpi->agreed = 1;
    } else {
        *said = 0;
        if (getenv("OVERLAPSCOPE_MPI_SHARES"))
            fprintf(stderr, "overlapscope: --mpi process %d of %d: imported %zu of %zu files\n", mpi->rank,
                    mpi->size, read, total);
        mpi->share.local = 1;
        char name[4200];
        result = report_analyze_file_named(path, cli_mpi_inputs_name(inputs, input_count, name, sizeof name),
                                           options, err);
    }
    remove_block(directory, path);
    return result;
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
                       char *const *arguments, int argument_count, const char *name)
{
    (void)mpi;
    return cli_trace_inputs_open(input, command, arguments, argument_count, name);
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

/* Rank files (a folder of them, or several): what --mpi imports block by block. One named like a
 * rank file that is not here may lie on another machine (its process opens it, or says why). */
static int rank_files(char *const *inputs, int input_count)
{
    for (int i = 0; i < input_count; i++) {
        struct stat info;
        int elsewhere = input_count > 1 && stat(inputs[i], &info) != 0 && import_is_trace_name(inputs[i]);
        if (!elsewhere && !import_is_foreign(inputs[i]))
            return 0;
    }
    return 1;
}

struct analysis_result *cli_mpi_analyze(struct cli_mpi *mpi, const char *command, char *const *inputs,
                                        int input_count, const struct analysis_options *options,
                                        char *input_path, size_t input_path_size, int *status)
{
    struct cli_trace_input input;
    *status = CLI_EXIT_ERROR;
    input_path[0] = '\0';
    if (input_count != 1 && !rank_files(inputs, input_count)) {
        if (cli_mpi_writes(mpi)) /* every process sees the same arguments */
            cli_error(command, "expected one trace file, or rank files (Kineto JSON, nsys exports)");
        mpi->agreed = 1;
        return NULL;
    }
    error_info err;
    struct analysis_result *result = NULL;
    int said = 0;
#ifdef OVERLAPSCOPE_HAVE_MPI
    if (mpi->on && rank_files(inputs, input_count)) {
        result = analyze_blocks(mpi, command, inputs, input_count, options, &err, &said);
        if (said)
            return NULL;
    } else
#endif
    {
        char name[4200];
        cli_mpi_inputs_name(inputs, input_count, name, sizeof name);
        if (cli_mpi_open_input(mpi, &input, command, inputs, input_count, name) != 0) {
            cli_trace_input_release(&input);
            return NULL;
        }
        result = report_analyze_file(input.path, options, &err);
        snprintf(input_path, input_path_size, "%s", input.path);
        cli_trace_input_release(&input);
    }
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

const char *cli_mpi_inputs_name(char *const *inputs, int input_count, char *name, size_t size)
{
    if (input_count <= 1)
        return inputs[0];
    snprintf(name, size, "%s and %d more", inputs[0], input_count - 1);
    return name;
}

int cli_mpi_writes(const struct cli_mpi *mpi)
{
    return !mpi->on || mpi->rank == 0;
}
