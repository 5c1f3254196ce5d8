/* test_fragment_wire.c: a device's fragment (lanes, its device, stream pairs, overlap costs, exposed
 * copies, books with idle and communication buckets per step, collectives with their pieces, host
 * work, kept waits) survives the bytes of fragment_wire.h: read back, it writes the same bytes, with
 * every figure in its place; bytes cut short anywhere, or of another format, are refused with a
 * message, never read past their end (the sanitizer build checks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accountant_state.h"
#include "fragment_wire.h"

static int failures;
#define CHECK(condition)                                                                                     \
    do {                                                                                                     \
        if (!(condition)) {                                                                                  \
            fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #condition);                          \
            failures++;                                                                                      \
        }                                                                                                    \
    } while (0)

static struct bucket *buckets(size_t count, int64_t ns)
{
    struct bucket *made = calloc(count, sizeof *made);
    for (size_t i = 0; i < count; i++) {
        made[i].cause = ACCOUNTING_IDLE_HOST_SYNC;
        made[i].ns = ns + (int64_t)i;
        char label[64];
        snprintf(label, sizeof label, "cudaDeviceSynchronize %zu", i);
        made[i].label = strdup(label); /* the bucket's (ledger.h), as its source */
        made[i].source = i % 2 ? strdup("train.py:17 step") : ledger_no_text;
        made[i].detail = i % 2 ? strdup("a detail") : NULL; /* held when a stretch had one (ledger.h) */
    }
    return made;
}

/* A fragment with something in every part, owned by the caller (device_fragment_free). */
static void make_fragment(struct device_fragment *fragment)
{
    memset(fragment, 0, sizeof *fragment);
    struct analysis_result *part = &fragment->part;
    part->lane_count = 2;
    part->lanes = calloc(2, sizeof *part->lanes);
    part->lanes[1].stream_id = 21;
    snprintf(part->lanes[1].role, sizeof part->lanes[1].role, "nccl");
    part->device_count = 1;
    part->devices = calloc(1, sizeof *part->devices);
    part->devices[0].busy_ns = 12345;
    snprintf(part->devices[0].device_name, sizeof part->devices[0].device_name, "NVIDIA H200");
    part->stream_pair_count = 1;
    part->stream_pairs = calloc(1, sizeof *part->stream_pairs);
    part->stream_pairs[0] = (struct analysis_stream_pair){.lane_a = 0, .lane_b = 1, .overlap_ns = 7};
    part->overlap_cost_count = 1;
    part->overlap_costs = calloc(1, sizeof *part->overlap_costs);
    part->overlap_costs[0].cost_ns = -3;
    part->interval_count = 99;
    fragment->copy_breakdown.ns = 40;
    fragment->copy_breakdown.entry_count = 1;
    fragment->copy_breakdown.entries = calloc(1, sizeof *fragment->copy_breakdown.entries);
    fragment->copy_breakdown.entries[0].ns = 40;
    fragment->copy_breakdown.entries[0].evidence = strdup("pageable HtoD under no kernel");
    fragment->copy_interval_count = 1;
    fragment->copy_intervals = calloc(1, sizeof *fragment->copy_intervals);
    fragment->copy_intervals[0].end_ns = 77;
    fragment->copy_stretch_count = 1;
    struct device_books *books = calloc(1, sizeof *books);
    books->rank = 3;
    books->idle =
        (struct breakdown_builder){.buckets = buckets(2, 100), .count = 2, .capacity = 2, .ns = 201};
    books->step_count = 2;
    books->step_idle = calloc(2, sizeof *books->step_idle);
    books->step_comm = calloc(2, sizeof *books->step_comm);
    books->step_comm[1] =
        (struct breakdown_builder){.buckets = buckets(1, 5), .count = 1, .capacity = 1, .ns = 5};
    books->kernel_count = books->kernel_capacity = 1;
    books->kernels = calloc(1, sizeof *books->kernels);
    books->kernels[0].sequence = 8;
    snprintf(books->kernels[0].op, sizeof books->kernels[0].op, "AllReduce");
    books->kernels[0].piece_count = books->kernels[0].piece_capacity = 2;
    books->kernels[0].pieces = calloc(2, sizeof *books->kernels[0].pieces);
    books->kernels[0].pieces[1].end_ns = 555;
    books->host_work_count = books->host_work_capacity = 1;
    books->host_work = calloc(1, sizeof *books->host_work);
    books->host_work[0].ns = 9;
    fragment->books =
        (struct accountant_device){.books = books, .next_mark = 17, .began = 1, .process_id = 2};
    fragment->books.interval_count = 1;
    fragment->books.intervals = calloc(1, sizeof *fragment->books.intervals);
    fragment->books.intervals[0].start_ns = 66;
    fragment->waits.arrival_count = 1;
    fragment->waits.arrivals = calloc(1, sizeof *fragment->waits.arrivals);
    fragment->waits.arrivals[0].lost_ns = 1000;
    snprintf(fragment->waits.arrivals[0].evidence, sizeof fragment->waits.arrivals[0].evidence,
             "held all SMs");
    fragment->waits.total_waits = 4;
    fragment->ranges_found = 2;
    fragment->streams_seen_count = 2;
    fragment->streams_seen[1] = 21;
}

