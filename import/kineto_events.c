/* kineto_events.c: one handler per Kineto event category (kernels, copies, memsets, runtime calls,
 * cuda_sync, annotations, Python frames), each writing its rows into the store; the small readers
 * of event fields they share. See kineto_parts.h. */
#include "kineto_parts.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call_sources.h"
#include "gpu_vendor.h"
#include "nccl_kernel_name.h"
#include "nccl_names.h"
#include "op_category.h"
#include "python_source.h"
#include "stream_set.h"

/* --- small readers --- */

int kineto_fail_event(struct kineto_state *state, uint64_t index, const char *category, const char *problem,
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
int64_t kineto_optional_int(struct kineto_state *state, const struct json_value *object, const char *key)
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
    int64_t value = kineto_optional_int(state, object, key);
    return value < 0 ? STORE_NULL : value;
}

/* args.correlation into *out (STORE_NULL when absent; an odd type counted like any optional
 * field). A number with a fraction (1.5) is refused: rounded, it would tie the operation to another
 * launch without a word. Returns 0, or -1 with err filled. */
static int read_correlation(struct kineto_state *state, const struct json_value *args, uint64_t index,
                            const char *category, int64_t *out, error_info *err)
{
    const struct json_value *value = json_get(args, "correlation");
    if (value && value->type == JSON_NUMBER && !json_number_is_integral(value)) {
        char problem[96];
        snprintf(problem, sizeof problem, "'correlation' is %.*s, not an integer",
                 value->length > 40 ? 40 : (int)value->length, value->text);
        return kineto_fail_event(state, index, category, problem, err);
    }
    *out = kineto_optional_int(state, args, "correlation");
    return 0;
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9u;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBu;
    return x ^ (x >> 31);
}

/* Two fingerprints (independent seeds) of a GPU event: its kind, name, start, end, device, stream
 * and correlation. */
static void fingerprint(uint64_t out[2], int kind, const char *name, const int64_t fields[5])
{
    for (int f = 0; f < 2; f++) {
        uint64_t h = mix64((uint64_t)kind + (f ? 0x9E3779B97F4A7C15u : 0x632BE59BD9B4E019u));
        for (const unsigned char *c = (const unsigned char *)name; c && *c; c++)
            h = (h ^ *c) * (f ? 0x100000001B3u : 0x9E3779B97F4A7C15u);
        for (int i = 0; i < 5; i++)
            h = mix64(h ^ (uint64_t)fields[i]);
        out[f] = h | 1; /* 0 marks an empty slot */
    }
}

static int grow_fingerprints(struct kineto_state *state)
{
    size_t capacity = state->fingerprint_capacity ? state->fingerprint_capacity * 2 : 1024;
    uint64_t(*slots)[2] = calloc(capacity, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < state->fingerprint_capacity; i++) {
        uint64_t *old = state->fingerprints[i];
        if (!old[0])
            continue;
        size_t at = (size_t)old[0] & (capacity - 1);
        while (slots[at][0])
            at = (at + 1) & (capacity - 1);
        slots[at][0] = old[0];
        slots[at][1] = old[1];
    }
    free(state->fingerprints);
    state->fingerprints = slots;
    state->fingerprint_capacity = capacity;
    return 0;
}

/* 1 when a GPU event with the same kind, name, ts, dur, device, stream and correlation was
 * imported before (a profiler never runs two identical operations on one stream at one time: the
 * file holds a copy, which is counted and left out); 0 when not (now remembered); -1 with err
 * filled when out of memory. Memory stays bounded: past KINETO_MAX_FINGERPRINTS / 2 events the
 * table is full and a new event replaces an older one, so a copy is found when its original is
 * among the last half million or so; further apart, it may be imported twice, as before. */
