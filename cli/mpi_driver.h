/* mpi_driver.h: `report --mpi` and `check --mpi` under mpirun or srun: every MPI process opens the
 * same trace, reads the set-up of its block of the devices (their steps and GPU span, exchanged
 * with every process), walks those devices and sends their fragments to process 0
 * (analysis_share in analysis.h), which alone writes the report; what it writes is byte for byte
 * the single process's. The only module that knows MPI: compiled with it when CMake finds it
 * (OVERLAPSCOPE_HAVE_MPI), else --mpi says so in one line and exits 2. Manual:
 * docs/overlapscope-report.md and docs/scale.md. */
#ifndef OVERLAPSCOPE_CLI_MPI_DRIVER_H
#define OVERLAPSCOPE_CLI_MPI_DRIVER_H

#include "analysis.h"
#include "trace_input.h"

struct cli_mpi {
    int on;   /* --mpi given */
    int rank; /* this process (0 writes the report), of size */
    int size;
    int node_size; /* the processes on this process's machine (MPI_COMM_TYPE_SHARED) */
    int exchanged; /* the fragments went through MPI: no process waits for this one any more */
    int agreed;    /* every process knows the run failed (process 0 could not open the trace) */
    struct analysis_share share;
};

/* Starts MPI (MPI_Init) and hangs the share on options. Returns 0, or prints one line and returns
 * CLI_EXIT_ERROR (a build without MPI, or MPI that does not start). */
int cli_mpi_start(struct cli_mpi *mpi, struct analysis_options *options);

/* cli_trace_input_open of the one argument on every process, process 0 first (it may import the
 * trace into the cache beside it, which the others then read); without --mpi,
 * cli_trace_inputs_open of them all (name: what to call them). Returns 0 or CLI_EXIT_ERROR (said
 * by the process that failed); call cli_trace_input_release in both cases. */
int cli_mpi_open_input(struct cli_mpi *mpi, struct cli_trace_input *input, const char *command,
                       char *const *arguments, int argument_count, const char *name);

/* The analysis of inputs for report and check: one trace, opened (cli_mpi_open_input) and
 * analysed (report_analyze_file), shared among the processes under --mpi; or, under --mpi, rank
 * files (a folder of Kineto or nsys files, or several such files), of which each process imports
 * its block into a trace of its own on this node ($TMPDIR), with the ids the import of them all
 * would give (import_run_block, store/names.h), and analyses its own devices
 * (analysis_share.local); no file is shared. Returns the result (the caller frees it with
 * analysis_free), or NULL with *status CLI_EXIT_ERROR (said on stderr) or CLI_EXIT_OK (a process
 * other than 0: its part went to process 0, it has nothing to write). input_path receives the
 * trace analysed (the import, for a foreign trace; "" for rank files: gone once analysed). */
struct analysis_result *cli_mpi_analyze(struct cli_mpi *mpi, const char *command, char *const *inputs,
                                        int input_count, const struct analysis_options *options,
                                        char *input_path, size_t input_path_size, int *status);

/* What the report names as its trace: the one input, or the first and how many more (name holds
 * it, size bytes). */
const char *cli_mpi_inputs_name(char *const *inputs, int input_count, char *name, size_t size);

/* 1 when this process's output is the command's: process 0's, or any process's without --mpi. */
int cli_mpi_writes(const struct cli_mpi *mpi);

/* Ends MPI and returns status. A process that fails while the others still wait for it (before the
 * exchange) ends them all: MPI_Abort with status. */
int cli_mpi_end(struct cli_mpi *mpi, int status);

#endif
