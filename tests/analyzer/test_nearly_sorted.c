/* test_nearly_sorted.c: nearly_sorted_sort (nearly_sorted.h) against a stable sort worked out by
 * qsort on (key, place in the input), on the shapes the analyzer gives it (one run; two threads'
 * calls written in interleaved blocks; a long call written after the calls made during it) and on
 * those it must still sort right (reversed, no order, ties, empty). Elements are as large as the
 * host calls it sorts, so a wrong element size or offset in the merge shows in the payload. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "nearly_sorted.h"

struct element {
    int64_t key;
    size_t place;       /* in the input: ties must keep this order */
    int64_t payload[6]; /* derived from key and place, checked after the sort */
};

static int by_key(const void *a, const void *b)
{
    const struct element *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

static int by_key_then_place(const void *a, const void *b)
{
    const struct element *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->place > y->place) - (x->place < y->place);
}

static void expect_sorted(const char *shape, const int64_t *keys, size_t count)
{
    struct element *sorted = malloc((count ? count : 1) * sizeof *sorted);
    struct element *expected = malloc((count ? count : 1) * sizeof *expected);
    for (size_t i = 0; i < count; i++) {
        sorted[i] = (struct element){.key = keys[i], .place = i};
        for (int p = 0; p < 6; p++)
            sorted[i].payload[p] = keys[i] * 7 + (int64_t)i * 3 + p;
        expected[i] = sorted[i];
    }
    qsort(expected, count, sizeof *expected, by_key_then_place);
    nearly_sorted_sort(sorted, count, sizeof *sorted, by_key);
    size_t wrong = 0;
    for (size_t i = 0; i < count; i++)
        wrong += sorted[i].key != expected[i].key || sorted[i].place != expected[i].place ||
                 memcmp(sorted[i].payload, expected[i].payload, sizeof sorted[i].payload) != 0;
    if (wrong)
        fprintf(stderr, "shape %s: %zu of %zu elements out of place\n", shape, wrong, count);
    CHECK_INT(wrong, 0);
    free(sorted);
    free(expected);
}

int main(void)
{
    enum { N = 5000 };
    static int64_t keys[N];

    expect_sorted("empty", keys, 0);
    keys[0] = 42;
    expect_sorted("one element", keys, 1);

    for (size_t i = 0; i < N; i++)
        keys[i] = (int64_t)i / 3; /* one run, with ties */
    expect_sorted("one run", keys, N);

    /* Two threads' calls by correlation id, written a buffer at a time: thread A takes the even
     * ids, B the odd ones, and their buffers of 100 alternate. */
    for (size_t i = 0, a = 0, b = 1; i < N; i++) {
        int from_a = (i / 100) % 2 == 0;
        keys[i] = from_a ? (int64_t)a : (int64_t)b;
        if (from_a)
            a += 2;
        else
            b += 2;
    }
    expect_sorted("two threads' buffers", keys, N);

    /* A long call written when it ended, after the 500 calls made while it ran; and the same ids
     * twice (ties across runs keep the input's order). */
    for (size_t i = 0; i < N; i++)
        keys[i] = (int64_t)i;
    for (size_t i = 1000; i < 1500; i++)
        keys[i] = (int64_t)i + 1;
    keys[1500] = 1000;
    for (size_t i = 3000; i < N; i++)
        keys[i] = (int64_t)i - 1000;
    expect_sorted("a long call, then ids again", keys, N);

    for (size_t i = 0; i < N; i++)
        keys[i] = (int64_t)(N - i); /* every element a run of its own */
    expect_sorted("reversed", keys, N);

    uint64_t state = 88172645463325252ull;
    for (size_t i = 0; i < N; i++) {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        keys[i] = (int64_t)(state % 50); /* no order, many ties */
    }
    expect_sorted("no order", keys, N);
    return check_finish();
}
