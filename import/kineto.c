/* kineto.c: PyTorch profiler (Kineto) Chrome traces into the store (see kineto.h).
 *
 * Field names follow Kineto's writer (libkineto/src/output_json.cpp): GPU activity carries its
 * device, stream, context and correlation in args; host API calls carry cbid and correlation;
 * cuda_sync events carry cuda_sync_kind, wait_on_stream and wait_on_cuda_event_*. Owns: the
 * per-file import state (stream list, unknown-category tally), freed before returning. */
#include "kineto.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call_sources.h"
#include "gpu_vendor.h"
#include "naming.h"
#include "nccl_kernel_name.h"
#include "nccl_names.h"
#include "python_source.h"
#include "stream_set.h"

#define MAX_UNKNOWN_NAMES 8
#define SEEN_EVENT_SLOTS 4096 /* power of two: cuda_events already written, (event, record) pairs */

struct unknown_category {
    char name[48];
    uint64_t count;
};

/* A duration event's 'B' half, kept (a deep copy: the parser reuses its tree) until the 'E' on
 * the same pid and tid closes it; the pair is then imported as one complete event. */
struct open_range {
    struct json_value *begin;
    char *pid, *tid;
    int64_t start_ns; /* 'ts', scaled, without the base time */
    size_t bytes;     /* what the copy takes */
};
/* Open ranges kept at once, and the bytes their copies may take: beyond them a 'B' is dropped
 * (counted with the odd fields), so memory does not grow with a file's unclosed ranges. */
#define MAX_OPEN_RANGES 1024
#define MAX_OPEN_RANGE_BYTES (16u << 20)

struct kineto_state {
    store *s;
    const char *name;
    int64_t process_id;
    int64_t host_pid;         /* pid of the host-side events; STORE_NULL until seen */
    int64_t rank, world_size; /* distributedInfo */
    int64_t base_ns;          /* baseTimeNanoseconds */
    int64_t applied_base_ns;  /* what the rows written so far include */
    uint64_t events_seen;
    int64_t trace_start_ns, trace_end_ns;
    struct stream_set streams;
    struct unknown_category unknown[MAX_UNKNOWN_NAMES];
    uint64_t unknown_total, unknown_other;
    uint64_t odd_fields; /* optional fields of an unexpected type, ignored */
    uint64_t gpu_events;
    uint64_t sync_events;          /* cuda_sync: only with the profiler's enable_cuda_sync_events */
    uint64_t other_vendor_devices; /* deviceProperties not of NVIDIA GPUs (ROCm) */
    uint64_t mtia_events;          /* mtia_runtime, mtia_ccp_events...: Meta's accelerator */
    uint64_t seen_events[SEEN_EVENT_SLOTS];
    const struct kineto_progress *progress;
    store_frames *frames;           /* Python frames and CPU operators: where each API call was made */
    struct open_range *open_ranges; /* 'B' events waiting for their 'E' */
    size_t open_count, open_capacity, open_bytes;
};

/* --- small readers --- */

static int fail_event(struct kineto_state *state, uint64_t index, const char *category, const char *problem,
                      error_info *err)
{
    return error_set(err, "%s: traceEvents[%llu] (%s): %s", state->name, (unsigned long long)index,
                     category ? category : "?", problem);
}

/* An integer read from a number (rounded) or a string holding a decimal number (AMD traces write
 * some sizes as strings): 1 with *out set; 0 when absent or null; -1 when of another type, text
 * that is no number, or beyond int64 (INT64_MIN included: it is STORE_NULL). */
static int read_int(const struct json_value *value, int64_t *out)
{
    if (!value || value->type == JSON_NULL)
        return 0;
    if ((value->type == JSON_NUMBER || value->type == JSON_STRING) &&
        json_decimal_scaled(value->text, value->length, 0, out) == 0 && *out != STORE_NULL)
        return 1;
    return -1;
}

/* An optional integer field; STORE_NULL when absent, null or unreadable, the last counted among
 * the odd fields (the import-skipped warning), so that a hostile value is never read as unknown
 * silently: an args.device of "abc" would otherwise fall back to the pid's device unsaid. */
static int64_t optional_int(struct kineto_state *state, const struct json_value *object, const char *key)
{
    int64_t result;
    int status = read_int(json_get(object, key), &result);
    if (status < 0)
        state->odd_fields++;
    return status > 0 ? result : STORE_NULL;
}

/* pid or tid as a number: Kineto writes names there too ("Spans", "PyTorch Profiler", "stream 7"),
 * so text that is no number is unknown without being odd. */
static int64_t optional_label_int(struct kineto_state *state, const struct json_value *event, const char *key)
{
    const struct json_value *value = json_get(event, key);
    int64_t result;
    int status = read_int(value, &result);
    if (status < 0 && value->type != JSON_STRING)
        state->odd_fields++;
    return status > 0 ? result : STORE_NULL;
}

/* Kineto marks "none" with -1 (stream -1 of a host-side sync, event id -1). */
static int64_t optional_id(struct kineto_state *state, const struct json_value *object, const char *key)
{
    int64_t value = optional_int(state, object, key);
    return value < 0 ? STORE_NULL : value;
}

/* An activity's args; when it is no object (text, an array), none of its fields can be read,
 * which is counted like an unreadable field rather than read silently as all absent. */
static const struct json_value *event_args(struct kineto_state *state, const struct json_value *event)
{
    const struct json_value *args = json_get(event, "args");
    if (args && args->type != JSON_OBJECT && args->type != JSON_NULL)
        state->odd_fields++;
    return args;
}

/* Element i of a [x, y, z] array. */
static int64_t triple_element(struct kineto_state *state, const struct json_value *args, const char *key,
                              int i)
{
    const struct json_value *array = json_get(args, key);
    if (!array)
        return STORE_NULL;
    if (array->type != JSON_ARRAY) {
        state->odd_fields++;
        return STORE_NULL;
    }
    const struct json_value *element = array->first;
    for (int k = 0; k < i && element; k++)
        element = element->next;
    int64_t value;
    if (element && json_number_scaled(element, 0, &value) == 0)
        return value;
    state->odd_fields += element != NULL; /* [[8], 16, 5]: a dimension that is no number */
    return STORE_NULL;
}

