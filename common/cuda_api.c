/* cuda_api.c: the classes of CUDA API calls by name (cuda_api.h says who relies on them). */
#include "cuda_api.h"

#include <string.h>

static int has(const char *name, const char *part)
{
    return strstr(name, part) != NULL;
}

static int starts(const char *name, const char *prefix)
{
    return strncmp(name, prefix, strlen(prefix)) == 0;
}

/* CUDA 13 nvcc stubs call __cudaLaunchKernel; the driver's 64-bit aliases are cu64Mem...; graph
 * memory nodes (cudaGraphAddMemAllocNode, ...) name Alloc/Free without allocating anything now. */
static int is_alloc(const char *name)
{
    return !has(name, "Graph") && (has(name, "Malloc") || has(name, "MemAlloc") || has(name, "HostAlloc"));
}

static int is_free(const char *name)
{
    return !has(name, "Graph") && (starts(name, "cudaFree") || has(name, "MemFree"));
}

enum cuda_api_class cuda_api_classify(const char *name)
{
    if (!name || !*name)
        return CUDA_API_OTHER;
    if (has(name, "cudaLaunch") || starts(name, "cuLaunch") || has(name, "GraphLaunch"))
        return CUDA_API_LAUNCH;
    if (has(name, "Memcpy"))
        return CUDA_API_COPY;
    if (has(name, "Memset"))
        return CUDA_API_MEMSET;
    if (has(name, "Synchronize"))
        return CUDA_API_SYNC;
    if (has(name, "StreamWaitEvent") || has(name, "StreamWaitValue"))
        return CUDA_API_STREAM_WAIT;
    if (has(name, "EventRecord") || has(name, "EventQuery") || has(name, "StreamQuery"))
        return CUDA_API_EVENT;
    if (is_alloc(name))
        return CUDA_API_ALLOC;
    if (is_free(name))
        return CUDA_API_FREE;
    if (has(name, "HostRegister") || has(name, "HostUnregister"))
        return CUDA_API_HOST_REGISTER;
    if (has(name, "StreamCreate") || has(name, "StreamDestroy") || has(name, "StreamGetPriority") ||
        has(name, "GetStreamPriorityRange"))
        return CUDA_API_STREAM;
    return CUDA_API_OTHER;
}

const char *cuda_api_class_name(enum cuda_api_class api_class)
{
    static const char *const names[CUDA_API_CLASS_COUNT] = {"other", "launch",        "copy",  "memset",
                                                            "sync",  "stream-wait",   "event", "alloc",
                                                            "free",  "host-register", "stream"};
    return api_class >= 0 && api_class < CUDA_API_CLASS_COUNT ? names[api_class] : "other";
}

int cuda_api_recorded_by_default(const char *name)
{
    return cuda_api_classify(name) != CUDA_API_OTHER;
}

int cuda_api_is_synchronizing(const char *name)
{
    switch (cuda_api_classify(name)) {
    case CUDA_API_SYNC:
        return 1;
    case CUDA_API_ALLOC:
    case CUDA_API_FREE:
        /* cudaHostAlloc/cuMemHostAlloc do not wait for the device (they never did in our rule);
         * cudaMallocHost and cuMemAllocHost do. */
        return !has(name, "Async") && !has(name, "HostAlloc");
    default:
        return 0;
    }
}

int cuda_api_blocks_host(const char *name)
{
    return cuda_api_is_synchronizing(name) ||
           (cuda_api_classify(name) == CUDA_API_COPY && !has(name, "Async"));
}

int cuda_api_sync_type(const char *name)
{
    if (!name)
        return 0;
    if (has(name, "EventSynchronize"))
        return 1;
    if (has(name, "StreamWaitEvent"))
        return 2;
    if (has(name, "StreamSynchronize"))
        return 3;
    if (has(name, "DeviceSynchronize") || has(name, "ThreadSynchronize") || has(name, "CtxSynchronize"))
        return 4;
    return 0;
}