static struct fragment_wire encode(const struct device_fragment *fragment)
{
    struct fragment_wire wire = {0};
    CHECK(fragment_wire_begin(&wire, 1) == 0);
    CHECK(fragment_wire_put(&wire, fragment) == 0);
    return wire;
}

/* Reads one header and its one fragment. Returns 0 or -1. */
static int decode(const unsigned char *bytes, size_t size, struct device_fragment *out, error_info *err)
{
    size_t offset = 0, count = 0;
    memset(out, 0, sizeof *out);
    if (fragment_wire_open(bytes, size, &offset, &count, err) != 0)
        return -1;
    if (count != 1)
        return error_set(err, "count %zu", count);
    return fragment_wire_get(bytes, size, &offset, out, err);
}

int main(void)
{
    struct device_fragment fragment, back;
    make_fragment(&fragment);
    struct fragment_wire wire = encode(&fragment);
    error_info err;
    CHECK(decode(wire.bytes, wire.size, &back, &err) == 0);
    CHECK(back.part.lane_count == 2 && strcmp(back.part.lanes[1].role, "nccl") == 0);
    CHECK(back.part.device_count == 1 && back.part.devices[0].busy_ns == 12345);
    CHECK(back.part.stream_pairs[0].overlap_ns == 7 && back.part.overlap_costs[0].cost_ns == -3);
    CHECK(back.copy_intervals[0].end_ns == 77 && back.copy_breakdown.entries[0].ns == 40);
    CHECK(strcmp(back.copy_breakdown.entries[0].evidence, "pageable HtoD under no kernel") == 0);
    struct device_books *books = back.books.books;
    CHECK(books && books->rank == 3 && books->idle.count == 2 && books->idle.buckets[1].ns == 101);
    CHECK(books && !books->idle.buckets[0].detail && books->idle.buckets[1].detail &&
          strcmp(books->idle.buckets[1].detail, "a detail") == 0);
    CHECK(books && strcmp(books->idle.buckets[1].label, "cudaDeviceSynchronize 1") == 0 &&
          strcmp(books->idle.buckets[1].source, "train.py:17 step") == 0 &&
          books->idle.buckets[0].source == ledger_no_text);
    CHECK(books && books->step_count == 2 && books->step_comm[1].count == 1 &&
          books->step_idle[0].count == 0);
    CHECK(books && books->kernels[0].pieces[1].end_ns == 555 &&
          strcmp(books->kernels[0].op, "AllReduce") == 0);
    CHECK(books && books->host_work[0].ns == 9 && !books->by_start && !books->reach);
    CHECK(back.books.next_mark == 17 && back.books.intervals[0].start_ns == 66);
    CHECK(back.waits.arrival_count == 1 && strcmp(back.waits.arrivals[0].evidence, "held all SMs") == 0);
    CHECK(back.waits.total_waits == 4 && back.streams_seen_count == 2 && back.streams_seen[1] == 21);
    struct fragment_wire again = encode(&back); /* read back, it writes the same bytes */
    CHECK(again.size == wire.size && memcmp(again.bytes, wire.bytes, wire.size) == 0);
    device_fragment_free(&back);
    free(again.bytes);

    /* cut short at every length: refused, never read past the end */
    int refused = 0;
    for (size_t size = 0; size < wire.size; size++) {
        unsigned char *cut = malloc(size ? size : 1);
        memcpy(cut, wire.bytes, size);
        if (decode(cut, size, &back, &err) != 0 && strstr(err.message, "damaged"))
            refused++;
        device_fragment_free(&back);
        free(cut);
    }
    CHECK(refused == (int)wire.size);
    /* another format version: refused with a message saying so */
    wire.bytes[4] = FRAGMENT_WIRE_VERSION + 1;
    CHECK(decode(wire.bytes, wire.size, &back, &err) != 0 && strstr(err.message, "another build"));
    device_fragment_free(&back);
    free(wire.bytes);
    device_fragment_free(&fragment);
    if (failures == 0)
        printf("test_fragment_wire: all passed\n");
    return failures != 0;
}