/* Start and end in ns from ts and dur (microsecond decimals). Required for every activity. */
static int read_span(struct kineto_state *state, const struct json_value *event, uint64_t index,
                     const char *category, int64_t *start_ns, int64_t *end_ns, error_info *err)
{
    const struct json_value *ts = json_get(event, "ts");
    const struct json_value *dur = json_get(event, "dur");
    int64_t start, duration = 0;
    if (!ts)
        return fail_event(state, index, category, "missing 'ts'", err);
    if (json_number_scaled(ts, 3, &start) != 0)
        return fail_event(state, index, category, "'ts' is not a number in range", err);
    if (dur && json_number_scaled(dur, 3, &duration) != 0)
        return fail_event(state, index, category, "'dur' is not a number in range", err);
    if (!dur) {
        const char *phase = json_string(json_get(event, "ph"));
        if (!phase || strcmp(phase, "X") == 0)
            return fail_event(state, index, category, "complete event without 'dur'", err);
    }
    if (duration < 0) {
        state->odd_fields++;
        duration = 0;
    }
    if (__builtin_add_overflow(start, state->applied_base_ns, start_ns) ||
        __builtin_add_overflow(*start_ns, duration, end_ns) || !store_interval_plausible(*start_ns, *end_ns))
        return fail_event(state, index, category, "timestamp out of range", err);
    return 0;
}

static const char *required_name(const struct json_value *event)
{
    return json_string(json_get(event, "name"));
}

/* The stream a GPU row's tid names: a number, or PyTorch 1.x's "stream 7" ("stream 7 user" for
 * its GPU annotations). STORE_NULL when neither. */
static int64_t stream_of_tid(struct kineto_state *state, const struct json_value *event)
{
    const char *tid = json_string(json_get(event, "tid"));
    if (tid && strncmp(tid, "stream ", 7) == 0 && isdigit((unsigned char)tid[7])) {
        size_t digits = strspn(tid + 7, "0123456789");
        int64_t stream;
        if ((tid[7 + digits] == '\0' || tid[7 + digits] == ' ') &&
            json_decimal_scaled(tid + 7, digits, 0, &stream) == 0)
            return stream;
        state->odd_fields++; /* "stream 99999999999999999999" is no stream; strtoll made it INT64_MAX */
        return STORE_NULL;
    }
    return optional_label_int(state, event, "tid");
}

/* The GPU an activity ran on: args.device, else the event's pid (Kineto puts GPU N at pid N). */
static int gpu_place(struct kineto_state *state, const struct json_value *event,
                     const struct json_value *args, int64_t *device_id, int64_t *stream_id)
{
    *device_id = optional_int(state, args, "device");
    if (*device_id == STORE_NULL)
        *device_id = optional_label_int(state, event, "pid");
    *stream_id = optional_int(state, args, "stream");
    if (*stream_id == STORE_NULL)
        *stream_id = stream_of_tid(state, event);
    return *device_id == STORE_NULL || *stream_id == STORE_NULL ? -1 : 0;
}

/* --- collectives --- */

/* Position of rank in a "[0, 1, 2]" list (Kineto writes "Process Group Ranks" as text). */
static int64_t rank_in_group(const struct json_value *ranks, int64_t rank)
{
    if (rank == STORE_NULL || !ranks)
        return STORE_NULL;
    if (ranks->type == JSON_ARRAY) {
        int64_t position = 0, value;
        for (const struct json_value *element = ranks->first; element; element = element->next, position++)
            if (json_number_scaled(element, 0, &value) == 0 && value == rank)
                return position;
        return STORE_NULL;
    }
    if (ranks->type != JSON_STRING)
        return STORE_NULL;
    int64_t position = 0;
    for (const char *p = ranks->text; *p;) {
        while (*p && (*p < '0' || *p > '9'))
            p++;
        if (!*p)
            break;
        char *end;
        long long value = strtoll(p, &end, 10);
        if (value == rank)
            return position;
        position++;
        p = end;
    }
    return STORE_NULL;
}

static int insert_collective(struct kineto_state *state, const struct store_kernel *kernel,
                             int64_t kernel_rowid, const struct json_value *args,
                             const struct nccl_kernel_info *from_name, error_info *err)
{
    const char *collective_name = json_string(json_get(args, "Collective name"));
    int64_t element_bytes = 0;
    const char *dtype = nccl_names_dtype(json_string(json_get(args, "dtype")), &element_bytes);
    if (!dtype)
        dtype = nccl_names_dtype(from_name->dtype, &element_bytes);
    int64_t elements = optional_int(state, args, "In msg nelems");
    if (elements != STORE_NULL && !store_count_plausible(elements, STORE_MAX_BYTES)) {
        state->odd_fields++; /* -5 elements made -20 bytes, which info printed as a size */
        elements = STORE_NULL;
    }
    const char *op = collective_name ? nccl_names_op_from_collective(collective_name) : "Unknown";
    struct store_collective row = {.process_id = state->process_id,
                                   .device_id = kernel->device_id,
                                   .stream_id = kernel->stream_id,
                                   .op = strcmp(op, "Unknown") == 0 && from_name->op ? from_name->op : op,
                                   .element_count = elements,
                                   .dtype = dtype,
                                   .root = STORE_NULL,
                                   .algorithm = from_name->algorithm,
                                   .protocol = from_name->protocol,
                                   .communicator = json_string(json_get(args, "Process Group Name")),
                                   .rank = rank_in_group(json_get(args, "Process Group Ranks"), state->rank),
                                   .nranks = optional_int(state, args, "Group size"),
                                   .sequence_number = optional_int(state, args, "Seq"),
                                   .kernel_rowid = kernel_rowid,
                                   .start_ns = kernel->start_ns,
                                   .end_ns = kernel->end_ns,
                                   .detail_source =
                                       collective_name ? STORE_DETAIL_KINETO : STORE_DETAIL_KERNEL_NAME};
    /* A message beyond what one copy may move (STORE_MAX_BYTES) is no message: two of 2^62 bytes
     * overflowed the per-op sum info prints, which then printed no sizes at all. */
    if (elements == STORE_NULL || element_bytes == 0 ||
        __builtin_mul_overflow(elements, element_bytes, &row.bytes) ||
        !store_count_plausible(row.bytes, STORE_MAX_BYTES)) {
        state->odd_fields += elements != STORE_NULL && element_bytes != 0;
        row.bytes = STORE_NULL;
    }
    if (row.nranks != STORE_NULL && row.nranks < 1) {
        state->odd_fields++; /* the report's evidence printed "over -5 ranks" */
        row.nranks = STORE_NULL;
    }
    if (row.rank == STORE_NULL && row.nranks != STORE_NULL && row.nranks == state->world_size)
        row.rank = state->rank; /* the default group: every rank, in order */
    return store_insert_collective(state->s, &row, err);
}

/* --- one handler per category --- */

