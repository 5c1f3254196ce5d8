/* exposed_comm.c: exposed communication (an NCCL kernel running, no compute kernel running; the
 * sweep's exposed_communication_ns) split per collective instance with the trace's other ranks
 * (docs/metrics.md, "Exposed communication").
 *
 * While a device is walked, the stretches with communication and no compute are cut out and given
 * to the NCCL kernel that started first among those running. At the end the instances of one
 * collective on every rank are matched by communicator and sequence number (or, without them, by
 * operation and order on each device). Every rank leaves a collective together (a ring or tree
 * completes only when the last contribution arrived), so a rank's kernel lasts its wait for the
 * last rank plus the transfer: the rank with the shortest kernel arrived last, and each other
 * rank's first (duration - shortest duration) is arrival skew, the rest transfer. Durations are
 * read on each rank's own clock, so the split needs no clock alignment between hosts. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exposed_comm.h"
#include "imbalance.h"
#include "ledger.h"
#include "nccl_kernel_name.h"
#include "selection.h"
#include "store.h"
#include "units.h"

static int add_piece(struct comm_kernel *kernel, int64_t start_ns, int64_t end_ns, int64_t length_c)
{
    if (length_c <= 0)
        return 0;
    if (kernel->piece_count && kernel->pieces[kernel->piece_count - 1].end_ns == start_ns) {
        kernel->pieces[kernel->piece_count - 1].end_ns = end_ns;
        kernel->pieces[kernel->piece_count - 1].length_c += length_c;
        return 0;
    }
    if (kernel->piece_count == kernel->piece_capacity) {
        size_t capacity = kernel->piece_capacity ? kernel->piece_capacity * 2 : 2;
        struct piece *grown = realloc(kernel->pieces, capacity * sizeof *grown);
        if (!grown)
            return -1;
        kernel->pieces = grown;
        kernel->piece_capacity = capacity;
    }
    kernel->pieces[kernel->piece_count++] = (struct piece){start_ns, end_ns, length_c};
    return 0;
}

static int keep_kernel(struct device_books *books, const struct comm_kernel *kernel)
{
    if (books->kernel_count == books->kernel_capacity) {
        size_t capacity = books->kernel_capacity ? books->kernel_capacity * 2 : 16;
        struct comm_kernel *grown = realloc(books->kernels, capacity * sizeof *grown);
        if (!grown)
            return -1;
        books->kernels = grown;
        books->kernel_capacity = capacity;
    }
    books->kernels[books->kernel_count++] = *kernel;
    return 0;
}

int exposed_comm_advance(accountant *acc, int64_t time_ns)
{
    if (acc->sweep_time_ns == INT64_MIN || time_ns <= acc->sweep_time_ns) {
        if (acc->sweep_time_ns == INT64_MIN)
            acc->sweep_time_ns = time_ns;
        if (time_ns != INT64_MAX)
            return 0;
    }
    /* Nothing to cut and nothing ends: no NCCL kernel open, or compute covering the stretch. */
    if (acc->open_count == 0 || (time_ns <= acc->compute_end_ns && time_ns < acc->open_end_min_ns)) {
        acc->sweep_time_ns = time_ns;
        return 0;
    }
    int64_t x = acc->sweep_time_ns;
    while (x < time_ns) {
        struct comm_kernel *owner = NULL;
        for (size_t i = 0; i < acc->open_count; i++)
            if (acc->open[i].end_ns > x && (!owner || acc->open[i].start_ns < owner->start_ns))
                owner = &acc->open[i];
        if (!owner)
            break;
        int64_t next = owner->end_ns < time_ns ? owner->end_ns : time_ns;
        if (x < acc->compute_end_ns) {
            next = acc->compute_end_ns < next ? acc->compute_end_ns : next;
        } else {
            int64_t length_c =
                acc->selection ? selection_clock(acc->selection, next) - selection_clock(acc->selection, x)
                               : next - x;
            if (add_piece(owner, x, next, length_c) != 0)
                return -1;
        }
        x = next;
    }
    acc->sweep_time_ns = time_ns;
    struct device_books *books = ledger_current(&acc->ledger);
    size_t kept = 0;
    acc->open_end_min_ns = INT64_MAX;
    for (size_t i = 0; i < acc->open_count; i++) {
        if (acc->open[i].end_ns <= time_ns) {
            if (keep_kernel(books, &acc->open[i]) != 0)
                return -1;
        } else {
            acc->open[kept++] = acc->open[i];
            if (acc->open[i].end_ns < acc->open_end_min_ns)
                acc->open_end_min_ns = acc->open[i].end_ns;
        }
    }
    acc->open_count = kept;
    return 0;
}

