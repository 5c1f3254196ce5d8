/* error.h: the error message buffer every library function of overlapscope fills.
 *
 * Library code (store, analyzer, render, import) never prints and never exits: a function
 * that can fail returns an error status (non-zero int or NULL) and writes one line into
 * the caller's error_info, without trailing newline. Only the CLI prints it, prefixed with
 * "overlapscope: SUBCOMMAND: ". */
#ifndef OVERLAPSCOPE_ERROR_H
#define OVERLAPSCOPE_ERROR_H

typedef struct error_info {
    char message[1024];
} error_info;

/* Formats the message into err (NULL err is allowed and ignored). Always returns -1 so a
 * caller can write `return error_set(err, ...);`. */
int error_set(error_info *err, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* Prefixes an existing message: "context: old message". Returns -1. */
int error_prefix(error_info *err, const char *format, ...) __attribute__((format(printf, 2, 3)));

#endif
