/* labels.c: see labels.h. */
#include "labels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "describe.h"
#include "kernel_name.h"
#include "naming.h"
#include "store.h"
#include "units.h"

struct labels {
    store_lookup *lookup;
};

struct labels *labels_new(store *trace)
{
    struct labels *labels = calloc(1, sizeof *labels);
    error_info err;
    if (labels && !(labels->lookup = store_lookup_new(trace, &err))) {
        free(labels);
        return NULL;
    }
    return labels;
}

void labels_free(struct labels *labels)
{
    if (!labels)
        return;
    store_lookup_free(labels->lookup);
    free(labels);
}

/* A kernel's short name (common/kernel_name.h, as the report prints it); an NCCL kernel the
 * collectives table describes says its operation and size instead ("AllReduce 4.0 MiB"). */
static char *kernel_label(struct labels *labels, const struct canvas_interval *interval, char *buffer,
                          size_t size)
{
    char name[8192]; /* whole: a mangled name cut short no longer demangles */
    kernel_name_short(store_lookup_string(labels->lookup, interval->detail_b, name, sizeof name), buffer,
                      size);
    if (interval->kind != ANALYSIS_COMMUNICATION)
        return buffer;
    char operation[64] = "", bytes[32] = "";
    int64_t byte_count = STORE_NULL;
    if (store_lookup_collective(labels->lookup, interval->detail_a, operation, sizeof operation,
                                &byte_count) &&
        byte_count != STORE_NULL)
        units_format_bytes(bytes, sizeof bytes, byte_count);
    if (operation[0] && strcmp(operation, "Unknown") != 0)
        snprintf(buffer, size, "%s%s%s", operation, bytes[0] ? " " : "", bytes);
    return buffer;
}

char *labels_text(struct labels *labels, const struct canvas_interval *interval, char *buffer, size_t size)
{
    char bytes[32];
    switch (interval->detail) {
    case CANVAS_DETAIL_KERNEL:
        return kernel_label(labels, interval, buffer, size);
    case CANVAS_DETAIL_MEMCPY:
        return naming_copy(buffer, size, interval->detail_b & 0xFF, interval->detail_a,
                           (interval->detail_b >> 8) & 1);
    case CANVAS_DETAIL_MEMSET:
        snprintf(buffer, size, "memset %s", units_format_bytes(bytes, sizeof bytes, interval->detail_a));
        return buffer;
    default:
        return store_lookup_string(labels->lookup, interval->detail_b, buffer, size);
    }
}