/* The device's compute time, the union of its compute kernels (operations come in start order) on
 * the selection's clock, as the sweep measures category_busy_ns: what load imbalance compares,
 * kept in the books so that a peer rank's counts too. */
static void add_compute(accountant *acc, const struct model_op *op)
{
    struct device_books *books = ledger_current(&acc->ledger);
    if (!books || op->end_ns <= op->start_ns)
        return;
    int64_t from = op->start_ns > books->compute_end_ns ? op->start_ns : books->compute_end_ns;
    if (op->end_ns > from)
        books->compute_ns +=
            selection_clock(acc->selection, op->end_ns) - selection_clock(acc->selection, from);
    if (op->end_ns > books->compute_end_ns)
        books->compute_end_ns = op->end_ns;
}

int exposed_comm_add(accountant *acc, const struct model_op *op)
{
    if (op->category == ANALYSIS_COMPUTE) {
        if (op->end_ns > acc->compute_end_ns)
            acc->compute_end_ns = op->end_ns;
        add_compute(acc, op);
        return 0;
    }
    if (op->category != ANALYSIS_COMMUNICATION || op->end_ns <= op->start_ns)
        return 0;
    if (acc->open_count == acc->open_capacity) {
        size_t capacity = acc->open_capacity ? acc->open_capacity * 2 : 8;
        struct comm_kernel *grown = realloc(acc->open, capacity * sizeof *grown);
        if (!grown)
            return -1;
        acc->open = grown;
        acc->open_capacity = capacity;
    }
    if (op->end_ns < acc->open_end_min_ns)
        acc->open_end_min_ns = op->end_ns;
    acc->open[acc->open_count++] = (struct comm_kernel){.rowid = op->rowid,
                                                        .start_ns = op->start_ns,
                                                        .end_ns = op->end_ns,
                                                        .name_id = op->name_id,
                                                        .sequence = STORE_NULL,
                                                        .bytes = STORE_NULL,
                                                        .nranks = STORE_NULL};
    return 0;
}

/* The collective an NCCL kernel's name says ("ncclDevKernel_AllReduce_Sum_f32_RING_LL" ->
 * "AllReduce"; "Unknown" for ncclDevKernel_Generic). Returns 0 or -1 (out of memory). */
static int op_from_name(accountant *acc, int64_t name_id, char *op, size_t size)
{
    char *name = kernel_names_full(acc->names, name_id);
    if (!name)
        return -1;
    struct nccl_kernel_info info;
    snprintf(op, size, "%s", nccl_kernel_name_parse(name, &info) ? info.op : "Unknown");
    free(name);
    return 0;
}

/* Without sequence numbers, instances are matched by their order on each device within their
 * communicator: every rank of a communicator must call its collectives in the same order (NCCL user
 * guide, "Collective Operations"). A device with more communicators than tracked counts the rest
 * together. */
static void number_in_order(struct device_books *books)
{
    enum { TRACKED = 16 };
    const char *seen[TRACKED];
    int64_t next[TRACKED], others = 0;
    size_t seen_count = 0;
    for (size_t i = 0; i < books->kernel_count; i++) {
        struct comm_kernel *kernel = &books->kernels[i];
        size_t k = 0;
        while (k < seen_count && strcmp(seen[k], kernel->communicator) != 0)
            k++;
        if (k == seen_count && seen_count < TRACKED) {
            seen[seen_count] = kernel->communicator;
            next[seen_count++] = 0;
        }
        kernel->ordinal = k < seen_count ? next[k]++ : others++;
    }
}

