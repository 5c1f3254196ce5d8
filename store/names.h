/* names.h: the strings of one import shared among processes that each import a block of its files
 * (cli/mpi_driver.c: `report --mpi` on rank files). The import of a whole folder numbers processes
 * and strings in the order of the files; a process that imports only its block gives the same ids
 * when its store first holds the strings of every file before its block and numbers its first
 * process after theirs. So each process, with its files read into parts (parts.h): takes the
 * strings of the processes before it (store_names_take, from the process before), adds those of
 * its parts (store_names_append, the strings alone: cheap, the chain's serial step), passes the sum
 * on (store_names_give), then appends its parts (store_append_part) at its own pace. Rowids stay
 * each store's own: no analysis compares those of two processes. */
#ifndef OVERLAPSCOPE_NAMES_H
#define OVERLAPSCOPE_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

/* The strings of trace in id order, as bytes (each: its id as a little-endian int64, its length
 * as a little-endian uint32, its bytes) into *bytes (the caller frees it). Returns 0, or -1 with
 * err filled. */
int store_names_give(store *trace, unsigned char **bytes, size_t *size, error_info *err);

/* Puts the strings of bytes (store_names_give's) into trace under their ids, those it holds
 * already kept, and has trace give its next process an id of at least next_process_id. Returns 0,
 * or -1 with err filled: damaged bytes, or a string trace holds under another id (the processes
 * did not import one folder's files in order). */
int store_names_take(store *trace, const unsigned char *bytes, size_t size, int64_t next_process_id,
                     error_info *err);

/* Adds the strings of the part at part_path that trace lacks, numbered as store_append_part will
 * number them, and the count of its processes to *processes (the caller adds them to the next
 * process id it passes on); none of its rows. Returns 0, or -1 with err
 * filled. */
int store_names_append(store *trace, const char *part_path, int64_t *processes, error_info *err);

#endif