static int import_kernel(struct kineto_state *state, const struct json_value *event, uint64_t index,
                         error_info *err)
{
    const struct json_value *args = event_args(state, event);
    struct store_kernel row = {.process_id = state->process_id,
                               .queued_ns = STORE_NULL,
                               .submitted_ns = STORE_NULL,
                               .cluster_x = STORE_NULL,
                               .cluster_y = STORE_NULL,
                               .cluster_z = STORE_NULL,
                               .local_memory_per_thread_bytes = STORE_NULL,
                               .local_memory_total_bytes = STORE_NULL,
                               .shared_memory_executed_bytes = STORE_NULL,
                               .shared_memory_config = STORE_NULL,
                               .launch_type = STORE_NULL,
                               .is_device_launched = STORE_NULL,
                               .graph_id = STORE_NULL,
                               .graph_node_id = STORE_NULL,
                               .channel_id = STORE_NULL,
                               .channel_type = STORE_NULL,
                               .priority = STORE_NULL};
    row.name = required_name(event);
    if (!row.name)
        return fail_event(state, index, "kernel", "missing 'name'", err);
    if (read_span(state, event, index, "kernel", &row.start_ns, &row.end_ns, err) != 0)
        return -1;
    if (gpu_place(state, event, args, &row.device_id, &row.stream_id) != 0)
        return fail_event(state, index, "kernel", "no device or stream (args.device/args.stream or pid/tid)",
                          err);
    row.context_id = optional_int(state, args, "context");
    row.correlation_id = optional_int(state, args, "correlation");
    row.grid_x = triple_element(state, args, "grid", 0);
    row.grid_y = triple_element(state, args, "grid", 1);
    row.grid_z = triple_element(state, args, "grid", 2);
    row.block_x = triple_element(state, args, "block", 0);
    row.block_y = triple_element(state, args, "block", 1);
    row.block_z = triple_element(state, args, "block", 2);
    row.registers_per_thread = optional_int(state, args, "registers per thread");
    /* Kineto's "shared memory" is static + dynamic shared memory per block as one figure
     * (libkineto/src/output_json.cpp); it goes to static_shared_bytes so the sum stays right. */
    row.static_shared_bytes = optional_int(state, args, "shared memory");
    row.dynamic_shared_bytes = row.static_shared_bytes == STORE_NULL ? STORE_NULL : 0;
    int64_t rowid = 0;
    if (store_insert_kernel(state->s, &row, &rowid, err) != 0)
        return -1;
    struct nccl_kernel_info from_name;
    int is_collective = nccl_kernel_name_parse(row.name, &from_name) || json_get(args, "Collective name");
    if (stream_set_note(&state->streams, state->process_id, row.device_id, row.context_id, row.stream_id,
                        is_collective ? ANALYSIS_COMMUNICATION : ANALYSIS_COMPUTE, row.start_ns,
                        row.end_ns) != 0)
        return error_set(err, "%s: out of memory", state->name);
    return is_collective ? insert_collective(state, &row, rowid, args, &from_name, err) : 0;
}

/* "Pageable", "Pinned", "Device", "Array", "Managed" as Kineto's memcpy/memset names spell
 * CUpti_ActivityMemoryKind (libkineto/src/cupti_strings.cpp); PyTorch 1.x's Kineto wrote
 * "Pagable". */
static int64_t memory_kind_from_word(const char *word, size_t length)
{
    if (length == 7 && strncmp(word, "Pagable", 7) == 0)
        return STORE_MEMORY_PAGEABLE;
    static const char *const words[] = {"Unknown", "Pageable", "Pinned",        "Device",
                                        "Array",   "Managed",  "Device Static", "Managed Static"};
    for (int64_t kind = (int64_t)(sizeof words / sizeof words[0]) - 1; kind >= 0; kind--)
        if (strlen(words[kind]) == length && strncmp(word, words[kind], length) == 0)
            return kind;
    return STORE_MEMORY_UNKNOWN;
}

static int64_t copy_kind_from_text(const char *text)
{
    static const char *const kinds[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                        "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
    if (!text)
        return STORE_COPY_UNKNOWN;
    for (int64_t kind = 1; kind < (int64_t)(sizeof kinds / sizeof kinds[0]); kind++)
        if (strstr(text, kinds[kind]))
            return kind;
    return STORE_COPY_UNKNOWN;
}

/* "Memcpy DtoH (Device -> Pageable)": the memory kinds inside the parentheses. */
static void copy_memory_kinds(const char *name, int64_t *source_kind, int64_t *destination_kind)
{
    *source_kind = *destination_kind = STORE_NULL;
    const char *open = strchr(name, '(');
    const char *arrow = open ? strstr(open, " -> ") : NULL;
    const char *close = arrow ? strchr(arrow, ')') : NULL;
    if (!close)
        return;
    *source_kind = memory_kind_from_word(open + 1, (size_t)(arrow - open - 1));
    *destination_kind = memory_kind_from_word(arrow + 4, (size_t)(close - arrow - 4));
}

static int import_memcpy(struct kineto_state *state, const struct json_value *event, uint64_t index,
                         error_info *err)
{
    const struct json_value *args = event_args(state, event);
    /* A peer copy (CUpti_ActivityMemcpy2) names its two devices. */
    struct store_memcpy row = {.process_id = state->process_id,
                               .src_device_id = optional_int(state, args, "fromDevice"),
                               .dst_device_id = optional_int(state, args, "toDevice"),
                               .is_async = STORE_NULL,
                               .channel_id = STORE_NULL,
                               .channel_type = STORE_NULL,
                               .copy_count = 1,
                               .graph_id = STORE_NULL,
                               .graph_node_id = STORE_NULL};
    const char *name = required_name(event);
    if (!name)
        return fail_event(state, index, "gpu_memcpy", "missing 'name'", err);
    if (read_span(state, event, index, "gpu_memcpy", &row.start_ns, &row.end_ns, err) != 0)
        return -1;
    if (gpu_place(state, event, args, &row.device_id, &row.stream_id) != 0)
        return fail_event(state, index, "gpu_memcpy", "no device or stream", err);
    row.context_id = optional_int(state, args, "context");
    row.correlation_id = optional_int(state, args, "correlation");
    row.copy_kind = copy_kind_from_text(name);
    if (row.copy_kind == STORE_COPY_UNKNOWN)
        row.copy_kind = copy_kind_from_text(json_string(json_get(args, "kind")));
    copy_memory_kinds(name, &row.src_kind, &row.dst_kind);
    row.bytes = optional_int(state, args, "bytes");
    if (row.bytes == STORE_NULL) {
        row.bytes = 0; /* the column is NOT NULL; counted so the warning says how many */
        state->odd_fields++;
    }
    if (stream_set_note(&state->streams, state->process_id, row.device_id, row.context_id, row.stream_id,
                        naming_copy_category(row.copy_kind, row.src_device_id, row.dst_device_id),
                        row.start_ns, row.end_ns) != 0)
        return error_set(err, "%s: out of memory", state->name);
    return store_insert_memcpy(state->s, &row, err);
}

static int import_memset(struct kineto_state *state, const struct json_value *event, uint64_t index,
                         error_info *err)
{
    const struct json_value *args = event_args(state, event);
    struct store_memset row = {.process_id = state->process_id,
                               .value = STORE_NULL,
                               .is_async = STORE_NULL,
                               .channel_id = STORE_NULL,
                               .channel_type = STORE_NULL,
                               .graph_id = STORE_NULL,
                               .graph_node_id = STORE_NULL,
                               .memory_kind = STORE_NULL};
    const char *name = required_name(event);
    if (!name)
        return fail_event(state, index, "gpu_memset", "missing 'name'", err);
    if (read_span(state, event, index, "gpu_memset", &row.start_ns, &row.end_ns, err) != 0)
        return -1;
    if (gpu_place(state, event, args, &row.device_id, &row.stream_id) != 0)
        return fail_event(state, index, "gpu_memset", "no device or stream", err);
    row.context_id = optional_int(state, args, "context");
    row.correlation_id = optional_int(state, args, "correlation");
    const char *open = strchr(name, '('), *close = open ? strchr(open, ')') : NULL;
    if (close)
        row.memory_kind = memory_kind_from_word(open + 1, (size_t)(close - open - 1));
    row.bytes = optional_int(state, args, "bytes");
    if (row.bytes == STORE_NULL) {
        row.bytes = 0;
        state->odd_fields++;
    }
    if (stream_set_note(&state->streams, state->process_id, row.device_id, row.context_id, row.stream_id,
                        ANALYSIS_MEMSET, row.start_ns, row.end_ns) != 0)
        return error_set(err, "%s: out of memory", state->name);
    return store_insert_memset(state->s, &row, err);
}

static int64_t thread_of(struct kineto_state *state, const struct json_value *event)
{
    int64_t thread = optional_label_int(state, event, "tid");
    return thread == STORE_NULL ? 0 : thread;
}

static int import_api_call(struct kineto_state *state, const struct json_value *event, uint64_t index,
                           int64_t api_domain, const char *category, error_info *err)
{
    const struct json_value *args = event_args(state, event);
    struct store_api_call row = {
        .process_id = state->process_id, .api_domain = api_domain, .return_value = STORE_NULL};
    row.name = required_name(event);
    if (!row.name)
        return fail_event(state, index, category, "missing 'name'", err);
    if (read_span(state, event, index, category, &row.start_ns, &row.end_ns, err) != 0)
        return -1;
    row.thread_id = thread_of(state, event);
    row.callback_id = optional_int(state, args, "cbid");
    row.correlation_id = optional_int(state, args, "correlation");
    return store_insert_api_call(state->s, &row, err);
}

static int64_t sync_type_from_text(const char *kind)
{
    static const struct {
        const char *text;
        int64_t type;
    } kinds[] = {{"Event Sync", STORE_SYNC_EVENT_SYNCHRONIZE},
                 {"Stream Wait Event", STORE_SYNC_STREAM_WAIT_EVENT},
                 {"Stream Sync", STORE_SYNC_STREAM_SYNCHRONIZE},
                 {"Context Sync", STORE_SYNC_CONTEXT_SYNCHRONIZE}};
    for (size_t i = 0; kind && i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kind, kinds[i].text) == 0)
            return kinds[i].type;
    return STORE_SYNC_UNKNOWN;
}

