/* gzip_stream.c: see gzip_stream.h. */
#include "gzip_stream.h"

#include <errno.h>
#include <stdlib.h>

#include <zlib.h>

struct gzip_sink {
    z_stream z;
    FILE *file;
    int failed;
};

/* Deflates data (flush: Z_NO_FLUSH, or Z_FINISH at the end) into the file. */
static int gzip_push(struct gzip_sink *sink, const char *data, size_t size, int flush)
{
    unsigned char chunk[1 << 16];
    sink->z.next_in = (Bytef *)data;
    sink->z.avail_in = (uInt)size; /* stdio hands over at most its buffer */
    do {
        sink->z.next_out = chunk;
        sink->z.avail_out = sizeof chunk;
        if (deflate(&sink->z, flush) == Z_STREAM_ERROR)
            return -1;
        size_t have = sizeof chunk - sink->z.avail_out;
        if (have > 0 && fwrite(chunk, 1, have, sink->file) != have)
            return -1;
    } while (sink->z.avail_out == 0);
    return 0;
}

static ssize_t gzip_write(void *cookie, const char *data, size_t size)
{
    struct gzip_sink *sink = cookie;
    if (sink->failed || gzip_push(sink, data, size, Z_NO_FLUSH) != 0) {
        sink->failed = 1;
        errno = EIO;
        return -1;
    }
    return (ssize_t)size;
}

static int gzip_close(void *cookie)
{
    struct gzip_sink *sink = cookie;
    int failed = sink->failed || gzip_push(sink, NULL, 0, Z_FINISH) != 0;
    deflateEnd(&sink->z);
    free(sink);
    return failed ? -1 : 0;
}

/* A stream whose bytes reach file gzip-compressed; fclose writes the end (file stays open).
 * NULL when out of memory. */
FILE *gzip_stream_open(FILE *file)
{
    struct gzip_sink *sink = calloc(1, sizeof *sink);
    /* 15 + 16: a gzip header and trailer around the deflate data (zlib.h, deflateInit2) */
    if (!sink ||
        deflateInit2(&sink->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(sink);
        return NULL;
    }
    sink->file = file;
    FILE *stream = fopencookie(sink, "w", (cookie_io_functions_t){.write = gzip_write, .close = gzip_close});
    if (!stream)
        gzip_close(sink);
    return stream;
}
