/* labels.c: see labels.h. */
#include "labels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "store.h"
#include "units.h"

struct labels {
    sqlite3_stmt *string, *collective;
};

struct labels *labels_new(sqlite3 *db)
{
    struct labels *labels = calloc(1, sizeof *labels);
    if (!labels)
        return NULL;
    if (sqlite3_prepare_v2(db, "SELECT value FROM strings WHERE id = ?1", -1, &labels->string, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT op, bytes FROM collectives WHERE kernel_rowid = ?1 LIMIT 1", -1,
                           &labels->collective, NULL) != SQLITE_OK) {
        labels_free(labels);
        return NULL;
    }
    return labels;
}

void labels_free(struct labels *labels)
{
    if (!labels)
        return;
    sqlite3_finalize(labels->string);
    sqlite3_finalize(labels->collective);
    free(labels);
}

static char *lookup_string(struct labels *labels, int64_t id, char *buffer, size_t size)
{
    buffer[0] = '\0';
    sqlite3_bind_int64(labels->string, 1, id);
    if (sqlite3_step(labels->string) == SQLITE_ROW && sqlite3_column_text(labels->string, 0))
        snprintf(buffer, size, "%s", (const char *)sqlite3_column_text(labels->string, 0));
    sqlite3_reset(labels->string);
    return buffer;
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
    demangle_short_name(lookup_string(labels, interval->detail_b, name, sizeof name), short_name, sizeof short_name);
    if (interval->kind != ANALYSIS_COMMUNICATION) {
        snprintf(buffer, size, "%s", short_name);
        return buffer;
    }
    char operation[64] = "", bytes[32] = "";
    sqlite3_bind_int64(labels->collective, 1, interval->detail_a);
    if (sqlite3_step(labels->collective) == SQLITE_ROW) {
        if (sqlite3_column_text(labels->collective, 0))
            snprintf(operation, sizeof operation, "%s", (const char *)sqlite3_column_text(labels->collective, 0));
        if (sqlite3_column_type(labels->collective, 1) != SQLITE_NULL)
            units_format_bytes(bytes, sizeof bytes, sqlite3_column_int64(labels->collective, 1));
    }
    sqlite3_reset(labels->collective);
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
        return lookup_string(labels, interval->detail_b, buffer, size);
    }
}