/* Each (event, recording correlation) pair once: many syncs wait on one record. */
static int first_sighting(struct kineto_state *state, int64_t event_id, int64_t correlation_id)
{
    uint64_t key = (uint64_t)event_id * 0x9E3779B97F4A7C15u ^ (uint64_t)correlation_id;
    key |= 1; /* 0 marks an empty slot */
    for (size_t probe = 0; probe < SEEN_EVENT_SLOTS; probe++) {
        uint64_t *slot = &state->seen_events[(key + probe) & (SEEN_EVENT_SLOTS - 1)];
        if (*slot == key)
            return 0;
        if (*slot == 0) {
            *slot = key;
            return 1;
        }
    }
    return 1; /* table full: a duplicate row is harmless, a lost one is not */
}

static int import_sync(struct kineto_state *state, const struct json_value *event, uint64_t index,
                       error_info *err)
{
    const struct json_value *args = event_args(state, event);
    struct store_synchronization row = {.process_id = state->process_id};
    if (read_span(state, event, index, "cuda_sync", &row.start_ns, &row.end_ns, err) != 0)
        return -1;
    const char *kind = json_string(json_get(args, "cuda_sync_kind"));
    row.sync_type = sync_type_from_text(kind ? kind : required_name(event));
    row.context_id = optional_int(state, args, "context");
    row.stream_id = optional_id(state, args, "stream");
    row.event_id = optional_id(state, args, "wait_on_cuda_event_id");
    row.correlation_id = optional_int(state, args, "correlation");
    if (store_insert_synchronization(state->s, &row, err) != 0)
        return -1;
    /* Kineto names the cudaEventRecord a wait depends on: that is a cuda_events row. */
    int64_t record_correlation = optional_id(state, args, "wait_on_cuda_event_record_corr_id");
    if (row.event_id == STORE_NULL || record_correlation == STORE_NULL ||
        !first_sighting(state, row.event_id, record_correlation))
        return 0;
    struct store_cuda_event record = {.process_id = state->process_id,
                                      .device_id = optional_int(state, args, "device"),
                                      .context_id = row.context_id,
                                      .stream_id = optional_id(state, args, "wait_on_stream"),
                                      .event_id = row.event_id,
                                      .correlation_id = record_correlation,
                                      .record_ns = STORE_NULL};
    return store_insert_cuda_event(state->s, &record, err);
}

/* A user annotation (record_function), its GPU side, or the span between cudaProfilerStart and
 * cudaProfilerStop (cuda_profiler_range): an NVTX-like range of the host thread or the stream. */
static int import_annotation(struct kineto_state *state, const struct json_value *event, uint64_t index,
                             const char *category, error_info *err)
{
    int on_gpu = strcmp(category, "gpu_user_annotation") == 0;
    struct store_nvtx row = {.process_id = state->process_id,
                             .thread_id = STORE_NULL,
                             .device_id = STORE_NULL,
                             .stream_id = STORE_NULL,
                             .kind = STORE_NVTX_PUSH_POP,
                             .category = STORE_NULL,
                             .color = STORE_NULL,
                             .depth = STORE_NULL};
    row.message = required_name(event);
    if (!row.message)
        return fail_event(state, index, category, "missing 'name'", err);
    if (read_span(state, event, index, category, &row.start_ns, &row.end_ns, err) != 0)
        return -1;
    if (!json_get(event, "dur"))
        row.kind = STORE_NVTX_MARK;
    if (on_gpu) {
        if (gpu_place(state, event, event_args(state, event), &row.device_id, &row.stream_id) != 0)
            return fail_event(state, index, category, "no device or stream", err);
    } else {
        row.thread_id = thread_of(state, event);
    }
    return store_insert_nvtx(state->s, &row, err);
}

