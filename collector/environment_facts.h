/* environment_facts.h: the environment variables that change how CUDA, NCCL and PyTorch schedule
 * work, kept per recorded process in the trace's process_environment table (store/host_tables.h)
 * so that a cause can be proved from them (CUDA_LAUNCH_BLOCKING=1 serializes every launch;
 * PYTORCH_NO_CUDA_MEMORY_CACHING=1 turns each tensor into a cudaMalloc and a cudaFree).
 *
 * Only variables of the one allow-list in environment_facts.c (documented in docs/collector.md,
 * "Environment facts") are ever stored: an environment holds tokens and passwords, and a trace is
 * a file people share. A name matching the list that still looks like a secret (it contains
 * TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL or KEY) is refused too. Pure C, no CUDA. */
#ifndef OVERLAPSCOPE_ENVIRONMENT_FACTS_H
#define OVERLAPSCOPE_ENVIRONMENT_FACTS_H

#include <stdint.h>

#include "error.h"
#include "store.h"

#define ENVIRONMENT_FACTS_MAX_VALUE 1024 /* bytes of a value kept; longer ones are cut */

/* 1 when a variable of this name may be stored, 0 otherwise. */
int environment_facts_allowed(const char *name);

/* Writes the allowed variables of environment ("NAME=VALUE" strings, NULL-terminated, as
 * `environ`) into trace for pid. Returns how many were written, or -1 with err filled. */
int environment_facts_write(store *trace, int64_t pid, char *const *environment, error_info *err);

#endif
