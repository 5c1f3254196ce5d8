/* call_site_cupti.c: see call_site_cupti.h. */
#include "call_site_cupti.h"

#include <string.h>

#include "cuda_api.h"

static void classify(unsigned char *table, CUpti_CallbackDomain domain, CUpti_CallbackId end)
{
    for (CUpti_CallbackId id = 1; id < end; id++) {
        const char *name = NULL;
        table[id] = cuptiGetCallbackName(domain, id, &name) == CUPTI_SUCCESS && cuda_api_blocks_host(name);
    }
}

void call_site_cupti_init(struct call_site_cupti *blocking, int runtime_recorded, int driver_recorded)
{
    memset(blocking, 0, sizeof *blocking);
    if (runtime_recorded)
        classify(blocking->runtime, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE);
    if (driver_recorded)
        classify(blocking->driver, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE);
}

int call_site_cupti_ids(const struct call_site_cupti *blocking, CUpti_CallbackDomain domain,
                        CUpti_CallbackId *ids, int capacity)
{
    int runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
    const unsigned char *table = runtime ? blocking->runtime : blocking->driver;
    CUpti_CallbackId end = runtime ? CUPTI_RUNTIME_TRACE_CBID_SIZE : CUPTI_DRIVER_TRACE_CBID_SIZE;
    int count = 0;
    for (CUpti_CallbackId id = 1; id < end && count < capacity; id++)
        if (table[id])
            ids[count++] = id;
    return count;
}

void call_site_cupti_on_api(const struct call_site_cupti *blocking, struct call_site *sites,
                            CUpti_CallbackDomain domain, CUpti_CallbackId id, const CUpti_CallbackData *call)
{
    int runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
    if (!runtime && domain != CUPTI_CB_DOMAIN_DRIVER_API)
        return;
    if (runtime ? id >= CUPTI_RUNTIME_TRACE_CBID_SIZE : id >= CUPTI_DRIVER_TRACE_CBID_SIZE)
        return;
    if (!(runtime ? blocking->runtime[id] : blocking->driver[id]))
        return;
    if (call->callbackSite == CUPTI_API_ENTER)
        call_site_enter(sites, call->correlationId);
    else
        call_site_exit(sites);
}