/* The profiler's own span ("PyTorch Profiler (0)"): when the process was being recorded. */
static int import_trace_span(struct kineto_state *state, const struct json_value *event, uint64_t index,
                             error_info *err)
{
    int64_t start, end;
    if (read_span(state, event, index, "Trace", &start, &end, err) != 0)
        return -1;
    if (state->trace_start_ns == STORE_NULL || start < state->trace_start_ns)
        state->trace_start_ns = start;
    if (state->trace_end_ns == STORE_NULL || end > state->trace_end_ns)
        state->trace_end_ns = end;
    return 0;
}

static void count_unknown(struct kineto_state *state, const char *category)
{
    state->unknown_total++;
    for (size_t i = 0; i < MAX_UNKNOWN_NAMES; i++) {
        struct unknown_category *entry = &state->unknown[i];
        if (entry->count == 0) {
            snprintf(entry->name, sizeof entry->name, "%s", category);
            entry->count = 1;
            return;
        }
        if (strncmp(entry->name, category, sizeof entry->name - 1) == 0) {
            entry->count++;
            return;
        }
    }
    state->unknown_other++;
}

/* A Python frame of the user's program, "train.py(17): step", as "train.py:17 step"; 0 for the
 * frames of Python itself and of installed packages (common/python_source.h). */
static int user_python_frame(const char *name, char *source, size_t size)
{
    if (python_source_is_library(name))
        return 0;
    const char *open = strchr(name, '(');
    const char *close = open ? strstr(open, "): ") : NULL;
    if (!open || !close || close == open + 1)
        return 0;
    for (const char *c = open + 1; c < close; c++)
        if (!isdigit((unsigned char)*c))
            return 0;
    snprintf(source, size, "%.*s:%.*s %s", (int)(open - name), name, (int)(close - open - 1), open + 1,
             close + 3);
    return 1;
}

/* Keeps a python_function or cpu_op / user_annotation range as a possible source of the API
 * calls it encloses (kineto.h: with_stack=True traces carry the Python frames). */
static int import_frame(struct kineto_state *state, const struct json_value *event, uint64_t index,
                        const char *category, error_info *err)
{
    const char *name = required_name(event);
    if (!name || !state->frames)
        return 0;
    char source[512];
    struct store_host_frame frame = {.kind = STORE_SOURCE_CPU_OP, .name = name};
    if (strcmp(category, "python_function") == 0) {
        if (!user_python_frame(name, source, sizeof source))
            return 0;
        frame.kind = STORE_SOURCE_PYTHON;
        frame.name = source;
    }
    if (read_span(state, event, index, category, &frame.start_ns, &frame.end_ns, err) != 0)
        return -1;
    frame.thread_id = thread_of(state, event);
    return store_frames_add(state->frames, &frame, err);
}

/* Categories whose events are host-side and name the profiled process in their pid. */
static int is_host_category(const char *category)
{
    return strcmp(category, "cuda_runtime") == 0 || strcmp(category, "cuda_driver") == 0 ||
           strcmp(category, "cpu_op") == 0 || strcmp(category, "user_annotation") == 0 ||
           strcmp(category, "python_function") == 0;
}

/* Known categories with no table in the store (CPU operators, Python frames, flow arrows). */
static int is_skipped_category(const char *category)
{
    static const char *const skipped[] = {"ac2g", "fwdbwd", "cpu_instant_event", "overhead", "async"};
    for (size_t i = 0; i < sizeof skipped / sizeof skipped[0]; i++)
        if (strcmp(category, skipped[i]) == 0)
            return 1;
    return 0;
}

/* PyTorch 1.x's Kineto (to about 1.9) wrote the same activities, with the same args, under other
 * categories (libkineto/src/output_json.cpp of that time): they are read as today's. Its "User"
 * rows are the GPU side of user annotations, on tid "stream N user". */
static const char *current_category(const char *category)
{
    static const struct {
        const char *old, *current;
    } renamed[] = {{"Kernel", "kernel"},        {"Memcpy", "gpu_memcpy"}, {"Memset", "gpu_memset"},
                   {"Runtime", "cuda_runtime"}, {"Operator", "cpu_op"},   {"User", "gpu_user_annotation"}};
    for (size_t i = 0; i < sizeof renamed / sizeof renamed[0]; i++)
        if (strcmp(category, renamed[i].old) == 0)
            return renamed[i].current;
    return category;
}

/* PyTorch 1.x recorded its profiler steps as CPU operators, not as user annotations: they are the
 * steps all the same (steps.h). */
static int is_profiler_step(const char *category, const struct json_value *event)
{
    const char *name = required_name(event);
    return strcmp(category, "cpu_op") == 0 && name && strncmp(name, "ProfilerStep#", 13) == 0;
}

static int import_event(struct kineto_state *state, uint64_t index, const struct json_value *event,
                        error_info *err)
{
    const struct json_value *category_value = json_get(event, "cat");
    const char *category = json_string(category_value);
    if (!category) {
        const char *phase = json_string(json_get(event, "ph"));
        if (category_value || (phase && strcmp(phase, "X") == 0))
            count_unknown(state, category_value ? "(category not a string)" : "(no category)");
        return 0; /* metadata (M), instant markers and flow ends carry no category */
    }
    category = current_category(category);
    if (state->host_pid == STORE_NULL && is_host_category(category))
        state->host_pid = optional_label_int(state, event, "pid");
    if (strcmp(category, "kernel") == 0) {
        state->gpu_events++;
        return import_kernel(state, event, index, err);
    }
    if (strcmp(category, "gpu_memcpy") == 0) {
        state->gpu_events++;
        return import_memcpy(state, event, index, err);
    }
    if (strcmp(category, "gpu_memset") == 0) {
        state->gpu_events++;
        return import_memset(state, event, index, err);
    }
    if (strcmp(category, "cuda_runtime") == 0)
        return import_api_call(state, event, index, STORE_API_RUNTIME, category, err);
    if (strcmp(category, "cuda_driver") == 0)
        return import_api_call(state, event, index, STORE_API_DRIVER, category, err);
    if (strcmp(category, "cuda_sync") == 0) {
        state->sync_events++;
        return import_sync(state, event, index, err);
    }
    if (strcmp(category, "user_annotation") == 0 || is_profiler_step(category, event))
        return import_frame(state, event, index, category, err) != 0
                   ? -1
                   : import_annotation(state, event, index, "user_annotation", err);
    if (strcmp(category, "python_function") == 0 || strcmp(category, "cpu_op") == 0)
        return import_frame(state, event, index, category, err);
    if (strcmp(category, "gpu_user_annotation") == 0 || strcmp(category, "cuda_profiler_range") == 0)
        return import_annotation(state, event, index, category, err);
    if (strncmp(category, "mtia", 4) == 0 || strncmp(category, "MTIA", 4) == 0) {
        state->mtia_events++;
        return 0;
    }
    if (strcmp(category, "Trace") == 0)
        return import_trace_span(state, event, index, err);
    if (!is_skipped_category(category))
        count_unknown(state, category);
    return 0;
}