int exposed_comm_end_device(accountant *acc, struct device_books *books, error_info *err)
{
    int64_t named_id = STORE_NULL;
    char named_op[24] = "";
    for (size_t i = 0; i < books->kernel_count; i++) {
        struct comm_kernel *kernel = &books->kernels[i];
        struct store_idle_collective collective = {
            .bytes = kernel->bytes, .sequence = kernel->sequence, .nranks = kernel->nranks};
        if (acc->process_has_collectives && store_idle_collective(acc->queries, kernel->rowid, &collective)) {
            kernel->has_collective = 1;
            snprintf(kernel->op, sizeof kernel->op, "%s", collective.op);
            snprintf(kernel->communicator, sizeof kernel->communicator, "%s", collective.communicator);
            kernel->bytes = collective.bytes;
            kernel->sequence = collective.sequence;
            kernel->nranks = collective.nranks;
        } else {
            /* One kernel name per device and collective, usually: read each name once in a row. */
            if (kernel->name_id != named_id &&
                op_from_name(acc, kernel->name_id, named_op, sizeof named_op) != 0)
                return error_set(err, "out of memory");
            named_id = kernel->name_id;
            snprintf(kernel->op, sizeof kernel->op, "%s", named_op);
        }
    }
    number_in_order(books);
    return 0;
}

/* --- matching across ranks --- */

struct member {
    size_t book, kernel;
    const char *communicator, *op;
    int64_t key;
};

static const struct comm_kernel *kernel_of(const accountant *acc, const struct member *member)
{
    return &acc->ledger.books[member->book].kernels[member->kernel];
}

/* Instances of one collective share communicator and sequence number; without them, the
 * operation and the order on each device. */
static int same_instance(const struct member *a, const struct member *b)
{
    return a->key == b->key && strcmp(a->communicator, b->communicator) == 0 && strcmp(a->op, b->op) == 0;
}

static int compare_members(const void *left, const void *right)
{
    const struct member *a = left, *b = right;
    int order = strcmp(a->communicator, b->communicator);
    if (order)
        return order;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    order = strcmp(a->op, b->op);
    if (order)
        return order;
    return a->book < b->book ? -1 : a->book > b->book;
}

static void rank_label(const struct device_books *books, char *buffer, size_t size)
{
    if (books->rank >= 0)
        snprintf(buffer, size, "rank %" PRId64, books->rank);
    else
        snprintf(buffer, size, "pid %" PRId64 " device %" PRId64, books->pid, books->device_id);
}

/* Gives the kernel's exposed stretches before `split_ns` to before_cause, the rest to after_cause. */
static int give_pieces(accountant *acc, const struct comm_kernel *kernel, int64_t split_ns,
                       enum accounting_cause before_cause, const char *before_label,
                       const struct evidence_figures *before_figures, enum accounting_cause after_cause,
                       const char *after_label, const struct evidence_figures *after_figures)
{
    for (size_t i = 0; i < kernel->piece_count; i++) {
        const struct piece *piece = &kernel->pieces[i];
        int64_t before_c = split_ns <= piece->start_ns ? 0 : split_ns - piece->start_ns;
        if (before_c > piece->length_c)
            before_c = piece->length_c;
        int64_t middle = split_ns < piece->start_ns ? piece->start_ns
                         : split_ns > piece->end_ns ? piece->end_ns
                                                    : split_ns;
        if (before_c > 0 && ledger_attribute(&acc->ledger, NULL, before_cause, before_label, "",
                                             piece->start_ns, middle, before_c, before_figures) != 0)
            return -1;
        if (piece->length_c - before_c > 0 &&
            ledger_attribute(&acc->ledger, NULL, after_cause, after_label, "", middle, piece->end_ns,
                             piece->length_c - before_c, after_figures) != 0)
            return -1;
        /* Figures count once per instance, not per stretch. */
        before_figures = after_figures = NULL;
    }
    return 0;
}

