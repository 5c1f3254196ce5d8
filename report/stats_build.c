/* stats_build.c: the summary tables of `overlapscope stats` (stats.h): rows from the store, each
 * counted by its part inside the analysis's selected time, grouped (by kernel name, API function,
 * NVTX message, copy kind, memory kind, synchronization type, collective), with count, total,
 * mean, median, min and max. Owns the groups while it builds; the tables own their texts. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_names.h"
#include "key_index.h"
#include "naming.h"
#include "nccl_bandwidth.h"
#include "occupancy.h"
#include "queries_stats.h"
#include "selection.h"
#include "stats.h"
#include "units.h"

/* --- the columns of each report --- */

#define SHARE_COLUMN                                                                                         \
    {                                                                                                        \
        "share_percent", "Share", STATS_PERCENT, 6                                                           \
    }
#define TIME_COLUMNS(width)                                                                                  \
    {"total_ns", "Total", STATS_NS, 9}, {"count", "Count", STATS_COUNT, 7},                                  \
        {"mean_ns", "Mean", STATS_NS, 9}, {"median_ns", "Median", STATS_NS, width},                          \
        {"min_ns", "Min", STATS_NS, STATS_DETAIL},                                                           \
    {                                                                                                        \
        "max_ns", "Max", STATS_NS, STATS_DETAIL                                                              \
    }

static const struct stats_column kernel_columns[] = {
    SHARE_COLUMN,
    TIME_COLUMNS(9),
    {"name", "Kernel", STATS_TEXT, STATS_REST},
    {"kind", "Kind", STATS_TEXT, STATS_DETAIL},
    {"grid", "Grid", STATS_TEXT, STATS_DETAIL},
    {"block", "Block", STATS_TEXT, STATS_DETAIL},
    {"blocks_per_sm", "Blocks/SM", STATS_COUNT, STATS_DETAIL},
    {"occupancy_limit", "Limited by", STATS_TEXT, STATS_DETAIL},
    {"full_name", "Full name", STATS_TEXT, STATS_NOT_IN_TEXT},
};
enum {
    K_SHARE,
    K_TOTAL,
    K_COUNT,
    K_MEAN,
    K_MEDIAN,
    K_MIN,
    K_MAX,
    K_NAME,
    K_KIND,
    K_GRID,
    K_BLOCK,
    K_BLOCKS,
    K_LIMIT,
    K_FULL
};

static const struct stats_column api_columns[] = {
    SHARE_COLUMN, TIME_COLUMNS(9), {"name", "CUDA API call", STATS_TEXT, STATS_REST}};
static const struct stats_column nvtx_columns[] = {SHARE_COLUMN,
                                                   TIME_COLUMNS(9),
                                                   {"name", "NVTX range", STATS_TEXT, STATS_REST},
                                                   {"domain", "Domain", STATS_TEXT, STATS_DETAIL}};
static const struct stats_column sync_columns[] = {
    SHARE_COLUMN, TIME_COLUMNS(9), {"type", "Synchronization", STATS_TEXT, STATS_REST}};
/* The timed groups' column order: share, total, count, mean, median, min, max, then the name. */
enum { T_SHARE, T_TOTAL, T_COUNT, T_MEAN, T_MEDIAN, T_MIN, T_MAX, T_NAME, T_DETAIL };

