/* cmd_info.c: `overlapscope info TRACE`: what a trace holds, before any analysis. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_note.h"
#include "cli.h"
#include "describe.h"
#include "gpu_devices.h"
#include "gpu_vendor.h"
#include "host_tables.h"
#include "overview.h"
#include "python_source.h"
#include "store.h"
#include "text_safe.h"
#include "threads.h"
#include "trace_input.h"
#include "units.h"

/* Text read from the trace (or its path) goes to the terminal escaped: a name can hold any byte. */
static void print_text(const char *text)
{
    text_safe_fputs(text, TEXT_SAFE_TERMINAL, stdout);
}

static void print_header(store *trace)
{
    char *tool = store_get_meta(trace, "tool_version");
    char *source = store_get_meta(trace, "source");
    char *host = store_get_meta(trace, "host");
    printf("trace:     ");
    print_text(store_path(trace));
    printf(" (schema v%d, written by overlapscope ", store_schema_version(trace));
    print_text(tool ? tool : "?");
    if (source) {
        printf(", from ");
        print_text(source);
    }
    printf(")\n");
    if (host) {
        printf("host:      ");
        print_text(host);
        printf("\n");
    }
    char captured[512];
    if (cli_capture_note(trace, captured, sizeof captured)) {
        printf("captured:  ");
        print_text(captured);
        printf("\n");
    }
    free(tool);
    free(source);
    free(host);
}

/* -1 with err filled when the span cannot be read or lies outside any recording (damaged). */
static int print_span(store *trace, error_info *err)
{
    int64_t first = 0, last = 0;
    char text[32];
    int found = store_gpu_span(trace, &first, &last, err);
    if (found == 1)
        printf("GPU span:  %s (first to last GPU activity, all processes)\n",
               units_format_duration(text, sizeof text, last > first ? last - first : 0));
    else if (found == 0)
        printf("GPU span:  no GPU activity\n");
    return found < 0 ? -1 : 0;
}

/* Whether `render` can draw the whole trace from its stored overview (render/overview.h). */
static void print_overview(store *trace)
{
    int64_t start_ns = 0, end_ns = 0;
    error_info err;
    int status = overview_span(trace, &start_ns, &end_ns, &err);
    if (status == 1)
        printf("overview:  stored (render draws whole-trace pictures from it, without a scan)\n");
    else if (status < 0) {
        printf("overview:  unusable: ");
        print_text(err.message);
        printf("\n");
    } else
        printf(
            "overview:  none (fewer than %d GPU rows, or the trace changed since; render scans the rows)\n",
            OVERVIEW_MIN_ROWS);
}

/* Which processes `info` lists: by default those that ran GPU work (a torch.compile or DataLoader
 * job has many workers that never did), the others counted by name in one line. */
struct process_listing {
    store *trace;
    int all;                  /* --all: every process and device */
    int64_t *gpu_process_ids; /* sorted: the processes with kernels, copies or memsets */
    size_t gpu_count;
    struct hidden_name {
        char name[64];
        int64_t count;
    } names[32];
    size_t name_count;
    int64_t hidden, hidden_other, hidden_devices;
};

static int has_gpu_activity(const struct process_listing *listing, int64_t process_id)
{
    for (size_t i = 0; i < listing->gpu_count; i++)
        if (listing->gpu_process_ids[i] == process_id)
            return 1;
    return 0;
}

/* 1 when the process is listed; else it is counted for the summary line. */
static int listed(const struct process_listing *listing, int64_t process_id)
{
    return listing->all || listing->gpu_count == 0 || has_gpu_activity(listing, process_id);
}

/* The name a process is counted under: its program and what it runs ("python3 train.py", "python3
 * -m torch._inductor.compile_worker", "python3 -c", a script of an installed package from the
 * package on: "python3 torch/_inductor/compile_worker/__main__.py"), from the command line; "?"
 * when unknown. Words are looked at whole: a path longer than the name is cut only at the end (the
 * basename of a path cut first read "c" for torch.compile's workers). */
