/* fragment_wire.h: devices' fragments (analysis_parts.h) as bytes, for the processes that share
 * one analysis (analysis_share in analysis.h): what a process walked travels to process 0, which
 * merges it as if its own thread had walked it.
 *
 * The format, version FRAGMENT_WIRE_VERSION: a header (the 4 bytes "OSFW", the version, the layout
 * fingerprint, the fragment count; each number a little-endian uint64), then each fragment: its
 * scalars as uint64, each array as its count followed by its records. A record is a plain struct of
 * the analyzer (a lane, a device, an interval, a kept wait, a bucket of the books) in the layout of
 * this build; every pointer in one is written as zero and what it points to follows as an array of
 * its own, a text (an entry's evidence, a bucket's detail, label and source: held at their length)
 * as its length, or UINT64_MAX for none, and its bytes right after its record (version 3: a
 * bucket's label and source too). The processes of one MPI job run one
 * build: the fingerprint (the records' sizes) refuses bytes of another, and the reader checks every count
 * against the bytes left, so damaged bytes are an error, never a read past the end. */
#ifndef OVERLAPSCOPE_FRAGMENT_WIRE_H
#define OVERLAPSCOPE_FRAGMENT_WIRE_H

#include <stddef.h>

#include "analysis_parts.h"

#define FRAGMENT_WIRE_VERSION 3

/* Bytes being written; zero it before the first call. */
struct fragment_wire {
    unsigned char *bytes; /* owned: free() it */
    size_t size, capacity;
    int failed; /* out of memory: the bytes are incomplete */
};

/* Writes the header of count fragments, then each with fragment_wire_put. Return 0, or -1 when out
 * of memory. */
int fragment_wire_begin(struct fragment_wire *wire, size_t count);
int fragment_wire_put(struct fragment_wire *wire, const struct device_fragment *fragment);

/* Reads one header at *offset of bytes: *count its fragments. Returns 0, or -1 with err filled. */
int fragment_wire_open(const unsigned char *bytes, size_t size, size_t *offset, size_t *count,
                       error_info *err);
/* Reads the fragment at *offset into out (zeroed first; the caller frees it with
 * device_fragment_free, also after a failure), moving *offset past it. Returns 0, or -1 with err
 * filled. */
int fragment_wire_get(const unsigned char *bytes, size_t size, size_t *offset, struct device_fragment *out,
                      error_info *err);

#endif