/* The late rank's idle time in [from, to) by cause, from its own intervals (time order). */
static int64_t late_idle(const accountant *acc, const struct device_books *late, int64_t from, int64_t to,
                         int64_t by_cause[ACCOUNTING_CAUSE_COUNT])
{
    size_t low = (size_t)late->interval_first, high = late->interval_end;
    while (low < high) { /* the first interval that ends after from */
        size_t middle = low + (high - low) / 2;
        if (acc->ledger.intervals[middle].end_ns <= from)
            low = middle + 1;
        else
            high = middle;
    }
    int64_t idle = 0;
    for (size_t i = low; i < late->interval_end && acc->ledger.intervals[i].start_ns < to; i++) {
        const struct ledger_interval *interval = &acc->ledger.intervals[i];
        int64_t start = interval->start_ns > from ? interval->start_ns : from;
        int64_t end = interval->end_ns < to ? interval->end_ns : to;
        if (end > start && accounting_cause_is_idle(interval->cause)) {
            by_cause[interval->cause] += end - start;
            idle += end - start;
        }
    }
    return idle;
}

/* late_activity's walk: the non-communication kernel covering most of [from, to). */
struct covering {
    accountant *acc;
    int64_t from, to, best_ns, best_name;
};

static void cover(void *context, int64_t name_id, int64_t start, int64_t end)
{
    struct covering *covering = context;
    if (kernel_names_is_communication(covering->acc->names, name_id, STORE_NULL))
        return;
    int64_t overlap =
        (end < covering->to ? end : covering->to) - (start > covering->from ? start : covering->from);
    if (overlap > covering->best_ns) {
        covering->best_ns = overlap;
        covering->best_name = name_id;
    }
}

void accountant_kernel_covering(accountant *acc, int64_t process_id, int64_t device_id, int64_t from_ns,
                                int64_t to_ns, int64_t *name_id, int64_t *covered_ns)
{
    struct covering covering = {.acc = acc, .from = from_ns, .to = to_ns, .best_name = -1};
    store_idle_kernels_in(acc->queries, process_id, device_id, from_ns, to_ns, cover, &covering);
    *name_id = covering.best_name;
    *covered_ns = covering.best_ns;
}

/* What the late rank's GPU and host did while this rank waited (on the late rank's clock, the
 * skew before its kernel began): the kernel covering most of the wait, and its idle time with its
 * largest cause (which says what its host was doing: host-cpu, host-sync, ...). */
static void late_activity(accountant *acc, const struct device_books *late,
                          const struct comm_kernel *late_kernel, int64_t skew_ns, const char *late_label,
                          char *detail, size_t size)
{
    int64_t from = late_kernel->start_ns - skew_ns, to = late_kernel->start_ns;
    int64_t best_ns = 0, best_name = -1;
    const struct accountant_remote *remote = acc->remote;
    if (!remote || !remote->kernel_covering(remote->context, late->process_id, late->device_id, from, to,
                                            &best_name, &best_ns))
        accountant_kernel_covering(acc, late->process_id, late->device_id, from, to, &best_name, &best_ns);
    int64_t by_cause[ACCOUNTING_CAUSE_COUNT] = {0};
    int64_t idle = late_idle(acc, late, from, to, by_cause);
    int top = 0;
    for (int c = 1; c < ACCOUNTING_CAUSE_COUNT; c++)
        if (by_cause[c] > by_cause[top])
            top = c;
    int64_t wait = skew_ns > 0 ? skew_ns : 1;
    int written = snprintf(detail, size, "at the first, %s meanwhile: ", late_label);
    if (written < 0 || (size_t)written >= size)
        return;
    if (best_name >= 0)
        written +=
            snprintf(detail + written, size - (size_t)written, "its GPU ran %s %" PRId64 "%% of the wait",
                     kernel_names_short(acc->names, best_name), best_ns * 100 / wait);
    else
        written += snprintf(detail + written, size - (size_t)written, "its GPU ran no compute kernel");
    if (written > 0 && (size_t)written < size && idle > 0)
        snprintf(detail + written, size - (size_t)written,
                 "; it was idle %" PRId64 "%% of the wait, mostly %s: %s", idle * 100 / wait,
                 accounting_cause_tag((enum accounting_cause)top),
                 accounting_cause_title((enum accounting_cause)top));
}