/* --- duration events ('B' ... 'E') --- */

static void free_value(struct json_value *value)
{
    while (value) {
        struct json_value *next = value->next;
        free_value(value->first);
        free((void *)value->key);
        free((void *)value->text);
        free(value);
        value = next;
    }
}

static char *copy_text(const char *text, size_t length)
{
    char *copy = malloc(length + 1);
    if (copy) {
        memcpy(copy, text, length);
        copy[length] = '\0';
    }
    return copy;
}

/* A deep copy of value (its siblings excepted); *bytes grows by what it takes. NULL when out of memory. */
static struct json_value *copy_value(const struct json_value *value, size_t *bytes)
{
    struct json_value *copy = calloc(1, sizeof *copy);
    if (!copy)
        return NULL;
    *copy = (struct json_value){.type = value->type, .length = value->length, .count = value->count};
    *bytes += sizeof *copy + value->length + 1 + (value->key ? strlen(value->key) + 1 : 0);
    int ok = (!value->key || (copy->key = copy_text(value->key, strlen(value->key)))) &&
             (!value->text || (copy->text = copy_text(value->text, value->length)));
    struct json_value **tail = &copy->first;
    for (const struct json_value *child = value->first; ok && child; child = child->next) {
        *tail = copy_value(child, bytes);
        ok = *tail != NULL;
        if (ok)
            tail = &(*tail)->next;
    }
    if (!ok) {
        free_value(copy);
        return NULL;
    }
    return copy;
}

/* pid or tid as written (a number or a string), to match a 'B' with its 'E'. */
static char *identity(const struct json_value *event, const char *key)
{
    const struct json_value *value = json_get(event, key);
    return value && value->text ? copy_text(value->text, value->length) : copy_text("", 0);
}

static void free_open_range(struct open_range *range)
{
    free_value(range->begin);
    free(range->pid);
    free(range->tid);
}

static int open_range(struct kineto_state *state, uint64_t index, const struct json_value *event,
                      error_info *err)
{
    int64_t start_ns;
    if (json_number_scaled(json_get(event, "ts"), 3, &start_ns) != 0)
        return fail_event(state, index, json_string(json_get(event, "cat")), "'ts' is not a number in range",
                          err);
    if (state->open_count == MAX_OPEN_RANGES || state->open_bytes > MAX_OPEN_RANGE_BYTES) {
        state->odd_fields++;
        return 0;
    }
    if (state->open_count == state->open_capacity) {
        size_t capacity = state->open_capacity ? state->open_capacity * 2 : 16;
        struct open_range *grown = realloc(state->open_ranges, capacity * sizeof *grown);
        if (!grown)
            return error_set(err, "%s: out of memory", state->name);
        state->open_ranges = grown;
        state->open_capacity = capacity;
    }
    struct open_range range = {
        .pid = identity(event, "pid"), .tid = identity(event, "tid"), .start_ns = start_ns};
    range.begin = copy_value(event, &range.bytes);
    if (!range.begin || !range.pid || !range.tid) {
        free_open_range(&range);
        return error_set(err, "%s: out of memory", state->name);
    }
    state->open_bytes += range.bytes;
    state->open_ranges[state->open_count++] = range;
    return 0;
}

/* The 'E' closes the latest open 'B' of its pid and tid (Chrome's trace event format: they nest
 * per thread); that 'B' is imported with the duration between them. An 'E' with none is ignored. */
static int close_range(struct kineto_state *state, uint64_t index, const struct json_value *event,
                       error_info *err)
{
    char *pid = identity(event, "pid"), *tid = identity(event, "tid");
    size_t found = state->open_count;
    for (size_t i = state->open_count; pid && tid && i-- > 0;) {
        if (strcmp(state->open_ranges[i].pid, pid) == 0 && strcmp(state->open_ranges[i].tid, tid) == 0) {
            found = i;
            break;
        }
    }
    free(pid);
    free(tid);
    if (found == state->open_count)
        return 0;
    struct open_range range = state->open_ranges[found];
    memmove(&state->open_ranges[found], &state->open_ranges[found + 1],
            (state->open_count - found - 1) * sizeof range);
    state->open_count--;
    int64_t end_ns, duration_ns = 0;
    int status = 0;
    if (json_number_scaled(json_get(event, "ts"), 3, &end_ns) != 0)
        status = fail_event(state, index, json_string(json_get(range.begin, "cat")),
                            "'ts' is not a number in range", err);
    else if (__builtin_sub_overflow(end_ns, range.start_ns, &duration_ns) || duration_ns < 0) {
        duration_ns =
            0; /* an end before its begin: a point, counted as complete events with negative 'dur' */
        state->odd_fields++;
    }
    char text[48];
    struct json_value *dur = status == 0 ? calloc(1, sizeof *dur) : NULL;
    if (status == 0 && dur) {
        /* 'dur' in microseconds with three decimals, as the event's own 'ts' is read. */
        int length = snprintf(text, sizeof text, "%lld.%03lld", (long long)(duration_ns / 1000),
                              (long long)(duration_ns % 1000));
        *dur = (struct json_value){.type = JSON_NUMBER,
                                   .key = copy_text("dur", 3),
                                   .text = copy_text(text, (size_t)length),
                                   .length = (size_t)length,
                                   .next = range.begin->first};
        range.begin->first = dur;
        range.begin->count++;
        status = dur->key && dur->text ? import_event(state, index, range.begin, err)
                                       : error_set(err, "%s: out of memory", state->name);
    } else if (status == 0) {
        status = error_set(err, "%s: out of memory", state->name);
    }
    state->open_bytes -= range.bytes;
    free_open_range(&range);
    return status;
}

static int on_event(void *context, uint64_t index, const struct json_value *event, error_info *err)
{
    struct kineto_state *state = context;
    state->events_seen++;
    if (event->type != JSON_OBJECT && index == 0 && event->type == JSON_ARRAY)
        /* [[times], [[sizes]...]] or [[ts, action, bytes, category]...]: torch.profiler's
         * export_memory_timeline (.json, .json.gz, .raw.gz) */
        return error_set(
            err,
            "%s: a PyTorch memory timeline (export_memory_timeline), not a trace: not supported; "
            "overlapscope reads the profiler's trace (export_chrome_trace, tensorboard_trace_handler)",
            state->name);
    if (event->type != JSON_OBJECT)
        return fail_event(state, index, NULL, "an event is not a JSON object", err);
    const char *phase = json_string(json_get(event, "ph"));
    const char *category = json_string(json_get(event, "cat"));
    if (phase && strcmp(phase, "E") == 0)
        return close_range(state, index, event, err);
    if (phase && strcmp(phase, "B") == 0 && category)
        return open_range(state, index, event, err);
    return import_event(state, index, event, err);
}

