/* labels.c: see labels.h. */
#include "labels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "describe.h"
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

char *labels_collective_from_kernel_name(const char *short_name, char *buffer, size_t size)
{
    static const char *const operations[] = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce",
                                             "AllToAll",  "SendRecv",  "Send",          "Recv"};
    buffer[0] = '\0';
    const char *underscore = strchr(short_name, '_');
    if (!underscore)
        return buffer;
    for (size_t i = 0; i < sizeof operations / sizeof operations[0]; i++) {
        size_t length = strlen(operations[i]);
        if (strncmp(underscore + 1, operations[i], length) == 0 &&
            (underscore[1 + length] == '_' || underscore[1 + length] == '\0')) {
            snprintf(buffer, size, "%s", operations[i]);
            break;
        }
    }
    return buffer;
}

static char *kernel_label(struct labels *labels, const struct canvas_interval *interval, char *buffer, size_t size)
{
    char name[512], short_name[256];
    demangle_short_name(store_lookup_string(labels->lookup, interval->detail_b, name, sizeof name), short_name, sizeof short_name);
    if (interval->kind != ANALYSIS_COMMUNICATION) {
        snprintf(buffer, size, "%s", short_name);
        return buffer;
    }
    char operation[64] = "", bytes[32] = "";
    int64_t byte_count = STORE_NULL;
    if (store_lookup_collective(labels->lookup, interval->detail_a, operation, sizeof operation, &byte_count) &&
        byte_count != STORE_NULL)
        units_format_bytes(bytes, sizeof bytes, byte_count);
    if (!operation[0] || strcmp(operation, "Unknown") == 0)
        labels_collective_from_kernel_name(short_name, operation, sizeof operation);
    if (!operation[0])
        snprintf(buffer, size, "%s", short_name);
    else
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
        snprintf(buffer, size, "%s %s%s", store_copy_kind_name(interval->detail_b & 0xFF),
                 units_format_bytes(bytes, sizeof bytes, interval->detail_a),
                 (interval->detail_b >> 8) & 1 ? " (pageable)" : "");
        return buffer;
    case CANVAS_DETAIL_MEMSET:
        snprintf(buffer, size, "memset %s", units_format_bytes(bytes, sizeof bytes, interval->detail_a));
        return buffer;
    default:
        return store_lookup_string(labels->lookup, interval->detail_b, buffer, size);
    }
}