static int compare_behind(const void *left, const void *right)
{
    const struct behind_start *a = left, *b = right;
    if (a->process_id != b->process_id)
        return a->process_id < b->process_id ? -1 : 1;
    if (a->device_id != b->device_id)
        return a->device_id < b->device_id ? -1 : 1;
    return a->start_ns < b->start_ns ? -1 : a->start_ns > b->start_ns;
}

/* Fills acc->behind (freed by exposed_comm_collect). Returns 0 or -1 (out of memory). */
static int find_behind_starts(accountant *acc, const struct analysis_result *result)
{
    acc->behind_count = 0;
    for (size_t i = 0; i < result->wait_count; i++) {
        const struct analysis_wait *wait = &result->waits[i];
        if (wait->cause != ANALYSIS_CAUSE_COMM_BEHIND_COMPUTE)
            continue;
        if (!acc->behind && !(acc->behind = malloc(result->wait_count * sizeof *acc->behind)))
            return -1;
        const struct analysis_lane *lane = &result->lanes[wait->waiting.lane];
        acc->behind[acc->behind_count++] =
            (struct behind_start){lane->process_id, lane->device_id, wait->waiting.start_ns};
    }
    if (acc->behind_count > 1)
        qsort(acc->behind, acc->behind_count, sizeof *acc->behind, compare_behind);
    return 0;
}

static int late_kernel_waited_behind_compute(const accountant *acc, const struct device_books *late,
                                             const struct comm_kernel *kernel)
{
    struct behind_start key = {late->process_id, late->device_id, kernel->start_ns};
    return acc->behind_count &&
           bsearch(&key, acc->behind, acc->behind_count, sizeof key, compare_behind) != NULL;
}

struct rank_tally {
    int64_t rank, late_count, late_ns;
    int64_t computed_ns; /* of late_ns, the waits given to load imbalance (its GPU computing) */
};

static struct rank_tally *tally_of(struct rank_tally *tallies, size_t *count, int64_t rank)
{
    for (size_t i = 0; i < *count; i++)
        if (tallies[i].rank == rank)
            return &tallies[i];
    tallies[*count] = (struct rank_tally){.rank = rank};
    return &tallies[(*count)++];
}

/* Keeps the instance for the result (the first ACCOUNTING_MAX_INSTANCES). Returns 0 or -1. */
static int keep_instance(accountant *acc, const struct member *members, size_t count, size_t last,
                         int64_t largest_skew)
{
    if (acc->instance_count >= ACCOUNTING_MAX_INSTANCES)
        return 0;
    if (acc->instance_count == acc->instance_capacity) {
        size_t capacity = acc->instance_capacity ? acc->instance_capacity * 2 : 64;
        struct accounting_instance *grown = realloc(acc->instances, capacity * sizeof *grown);
        if (!grown)
            return -1;
        acc->instances = grown;
        acc->instance_capacity = capacity;
    }
    const struct comm_kernel *late = kernel_of(acc, &members[last]);
    const struct device_books *books = &acc->ledger.books[members[last].book];
    int by_order = !late->communicator[0] || late->sequence == STORE_NULL;
    struct accounting_instance *out = &acc->instances[acc->instance_count++];
    *out = (struct accounting_instance){
        .instance = by_order ? members[last].key + 1 : members[last].key,
        .by_order = by_order,
        .ranks = (int64_t)count,
        .last_device = books->result_index == ACCOUNTANT_PEER ? SIZE_MAX : books->result_index,
        .last_rank = books->rank,
        .last_pid = books->pid,
        .last_device_id = books->device_id,
        .skew_ns = largest_skew,
        .transfer_ns = late->end_ns - late->start_ns,
        .bytes = late->bytes};
    snprintf(out->op, sizeof out->op, "%s", late->op);
    snprintf(out->communicator, sizeof out->communicator, "%s", late->communicator);
    return 0;
}