/* --- top-level members --- */

/* Resident blocks per SM by compute capability: CUDA C++ Programming Guide, "Technical
 * Specifications per Compute Capability" (Kineto's deviceProperties does not carry it). */
static int64_t max_blocks_per_sm(int64_t major, int64_t minor)
{
    if (!store_count_plausible(major, STORE_MAX_COMPUTE_CAPABILITY) ||
        !store_count_plausible(minor, STORE_MAX_COMPUTE_CAPABILITY))
        return STORE_NULL; /* unknown, or no GPU's (the device is then refused as implausible) */
    int capability = (int)(major * 10 + minor);
    switch (capability) {
    case 50:
    case 52:
    case 53:
    case 60:
    case 61:
    case 62:
    case 70:
    case 72:
    case 80:
    case 90:
        return 32;
    case 75:
    case 86:
    case 87:
        return 16;
    case 89:
        return 24;
    default:
        return STORE_NULL;
    }
}

static int import_device(struct kineto_state *state, const struct json_value *properties, error_info *err)
{
    struct store_device row = {.process_id = state->process_id,
                               .uuid = NULL,
                               .pci_bus_id = STORE_NULL,
                               .global_memory_bandwidth_kbps = STORE_NULL,
                               .l2_cache_bytes = STORE_NULL,
                               .core_clock_khz = STORE_NULL,
                               .copy_engine_count = STORE_NULL};
    row.device_id = optional_int(state, properties, "id");
    if (row.device_id == STORE_NULL)
        return error_set(err, "%s: deviceProperties: a device without a numeric 'id'", state->name);
    row.name = json_string(json_get(properties, "name"));
    row.sm_count = optional_int(state, properties, "numSms");
    row.compute_capability_major = optional_int(state, properties, "computeMajor");
    row.compute_capability_minor = optional_int(state, properties, "computeMinor");
    row.max_threads_per_sm = optional_int(state, properties, "maxThreadsPerMultiprocessor");
    row.max_threads_per_block = optional_int(state, properties, "maxThreadsPerBlock");
    row.max_registers_per_block = optional_int(state, properties, "regsPerBlock");
    row.max_registers_per_sm = optional_int(state, properties, "regsPerMultiprocessor");
    row.warp_size = optional_int(state, properties, "warpSize");
    row.max_shared_memory_per_block = optional_int(state, properties, "sharedMemPerBlock");
    row.max_shared_memory_per_block_optin = optional_int(state, properties, "sharedMemPerBlockOptin");
    row.max_shared_memory_per_sm = optional_int(state, properties, "sharedMemPerMultiprocessor");
    if (row.max_shared_memory_per_sm == STORE_NULL) /* ROCm's spelling */
        row.max_shared_memory_per_sm = optional_int(state, properties, "maxSharedMemoryPerMultiProcessor");
    row.global_memory_bytes = optional_int(state, properties, "totalGlobalMem");
    row.max_warps_per_sm = row.max_threads_per_sm != STORE_NULL && row.warp_size > 0
                               ? row.max_threads_per_sm / row.warp_size
                               : STORE_NULL;
    int is_nvidia = gpu_vendor_is_nvidia(row.name);
    row.max_blocks_per_sm =
        is_nvidia ? max_blocks_per_sm(row.compute_capability_major, row.compute_capability_minor)
                  : STORE_NULL;
    if (store_insert_device(state->s, &row, err) != 0)
        return -1;
    if (!is_nvidia) {
        state->other_vendor_devices++;
        char message[256];
        snprintf(
            message, sizeof message,
            "device %lld is '%s', not an NVIDIA GPU: CUDA occupancy limits and CUPTI-only fields are unknown",
            (long long)row.device_id, row.name ? row.name : "unnamed");
        struct store_warning warning = {.process_id = state->process_id,
                                        .time_ns = STORE_NULL,
                                        .code = "import-other-vendor",
                                        .message = message};
        return store_insert_warning(state->s, &warning, err);
    }
    return 0;
}

static int on_member(void *context, const char *key, const struct json_value *value, error_info *err)
{
    struct kineto_state *state = context;
    /* torch.profiler.ExecutionTraceObserver writes {"schema": "1.0.1", "pid": ..., "nodes": [...]}:
     * the operators' graph, with no time on the GPU. */
    if ((strcmp(key, "schema") == 0 && value->type == JSON_STRING) || strcmp(key, "nodes") == 0)
        return error_set(err,
                         "%s: a PyTorch execution trace (ExecutionTraceObserver: 'schema', 'nodes'), not a"
                         " profiler trace: pass the torch.profiler trace of the same run instead"
                         " (export_chrome_trace or tensorboard_trace_handler, *.pt.trace.json[.gz])",
                         state->name);
    if (strcmp(key, "deviceProperties") == 0) {
        if (value->type != JSON_ARRAY)
            return error_set(err, "%s: deviceProperties is not an array", state->name);
        for (const struct json_value *device = value->first; device; device = device->next)
            if (device->type != JSON_OBJECT)
                state->odd_fields++; /* no device to read: said, not skipped silently */
            else if (import_device(state, device, err) != 0)
                return -1;
    } else if (strcmp(key, "distributedInfo") == 0) {
        if (value->type != JSON_OBJECT)
            return error_set(err, "%s: distributedInfo is not an object", state->name);
        state->rank = optional_int(state, value, "rank");
        state->world_size = optional_int(state, value, "world_size");
        /* A rank is a place in the job, 0 <= rank < world_size: info printed "rank -3/2" or "rank
         * 5/2" while report, which reads a negative rank as none, said "pid 100". */
        if (state->world_size != STORE_NULL && state->world_size < 1) {
            state->odd_fields++;
            state->world_size = STORE_NULL;
        }
        if (state->rank != STORE_NULL &&
            (state->rank < 0 || (state->world_size != STORE_NULL && state->rank >= state->world_size))) {
            state->odd_fields++;
            state->rank = STORE_NULL;
        }
    } else if (strcmp(key, "baseTimeNanoseconds") == 0) {
        if (json_number_scaled(value, 0, &state->base_ns) != 0 ||
            !store_interval_plausible(state->base_ns, state->base_ns))
            return error_set(err, "%s: baseTimeNanoseconds is not an integer in range", state->name);
        if (state->events_seen == 0)
            state->applied_base_ns = state->base_ns;
    } else if (strcmp(key, "traceEvents") == 0) {
        return error_set(err, "%s: traceEvents is not an array", state->name);
    }
    return 0;
}

static void on_progress(void *context, double fraction)
{
    struct kineto_state *state = context;
    if (state->progress && state->progress->report)
        state->progress->report(state->progress->context, fraction);
}

