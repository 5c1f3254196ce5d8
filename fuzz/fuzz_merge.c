/* fuzz_merge.c: arbitrary bytes as two ranks of one job, merged (issue 33: hostile merges, the
 * same input twice, the umask). The input is written to two files (two inodes: two ranks) and
 * merged: merge must succeed or fail with a message, its output readable by the owner only (the
 * harness runs under umask 077 and the inputs are 0600: never more readable than its inputs). The
 * same file given twice must be refused, whatever it holds. Seeds are real traces (fuzz_store's). */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_harness.h"
#include "merge.h"

static struct fuzz_harness harness;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    umask(077);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char first[160], second[160], output[160];
    fuzz_write_input(&harness, "rank0.db", data, size, 0600, first, sizeof first);
    fuzz_write_input(&harness, "rank1.db", data, size, 0600, second, sizeof second);
    snprintf(output, sizeof output, "%s/merged.db", fuzz_scratch_directory(&harness));
    struct merge_options options = {.force = 1};
    struct clock_alignment alignments[2];
    error_info err = {{0}};
    char *ranks[] = {first, second};
    if (merge_run(output, ranks, 2, &options, alignments, &err) != 0) {
        if (err.message[0] == '\0')
            abort();
    } else {
        struct stat info;
        if (stat(output, &info) != 0 || (info.st_mode & 077) != 0)
            abort(); /* a merged trace more readable than its 0600 inputs */
    }
    char *twice[] = {first, first};
    err.message[0] = '\0';
    if (merge_run(output, twice, 2, &options, alignments, &err) == 0 ||
        !strstr(err.message, "is the same file as"))
        abort(); /* one rank merged twice */
    return 0;
}
