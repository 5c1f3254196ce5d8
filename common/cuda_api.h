/* cuda_api.h: what a CUDA runtime or driver API call is, by its name: the one home of the rules
 * that say which calls launch work, copy, synchronize, allocate or touch events and streams.
 *
 * Two users share it so that they cannot disagree: the collector records, by default, exactly the
 * calls that some class below names (cuda_api_recorded_by_default: CUPTI's per-callback-id
 * activity switches), and the analyzer proves its host-side causes from those same classes
 * (cuda_api_is_synchronizing, cuda_api_blocks_host). A call the analyzer reads must therefore be in
 * a class, or the default recording would drop the evidence for it.
 *
 * Names are CUPTI's callback names with or without the runtime's version suffix
 * ("cudaLaunchKernel_v7000", "cudaLaunchKernel", "cudaMemcpyAsync_ptsz", "cuMemcpyHtoDAsync_v2") and
 * the names other profilers store (Kineto and nsys keep the same function names). Pure C, no
 * state. docs/collector.md, "API records", lists each class with the analysis rule that reads it. */
#ifndef OVERLAPSCOPE_CUDA_API_H
#define OVERLAPSCOPE_CUDA_API_H

enum cuda_api_class {
    CUDA_API_OTHER = 0,   /* cudaGetDevice, cuCtxGetCurrent, cudaGetLastError, ...: not recorded by default */
    CUDA_API_LAUNCH,      /* kernels, cooperative kernels, graphs, host functions (runtime and driver) */
    CUDA_API_COPY,        /* cudaMemcpy*, cuMemcpy*: sync and async */
    CUDA_API_MEMSET,      /* cudaMemset*, cuMemset* */
    CUDA_API_SYNC,        /* device/context, stream and event synchronize */
    CUDA_API_STREAM_WAIT, /* cudaStreamWaitEvent, cuStreamWaitEvent, cuStreamWaitValue* */
    CUDA_API_EVENT,       /* event record, event and stream query */
    CUDA_API_ALLOC,       /* device, managed, pitched, pooled and pinned host allocation */
    CUDA_API_FREE,        /* their frees */
    CUDA_API_HOST_REGISTER, /* cudaHostRegister / cuMemHostRegister and their unregister */
    CUDA_API_STREAM,        /* stream create (with flags, with priority), destroy, priority queries */
    CUDA_API_CLASS_COUNT
};

/* The class of a call by name; CUDA_API_OTHER for NULL or an unknown name. */
enum cuda_api_class cuda_api_classify(const char *name);

/* A short lower-case word for a class ("launch", "copy", ...), for docs, warnings and tests. */
const char *cuda_api_class_name(enum cuda_api_class api_class);

/* 1 when the default recording keeps this call: every class but CUDA_API_OTHER. */
int cuda_api_recorded_by_default(const char *name);

/* 1 for a call that waits for the device before returning (CUDA Runtime API, "API synchronization
 * behavior"; cudaMalloc/cudaFree and the driver's cuMemAlloc/cuMemFree synchronize the device,
 * their stream-ordered ...Async forms and graph memory nodes do not). */
int cuda_api_is_synchronizing(const char *name);

/* The synchronization record type a call makes (CUpti_ActivitySynchronizationType, as
 * store.h's STORE_SYNC_*: 1 event synchronize, 2 stream wait event, 3 stream synchronize, 4 context
 * synchronize), 0 for a call that makes none. Importers check exported types against it (nsys
 * 2024.5 writes cudaDeviceSynchronize's as 1). */
int cuda_api_sync_type(const char *name);

/* 1 for a call that holds the calling thread until GPU work ends: a synchronizing call or a
 * synchronous copy (synchronous memsets return early: same section). */
int cuda_api_blocks_host(const char *name);

#endif