/* imbalanced: the rank whose GPU computed markedly more than the others (imbalance.h), with the
 * clause that says so; rank -1 when none. */
struct imbalanced_rank {
    int64_t rank;
    char clause[160];
};

/* The late rank is the imbalanced one and its GPU was busy for most of the wait (it computed, its
 * host was not late): the wait is the work's split. A late rank whose GPU sat idle was held by its
 * host, whatever its share of the work. */
static int late_computed(const accountant *acc, const struct device_books *late,
                         const struct comm_kernel *late_kernel, int64_t skew_ns,
                         const struct imbalanced_rank *imbalanced)
{
    if (imbalanced->rank < 0 || late->rank != imbalanced->rank)
        return 0;
    int64_t by_cause[ACCOUNTING_CAUSE_COUNT] = {0};
    int64_t idle = late_idle(acc, late, late_kernel->start_ns - skew_ns, late_kernel->start_ns, by_cause);
    return idle * 2 < skew_ns;
}

/* described[waiting book * book count + late book]: the late rank's activity is looked up once per
 * pair of devices (the first skewed instance), which is the one the evidence quotes. */
static int split_instance(accountant *acc, const struct member *members, size_t count,
                          struct rank_tally *tallies, size_t *tally_count, int64_t *skewed_instances,
                          unsigned char *described, const struct imbalanced_rank *imbalanced)
{
    size_t last = 0;
    for (size_t i = 1; i < count; i++) {
        const struct comm_kernel *k = kernel_of(acc, &members[i]), *best = kernel_of(acc, &members[last]);
        if (k->end_ns - k->start_ns < best->end_ns - best->start_ns)
            last = i;
    }
    const struct comm_kernel *late_kernel = kernel_of(acc, &members[last]);
    const struct device_books *late = &acc->ledger.books[members[last].book];
    int64_t transfer_ns = late_kernel->end_ns - late_kernel->start_ns;
    char late_label[64];
    rank_label(late, late_label, sizeof late_label);
    int behind = late_kernel_waited_behind_compute(acc, late, late_kernel);
    int64_t largest_skew = 0;
    acc->ledger.next_mark++;
    for (size_t i = 0; i < count; i++) {
        const struct comm_kernel *kernel = kernel_of(acc, &members[i]);
        acc->ledger.current_book = members[i].book;
        int64_t skew = kernel->end_ns - kernel->start_ns - transfer_ns;
        int64_t nranks = kernel->nranks != STORE_NULL ? kernel->nranks : (int64_t)count;
        int by_order = !kernel->communicator[0] || kernel->sequence == STORE_NULL;
        int64_t instance = by_order ? members[i].key + 1 : members[i].key; /* order counts from 1 */
        struct evidence_figures transfer = {.bytes = kernel->bytes != STORE_NULL ? kernel->bytes : 0,
                                            .transfer_ns = transfer_ns,
                                            .nranks = nranks,
                                            .first_instance = instance,
                                            .last_instance = instance,
                                            .has_instance = 1,
                                            .instance_by_order = by_order};
        if (skew < ACCOUNTING_SKEW_MIN_NS) {
            if (give_pieces(acc, kernel, kernel->start_ns, ACCOUNTING_COMM_TRANSFER, kernel->op, NULL,
                            ACCOUNTING_COMM_TRANSFER, kernel->op, &transfer) != 0)
                return -1;
            continue;
        }
        largest_skew = skew > largest_skew ? skew : largest_skew;
        int heavier = !behind && late_computed(acc, late, late_kernel, skew, imbalanced);
        enum accounting_cause waited = behind    ? ACCOUNTING_COMM_BEHIND_COMPUTE
                                       : heavier ? ACCOUNTING_COMM_IMBALANCE
                                                 : ACCOUNTING_COMM_SKEW;
        char detail[256] = "";
        unsigned char *done = &described[members[i].book * acc->ledger.book_count + members[last].book];
        if (!*done) {
            *done = 1;
            if (heavier)
                snprintf(detail, sizeof detail, "%s", imbalanced->clause);
            else
                late_activity(acc, late, late_kernel, skew, late_label, detail, sizeof detail);
        }
        struct evidence_figures waiting = {.late_ns = skew,
                                           .detail = detail[0] ? detail : NULL,
                                           .first_instance = instance,
                                           .last_instance = instance,
                                           .has_instance = 1,
                                           .instance_by_order = by_order};
        if (give_pieces(acc, kernel, kernel->start_ns + skew, waited, late_label, &waiting,
                        ACCOUNTING_COMM_TRANSFER, kernel->op, &transfer) != 0)
            return -1;
        int64_t exposed_wait = 0;
        for (size_t p = 0; p < kernel->piece_count; p++) {
            int64_t end = kernel->pieces[p].end_ns < kernel->start_ns + skew ? kernel->pieces[p].end_ns
                                                                             : kernel->start_ns + skew;
            exposed_wait += end > kernel->pieces[p].start_ns ? end - kernel->pieces[p].start_ns : 0;
        }
        tally_of(tallies, tally_count, late->rank)->late_ns += exposed_wait;
        tally_of(tallies, tally_count, late->rank)->computed_ns += heavier ? exposed_wait : 0;
    }
    if (largest_skew >= ACCOUNTING_SKEW_MIN_NS) {
        (*skewed_instances)++;
        tally_of(tallies, tally_count, late->rank)->late_count++;
    }
    return keep_instance(acc, members, count, last, largest_skew);
}

