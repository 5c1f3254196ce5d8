/* environment_facts.c: see environment_facts.h. The allow-list below is the only one: add a
 * variable here and in docs/collector.md ("Environment facts"), nowhere else. */
#include "environment_facts.h"

#include <string.h>

#include "host_tables.h"

/* Whole names. Why each matters: the CUDA ones change launch order, queues and loading; the
 * PyTorch ones the caching allocator; the thread counts how busy the host CPUs are. */
static const char *const allowed_names[] = {
    "CUDA_LAUNCH_BLOCKING",     "CUDA_DEVICE_MAX_CONNECTIONS",
    "CUDA_MODULE_LOADING",      "CUDA_VISIBLE_DEVICES",
    "CUDA_DEVICE_ORDER",        "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
    "CUDA_SCALE_LAUNCH_QUEUES", "PYTORCH_CUDA_ALLOC_CONF",
    "PYTORCH_ALLOC_CONF",       "PYTORCH_NO_CUDA_MEMORY_CACHING",
    "CUBLAS_WORKSPACE_CONFIG",  "CUBLASLT_WORKSPACE_SIZE",
    "OMP_NUM_THREADS",          "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",     "TORCH_CUDNN_V8_API_LRU_CACHE_LIMIT",
};

/* Families: NCCL's own variables and PyTorch's for its NCCL process group. */
static const char *const allowed_prefixes[] = {"NCCL_", "TORCH_NCCL_"};

static const char *const secret_words[] = {"TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "KEY"};

static int looks_secret(const char *name)
{
    for (size_t i = 0; i < sizeof secret_words / sizeof secret_words[0]; i++)
        if (strstr(name, secret_words[i]))
            return 1;
    return 0;
}

int environment_facts_allowed(const char *name)
{
    if (!name || !*name || looks_secret(name))
        return 0;
    for (size_t i = 0; i < sizeof allowed_names / sizeof allowed_names[0]; i++)
        if (strcmp(name, allowed_names[i]) == 0)
            return 1;
    for (size_t i = 0; i < sizeof allowed_prefixes / sizeof allowed_prefixes[0]; i++) {
        size_t length = strlen(allowed_prefixes[i]);
        if (strncmp(name, allowed_prefixes[i], length) == 0 && name[length] != '\0')
            return 1;
    }
    return 0;
}

int environment_facts_write(store *trace, int64_t pid, char *const *environment, error_info *err)
{
    int written = 0;
    for (char *const *entry = environment; entry && *entry; entry++) {
        const char *equals = strchr(*entry, '=');
        size_t name_length = equals ? (size_t)(equals - *entry) : 0;
        char name[128];
        if (!equals || name_length == 0 || name_length >= sizeof name)
            continue;
        memcpy(name, *entry, name_length);
        name[name_length] = '\0';
        if (!environment_facts_allowed(name))
            continue;
        char value[ENVIRONMENT_FACTS_MAX_VALUE + 1];
        strncpy(value, equals + 1, ENVIRONMENT_FACTS_MAX_VALUE);
        value[ENVIRONMENT_FACTS_MAX_VALUE] = '\0';
        if (store_insert_environment_variable(trace, pid, name, value, err) != 0)
            return -1;
        written++;
    }
    return written;
}
