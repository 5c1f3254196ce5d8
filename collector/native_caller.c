/* native_caller.c: see native_caller.h. */
#include "native_caller.h"

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MAX_NATIVE_FRAMES 64

void native_caller_prepare(void)
{
    void *frames[2];
    backtrace(frames, 2);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* CUDA's own libraries and CUPTI's (cupti_callbacks.h: callbacks run on the calling thread, inside
 * the API call). */
static int is_cuda_library(const char *name)
{
    static const char *const prefixes[] = {"libcuda.", "libcudart", "libcupti", "libnvperf", "libcuda-"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

int native_caller_describe(char *source, size_t size)
{
    void *frames[MAX_NATIVE_FRAMES];
    int count = backtrace(frames, MAX_NATIVE_FRAMES);
    Dl_info self;
    if (!dladdr((void *)native_caller_describe, &self))
        return 0;
    /* Frames before the first of this object are the unwinder's (or a sanitizer's interceptor);
     * then come this object's own, CUPTI's and CUDA's, then the caller. */
    int seen_self = 0;
    for (int i = 0; i < count; i++) {
        /* a return address may lie just past a function's end (a call as its last instruction):
         * the call itself is one byte before it */
        uintptr_t return_address = (uintptr_t)frames[i];
        Dl_info info;
        if (!dladdr((void *)(return_address - 1), &info) || !info.dli_fbase)
            continue;
        if (info.dli_fbase == self.dli_fbase) {
            seen_self = 1;
            continue;
        }
        const char *object =
            info.dli_fname && info.dli_fname[0] ? base_name(info.dli_fname) : program_invocation_short_name;
        if (!seen_self || is_cuda_library(object))
            continue;
        if (info.dli_sname && info.dli_saddr)
            snprintf(source, size, "%s+0x%lx (%s)", info.dli_sname,
                     (unsigned long)(return_address - (uintptr_t)info.dli_saddr), object);
        else
            snprintf(source, size, "%s+0x%lx", object,
                     (unsigned long)(return_address - (uintptr_t)info.dli_fbase));
        return 1;
    }
    return 0;
}