static int gpu_duplicate(struct kineto_state *state, int kind, const char *name, int64_t start_ns,
                         int64_t end_ns, int64_t device_id, int64_t stream_id, int64_t correlation_id,
                         error_info *err)
{
    int full = state->fingerprint_capacity >= KINETO_MAX_FINGERPRINTS;
    if (!full && state->fingerprint_count * 2 >= state->fingerprint_capacity && grow_fingerprints(state) != 0)
        return error_set(err, "%s: out of memory", state->name);
    uint64_t key[2];
    fingerprint(key, kind, name, (const int64_t[5]){start_ns, end_ns, device_id, stream_id, correlation_id});
    size_t mask = state->fingerprint_capacity - 1;
    for (size_t at = (size_t)key[0] & mask, probe = 0;; at = (at + 1) & mask, probe++) {
        uint64_t *slot = state->fingerprints[at];
        if (full && probe == KINETO_FULL_PROBES) { /* the newest takes its home slot's place */
            slot = state->fingerprints[(size_t)key[0] & mask];
            slot[0] = key[0];
            slot[1] = key[1];
            return 0;
        }
        if (!slot[0]) {
            slot[0] = key[0];
            slot[1] = key[1];
            state->fingerprint_count++;
            return 0;
        }
        if (slot[0] == key[0] && slot[1] == key[1]) {
            state->duplicates++;
            return 1;
        }
    }
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
        return kineto_fail_event(state, index, category, "missing 'ts'", err);
    if (json_number_scaled(ts, 3, &start) != 0)
        return kineto_fail_event(state, index, category, "'ts' is not a number in range", err);
    if (dur && json_number_scaled(dur, 3, &duration) != 0)
        return kineto_fail_event(state, index, category, "'dur' is not a number in range", err);
    if (!dur) {
        const char *phase = json_string(json_get(event, "ph"));
        if (!phase || strcmp(phase, "X") == 0)
            return kineto_fail_event(state, index, category, "complete event without 'dur'", err);
    }
    if (duration < 0) {
        state->odd_fields++;
        duration = 0;
    }
    if (__builtin_add_overflow(start, state->applied_base_ns, start_ns) ||
        __builtin_add_overflow(*start_ns, duration, end_ns) || !store_interval_plausible(*start_ns, *end_ns))
        return kineto_fail_event(state, index, category, "timestamp out of range", err);
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
    *device_id = kineto_optional_int(state, args, "device");
    if (*device_id == STORE_NULL)
        *device_id = optional_label_int(state, event, "pid");
    *stream_id = kineto_optional_int(state, args, "stream");
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
    int64_t elements = kineto_optional_int(state, args, "In msg nelems");
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
                                   .nranks = kineto_optional_int(state, args, "Group size"),
                                   .sequence_number = kineto_optional_int(state, args, "Seq"),
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

/* What every GPU activity has: its name, span, place and correlation. */
struct gpu_identity {
    const char *name;
    int64_t start_ns, end_ns, device_id, stream_id, context_id, correlation_id;
};

/* Reads event's identity into *id (kind: 0 kernel, 1 memcpy, 2 memset; no_place: the problem when
 * it has no device or stream). Returns 0, 1 when it is an exact copy of an activity imported
 * before (counted, to leave out: gpu_duplicate), or -1 with err filled. */
/* The identity's fields into a kernel, memcpy or memset row (each has them under these names). */
#define GPU_IDENTITY_TO_ROW(id, row)                                                                         \
    ((row).start_ns = (id).start_ns, (row).end_ns = (id).end_ns, (row).device_id = (id).device_id,           \
     (row).stream_id = (id).stream_id, (row).context_id = (id).context_id,                                   \
     (row).correlation_id = (id).correlation_id)

static int read_gpu_identity(struct kineto_state *state, const struct json_value *event,
                             const struct json_value *args, uint64_t index, const char *category, int kind,
                             const char *no_place, struct gpu_identity *id, error_info *err)
{
    id->name = required_name(event);
    if (!id->name)
        return kineto_fail_event(state, index, category, "missing 'name'", err);
    if (read_span(state, event, index, category, &id->start_ns, &id->end_ns, err) != 0)
        return -1;
    if (gpu_place(state, event, args, &id->device_id, &id->stream_id) != 0)
        return kineto_fail_event(state, index, category, no_place, err);
    id->context_id = kineto_optional_int(state, args, "context");
    if (read_correlation(state, args, index, category, &id->correlation_id, err) != 0)
        return -1;
    return gpu_duplicate(state, kind, id->name, id->start_ns, id->end_ns, id->device_id, id->stream_id,
                         id->correlation_id, err);
}

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
    struct gpu_identity id;
    int read = read_gpu_identity(state, event, args, index, "kernel", 0,
                                 "no device or stream (args.device/args.stream or pid/tid)", &id, err);
    if (read != 0)
        return read < 0 ? -1 : 0; /* a copy is left out */
    row.name = id.name;
    GPU_IDENTITY_TO_ROW(id, row);
    row.grid_x = triple_element(state, args, "grid", 0);
    row.grid_y = triple_element(state, args, "grid", 1);
    row.grid_z = triple_element(state, args, "grid", 2);
    row.block_x = triple_element(state, args, "block", 0);
    row.block_y = triple_element(state, args, "block", 1);
    row.block_z = triple_element(state, args, "block", 2);
    row.registers_per_thread = kineto_optional_int(state, args, "registers per thread");
    /* Kineto's "shared memory" is static + dynamic shared memory per block as one figure
     * (libkineto/src/output_json.cpp); it goes to static_shared_bytes so the sum stays right. */
    row.static_shared_bytes = kineto_optional_int(state, args, "shared memory");
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
                               .src_device_id = kineto_optional_int(state, args, "fromDevice"),
                               .dst_device_id = kineto_optional_int(state, args, "toDevice"),
                               .is_async = STORE_NULL,
                               .channel_id = STORE_NULL,
                               .channel_type = STORE_NULL,
                               .copy_count = 1,
                               .graph_id = STORE_NULL,
                               .graph_node_id = STORE_NULL};
    struct gpu_identity id;
    int read = read_gpu_identity(state, event, args, index, "gpu_memcpy", 1, "no device or stream", &id, err);
    if (read != 0)
        return read < 0 ? -1 : 0; /* a copy is left out */
    const char *name = id.name;
    GPU_IDENTITY_TO_ROW(id, row);
    row.copy_kind = copy_kind_from_text(name);
    if (row.copy_kind == STORE_COPY_UNKNOWN)
        row.copy_kind = copy_kind_from_text(json_string(json_get(args, "kind")));
    copy_memory_kinds(name, &row.src_kind, &row.dst_kind);
    row.bytes = kineto_optional_int(state, args, "bytes");
    if (row.bytes == STORE_NULL) {
        row.bytes = 0; /* the column is NOT NULL; counted so the warning says how many */
        state->odd_fields++;
    }
    if (stream_set_note(&state->streams, state->process_id, row.device_id, row.context_id, row.stream_id,
                        store_copy_category(row.copy_kind, row.src_device_id, row.dst_device_id),
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
    struct gpu_identity id;
    int read = read_gpu_identity(state, event, args, index, "gpu_memset", 2, "no device or stream", &id, err);
    if (read != 0)
        return read < 0 ? -1 : 0; /* a copy is left out */
    const char *name = id.name;
    GPU_IDENTITY_TO_ROW(id, row);
    const char *open = strchr(name, '('), *close = open ? strchr(open, ')') : NULL;
    if (close)
        row.memory_kind = memory_kind_from_word(open + 1, (size_t)(close - open - 1));
    row.bytes = kineto_optional_int(state, args, "bytes");
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
        return kineto_fail_event(state, index, category, "missing 'name'", err);
    if (read_span(state, event, index, category, &row.start_ns, &row.end_ns, err) != 0)
        return -1;
    row.thread_id = thread_of(state, event);
    row.callback_id = kineto_optional_int(state, args, "cbid");
    if (read_correlation(state, args, index, category, &row.correlation_id, err) != 0)
        return -1;
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
    row.context_id = kineto_optional_int(state, args, "context");
    row.stream_id = optional_id(state, args, "stream");
    row.event_id = optional_id(state, args, "wait_on_cuda_event_id");
    if (read_correlation(state, args, index, "cuda_sync", &row.correlation_id, err) != 0)
        return -1;
    if (store_insert_synchronization(state->s, &row, err) != 0)
        return -1;
    /* Kineto names the cudaEventRecord a wait depends on: that is a cuda_events row. */
    int64_t record_correlation = optional_id(state, args, "wait_on_cuda_event_record_corr_id");
    if (row.event_id == STORE_NULL || record_correlation == STORE_NULL ||
        !first_sighting(state, row.event_id, record_correlation))
        return 0;
    struct store_cuda_event record = {.process_id = state->process_id,
                                      .device_id = kineto_optional_int(state, args, "device"),
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
        return kineto_fail_event(state, index, category, "missing 'name'", err);
    if (read_span(state, event, index, category, &row.start_ns, &row.end_ns, err) != 0)
        return -1;
    if (!json_get(event, "dur"))
        row.kind = STORE_NVTX_MARK;
    if (on_gpu) {
        if (gpu_place(state, event, event_args(state, event), &row.device_id, &row.stream_id) != 0)
            return kineto_fail_event(state, index, category, "no device or stream", err);
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

/* A Python frame, "train.py(17): step", as "train.py:17 step"; 0 for a name of another form (a
 * built-in method's). */
static int python_frame(const char *name, char *source, size_t size)
{
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
        if (!python_frame(name, source, sizeof source))
            return 0;
        /* the user's frames are sources; Python's and the packages' only possible wrappers of a
         * blocking call (store/framework_calls.h: torch.cuda.synchronize) */
        frame.kind = python_source_is_library(name) ? STORE_FRAME_LIBRARY : STORE_SOURCE_PYTHON;
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

int kineto_import_event(struct kineto_state *state, uint64_t index, const struct json_value *event,
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