static int give_unmatched(accountant *acc, const struct member *member, int single_process)
{
    const struct comm_kernel *kernel = kernel_of(acc, member);
    acc->ledger.current_book = member->book;
    acc->ledger.next_mark++;
    struct evidence_figures figures = {
        .detail = single_process
                      ? "the trace holds one process: record or import every rank (or merge the ranks' "
                        "files) to split waiting for peers from the transfer"
                      : "no other rank's instance of this collective is in the trace (a rank not "
                        "recorded, or a communicator of this process alone)"};
    return give_pieces(acc, kernel, kernel->start_ns, ACCOUNTING_COMM_UNMATCHED,
                       single_process ? "single rank" : "no peer instance", NULL, ACCOUNTING_COMM_UNMATCHED,
                       single_process ? "single rank" : "no peer instance", &figures);
}

/* The straggler's own largest idle cause, for why it came late: its time outside every step
 * (set-up, NCCL's initialization, the end) is not why it was late at the steps' collectives, and a
 * PyTorch job spends seconds there against milliseconds of a slow loader in the steps (seen: 4.47 s
 * outside, 100 ms of it in the steps), so that is named only when there is no other. */
static const struct bucket *top_idle(const struct device_books *books)
{
    const struct bucket *best = NULL;
    for (int outside_allowed = 0; outside_allowed < 2 && !best; outside_allowed++)
        for (size_t i = 0; i < books->idle.count; i++) {
            const struct bucket *bucket = &books->idle.buckets[i];
            if ((outside_allowed || bucket->cause != ACCOUNTING_IDLE_STEP_BOUNDARY) && bucket->ns > 0 &&
                (!best || bucket->ns > best->ns))
                best = bucket;
        }
    return best;
}

