/* cmd_record.c: `overlapscope record [OPTIONS] -- PROGRAM ARGS...`: run a CUDA program with the
 * collector injected into every process it starts and merge what they recorded into one trace.
 * The work is in record/ (record.h); this file parses, prints and picks the exit status. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture_range.h"
#include "cli.h"
#include "collector_options.h"
#include "describe.h"
#include "output_file.h"
#include "overview.h"
#include "record.h"
#include "store.h"
#include "text_safe.h"
#include "units.h"

#define MERGE_WAIT_MS 10000 /* how long processes outliving the job may take to finish their files */

struct record_arguments {
    const char *output;
    int force, nccl;
    const char *kinds;
    const char *api; /* analysis (default), all, none */
    int flush_ms;
    int sample_hz; /* record --sample-hz: 0 off */
    int64_t buffer_bytes, device_buffer_bytes;
    int buffer_count;
    const char *capture_range, *delay, *duration; /* checked (capture_range.h); NULL: none */
    char **program;
};

static int parse_positive(const char *command, const char *option, const char *text, long long max,
                          long long *value)
{
    char *end;
    *value = strtoll(text, &end, 10);
    if (*end != '\0' || *value <= 0 || *value > max)
        return cli_usage_error(command, "%s expects a whole number from 1 to %lld, not '%s'", option, max,
                               text);
    return 0;
}

/* --capture-range, --delay, --duration: checked here with the collector's own parsers, so that a
 * wrong value is one line before the job starts, never a job recorded in full. */
static int take_capture_option(const char *command, int option, const char *value,
                               struct record_arguments *arguments)
{
    struct capture_range_spec spec = {0};
    int64_t nanoseconds = 0;
    error_info err;
    const char *name = option == 'C' ? "--capture-range" : option == 'W' ? "--delay" : "--duration";
    const char **slot = option == 'C'   ? &arguments->capture_range
                        : option == 'W' ? &arguments->delay
                                        : &arguments->duration;
    if (*slot)
        return cli_usage_error(command, "%s given twice ('%s', then '%s'): give it once", name, *slot, value);
    int status = option == 'C' ? capture_range_parse(value, &spec, &err)
                               : capture_range_parse_seconds(value, &nanoseconds, &err);
    if (status != 0)
        return cli_usage_error(command, "%s: %s", name, err.message);
    *slot = value;
    return 0;
}

