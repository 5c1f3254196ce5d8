/* gzip_stream.h: a stdio stream whose bytes reach a file gzip-compressed, so that an export named
 * OUT.json.gz is what its name says (Perfetto, chrome://tracing and Python's gzip open it; a plain
 * JSON under a .gz name opens nowhere). zlib's deflate with a gzip header and trailer. */
#ifndef OVERLAPSCOPE_GZIP_STREAM_H
#define OVERLAPSCOPE_GZIP_STREAM_H

#include <stdio.h>

/* A stream whose bytes reach file gzip-compressed; fclose writes the gzip end and leaves file
 * open (its owner closes it). NULL when out of memory. */
FILE *gzip_stream_open(FILE *file);

#endif