static void name_straggler(accountant *acc, struct analysis_result *result, const struct rank_tally *tallies,
                           size_t tally_count, int64_t skewed_instances, const struct imbalance *imbalance,
                           const struct imbalanced_rank *imbalanced)
{
    const struct rank_tally *worst = NULL;
    for (size_t i = 0; i < tally_count; i++)
        if (tallies[i].rank >= 0 && (!worst || tallies[i].late_count > worst->late_count))
            worst = &tallies[i];
    if (!worst || worst->late_count < 3 || worst->late_count * 2 < skewed_instances)
        return;
    struct accounting_straggler *out = &result->straggler;
    *out = (struct accounting_straggler){.rank = worst->rank,
                                         .late_count = worst->late_count,
                                         .instance_count = skewed_instances,
                                         .late_ns = worst->late_ns};
    char late[32];
    units_format_duration(late, sizeof late, worst->late_ns);
    int written = snprintf(out->evidence, sizeof out->evidence,
                           "rank %" PRId64 " arrived last at %" PRId64 " of %" PRId64
                           " collectives with a skew over 10 us; the other ranks' exposed waiting for it: %s",
                           worst->rank, worst->late_count, skewed_instances, late);
    /* Why it came late: its work, not a crumb of idle time, when most of the waiting for it was. */
    if (imbalanced->rank == worst->rank && worst->computed_ns * 2 > worst->late_ns) {
        out->load_imbalance = 1;
        out->compute_ns = imbalance->compute_ns;
        out->peer_compute_ns = imbalance->peer_compute_ns;
        out->mean_compute_ns = imbalance->mean_compute_ns;
        if (written > 0 && (size_t)written < sizeof out->evidence)
            snprintf(out->evidence + written, sizeof out->evidence - (size_t)written, "; load imbalance: %s",
                     imbalanced->clause);
        return;
    }
    for (size_t i = 0; i < acc->ledger.book_count && written > 0 && (size_t)written < sizeof out->evidence;
         i++) {
        const struct bucket *top =
            acc->ledger.books[i].rank == worst->rank ? top_idle(&acc->ledger.books[i]) : NULL;
        if (!top)
            continue;
        char idle[32];
        units_format_duration(idle, sizeof idle, top->ns);
        snprintf(out->evidence + written, sizeof out->evidence - (size_t)written,
                 "; its own top idle cause: %s (%s), %s", accounting_cause_title(top->cause), top->label,
                 idle);
        break;
    }
}

int exposed_comm_collect(accountant *acc, struct analysis_result *result, error_info *err)
{
    size_t total = 0;
    for (size_t i = 0; i < acc->ledger.book_count; i++)
        total += acc->ledger.books[i].kernel_count;
    if (total == 0)
        return 0;
    struct member *members = malloc(total * sizeof *members);
    struct rank_tally *tallies = calloc(acc->ledger.book_count, sizeof *tallies);
    unsigned char *described = calloc(acc->ledger.book_count * acc->ledger.book_count, 1);
    struct imbalance imbalance;
    struct imbalanced_rank imbalanced = {.rank = -1};
    if (!members || !tallies || !described || imbalance_find(&acc->ledger, result, &imbalance) != 0 ||
        find_behind_starts(acc, result) != 0) {
        free(members);
        free(tallies);
        free(described);
        return error_set(err, "out of memory");
    }
    if (imbalance.found) {
        imbalanced.rank = imbalance.rank;
        imbalance_describe(&imbalance, imbalanced.clause, sizeof imbalanced.clause);
    }
    size_t n = 0;
    int single_process = 1;
    for (size_t i = 0; i < acc->ledger.book_count; i++) {
        single_process &= acc->ledger.books[i].process_id == acc->ledger.books[0].process_id;
        for (size_t k = 0; k < acc->ledger.books[i].kernel_count; k++) {
            const struct comm_kernel *kernel = &acc->ledger.books[i].kernels[k];
            int by_sequence = kernel->communicator[0] && kernel->sequence != STORE_NULL;
            members[n++] = (struct member){i, k, kernel->communicator, kernel->op,
                                           by_sequence ? kernel->sequence : kernel->ordinal};
        }
    }
    qsort(members, n, sizeof *members, compare_members);
    size_t tally_count = 0;
    int64_t skewed_instances = 0;
    int status = 0;
    for (size_t start = 0; status == 0 && start < n;) {
        size_t end = start + 1;
        while (end < n && same_instance(&members[start], &members[end]))
            end++;
        if (end - start >= 2)
            status = split_instance(acc, members + start, end - start, tallies, &tally_count,
                                    &skewed_instances, described, &imbalanced);
        else
            status = give_unmatched(acc, &members[start], single_process);
        start = end;
    }
    if (status == 0)
        name_straggler(acc, result, tallies, tally_count, skewed_instances, &imbalance, &imbalanced);
    free(members);
    free(tallies);
    free(described);
    return status == 0 ? 0 : error_set(err, "out of memory");
}
