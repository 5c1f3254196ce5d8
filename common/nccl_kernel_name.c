/* nccl_kernel_name.c: reading NCCL kernel names of every NCCL version (see nccl_kernel_name.h).
 *
 * The vocabularies below come from NCCL's src/device/generate.py (2.19+: ncclDevKernel_<Op>_<RedOp>
 * _<type>_<ALGO>_<PROTO>), src/collectives/device/common.h (2.8-2.18: ncclKernel_<Op>_<ALGO>
 * _<PROTO>_<RedOp>_<C type>) and the 2.3-2.7 macro names (nccl<Op><Algo><Proto>Kernel_<op>_<type>). */
#include "nccl_kernel_name.h"

#include <stdlib.h>
#include <string.h>

struct word {
    const char *spelling;
    const char *meaning;
};

enum field { FIELD_OP, FIELD_REDUCTION, FIELD_DTYPE, FIELD_ALGORITHM, FIELD_PROTOCOL, FIELD_IGNORED };

struct vocabulary_entry {
    const char *spelling;
    enum field field;
    const char *meaning;
};

/* Longer spellings first where one is a prefix of another ("ReduceScatter" before "Reduce",
 * "LL128" before "LL", "NVLS_TREE" before "NVLS"): the first whole-word match wins. */
static const struct vocabulary_entry underscore_vocabulary[] = {
    {"AllReduce", FIELD_OP, "AllReduce"},
    {"AllGather", FIELD_OP, "AllGather"},
    {"ReduceScatter", FIELD_OP, "ReduceScatter"},
    {"Reduce", FIELD_OP, "Reduce"},
    {"Broadcast", FIELD_OP, "Broadcast"},
    {"SendRecv", FIELD_OP, "SendRecv"},
    {"AllToAll", FIELD_OP, "AllToAll"},
    {"Generic", FIELD_IGNORED, NULL},
    {"PreMulSum", FIELD_REDUCTION, "PreMulSum"},
    {"SumPostDiv", FIELD_REDUCTION, "SumPostDiv"},
    {"Sum", FIELD_REDUCTION, "Sum"},
    {"Prod", FIELD_REDUCTION, "Prod"},
    {"Min", FIELD_REDUCTION, "Min"},
    {"Max", FIELD_REDUCTION, "Max"},
    {"COLLNET_DIRECT", FIELD_ALGORITHM, "COLLNET_DIRECT"},
    {"COLLNET_CHAIN", FIELD_ALGORITHM, "COLLNET_CHAIN"},
    {"COLLNET", FIELD_ALGORITHM, "COLLNET"},
    {"NVLS_TREE", FIELD_ALGORITHM, "NVLS_TREE"},
    {"NVLS", FIELD_ALGORITHM, "NVLS"},
    {"RING", FIELD_ALGORITHM, "RING"},
    {"TREE", FIELD_ALGORITHM, "TREE"},
    {"PAT", FIELD_ALGORITHM, "PAT"},
    {"LL128", FIELD_PROTOCOL, "LL128"},
    {"LL", FIELD_PROTOCOL, "LL"},
    {"SIMPLE", FIELD_PROTOCOL, "SIMPLE"},
    /* 2.19+ short type names */
    {"i8", FIELD_DTYPE, "i8"},
    {"u8", FIELD_DTYPE, "u8"},
    {"i32", FIELD_DTYPE, "i32"},
    {"u32", FIELD_DTYPE, "u32"},
    {"i64", FIELD_DTYPE, "i64"},
    {"u64", FIELD_DTYPE, "u64"},
    {"f16", FIELD_DTYPE, "f16"},
    {"f32", FIELD_DTYPE, "f32"},
    {"f64", FIELD_DTYPE, "f64"},
    {"bf16", FIELD_DTYPE, "bf16"},
    {"f8e4m3", FIELD_DTYPE, "f8e4m3"},
    {"f8e5m2", FIELD_DTYPE, "f8e5m2"},
    /* 2.8-2.18 C type names */
    {"int8_t", FIELD_DTYPE, "i8"},
    {"uint8_t", FIELD_DTYPE, "u8"},
    {"int32_t", FIELD_DTYPE, "i32"},
    {"uint32_t", FIELD_DTYPE, "u32"},
    {"int64_t", FIELD_DTYPE, "i64"},
    {"uint64_t", FIELD_DTYPE, "u64"},
    {"half", FIELD_DTYPE, "f16"},
    {"float", FIELD_DTYPE, "f32"},
    {"double", FIELD_DTYPE, "f64"},
    {"__nv_bfloat16", FIELD_DTYPE, "bf16"},
    {"__nv_fp8_e4m3", FIELD_DTYPE, "f8e4m3"},
    {"__nv_fp8_e5m2", FIELD_DTYPE, "f8e5m2"},
};