static void short_command(const char *command_line, char *name, size_t size)
{
    const char *word[4];
    size_t length[4];
    int count = 0;
    for (const char *p = command_line ? command_line : ""; *p && count < 4;) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " ");
        if (n) {
            word[count] = p;
            length[count++] = n;
        }
        p += n;
    }
    if (count == 0) {
        snprintf(name, size, "?");
        return;
    }
    const char *program = word[0];
    for (size_t i = 0; i < length[0]; i++)
        if (word[0][i] == '/')
            program = word[0] + i + 1;
    int used = snprintf(name, size, "%.*s", (int)(length[0] - (size_t)(program - word[0])), program);
    if (used < 0 || (size_t)used >= size)
        return;
    for (int i = 1; i < count; i++) {
        if (length[i] == 2 && strncmp(word[i], "-m", 2) == 0 && i + 1 < count) {
            snprintf(name + used, size - (size_t)used, " -m %.*s", (int)length[i + 1], word[i + 1]);
            return;
        }
        if (length[i] == 2 && strncmp(word[i], "-c", 2) == 0) {
            snprintf(name + used, size - (size_t)used, " -c");
            return;
        }
        if (word[i][0] != '-') {
            char script[4096];
            snprintf(script, sizeof script, "%.*s", (int)length[i], word[i]);
            const char *shown = python_source_shown(script);
            if (shown == script && strrchr(script, '/')) /* the user's own script: its file name */
                shown = strrchr(script, '/') + 1;
            snprintf(name + used, size - (size_t)used, " %s", shown);
            return;
        }
    }
}

static void count_hidden(struct process_listing *listing, const char *command_line)
{
    char name[64];
    short_command(command_line, name, sizeof name);
    listing->hidden++;
    for (size_t i = 0; i < listing->name_count; i++)
        if (strcmp(listing->names[i].name, name) == 0) {
            listing->names[i].count++;
            return;
        }
    if (listing->name_count == sizeof listing->names / sizeof listing->names[0]) {
        listing->hidden_other++;
        return;
    }
    snprintf(listing->names[listing->name_count].name, sizeof listing->names[0].name, "%s", name);
    listing->names[listing->name_count++].count = 1;
}

static int by_count_then_name(const void *a, const void *b)
{
    const struct hidden_name *x = a, *y = b;
    return x->count != y->count ? (x->count > y->count ? -1 : 1) : strcmp(x->name, y->name);
}

/* "  18 more processes without GPU activity: python3 train.py x12, python3 -c x6 (info --all lists them)" */
static void print_hidden_processes(struct process_listing *listing)
{
    if (listing->hidden == 0)
        return;
    char count[64];
    qsort(listing->names, listing->name_count, sizeof listing->names[0], by_count_then_name);
    printf("  %s without GPU activity:",
           units_format_count(count, sizeof count, listing->hidden, "more process"));
    for (size_t i = 0; i < listing->name_count; i++) {
        printf("%s ", i ? "," : "");
        print_text(listing->names[i].name);
        printf(" x%" PRId64, listing->names[i].count);
    }
    if (listing->hidden_other)
        printf(", others x%" PRId64, listing->hidden_other);
    printf(" (info --all lists them)\n");
}

struct thread_names {
    char text[512];
    size_t length;
    int named;
};

static int add_thread(void *context, int64_t thread_id, const char *name)
{
    struct thread_names *names = context;
    char one[160];
    snprintf(one, sizeof one, "%s%" PRId64 "%s%s", names->length ? ", " : "", thread_id, name ? " " : "",
             name ? name : "");
    names->named |= name != NULL;
    if (names->length + strlen(one) < sizeof names->text - 4) {
        memcpy(names->text + names->length, one, strlen(one) + 1);
        names->length += strlen(one);
    } else if (names->length + 4 < sizeof names->text) {
        memcpy(names->text + names->length, "...", 4);
        names->length += 3;
        return 1;
    }
    return 0;
}

