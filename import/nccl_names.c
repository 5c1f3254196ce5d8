/* nccl_names.c: NCCL kernel names and PyTorch collective metadata (see nccl_names.h). */
#include "nccl_names.h"

#include <ctype.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

int nccl_names_is_nccl_kernel(const char *kernel_name)
{
    return kernel_name && strncasecmp(kernel_name, "nccl", 4) == 0;
}

/* The text after the first '_' up to the next '_' or '(' ("AllReduce" in ncclKernel_AllReduce_...). */
static size_t op_token(const char *kernel_name, const char **token)
{
    const char *underscore = strchr(kernel_name, '_');
    if (!underscore) {
        *token = NULL;
        return 0;
    }
    *token = underscore + 1;
    return strcspn(*token, "_(< ");
}

const char *nccl_names_op_from_kernel(const char *kernel_name)
{
    static const char *const ops[] = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce",
                                      "SendRecv",  "Send",      "Recv",          "AllToAll"};
    if (!nccl_names_is_nccl_kernel(kernel_name))
        return "Unknown";
    const char *token;
    size_t length = op_token(kernel_name, &token);
    for (size_t i = 0; token && i < sizeof ops / sizeof ops[0]; i++)
        if (strlen(ops[i]) == length && strncmp(token, ops[i], length) == 0)
            return ops[i];
    return "Unknown";
}

const char *nccl_names_op_from_collective(const char *collective_name)
{
    /* Compared without case, underscores or suffixes: PyTorch spells one op many ways
     * (all_gather, _allgather_base, all_gather_into_tensor_coalesced). */
    static const struct {
        const char *prefix, *op;
    } table[] = {{"allreduce", "AllReduce"},   {"allgather", "AllGather"}, {"reducescatter", "ReduceScatter"},
                 {"alltoall", "AllToAll"},     {"broadcast", "Broadcast"}, {"reduce", "Reduce"},
                 {"send", "Send"},             {"recv", "Recv"},           {"barrier", "AllReduce"}};
    if (!collective_name)
        return "Unknown";
    char normal[64];
    size_t length = 0;
    for (const char *p = collective_name; *p && length + 1 < sizeof normal; p++)
        if (*p != '_')
            normal[length++] = (char)tolower((unsigned char)*p);
    normal[length] = '\0';
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strncmp(normal, table[i].prefix, strlen(table[i].prefix)) == 0)
            return table[i].op;
    return "Unknown";
}

/* True when word appears in name as a whole '_'-delimited token. */
static int has_token(const char *name, const char *word)
{
    size_t length = strlen(word);
    for (const char *p = strstr(name, word); p; p = strstr(p + 1, word)) {
        int starts = p == name || p[-1] == '_';
        char after = p[length];
        int ends = after == '\0' || after == '_' || after == '(' || after == ' ' || after == '<';
        if (starts && ends)
            return 1;
    }
    return 0;
}

const char *nccl_names_algorithm(const char *kernel_name)
{
    static const char *const algorithms[] = {"COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS_TREE", "NVLS",
                                             "RING",           "TREE",          "PAT"};
    if (!nccl_names_is_nccl_kernel(kernel_name))
        return NULL;
    for (size_t i = 0; i < sizeof algorithms / sizeof algorithms[0]; i++)
        if (has_token(kernel_name, algorithms[i]))
            return algorithms[i];
    return NULL;
}

const char *nccl_names_protocol(const char *kernel_name)
{
    static const char *const protocols[] = {"LL128", "LL", "SIMPLE"};
    if (!nccl_names_is_nccl_kernel(kernel_name))
        return NULL;
    for (size_t i = 0; i < sizeof protocols / sizeof protocols[0]; i++)
        if (has_token(kernel_name, protocols[i]))
            return protocols[i];
    return NULL;
}

const char *nccl_names_dtype(const char *torch_dtype, int64_t *element_bytes)
{
    /* c10::ScalarType names (c10/core/ScalarType.h) to ncclDataType_t names (nccl.h). */
    static const struct {
        const char *torch, *nccl;
        int bytes;
    } table[] = {{"Float", "f32", 4},           {"Half", "f16", 2},          {"BFloat16", "bf16", 2},
                 {"Double", "f64", 8},          {"Int", "i32", 4},           {"Long", "i64", 8},
                 {"Byte", "u8", 1},             {"Char", "i8", 1},           {"Short", "i16", 2},
                 {"Bool", "u8", 1},             {"Float8_e4m3fn", "f8e4m3", 1}, {"Float8_e5m2", "f8e5m2", 1},
                 {"UInt32", "u32", 4},          {"UInt64", "u64", 8}};
    *element_bytes = 0;
    if (!torch_dtype)
        return NULL;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(torch_dtype, table[i].torch) == 0 || strcmp(torch_dtype, table[i].nccl) == 0) {
            *element_bytes = table[i].bytes;
            return table[i].nccl;
        }
    }
    return torch_dtype;
}