static const struct stats_column copy_columns[] = {
    {"direction", "Copy", STATS_TEXT, 5},        {"memory", "Memory", STATS_TEXT, STATS_REST},
    {"count", "Count", STATS_COUNT, 7},          {"bytes", "Bytes", STATS_BYTES, 10},
    {"total_ns", "Total", STATS_NS, 9},          {"bandwidth_gbps", "GB/s", STATS_GBPS, 7},
    {"mean_ns", "Mean", STATS_NS, STATS_DETAIL}, {"min_ns", "Min", STATS_NS, STATS_DETAIL},
    {"max_ns", "Max", STATS_NS, STATS_DETAIL},
};
enum { C_DIRECTION, C_MEMORY, C_COUNT, C_BYTES, C_TOTAL, C_BANDWIDTH, C_MEAN, C_MIN, C_MAX };
static const struct stats_column memset_columns[] = {
    {"memory", "Memset", STATS_TEXT, STATS_REST}, {"count", "Count", STATS_COUNT, 7},
    {"bytes", "Bytes", STATS_BYTES, 10},          {"total_ns", "Total", STATS_NS, 9},
    {"bandwidth_gbps", "GB/s", STATS_GBPS, 7},    {"mean_ns", "Mean", STATS_NS, STATS_DETAIL},
    {"min_ns", "Min", STATS_NS, STATS_DETAIL},    {"max_ns", "Max", STATS_NS, STATS_DETAIL},
};
enum { M_MEMORY, M_COUNT, M_BYTES, M_TOTAL, M_BANDWIDTH, M_MEAN, M_MIN, M_MAX };
static const struct stats_column nccl_columns[] = {
    {"op", "Collective", STATS_TEXT, STATS_REST},
    {"count", "Count", STATS_COUNT, 7},
    {"bytes", "Bytes", STATS_BYTES, 10},
    {"total_ns", "Total", STATS_NS, 9},
    {"algorithm_bandwidth_gbps", "Alg GB/s", STATS_GBPS, 8},
    {"bus_bandwidth_gbps", "Bus GB/s", STATS_GBPS, 8},
    {"mean_ns", "Mean", STATS_NS, STATS_DETAIL},
    {"nranks", "Ranks", STATS_COUNT, STATS_DETAIL},
};
enum { N_OP, N_COUNT, N_BYTES, N_TOTAL, N_ALGORITHM, N_BUS, N_MEAN, N_RANKS };

static const char *const report_tags[STATS_REPORT_COUNT] = {"kernels", "api",  "nvtx", "copies",
                                                            "memsets", "sync", "nccl"};

const char *stats_report_tag(enum stats_report report)
{
    return report < STATS_REPORT_COUNT ? report_tags[report] : "?";
}

int stats_parse_reports(const char *list, unsigned *reports, error_info *err)
{
    *reports = 0;
    const char *at = list;
    while (1) {
        size_t length = strcspn(at, ",");
        int found = -1;
        for (int i = 0; i < STATS_REPORT_COUNT; i++)
            if (strlen(report_tags[i]) == length && strncmp(at, report_tags[i], length) == 0)
                found = i;
        if (found < 0)
            return error_set(
                err,
                "--report: unknown table '%.*s' (known: kernels, api, nvtx, copies, memsets, sync, nccl)",
                (int)length, at);
        *reports |= 1u << found;
        if (!at[length])
            return 0;
        at += length + 1;
    }
}

/* --- groups --- */

struct group {
    int64_t key[4];
    char *label; /* a text key (a collective's op), owned */
    int64_t count, total_ns, min_ns, max_ns;
    int64_t bytes, rate_ns; /* bytes of the rows that know theirs, and those rows' whole durations */
    double bus_bytes;       /* bytes x the bus factor (nccl_bandwidth.h) */
    int64_t *durations;     /* for the median */
    size_t duration_capacity;
    struct store_stats_kernel first; /* a kernel group's first launch: its shape */
    int shape_varies, communication;
    int64_t nranks;
};

struct groups {
    struct group *items;
    size_t count, capacity;
    struct key_index index;
};

struct group_probe {
    const struct groups *groups;
    const int64_t *key;
    const char *label;
};

static int group_matches(const void *context, size_t position)
{
    const struct group_probe *probe = context;
    const struct group *group = &probe->groups->items[position];
    if (memcmp(group->key, probe->key, sizeof group->key) != 0)
        return 0;
    return !probe->label || (group->label && strcmp(group->label, probe->label) == 0);
}

static uint64_t text_hash(const char *text)
{
    uint64_t hash = 1469598103934665603u; /* FNV-1a */
    for (; text && *text; text++)
        hash = (hash ^ (unsigned char)*text) * 1099511628211u;
    return hash;
}