/* The threads that made CUDA calls, named, when the trace names them (nsys exports do). */
static void print_threads(store *trace, int64_t process_id)
{
    struct thread_names names = {.length = 0};
    error_info err;
    if (store_each_cuda_thread(trace, process_id, add_thread, &names, &err) >= 0 && names.named) {
        printf("    CUDA threads: ");
        print_text(names.text);
        printf("\n");
    }
}

static int print_process(void *context, const struct store_process *row)
{
    struct process_listing *listing = context;
    if (!listed(listing, row->process_id)) {
        count_hidden(listing, row->command_line);
        return 0;
    }
    printf("  pid %-8" PRId64, row->pid);
    if (row->rank != STORE_NULL) {
        printf(" rank %" PRId64, row->rank);
        if (row->world_size != STORE_NULL)
            printf("/%" PRId64, row->world_size);
        if (row->local_rank != STORE_NULL)
            printf(" (local %" PRId64 ")", row->local_rank);
    }
    printf("  host ");
    print_text(row->host ? row->host : "?");
    if (row->term_signal != STORE_NULL)
        printf("  killed by signal %" PRId64, row->term_signal);
    else if (row->exit_status != STORE_NULL)
        printf("  exit %" PRId64, row->exit_status);
    printf("  dropped %" PRId64, row->dropped_records == STORE_NULL ? 0 : row->dropped_records);
    printf("\n    ");
    print_text(row->command_line ? row->command_line : "(command line unknown)");
    printf("\n");
    print_threads(listing->trace, row->process_id);
    return 0;
}

static int print_device(void *context, const struct store_device *row, int64_t pid, int64_t rank)
{
    struct process_listing *listing = context;
    (void)rank;
    if (!listed(listing, row->process_id)) {
        listing->hidden_devices++;
        return 0;
    }
    char memory[32], shared[32];
    printf("  pid %-8" PRId64 " device %" PRId64 ": ", pid == STORE_NULL ? 0 : pid, row->device_id);
    print_text(row->name ? row->name : "?");
    int64_t units = row->sm_count == STORE_NULL ? 0 : row->sm_count;
    /* Another vendor's device: a name that is not NVIDIA's on a device without CUDA's occupancy
     * limits (which the collector records for every device, and importers derive for NVIDIA's
     * alone): a recorded trace's device keeps its compute capability whatever its name says. */
    int other_vendor = row->name && !gpu_vendor_is_nvidia(row->name) && row->max_blocks_per_sm == STORE_NULL;
    if (!other_vendor)
        printf(", %" PRId64 " SMs, cc %" PRId64 ".%" PRId64, units,
               row->compute_capability_major == STORE_NULL ? 0 : row->compute_capability_major,
               row->compute_capability_minor == STORE_NULL ? 0 : row->compute_capability_minor);
    else if (units > 0) /* ROCm's major.minor names a gfx architecture: 9.0 would read as Hopper */
        printf(", %" PRId64 " compute units", units);
    if (row->max_blocks_per_sm != STORE_NULL)
        printf(", %" PRId64 " blocks/%" PRId64 " warps/%" PRId64 " regs/%s shared per SM",
               row->max_blocks_per_sm, row->max_warps_per_sm == STORE_NULL ? 0 : row->max_warps_per_sm,
               row->max_registers_per_sm == STORE_NULL ? 0 : row->max_registers_per_sm,
               units_format_bytes(
                   shared, sizeof shared,
                   row->max_shared_memory_per_sm == STORE_NULL ? 0 : row->max_shared_memory_per_sm));
    if (row->global_memory_bytes != STORE_NULL)
        printf(", %s", units_format_bytes(memory, sizeof memory, row->global_memory_bytes));
    printf("\n");
    return 0;
}