static int parse_arguments(int argc, char **argv, struct record_arguments *arguments)
{
    static const struct option options[] = {{"output", required_argument, 0, 'o'},
                                            {"force", no_argument, 0, 'f'},
                                            {"kinds", required_argument, 0, 'k'},
                                            {"flush-ms", required_argument, 0, 'F'},
                                            {"buffer-mb", required_argument, 0, 'b'},
                                            {"buffers", required_argument, 0, 'B'},
                                            {"device-buffer-mb", required_argument, 0, 'D'},
                                            {"no-api", no_argument, 0, 'A'},
                                            {"api", required_argument, 0, 'a'},
                                            {"nccl", no_argument, 0, 'n'},
                                            {"sample-hz", required_argument, 0, 'S'},
                                            {"no-nccl", no_argument, 0, 'N'},
                                            {"capture-range", required_argument, 0, 'C'},
                                            {"delay", required_argument, 0, 'W'},
                                            {"duration", required_argument, 0, 'T'},
                                            {0, 0, 0, 0}};
    memset(arguments, 0, sizeof *arguments);
    arguments->nccl = 1;
    arguments->api = "analysis";
    arguments->sample_hz = COLLECTOR_DEFAULT_SAMPLE_HZ;
    optind = 1;
    int option;
    long long number;
    /* '+': options end at the program's name, so its own options stay its own. */
    while ((option = getopt_long(argc, argv, "+o:f", options, NULL)) != -1) {
        switch (option) {
        case 'o':
            arguments->output = optarg;
            break;
        case 'f':
            arguments->force = 1;
            break;
        case 'k': {
            unsigned kinds;
            error_info err;
            if (collector_kinds_parse(optarg, &kinds, &err) != 0)
                return cli_usage_error(argv[0], "--kinds: %s", err.message);
            arguments->kinds = optarg;
            break;
        }
        case 'F':
            if (parse_positive(argv[0], "--flush-ms", optarg, 3600000, &number) != 0)
                return CLI_EXIT_ERROR;
            arguments->flush_ms = (int)number;
            break;
        case 'b':
            if (parse_positive(argv[0], "--buffer-mb", optarg, 1024, &number) != 0)
                return CLI_EXIT_ERROR;
            arguments->buffer_bytes = number << 20;
            break;
        case 'B':
            if (parse_positive(argv[0], "--buffers", optarg, 100000, &number) != 0)
                return CLI_EXIT_ERROR;
            arguments->buffer_count = (int)number;
            break;
        case 'D':
            if (parse_positive(argv[0], "--device-buffer-mb", optarg, 1024, &number) != 0)
                return CLI_EXIT_ERROR;
            arguments->device_buffer_bytes = number << 20;
            break;
        case 'A':
            arguments->api = "none";
            break;
        case 'a': {
            enum collector_api_set api_set;
            error_info err;
            if (collector_api_set_parse(optarg, &api_set, NULL, &err) != 0)
                return cli_usage_error(argv[0], "--api: %s", err.message);
            arguments->api = optarg;
            break;
        }
        case 'n':
            arguments->nccl = 1;
            break;
        case 'S': {
            char *end;
            long long hz = strtoll(optarg, &end, 10);
            if (*end != '\0' || end == optarg || hz < 0 || hz > COLLECTOR_MAX_SAMPLE_HZ)
                return cli_usage_error(argv[0],
                                       "--sample-hz expects a whole number from 0 (off) to %d, not '%s'",
                                       COLLECTOR_MAX_SAMPLE_HZ, optarg);
            arguments->sample_hz = (int)hz;
            break;
        }
        case 'N':
            arguments->nccl = 0;
            break;
        case 'C':
        case 'W':
        case 'T':
            if (take_capture_option(argv[0], option, optarg, arguments) != 0)
                return CLI_EXIT_ERROR;
            break;
        default:
            return cli_usage_error(argv[0], "unknown option or missing value: '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return cli_usage_error(argv[0], "no program given: overlapscope record [OPTIONS] -- PROGRAM ARGS...");
    arguments->program = argv + optind;
    return 0;
}

static char *join_arguments(char **program)
{
    size_t size = 1;
    for (char **word = program; *word; word++)
        size += strlen(*word) + 1;
    char *line = calloc(1, size);
    if (!line)
        return NULL;
    for (char **word = program; *word; word++) {
        if (word != program)
            strcat(line, " ");
        strcat(line, *word);
    }
    return line;
}

static int print_warning(void *context, const struct store_warning *row, int64_t pid)
{
    fprintf(stderr, "overlapscope: %s: warning: ", (const char *)context);
    if (pid != STORE_NULL)
        fprintf(stderr, "[pid %lld] ", (long long)pid);
    text_safe_fputs(row->code ? row->code : "?", TEXT_SAFE_TERMINAL, stderr);
    fputs(": ", stderr);
    text_safe_fputs(row->message, TEXT_SAFE_TERMINAL, stderr);
    fputc('\n', stderr);
    return 0;
}

static void print_warnings(const char *command, const char *output)
{
    error_info err;
    store *trace = store_open(output, 1, &err);
    if (!trace)
        return;
    store_each_warning(trace, print_warning, (void *)command, &err);
    store_close(trace, NULL);
}

static void print_summary(const char *command, const char *output, const struct record_merge_result *result)
{
    char processes[48], kernels[48], collectives[48], dropped[48];
    fprintf(stderr, "overlapscope: %s: wrote %s: %s, %s, %s, %s%s\n", command, output,
            units_format_count(processes, sizeof processes, result->processes, "process"),
            units_format_count(kernels, sizeof kernels, result->kernels, "kernel"),
            units_format_count(collectives, sizeof collectives, result->collectives, "NCCL collective"),
            units_format_count(dropped, sizeof dropped, result->dropped_records, "dropped record"),
            result->damaged_files ? " (some per-process files were damaged)" : "");
    if (result->warnings)
        print_warnings(command, output);
    if (result->competing_profiler)
        fprintf(
            stderr,
            "overlapscope: %s: warning: another profiler (torch.profiler/Kineto, Nsight...) took CUPTI over,"
            " so this trace misses GPU activity; record without it, or convert that profiler's own trace:"
            " overlapscope import TRACE.json\n",
            command);
}

/* The job's status as a shell reports it: its exit code, or 128+N when signal N killed it. */
static int job_exit_status(const char *command, const struct record_job_status *job)
{
    if (!job->term_signal) {
        if (job->exit_code != 0)
            fprintf(stderr, "overlapscope: %s: the job exited with status %d\n", command, job->exit_code);
        return job->exit_code;
    }
    fprintf(stderr, "overlapscope: %s: the job was killed by signal %d (SIG%s)\n", command, job->term_signal,
            sigabbrev_np(job->term_signal) ? sigabbrev_np(job->term_signal) : "?");
    return 128 + job->term_signal;
}

static int run_recording(const char *command, const struct record_arguments *arguments, const char *output,
                         const char *collector, const char *cupti_folder)
{
    error_info err;
    int lock_fd = record_lock_output(output, arguments->force, &err);
    if (lock_fd < 0)
        return cli_error(command, "%s", err.message);
    char run_directory[4096];
    if (record_make_run_directory(output, run_directory, sizeof run_directory, &err) != 0) {
        record_unlock_output(output, lock_fd);
        return cli_error(command, "%s", err.message);
    }
    int want_nvtx = 1;
    if (arguments->kinds) {
        unsigned kinds = 0;
        collector_kinds_parse(arguments->kinds, &kinds, &err);
        want_nvtx = (kinds & COLLECTOR_KIND_NVTX) != 0;
    }
    /* an NVTX capture range needs NVTX's callbacks, whatever --kinds keeps */
    if (arguments->capture_range && strncmp(arguments->capture_range, "nvtx:", 5) == 0)
        want_nvtx = 1;
    struct record_settings settings = {.collector_path = collector,
                                       .cupti_folder = cupti_folder,
                                       .nvtx = want_nvtx,
                                       .run_directory = run_directory,
                                       .kinds = arguments->kinds,
                                       .flush_ms = arguments->flush_ms,
                                       .sample_hz = arguments->sample_hz,
                                       .buffer_bytes = arguments->buffer_bytes,
                                       .buffer_count = arguments->buffer_count,
                                       .device_buffer_bytes = arguments->device_buffer_bytes,
                                       .api = arguments->api,
                                       .nccl = arguments->nccl,
                                       .capture_range = arguments->capture_range,
                                       .delay = arguments->delay,
                                       .duration = arguments->duration};
    int status = CLI_EXIT_ERROR;
    struct record_job_status job;
    int exec_errno = 0;
    if (record_set_environment(&settings, &err) != 0) {
        cli_error(command, "%s", err.message);
    } else if (record_run_job(arguments->program, &job, &exec_errno, &err) != 0) {
        cli_error(command, "%s", err.message);
        status = exec_errno == ENOENT ? 127 : exec_errno ? 126 : CLI_EXIT_ERROR;
    } else {
        char *line = join_arguments(arguments->program);
        struct record_meta meta = {
            .command = line, .job = &job, .api_records = arguments->api, .sample_hz = arguments->sample_hz};
        struct record_merge_result result;
        if (record_merge(run_directory, output, arguments->force, overview_build_or_warn, &meta,
                         MERGE_WAIT_MS, &result, &err) != 0) {
            cli_error(command, "%s (the per-process files are kept in %s)", err.message, run_directory);
            free(line);
            record_unlock_output(output, lock_fd);
            return CLI_EXIT_ERROR;
        }
        free(line);
        print_summary(command, output, &result);
        status = job_exit_status(command, &job);
    }
    record_remove_run_directory(run_directory);
    record_unlock_output(output, lock_fd);
    return status;
}

int cmd_record(int argc, char **argv)
{
    struct record_arguments arguments;
    int parsed = parse_arguments(argc, argv, &arguments);
    if (parsed != 0)
        return parsed;
    char default_output[64];
    const char *output = arguments.output;
    if (!output) {
        time_t now = time(NULL);
        struct tm local;
        localtime_r(&now, &local);
        strftime(default_output, sizeof default_output, "overlapscope-%Y%m%d-%H%M%S.db", &local);
        output = default_output;
    }
    /* Before anything else: a job must not run for hours into an output that will be refused. */
    error_info err;
    if (output_file_check(output, arguments.force, NULL, 0, &err) != 0)
        return cli_error(argv[0], "%s", err.message);
    if (!record_collector_built())
        return cli_error(argv[0],
                         "the collector is not built: this overlapscope was built without the CUDA"
                         " toolkit (CUPTI); rebuild where /usr/local/cuda is, or import a profiler trace");
    char collector[4096], cupti[4096];
    if (record_find_collector(collector, sizeof collector, &err) != 0 ||
        record_find_cupti(cupti, sizeof cupti, &err) != 0)
        return cli_error(argv[0], "%s", err.message);
    return run_recording(argv[0], &arguments, output, collector, cupti);
}