/* The group of key (label: a text key, or NULL), made when new. NULL when out of memory. */
static struct group *group_of(struct groups *groups, const int64_t key[4], const char *label)
{
    uint64_t hash = key_index_hash(key[0], key[1], key[2], key[3]) ^ text_hash(label);
    struct group_probe probe = {groups, key, label};
    long found = key_index_find(&groups->index, hash, group_matches, &probe);
    if (found >= 0)
        return &groups->items[found];
    if (groups->count == groups->capacity) {
        size_t capacity = groups->capacity ? groups->capacity * 2 : 16;
        struct group *grown = realloc(groups->items, capacity * sizeof *grown);
        if (!grown)
            return NULL;
        groups->items = grown;
        groups->capacity = capacity;
    }
    struct group *group = &groups->items[groups->count];
    memset(group, 0, sizeof *group);
    memcpy(group->key, key, sizeof group->key);
    if (label && !(group->label = strdup(label)))
        return NULL;
    if (key_index_add(&groups->index, hash, groups->count) != 0) {
        free(group->label);
        return NULL;
    }
    groups->count++;
    return group;
}

/* Counts one row of duration_ns (its part inside the selection). Returns 0 or -1 (memory). */
static int group_add(struct group *group, int64_t duration_ns)
{
    if (group->count == (int64_t)group->duration_capacity) {
        size_t capacity = group->duration_capacity ? group->duration_capacity * 2 : 8;
        int64_t *grown = realloc(group->durations, capacity * sizeof *grown);
        if (!grown)
            return -1;
        group->durations = grown;
        group->duration_capacity = capacity;
    }
    group->durations[group->count] = duration_ns;
    if (group->count == 0 || duration_ns < group->min_ns)
        group->min_ns = duration_ns;
    if (group->count == 0 || duration_ns > group->max_ns)
        group->max_ns = duration_ns;
    group->count++;
    group->total_ns += duration_ns;
    return 0;
}

static void groups_free(struct groups *groups)
{
    for (size_t i = 0; i < groups->count; i++) {
        free(groups->items[i].label);
        free(groups->items[i].durations);
    }
    free(groups->items);
    key_index_free(&groups->index);
    memset(groups, 0, sizeof *groups);
}