/* The processes with GPU activity, and each process and device (those of the others summed up
 * unless --all). Returns 0, or -1 with err filled. */
static int print_processes_and_devices(store *trace, int all, error_info *err)
{
    struct process_listing listing = {.trace = trace, .all = all};
    struct store_gpu_device *devices = NULL;
    size_t device_count = 0;
    if (store_list_gpu_devices(trace, &devices, &device_count, err) != 0)
        return error_prefix(err, "%s", store_path(trace)); /* every info error names the trace */
    listing.gpu_process_ids = malloc((device_count ? device_count : 1) * sizeof *listing.gpu_process_ids);
    if (!listing.gpu_process_ids) {
        free(devices);
        return error_set(err, "out of memory");
    }
    for (size_t i = 0; i < device_count; i++) /* sorted by process: one id per run */
        if (i == 0 || devices[i].process_id != devices[i - 1].process_id)
            listing.gpu_process_ids[listing.gpu_count++] = devices[i].process_id;
    free(devices);
    printf("\nprocesses:\n");
    store_each_process(trace, print_process, &listing, err);
    print_hidden_processes(&listing);
    printf("\ndevices:\n");
    store_each_device(trace, print_device, &listing, err);
    if (listing.hidden_devices) {
        char count[64];
        printf("  %s of those processes (info --all lists them)\n",
               units_format_count(count, sizeof count, listing.hidden_devices, "more device"));
    }
    free(listing.gpu_process_ids);
    return 0;
}

static int print_collective_total(void *context, const char *op_name, int64_t count, int64_t bytes)
{
    (void)context;
    char text[32], op[64];
    text_safe_copy(op, sizeof op, op_name ? op_name : "?", TEXT_SAFE_TERMINAL);
    printf("    %-20s %" PRId64, op, count);
    if (bytes != STORE_NULL)
        printf("  (%s)", units_format_bytes(text, sizeof text, bytes));
    printf("\n");
    return 0;
}

static void print_counts(store *trace)
{
    static const struct {
        const char *label;
        enum store_table table;
    } kinds[] = {{"kernels", STORE_TABLE_KERNELS},
                 {"memcpys", STORE_TABLE_MEMCPYS},
                 {"memsets", STORE_TABLE_MEMSETS},
                 {"synchronizations", STORE_TABLE_SYNCHRONIZATIONS},
                 {"CUDA event records", STORE_TABLE_CUDA_EVENTS},
                 {"CUDA API calls", STORE_TABLE_API_CALLS},
                 {"OS runtime waits", STORE_TABLE_OS_CALLS},
                 {"NVTX ranges and marks", STORE_TABLE_NVTX},
                 {"NCCL collectives", STORE_TABLE_COLLECTIVES},
                 {"streams", STORE_TABLE_STREAMS}};
    printf("\nrecords:\n");
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        int64_t rows = store_count_rows(trace, kinds[i].table);
        if (rows > 0 || kinds[i].table != STORE_TABLE_OS_CALLS) /* only nsys exports hold them */
            printf("  %-22s %" PRId64 "\n", kinds[i].label, rows);
    }
    error_info err;
    store_each_collective_total(trace, print_collective_total, NULL, &err);
}

static int print_warning(void *context, const struct store_warning *row, int64_t pid)
{
    int *count = context;
    if ((*count)++ == 0)
        printf("warnings:\n");
    if (pid != STORE_NULL)
        printf("  [pid %" PRId64 "] ", pid);
    else
        printf("  ");
    print_text(row->code ? row->code : "?");
    printf(": ");
    print_text(row->message ? row->message : "");
    printf("\n");
    return 0;
}

