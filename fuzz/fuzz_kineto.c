/* fuzz_kineto.c: arbitrary bytes through the streaming JSON reader and the Kineto importer.
 * Any input must end in success or a one-line error: never a crash, a leak or undefined
 * behaviour (ASan, UBSan). */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_harness.h"
#include "kineto.h"

static struct fuzz_harness harness;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    store *output = fuzz_output_store(&harness);
    error_info err;
    if (kineto_import_memory(output, data, size, "fuzz.json", &err) != 0 && err.message[0] == '\0')
        abort(); /* a failure must say why */
    return 0;
}