static void assign(struct nccl_kernel_info *info, enum field field, const char *meaning)
{
    switch (field) {
    case FIELD_OP:
        info->op = meaning;
        break;
    case FIELD_REDUCTION:
        info->reduction = meaning;
        break;
    case FIELD_DTYPE:
        info->dtype = meaning;
        break;
    case FIELD_ALGORITHM:
        info->algorithm = meaning;
        break;
    case FIELD_PROTOCOL:
        info->protocol = meaning;
        break;
    case FIELD_IGNORED:
        break;
    }
}

/* Copies the function's identifier out of a mangled (_Z<length><identifier>...) or demangled
 * ("void f(args)", "f<T>(args)") name. Returns 0 when there is none. */
static int extract_identifier(const char *name, char *identifier, size_t size)
{
    if (strncmp(name, "void ", 5) == 0)
        name += 5;
    size_t length;
    if (name[0] == '_' && name[1] == 'Z') {
        char *after_digits;
        unsigned long declared = strtoul(name + 2, &after_digits, 10);
        if (after_digits == name + 2 || declared == 0 || strnlen(after_digits, declared) < declared)
            return 0;
        name = after_digits;
        length = declared;
    } else {
        length = strcspn(name, "(<");
    }
    if (length == 0 || length >= size)
        return 0;
    memcpy(identifier, name, length);
    identifier[length] = '\0';
    return 1;
}

/* ncclDevKernel_... and ncclKernel_...: words separated by '_' in any order. */
static void parse_underscore_words(const char *words, struct nccl_kernel_info *info)
{
    const size_t entries = sizeof underscore_vocabulary / sizeof underscore_vocabulary[0];
    const char *position = words;
    while (*position) {
        size_t matched = 0;
        for (size_t i = 0; i < entries; i++) {
            size_t length = strlen(underscore_vocabulary[i].spelling);
            if (strncmp(position, underscore_vocabulary[i].spelling, length) == 0 &&
                (position[length] == '_' || position[length] == '\0')) {
                assign(info, underscore_vocabulary[i].field, underscore_vocabulary[i].meaning);
                matched = length;
                break;
            }
        }
        if (!matched)
            matched = strcspn(position, "_");
        position += matched;
        if (*position == '_')
            position++;
    }
}

/* Takes the longest word of table that starts text (case-sensitive); returns its length. */
static size_t take_prefix(const char *text, const struct word *table, size_t count, const char **meaning)
{
    size_t best = 0;
    for (size_t i = 0; i < count; i++) {
        size_t length = strlen(table[i].spelling);
        if (length > best && strncmp(text, table[i].spelling, length) == 0) {
            best = length;
            *meaning = table[i].meaning;
        }
    }
    return best;
}

/* nccl<Op><Algo><Proto>Kernel_<redop>_<type> (NCCL 2.3-2.7). */
static int parse_camel_case(const char *identifier, struct nccl_kernel_info *info)
{
    static const struct word ops[] = {{"AllReduce", "AllReduce"},         {"AllGather", "AllGather"},
                                      {"ReduceScatter", "ReduceScatter"}, {"Reduce", "Reduce"},
                                      {"Broadcast", "Broadcast"},         {"SendRecv", "SendRecv"}};
    static const struct word algorithms[] = {{"Ring", "RING"}, {"Tree", "TREE"}, {"CollNet", "COLLNET"}};
    static const struct word protocols[] = {{"LL128", "LL128"}, {"LL", "LL"}};
    static const struct word reductions[] = {
        {"sum", "Sum"}, {"prod", "Prod"}, {"min", "Min"}, {"max", "Max"}};
    const char *text = identifier + 4;
    size_t length = take_prefix(text, ops, sizeof ops / sizeof ops[0], &info->op);
    if (!length)
        return 0;
    text += length;
    text += take_prefix(text, algorithms, sizeof algorithms / sizeof algorithms[0], &info->algorithm);
    text += take_prefix(text, protocols, sizeof protocols / sizeof protocols[0], &info->protocol);
    if (strncmp(text, "Kernel", 6) != 0)
        return 0;
    text += 6;
    if (*text == '_') {
        text++;
        text += take_prefix(text, reductions, sizeof reductions / sizeof reductions[0], &info->reduction);
        const char *type = strchr(text, '_');
        if (type) {
            struct nccl_kernel_info types = {0};
            parse_underscore_words(type + 1, &types);
            info->dtype = types.dtype;
        }
    }
    return 1;
}

int nccl_kernel_name_parse(const char *name, struct nccl_kernel_info *info)
{
    memset(info, 0, sizeof *info);
    char identifier[512];
    if (!name || !extract_identifier(name, identifier, sizeof identifier))
        return 0;
    static const char *const underscore_prefixes[] = {"ncclDevKernel_", "ncclKernel_"};
    for (size_t i = 0; i < 2; i++) {
        size_t length = strlen(underscore_prefixes[i]);
        if (strncmp(identifier, underscore_prefixes[i], length) == 0) {
            parse_underscore_words(identifier + length, info);
            if (!info->op)
                info->op = "Unknown";
            return 1;
        }
    }
    if (strncmp(identifier, "nccl", 4) == 0 && parse_camel_case(identifier, info))
        return 1;
    memset(info, 0, sizeof *info);
    return 0;
}
