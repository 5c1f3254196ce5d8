/* nccl_names.c: PyTorch collective metadata (see nccl_names.h). */
#include "nccl_names.h"

#include <ctype.h>
#include <stddef.h>
#include <string.h>

const char *nccl_names_op_from_collective(const char *collective_name)
{
    /* Compared without case, underscores or suffixes: PyTorch spells one op many ways
     * (all_gather, _allgather_base, all_gather_into_tensor_coalesced). */
    static const struct {
        const char *prefix, *op;
    } table[] = {{"allreduce", "AllReduce"}, {"allgather", "AllGather"}, {"reducescatter", "ReduceScatter"},
                 {"alltoall", "AllToAll"},   {"broadcast", "Broadcast"}, {"reduce", "Reduce"},
                 {"send", "Send"},           {"recv", "Recv"},           {"barrier", "AllReduce"}};
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

const char *nccl_names_dtype(const char *torch_dtype, int64_t *element_bytes)
{
    /* c10::ScalarType names (c10/core/ScalarType.h) to ncclDataType_t names (nccl.h). */
    static const struct {
        const char *torch, *nccl;
        int bytes;
    } table[] = {{"Float", "f32", 4},
                 {"Half", "f16", 2},
                 {"BFloat16", "bf16", 2},
                 {"Double", "f64", 8},
                 {"Int", "i32", 4},
                 {"Long", "i64", 8},
                 {"Byte", "u8", 1},
                 {"Char", "i8", 1},
                 {"Short", "i16", 2},
                 {"Bool", "u8", 1},
                 {"Float8_e4m3fn", "f8e4m3", 1},
                 {"Float8_e5m2", "f8e5m2", 1},
                 {"UInt32", "u32", 4},
                 {"UInt64", "u64", 8}};
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
