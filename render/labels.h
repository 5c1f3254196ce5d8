/* labels.h: the text written on a kept interval: a kernel's short name, a collective's
 * operation and size ("AllReduce 4.0 MiB"), a copy's direction and size ("HtoD 64.0 MiB
 * (pageable)"), an API call's or NVTX range's name. Looked up in the trace only for the
 * intervals wide enough to carry text. */
#ifndef OVERLAPSCOPE_LABELS_H
#define OVERLAPSCOPE_LABELS_H

#include <sqlite3.h>
#include <stddef.h>

#include "canvas.h"

struct labels;

/* Prepares the lookups on db. Returns NULL when out of memory or the trace lacks a table.
 * Free with labels_free. */
struct labels *labels_new(store *trace);
void labels_free(struct labels *labels);

/* Writes the label of interval into buffer and returns buffer ("" when there is nothing). */
char *labels_text(struct labels *labels, const struct canvas_interval *interval, char *buffer, size_t size);

#endif