static void print_drops_and_warnings(store *trace)
{
    int64_t dropped = store_count_dropped_records(trace);
    printf("\ndropped records: %" PRId64 "%s\n", dropped,
           dropped ? " (CUPTI's buffers overflowed: see 'overlapscope help record', --buffer-mb)" : "");
    int count = 0;
    error_info err;
    if (store_each_warning(trace, print_warning, &count, &err) < 0)
        return;
    if (count == 0)
        printf("warnings: none\n");
}

static int print_environment_variable(void *context, int64_t pid, const char *name, const char *value)
{
    int *count = context;
    if ((*count)++ == 0)
        printf("environment (allow-listed variables, docs/collector.md):\n");
    printf("  [pid %" PRId64 "] ", pid);
    print_text(name ? name : "?");
    printf("=");
    print_text(value ? value : "");
    printf("\n");
    return 0;
}

/* The host side of a recorded version 3 trace (store/host_tables.h); nothing for older ones and
 * for imports, which have none. */
static void print_host_side(store *trace)
{
    struct store_host_summary summary;
    error_info err;
    if (store_host_summary(trace, &summary, &err) != 0 || !summary.has_tables || !summary.recorded)
        return;
    if (summary.sample_hz > 0)
        printf("\nhost samples: %" PRId64 " Hz: %" PRId64 " thread samples (%" PRId64
               " distinct stacks), %" PRId64 " process CPU samples of %" PRId64 " processes\n",
               summary.sample_hz, summary.thread_samples, summary.stacks, summary.process_samples,
               summary.processes_sampled);
    else if (summary.hz_invalid) {
        printf("\nhost samples: %" PRId64 " thread samples not used: the trace's host_sample_hz '",
               summary.thread_samples);
        print_text(summary.hz_text);
        printf("' is not a whole number of Hz\n");
    } else
        printf("\nhost samples: none (recorded with --sample-hz 0)\n");
    int count = 0;
    if (store_each_environment_variable(trace, print_environment_variable, &count, &err) == 0 && count == 0)
        printf("environment: no allow-listed variable was set\n");
}

/* Prints what the trace at path holds; command names the command in messages. */
static int describe(const char *command, const char *path, int verify, int all)
{
    error_info err;
    store *trace = store_open(path, 1, &err);
    if (!trace)
        return cli_error(command, "%s", err.message);
    /* info is the command people run on a file they doubt: a damaged page must be said, not
     * hidden behind counts that happen to read fine. */
    if (verify && store_verify(trace, &err) != 0) {
        store_close(trace, NULL);
        return cli_error(command, "%s", err.message);
    }
    print_header(trace);
    int status = print_span(trace, &err);
    if (status == 0)
        status = print_processes_and_devices(trace, all, &err);
    if (status == 0) {
        print_counts(trace);
        print_overview(trace);
        print_host_side(trace);
        print_drops_and_warnings(trace);
        /* What could not be read was left out above; a query stopped by the work limit must not
         * pass for a short trace. */
        status = store_work_exceeded(trace, &err);
    }
    store_close(trace, NULL);
    return status == 0 ? CLI_EXIT_OK : cli_error(command, "%s", err.message);
}

int cmd_info(int argc, char **argv)
{
    static const struct option options[] = {
        {"no-verify", no_argument, NULL, 'n'}, {"all", no_argument, NULL, 'a'}, {0, 0, 0, 0}};
    int verify = 1, all = 0;
    optind = 1;
    int option;
    while ((option = getopt_long(argc, argv, "", options, NULL)) != -1) {
        if (option == 'n')
            verify = 0;
        else if (option == 'a')
            all = 1;
        else
            return cli_usage_error(argv[0], "unknown option or missing value: '%s'", argv[optind - 1]);
    }
    if (argc - optind != 1)
        return cli_usage_error(argv[0], "expected one trace file");
    struct cli_trace_input input;
    int status = cli_trace_input_open(&input, argv[0], argv[optind]);
    if (status == 0)
        status = describe(argv[0], input.path, verify, all);
    cli_trace_input_release(&input);
    return status;
}
