/* The collector never stops the workload: loaded as CUDA would load it and initialised with an
 * output folder it cannot write, InitializeInjection still reports success and the program goes
 * on (docs/security.md). Runs without a GPU: recording fails before CUPTI is touched. */
#include <dlfcn.h>
#include <stdlib.h>

#include "check.h"

int main(void)
{
    const char *build = getenv("OVERLAPSCOPE_BUILD_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/collector/liboverlapscope-collector.so", build ? build : ".");
    void *collector = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!collector)
        fprintf(stderr, "%s\n", dlerror());
    CHECK(collector != NULL);
    if (!collector)
        return check_finish();
    int (*initialize)(void) = (int (*)(void))dlsym(collector, "InitializeInjection");
    CHECK(initialize != NULL);
    CHECK(dlsym(collector, "store_create") == NULL); /* the store inside is not exported */
    setenv("OVERLAPSCOPE_OUTPUT_DIR", "/nonexistent/overlapscope/folder", 1);
    if (initialize)
        CHECK_INT(initialize(), 1);
    setenv("OVERLAPSCOPE_OUTPUT_DIR", "/tmp", 1);
    setenv("OVERLAPSCOPE_FLUSH_MS", "not a number", 1); /* bad settings: no recording, no abort */
    if (initialize)
        CHECK_INT(initialize(), 1);
    return check_finish();
}
