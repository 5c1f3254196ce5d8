/* check.h: the few assertion macros overlapscope's C tests use.
 *
 * A failed check prints file:line and both values and counts a failure; the test goes on so one
 * run shows every difference. A test's main ends with `return check_finish();`, which prints
 * "N passed, N failed" and returns non-zero if anything failed. */
#ifndef OVERLAPSCOPE_CHECK_H
#define OVERLAPSCOPE_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(condition)                                                                                     \
    do {                                                                                                     \
        if (condition) {                                                                                     \
            check_passed++;                                                                                  \
        } else {                                                                                             \
            check_failed++;                                                                                  \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #condition);                    \
        }                                                                                                    \
    } while (0)

#define CHECK_INT(actual, expected)                                                                          \
    do {                                                                                                     \
        int64_t check_a_ = (int64_t)(actual), check_e_ = (int64_t)(expected);                                \
        if (check_a_ == check_e_) {                                                                          \
            check_passed++;                                                                                  \
        } else {                                                                                             \
            check_failed++;                                                                                  \
            fprintf(stderr, "%s:%d: %s is %" PRId64 ", expected %" PRId64 "\n", __FILE__, __LINE__, #actual, \
                    check_a_, check_e_);                                                                     \
        }                                                                                                    \
    } while (0)

#define CHECK_NEAR(actual, expected, tolerance)                                                              \
    do {                                                                                                     \
        double check_a_ = (double)(actual), check_e_ = (double)(expected);                                   \
        if (check_a_ - check_e_ <= (tolerance) && check_e_ - check_a_ <= (tolerance)) {                      \
            check_passed++;                                                                                  \
        } else {                                                                                             \
            check_failed++;                                                                                  \
            fprintf(stderr, "%s:%d: %s is %.9g, expected %.9g\n", __FILE__, __LINE__, #actual, check_a_,     \
                    check_e_);                                                                               \
        }                                                                                                    \
    } while (0)

#define CHECK_STR(actual, expected)                                                                          \
    do {                                                                                                     \
        const char *check_a_ = (actual), *check_e_ = (expected);                                             \
        if (check_a_ && check_e_ && strcmp(check_a_, check_e_) == 0) {                                       \
            check_passed++;                                                                                  \
        } else {                                                                                             \
            check_failed++;                                                                                  \
            fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #actual,           \
                    check_a_ ? check_a_ : "(null)", check_e_ ? check_e_ : "(null)");                         \
        }                                                                                                    \
    } while (0)

/* True when haystack contains needle; both may be NULL (then false). */
#define CHECK_CONTAINS(haystack, needle)                                                                     \
    do {                                                                                                     \
        const char *check_h_ = (haystack), *check_n_ = (needle);                                             \
        if (check_h_ && check_n_ && strstr(check_h_, check_n_)) {                                            \
            check_passed++;                                                                                  \
        } else {                                                                                             \
            check_failed++;                                                                                  \
            fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__,                   \
                    check_h_ ? check_h_ : "(null)", check_n_ ? check_n_ : "(null)");                         \
        }                                                                                                    \
    } while (0)

static inline int check_finish(void)
{
    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}

#endif