static int compare_ns(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The median as nsys and numpy give it: the middle value, or the mean of the two middle ones. */
static int64_t group_median(struct group *group)
{
    if (group->count == 0)
        return 0;
    qsort(group->durations, (size_t)group->count, sizeof *group->durations, compare_ns);
    size_t middle = (size_t)group->count / 2;
    if (group->count % 2)
        return group->durations[middle];
    return group->durations[middle - 1] + (group->durations[middle] - group->durations[middle - 1]) / 2;
}

/* Largest total first; ties by key, so the order never depends on the rows' order. */
static int compare_groups(const void *a, const void *b)
{
    const struct group *x = a, *y = b;
    if (x->total_ns != y->total_ns)
        return x->total_ns < y->total_ns ? 1 : -1;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    int keys = memcmp(x->key, y->key, sizeof x->key);
    if (keys)
        return keys;
    return strcmp(x->label ? x->label : "", y->label ? y->label : "");
}

/* --- one building pass --- */

struct build {
    store *trace;
    const struct analysis_result *result;
    const struct analysis_options *options;
    kernel_names *names;
    struct selection selection; /* of the current process */
    int selection_ready;
    const struct analysis_device *device; /* the current table's device */
    struct groups groups;
    struct stats_result *out;
    error_info *err;
};

/* The part of [start, end] inside the selection, measured as the analysis measures it (C(end) -
 * C(start), a reversed clock read as a point); -1 when the row lies outside it. */
static int64_t selected_ns(struct build *build, int64_t start_ns, int64_t end_ns)
{
    if (end_ns < start_ns)
        end_ns = start_ns;
    if (!selection_overlaps(&build->selection, start_ns, end_ns))
        return -1;
    return selection_clock(&build->selection, end_ns) - selection_clock(&build->selection, start_ns);
}

static int stream_selected(const struct build *build, int64_t stream_id)
{
    return build->options->stream_id < 0 || stream_id == build->options->stream_id;
}

static int out_of_memory(struct build *build)
{
    return error_set(build->err, "out of memory");
}

static int visit_kernel(void *context, const struct store_stats_kernel *row)
{
    struct build *build = context;
    if (!stream_selected(build, row->stream_id))
        return 0;
    int64_t duration = selected_ns(build, row->start_ns, row->end_ns);
    if (duration < 0)
        return 0;
    int communication = kernel_names_is_communication(build->names, row->name_id, row->rowid);
    int64_t key[4] = {row->name_id, communication, 0, 0};
    struct group *group = group_of(&build->groups, key, NULL);
    if (!group)
        return out_of_memory(build);
    if (group->count == 0) {
        group->first = *row;
        group->communication = communication;
    } else if (row->grid_x != group->first.grid_x || row->grid_y != group->first.grid_y ||
               row->grid_z != group->first.grid_z || row->block_x != group->first.block_x ||
               row->block_y != group->first.block_y || row->block_z != group->first.block_z) {
        group->shape_varies = 1;
    }
    return group_add(group, duration) != 0 ? out_of_memory(build) : 0;
}

static int visit_api_call(void *context, const struct store_stats_api_call *row)
{
    struct build *build = context;
    int64_t duration = selected_ns(build, row->start_ns, row->end_ns);
    if (duration < 0)
        return 0;
    int64_t key[4] = {row->name_id, 0, 0, 0};
    struct group *group = group_of(&build->groups, key, NULL);
    return !group || group_add(group, duration) != 0 ? out_of_memory(build) : 0;
}

static int visit_nvtx(void *context, const struct store_stats_nvtx_range *row)
{
    struct build *build = context;
    int64_t duration = selected_ns(build, row->start_ns, row->end_ns);
    if (duration < 0)
        return 0;
    int64_t key[4] = {row->message_id, row->domain_id, 0, 0};
    struct group *group = group_of(&build->groups, key, NULL);
    return !group || group_add(group, duration) != 0 ? out_of_memory(build) : 0;
}

static int visit_synchronization(void *context, const struct store_synchronization *row)
{
    struct build *build = context;
    if (row->stream_id != STORE_NULL && !stream_selected(build, row->stream_id))
        return 0;
    int64_t duration = selected_ns(build, row->start_ns, row->end_ns);
    if (duration < 0)
        return 0;
    int64_t key[4] = {row->sync_type, 0, 0, 0};
    struct group *group = group_of(&build->groups, key, NULL);
    return !group || group_add(group, duration) != 0 ? out_of_memory(build) : 0;
}

/* Counts a row that moves bytes: its selected part in the totals, its whole duration for the rate. */
static int add_transfer(struct build *build, struct group *group, int64_t start_ns, int64_t end_ns,
                        int64_t duration, int64_t bytes, double bus_factor)
{
    if (!group || group_add(group, duration) != 0)
        return out_of_memory(build);
    if (bytes != STORE_NULL && bytes >= 0) {
        group->bytes += bytes;
        group->bus_bytes += (double)bytes * bus_factor;
        group->rate_ns += end_ns > start_ns ? end_ns - start_ns : 0;
    }
    return 0;
}

static int visit_memcpy(void *context, const struct store_memcpy *row)
{
    struct build *build = context;
    if (!stream_selected(build, row->stream_id))
        return 0;
    int64_t duration = selected_ns(build, row->start_ns, row->end_ns);
    if (duration < 0)
        return 0;
    int64_t key[4] = {row->copy_kind, row->src_kind, row->dst_kind,
                      store_copy_category(row->copy_kind, row->src_device_id, row->dst_device_id)};
    return add_transfer(build, group_of(&build->groups, key, NULL), row->start_ns, row->end_ns, duration,
                        row->bytes, 1.0);
}

static int visit_memset(void *context, const struct store_memset *row)
{
    struct build *build = context;
    if (!stream_selected(build, row->stream_id))
        return 0;
    int64_t duration = selected_ns(build, row->start_ns, row->end_ns);
    if (duration < 0)
        return 0;
    int64_t key[4] = {row->memory_kind, 0, 0, 0};
    return add_transfer(build, group_of(&build->groups, key, NULL), row->start_ns, row->end_ns, duration,
                        row->bytes, 1.0);
}

static int visit_collective(void *context, const struct store_stats_collective *row)
{
    struct build *build = context;
    if (row->stream_id != STORE_NULL && !stream_selected(build, row->stream_id))
        return 0;
    int64_t duration = selected_ns(build, row->start_ns, row->end_ns);
    if (duration < 0)
        return 0;
    /* Grouped by op and rank count: the bus factor depends on both. */
    int64_t key[4] = {row->nranks, 0, 0, 0};
    struct group *group = group_of(&build->groups, key, row->op ? row->op : "?");
    if (group)
        group->nranks = row->nranks;
    return add_transfer(build, group, row->start_ns, row->end_ns, duration, row->bytes,
                        nccl_bus_factor(row->op, row->nranks, NULL));
}

/* --- tables --- */

static void set_integer(struct stats_cell *cell, int64_t value)
{
    cell->kind = STATS_INTEGER;
    cell->integer = value;
}

static void set_real(struct stats_cell *cell, double value)
{
    cell->kind = STATS_REAL;
    cell->real = value;
}

static int set_text(struct stats_cell *cell, const char *text)
{
    cell->kind = STATS_STRING;
    cell->text = strdup(text ? text : "");
    return cell->text ? 0 : -1;
}

/* A new table of report for the current device (device: 1) or its process, with room for
 * row_count rows. NULL when out of memory. */
static struct stats_table *new_table(struct build *build, enum stats_report report, int per_device,
                                     const struct stats_column *columns, size_t column_count,
                                     size_t row_count)
{
    struct stats_result *out = build->out;
    struct stats_table *grown = realloc(out->tables, (out->table_count + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    out->tables = grown;
    struct stats_table *table = &out->tables[out->table_count];
    memset(table, 0, sizeof *table);
    const struct analysis_device *device = build->device;
    table->report = report;
    table->process_id = device->process_id;
    table->pid = device->pid;
    table->rank = device->rank;
    table->device_id = per_device ? device->device_id : -1;
    if (per_device)
        snprintf(table->device_name, sizeof table->device_name, "%s", device->device_name);
    table->columns = columns;
    table->column_count = column_count;
    if (row_count && !(table->cells = calloc(row_count * column_count, sizeof *table->cells)))
        return NULL;
    out->table_count++;
    return table;
}

static void fill_times(struct stats_cell *row, struct group *group, int64_t whole_ns)
{
    set_real(&row[T_SHARE], whole_ns > 0 ? 100.0 * (double)group->total_ns / (double)whole_ns : 0.0);
    set_integer(&row[T_TOTAL], group->total_ns);
    set_integer(&row[T_COUNT], group->count);
    set_integer(&row[T_MEAN], group->count ? group->total_ns / group->count : 0);
    set_integer(&row[T_MEDIAN], group_median(group));
    set_integer(&row[T_MIN], group->min_ns);
    set_integer(&row[T_MAX], group->max_ns);
}

static const char *limiter_name(enum occupancy_limiter limiter)
{
    static const char *const names[] = {"blocks", "warps", "registers", "shared memory"};
    return limiter < OCCUPANCY_LIMIT_UNKNOWN ? names[limiter] : NULL;
}

static void format_shape(char *text, size_t size, int64_t x, int64_t y, int64_t z)
{
    if (x == STORE_NULL || x <= 0)
        snprintf(text, size, "?");
    else
        snprintf(text, size, "%" PRId64 "x%" PRId64 "x%" PRId64, x, y > 0 ? y : 1, z > 0 ? z : 1);
}

static int fill_kernel_row(struct build *build, struct stats_cell *row, struct group *group)
{
    const struct store_stats_kernel *k = &group->first;
    char grid[64], block[64];
    format_shape(grid, sizeof grid, k->grid_x, k->grid_y, k->grid_z);
    format_shape(block, sizeof block, k->block_x, k->block_y, k->block_z);
    char *full = kernel_names_full(build->names, k->name_id);
    int status = set_text(&row[K_NAME], kernel_names_short(build->names, k->name_id)) |
                 set_text(&row[K_KIND], group->communication ? "communication" : "compute") |
                 set_text(&row[K_GRID], group->shape_varies ? "varies" : grid) |
                 set_text(&row[K_BLOCK], group->shape_varies ? "varies" : block) |
                 (full ? set_text(&row[K_FULL], full) : -1);
    free(full);
    /* The analyzer's occupancy of the first launch (occupancy.h), where the device's limits and the
     * launch's resources are known. */
    struct occupancy_kernel launch = {
        .grid_blocks =
            k->grid_x > 0 ? k->grid_x * (k->grid_y > 0 ? k->grid_y : 1) * (k->grid_z > 0 ? k->grid_z : 1) : 0,
        .threads_per_block = k->block_x > 0 ? k->block_x * (k->block_y > 0 ? k->block_y : 1) *
                                                  (k->block_z > 0 ? k->block_z : 1)
                                            : 0,
        .registers_per_thread = k->registers_per_thread > 0 ? k->registers_per_thread : 0,
        .static_shared_bytes = k->static_shared_bytes > 0 ? k->static_shared_bytes : 0,
        .dynamic_shared_bytes = k->dynamic_shared_bytes > 0 ? k->dynamic_shared_bytes : 0,
        .shared_memory_per_sm_bytes =
            k->shared_memory_executed_bytes > 0 ? k->shared_memory_executed_bytes : 0};
    struct occupancy_result occupancy;
    if (build->device->limits_known && !group->shape_varies && launch.grid_blocks > 0 &&
        store_count_plausible(launch.grid_blocks, STORE_MAX_GRID_BLOCKS) &&
        store_count_plausible(launch.threads_per_block, STORE_MAX_THREADS) &&
        store_count_plausible(launch.registers_per_thread, STORE_MAX_THREADS) &&
        store_count_plausible(launch.static_shared_bytes, STORE_MAX_SHARED_MEMORY_BYTES) &&
        store_count_plausible(launch.dynamic_shared_bytes, STORE_MAX_SHARED_MEMORY_BYTES) &&
        store_count_plausible(launch.shared_memory_per_sm_bytes, STORE_MAX_SHARED_MEMORY_BYTES) &&
        occupancy_compute(&build->device->limits, &launch, &occupancy) == 0) {
        set_integer(&row[K_BLOCKS], occupancy.blocks_per_sm);
        const char *limiter = limiter_name(occupancy.limiter);
        if (limiter)
            status |= set_text(&row[K_LIMIT], limiter);
    }
    return status;
}

static int fill_named_row(struct build *build, enum stats_report report, struct stats_cell *row,
                          struct group *group)
{
    if (report == STATS_API)
        return set_text(&row[T_NAME], kernel_names_text(build->names, group->key[0]));
    if (report == STATS_NVTX) {
        const char *domain = group->key[1] > 0 ? kernel_names_text(build->names, group->key[1]) : NULL;
        return set_text(&row[T_NAME], kernel_names_text(build->names, group->key[0])) |
               set_text(&row[T_DETAIL], domain ? domain : "default");
    }
    return set_text(&row[T_NAME], store_sync_type_name(group->key[0]));
}

static double rate_gbps(double bytes, int64_t ns)
{
    return ns > 0 ? bytes / (double)ns : 0.0; /* bytes per ns = GB/s */
}

static int fill_transfer_row(enum stats_report report, struct stats_cell *row, struct group *group)
{
    int64_t mean = group->count ? group->total_ns / group->count : 0;
    if (report == STATS_COPIES) {
        char memory[64];
        snprintf(memory, sizeof memory, "%s -> %s", store_memory_kind_name(group->key[1]),
                 store_memory_kind_name(group->key[2]));
        int status = set_text(&row[C_DIRECTION], store_copy_kind_name(group->key[0])) |
                     set_text(&row[C_MEMORY], memory);
        set_integer(&row[C_COUNT], group->count);
        set_integer(&row[C_BYTES], group->bytes);
        set_integer(&row[C_TOTAL], group->total_ns);
        set_real(&row[C_BANDWIDTH], rate_gbps((double)group->bytes, group->rate_ns));
        set_integer(&row[C_MEAN], mean);
        set_integer(&row[C_MIN], group->min_ns);
        set_integer(&row[C_MAX], group->max_ns);
        return status;
    }
    if (report == STATS_MEMSETS) {
        int status = set_text(&row[M_MEMORY], store_memory_kind_name(group->key[0]));
        set_integer(&row[M_COUNT], group->count);
        set_integer(&row[M_BYTES], group->bytes);
        set_integer(&row[M_TOTAL], group->total_ns);
        set_real(&row[M_BANDWIDTH], rate_gbps((double)group->bytes, group->rate_ns));
        set_integer(&row[M_MEAN], mean);
        set_integer(&row[M_MIN], group->min_ns);
        set_integer(&row[M_MAX], group->max_ns);
        return status;
    }
    int status = set_text(&row[N_OP], group->label);
    set_integer(&row[N_COUNT], group->count);
    set_integer(&row[N_BYTES], group->bytes);
    set_integer(&row[N_TOTAL], group->total_ns);
    set_real(&row[N_ALGORITHM], rate_gbps((double)group->bytes, group->rate_ns));
    set_real(&row[N_BUS], rate_gbps(group->bus_bytes, group->rate_ns));
    set_integer(&row[N_MEAN], mean);
    if (group->nranks != STORE_NULL)
        set_integer(&row[N_RANKS], group->nranks);
    return status;
}

static const struct {
    const struct stats_column *columns;
    size_t count;
    int per_device;
} report_shapes[STATS_REPORT_COUNT] = {
    {kernel_columns, sizeof kernel_columns / sizeof kernel_columns[0], 1},
    {api_columns, sizeof api_columns / sizeof api_columns[0], 0},
    {nvtx_columns, sizeof nvtx_columns / sizeof nvtx_columns[0], 0},
    {copy_columns, sizeof copy_columns / sizeof copy_columns[0], 1},
    {memset_columns, sizeof memset_columns / sizeof memset_columns[0], 1},
    {sync_columns, sizeof sync_columns / sizeof sync_columns[0], 0},
    {nccl_columns, sizeof nccl_columns / sizeof nccl_columns[0], 1},
};

/* Turns the groups into a table of report, largest total first, and empties them. */
static int emit_table(struct build *build, enum stats_report report)
{
    struct groups *groups = &build->groups;
    if (groups->count > 1) /* qsort of no items may not be given NULL (C11 7.22.5) */
        qsort(groups->items, groups->count, sizeof *groups->items, compare_groups);
    struct stats_table *table =
        new_table(build, report, report_shapes[report].per_device, report_shapes[report].columns,
                  report_shapes[report].count, groups->count);
    if (!table)
        return out_of_memory(build);
    for (size_t i = 0; i < groups->count; i++) {
        table->total_ns += groups->items[i].total_ns;
        table->total_count += groups->items[i].count;
    }
    int status = 0;
    for (size_t i = 0; i < groups->count && status == 0; i++) {
        struct stats_cell *row = &table->cells[i * table->column_count];
        struct group *group = &groups->items[i];
        if (report == STATS_KERNELS || report == STATS_API || report == STATS_NVTX || report == STATS_SYNC)
            fill_times(row, group, table->total_ns);
        if (report == STATS_KERNELS)
            status = fill_kernel_row(build, row, group);
        else if (report == STATS_API || report == STATS_NVTX || report == STATS_SYNC)
            status = fill_named_row(build, report, row, group);
        else
            status = fill_transfer_row(report, row, group);
        table->row_count++;
    }
    groups_free(groups);
    return status == 0 ? 0 : out_of_memory(build);
}

static int walk_report(struct build *build, enum stats_report report)
{
    const struct analysis_device *device = build->device;
    struct store_stats_span span = {.process_id = device->process_id,
                                    .device_id = device->device_id,
                                    .from_ns = selection_first_ns(&build->selection),
                                    .to_ns = selection_last_ns(&build->selection)};
    int status;
    switch (report) {
    case STATS_KERNELS:
        status = store_stats_each_kernel(build->trace, &span, visit_kernel, build, build->err);
        break;
    case STATS_API:
        status = store_stats_each_api_call(build->trace, &span, visit_api_call, build, build->err);
        break;
    case STATS_NVTX:
        status = store_stats_each_nvtx_range(build->trace, &span, visit_nvtx, build, build->err);
        break;
    case STATS_COPIES:
        status = store_stats_each_memcpy(build->trace, &span, visit_memcpy, build, build->err);
        break;
    case STATS_MEMSETS:
        status = store_stats_each_memset(build->trace, &span, visit_memset, build, build->err);
        break;
    case STATS_SYNC:
        status =
            store_stats_each_synchronization(build->trace, &span, visit_synchronization, build, build->err);
        break;
    default:
        status = store_stats_each_collective(build->trace, &span, visit_collective, build, build->err);
        break;
    }
    if (status != 0) {
        groups_free(&build->groups);
        return -1;
    }
    return emit_table(build, report);
}

/* The reports of one device (and, for the first device of its process, the process's). */
static int build_device(struct build *build, size_t index, unsigned reports)
{
    const struct analysis_result *result = build->result;
    build->device = &result->devices[index];
    int first_of_process = index == 0 || result->devices[index - 1].process_id != build->device->process_id;
    if (first_of_process) {
        if (build->selection_ready)
            selection_free(&build->selection);
        size_t ranges = 0;
        build->selection_ready = 1;
        if (analysis_select_process(build->trace, result, build->options, build->device->process_id,
                                    &build->selection, &ranges, build->err) != 0)
            return -1;
    }
    for (int report = 0; report < STATS_REPORT_COUNT; report++) {
        if (!(reports & (1u << report)) || (!report_shapes[report].per_device && !first_of_process))
            continue;
        if (walk_report(build, (enum stats_report)report) != 0)
            return -1;
    }
    return 0;
}

int stats_build(store *trace, const struct analysis_result *result, const struct analysis_options *options,
                unsigned reports, struct stats_result *out, error_info *err)
{
    memset(out, 0, sizeof *out);
    out->time_restricted = result->selection.time_restricted;
    struct analysis_options all;
    if (!options) {
        analysis_options_init(&all);
        options = &all;
    }
    struct build build = {.trace = trace, .result = result, .options = options, .out = out, .err = err};
    build.names = kernel_names_new(store_db(trace), err);
    if (!build.names)
        return -1;
    int status = 0;
    for (size_t i = 0; status == 0 && i < result->device_count; i++)
        status = build_device(&build, i, reports);
    if (build.selection_ready)
        selection_free(&build.selection);
    kernel_names_free(build.names);
    if (status == 0)
        status = store_work_exceeded(trace, err);
    return status;
}

void stats_free(struct stats_result *stats)
{
    for (size_t t = 0; t < stats->table_count; t++) {
        struct stats_table *table = &stats->tables[t];
        for (size_t i = 0; i < table->row_count * table->column_count; i++)
            free(table->cells[i].text);
        free(table->cells);
    }
    free(stats->tables);
    memset(stats, 0, sizeof *stats);
}
