/* The collector never stops the workload: loaded as CUDA would load it and initialised with an
 * output folder it cannot write, InitializeInjection still reports success and the program goes
 * on (docs/security.md). Runs without a GPU: recording fails before CUPTI is touched. Also: the
 * library exports NVTX's injection entry and forwards it to its own libcupti. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

/* NVTX's export-table getter; CUPTI asks it for tables only when NVTX is first used. */
static const void *no_export_table(uint32_t export_table_id)
{
    (void)export_table_id;
    return NULL;
}

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
    /* NVTX_INJECTION64_PATH names the collector: its InitializeInjectionNvtx2 hands NVTX to the
     * libcupti the collector is linked to (1 is CUPTI's answer; the collector's own failure, no
     * such libcupti symbol, would be 0). */
    int (*initialize_nvtx)(const void *(*)(uint32_t)) =
        (int (*)(const void *(*)(uint32_t)))dlsym(collector, "InitializeInjectionNvtx2");
    CHECK(initialize_nvtx != NULL);
    if (initialize_nvtx)
        CHECK_INT(initialize_nvtx(no_export_table), 1);
    setenv("OVERLAPSCOPE_OUTPUT_DIR", "/nonexistent/overlapscope/folder", 1);
    if (initialize)
        CHECK_INT(initialize(), 1);
    setenv("OVERLAPSCOPE_OUTPUT_DIR", "/tmp", 1);
    setenv("OVERLAPSCOPE_FLUSH_MS", "not a number", 1); /* bad settings: no recording, no abort */
    if (initialize)
        CHECK_INT(initialize(), 1);
    return check_finish();
}
