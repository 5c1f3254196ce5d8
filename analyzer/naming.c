/* naming.c: see naming.h. */
#include "naming.h"

#include <inttypes.h>
#include <stdio.h>

#include "store.h"
#include "units.h"

char *naming_copy(char *buffer, size_t size, int64_t copy_kind, int64_t bytes, int pageable)
{
    char formatted[32];
    snprintf(buffer, size, "%s %s%s", store_copy_kind_name(copy_kind),
             units_format_bytes(formatted, sizeof formatted, bytes), pageable ? " (pageable)" : "");
    return buffer;
}

char *naming_process(char *buffer, size_t size, int64_t rank, int64_t pid, int64_t process_id)
{
    if (rank >= 0)
        snprintf(buffer, size, "rank %" PRId64, rank);
    else if (pid >= 0)
        snprintf(buffer, size, "pid %" PRId64, pid);
    else
        snprintf(buffer, size, "process %" PRId64, process_id);
    return buffer;
}

char *naming_accounting(char *buffer, size_t size, enum accounting_cause cause, const char *label)
{
    return accounting_cause_name(buffer, size, cause, label);
}