/* --- finishing --- */

/* baseTimeNanoseconds after traceEvents (Kineto writes it last): shift what was written. */
static int apply_late_base_time(struct kineto_state *state, error_info *err)
{
    int64_t delta = state->base_ns - state->applied_base_ns;
    if (delta == 0)
        return 0;
    if (store_shift_process_times(state->s, state->process_id, delta, err) != 0)
        return -1;
    if (state->trace_start_ns != STORE_NULL) {
        /* Both within +-2^61 ns: no overflow, but the sum may leave the clock (the process row is
         * the one the plausibility check does not read): then the span is unknown, counted. */
        state->trace_start_ns += delta;
        state->trace_end_ns += delta;
        if (!store_interval_plausible(state->trace_start_ns, state->trace_end_ns)) {
            state->odd_fields++;
            state->trace_start_ns = state->trace_end_ns = STORE_NULL;
        }
    }
    state->applied_base_ns = state->base_ns;
    return 0;
}

static int finish_process(struct kineto_state *state, error_info *err)
{
    struct store_process row = store_process_unknown();
    row.pid = state->host_pid == STORE_NULL ? 0 : state->host_pid;
    row.rank = state->rank;
    row.world_size = state->world_size;
    row.start_ns = state->trace_start_ns;
    row.end_ns = state->trace_end_ns;
    return store_update_process(state->s, state->process_id, &row, STORE_UPDATE_SET, err);
}

static int warn(struct kineto_state *state, const char *code, const char *message, error_info *err)
{
    struct store_warning warning = {
        .process_id = state->process_id, .time_ns = STORE_NULL, .code = code, .message = message};
    return store_insert_warning(state->s, &warning, err);
}

static int insert_warnings(struct kineto_state *state, error_info *err)
{
    char message[1024];
    if (state->unknown_total > 0) {
        int length =
            snprintf(message, sizeof message, "%s: skipped %llu event%s of unknown categories:", state->name,
                     (unsigned long long)state->unknown_total, state->unknown_total == 1 ? "" : "s");
        for (size_t i = 0; i < MAX_UNKNOWN_NAMES && state->unknown[i].count && length < (int)sizeof message;
             i++)
            length +=
                snprintf(message + length, sizeof message - (size_t)length, "%s %s (%llu)", i ? "," : "",
                         state->unknown[i].name, (unsigned long long)state->unknown[i].count);
        if (state->unknown_other && length < (int)sizeof message)
            snprintf(message + length, sizeof message - (size_t)length, ", others (%llu)",
                     (unsigned long long)state->unknown_other);
        if (warn(state, "import-unknown-category", message, err) != 0)
            return -1;
    }
    if (state->odd_fields > 0) {
        snprintf(message, sizeof message,
                 "%s: %llu optional field%s missing or of an unexpected type, left unknown", state->name,
                 (unsigned long long)state->odd_fields, state->odd_fields == 1 ? "" : "s");
        if (warn(state, "import-skipped", message, err) != 0)
            return -1;
    }
    if (state->gpu_events == 0 && state->mtia_events > 0)
        return error_set(
            err,
            "%s: an MTIA trace (%llu events of Meta's accelerator, no GPU activity): not supported; "
            "overlapscope reads CUDA and ROCm GPU traces",
            state->name, (unsigned long long)state->mtia_events);
    if (state->gpu_events == 0) {
        snprintf(message, sizeof message, "%s: no GPU activity (kernels, copies, memsets) in this trace",
                 state->name);
        if (warn(state, "import-no-gpu-activity", message, err) != 0)
            return -1;
    } else if (state->sync_events == 0 && state->other_vendor_devices == 0) {
        /* Kineto records CUDA synchronizations (which event a stream waited for) only when asked:
         * without them, the waits PyTorch itself puts between its streams have no visible cause. */
        snprintf(message, sizeof message,
                 "%s: no cuda_sync events, so waits between streams (cudaStreamWaitEvent) and host"
                 " synchronizations cannot be explained: record with torch.profiler.profile(...,"
                 " experimental_config=torch._C._profiler._ExperimentalConfig(enable_cuda_sync_events=True))"
                 " (docs/recording-with-torch-profiler.md)",
                 state->name);
        if (warn(state, "import-no-cuda-sync", message, err) != 0)
            return -1;
    }
    return 0;
}

static int import_stream(store *s, json_stream *stream, const char *name,
                         const struct kineto_progress *progress, error_info *err)
{
    struct kineto_state *state = calloc(1, sizeof *state);
    if (!state)
        return error_set(err, "%s: out of memory", name);
    *state = (struct kineto_state){.s = s,
                                   .name = name,
                                   .host_pid = STORE_NULL,
                                   .rank = STORE_NULL,
                                   .world_size = STORE_NULL,
                                   .trace_start_ns = STORE_NULL,
                                   .trace_end_ns = STORE_NULL,
                                   .progress = progress};
    struct store_process process = store_process_unknown();
    process.pid = 0; /* until finish_process writes the host pid the trace names, if any */
    process.source_file = name;
    int status = store_insert_process(s, &process, err);
    state->process_id = process.process_id;
    static const struct json_stream_handlers handlers = {
        .member = on_member, .event = on_event, .progress = on_progress};
    if (status == 0) {
        state->frames = store_frames_new(s, err);
        status = state->frames ? 0 : -1;
    }
    if (status == 0)
        status = json_stream_parse_trace(stream, &handlers, state, err);
    /* Before the late base time: frames and calls were read on the same clock. */
    if (status == 0)
        status = store_frames_derive(state->frames, state->process_id, err);
    store_frames_free(state->frames);
    state->odd_fields += state->open_count; /* 'B' events no 'E' closed */
    if (status == 0)
        status = apply_late_base_time(state, err);
    if (status == 0)
        status = finish_process(state, err);
    if (status == 0)
        status = stream_set_write(&state->streams, s, err);
    if (status == 0)
        status = insert_warnings(state, err);
    stream_set_free(&state->streams);
    for (size_t i = 0; i < state->open_count; i++)
        free_open_range(&state->open_ranges[i]);
    free(state->open_ranges);
    free(state);
    return status;
}

int kineto_import_file(store *s, const char *path, const struct kineto_progress *progress, error_info *err)
{
    json_stream *stream = json_stream_open(path, err);
    if (!stream)
        return -1;
    int status = import_stream(s, stream, path, progress, err);
    json_stream_close(stream);
    return status;
}

int kineto_import_memory(store *s, const void *data, size_t size, const char *name, error_info *err)
{
    json_stream *stream = json_stream_open_memory(data, size, name, err);
    if (!stream)
        return -1;
    int status = import_stream(s, stream, name, NULL, err);
    json_stream_close(stream);
    return status;
}
