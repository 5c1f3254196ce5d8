/* NCCL kernel names as CUPTI and profilers reported them, from several NCCL versions, with what
 * each name says. Sources: gpu-notes (2.28 on H200, mangled by CUPTI), the Kineto traces in
 * tests/data/kineto (NCCL 2.1x, demangled), public traces and reports of 2.19+ runs. */
#include "check.h"
#include "nccl_kernel_name.h"

struct expected {
    const char *name;
    int is_nccl;
    const char *op, *reduction, *dtype, *algorithm, *protocol;
};

static const struct expected table[] = {
    /* 2.28, CUPTI's mangled spelling (gpu-notes.md) */
    {"_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE", 1, "AllReduce", "Sum",
     "f32", "RING", "LL"},
    {"_Z31ncclDevKernel_AllGather_RING_LL24ncclDevKernelArgsStorageILm4096EE", 1, "AllGather", NULL, NULL,
     "RING", "LL"},
    /* 2.19+, demangled */
    {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 1, "AllReduce", "Sum",
     "f32", "RING", "LL"},
    {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelA", 1, "AllReduce", "Sum", "bf16", "RING", "LL"},
    {"ncclDevKernel_ReduceScatter_Sum_bf16_RING_SIMPLE", 1, "ReduceScatter", "Sum", "bf16", "RING", "SIMPLE"},
    {"ncclDevKernel_AllReduce_Sum_f32_RING_SIMPLE", 1, "AllReduce", "Sum", "f32", "RING", "SIMPLE"},
    {"ncclDevKernel_AllReduce_Sum_f16_TREE_LL128", 1, "AllReduce", "Sum", "f16", "TREE", "LL128"},
    {"ncclDevKernel_AllReduce_Sum_bf16_NVLS_TREE_SIMPLE", 1, "AllReduce", "Sum", "bf16", "NVLS_TREE",
     "SIMPLE"},
    {"ncclDevKernel_AllReduce_MinMax_f32_COLLNET_DIRECT_SIMPLE", 1, "AllReduce", NULL, "f32",
     "COLLNET_DIRECT", "SIMPLE"},
    {"ncclDevKernel_ReduceScatter_PreMulSum_f8e4m3_PAT_SIMPLE", 1, "ReduceScatter", "PreMulSum", "f8e4m3",
     "PAT", "SIMPLE"},
    {"ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 1, "Broadcast", NULL, NULL, "RING",
     "LL"},
    {"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", 1, "SendRecv", NULL, NULL, NULL, NULL},
    {"ncclDevKernel_SendRecv", 1, "SendRecv", NULL, NULL, NULL, NULL},
    {"ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", 1, "Unknown", NULL, NULL, NULL, NULL},
    {"ncclDevKernel_Generic_4", 1, "Unknown", NULL, NULL, NULL, NULL},
    /* 2.12-2.18, demangled, from tests/data/kineto/nccl_data.json.gz and friends */
    {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", 1, "AllReduce", "Sum",
     "f32", "RING", "LL"},
    {"ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", 1, "Broadcast", "Sum",
     "i8", "RING", "LL"},
    {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", 1, "SendRecv",
     "Sum", "i8", "RING", "SIMPLE"},
    {"ncclKernel_AllGather_RING_LL128_Sum___nv_bfloat16(ncclDevComm*, unsigned long, ncclWork*)", 1,
     "AllGather", "Sum", "bf16", "RING", "LL128"},
    /* 2.8-2.11 */
    {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", 1, "AllReduce", "Sum", "f32", "RING", "LL"},
    {"_Z37ncclKernel_AllReduce_TREE_LL_Sum_halfP11ncclDevCommP8ncclWork", 1, "AllReduce", "Sum", "f16",
     "TREE", "LL"},
    {"ncclKernel_ReduceScatter_RING_SIMPLE_Max_uint64_t(ncclWorkElem)", 1, "ReduceScatter", "Max", "u64",
     "RING", "SIMPLE"},
    /* 2.3-2.7 */
    {"ncclAllReduceRingLLKernel_sum_f32", 1, "AllReduce", "Sum", "f32", "RING", "LL"},
    {"ncclAllReduceTreeLL128Kernel_prod_f64(CollectiveArgs)", 1, "AllReduce", "Prod", "f64", "TREE", "LL128"},
    {"ncclBroadcastRingLLKernel_copy_i8(CollectiveArgs)", 1, "Broadcast", NULL, "i8", "RING", "LL"},
    {"ncclReduceScatterRingKernel_min_u8", 1, "ReduceScatter", "Min", "u8", "RING", NULL},
    /* not NCCL */
    {"_Z10add_kernelPfS_S_i", 0, NULL, NULL, NULL, NULL, NULL},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int, float)", 0, NULL,
     NULL, NULL, NULL, NULL},
    {"ncclStrangeHelper(int)", 0, NULL, NULL, NULL, NULL, NULL},
    {"_Z99ncclDevKernel_", 0, NULL, NULL, NULL, NULL, NULL}, /* declared length past the end */
    {"", 0, NULL, NULL, NULL, NULL, NULL},
    {NULL, 0, NULL, NULL, NULL, NULL, NULL},
};

static void check_field(const char *name, const char *field, const char *actual, const char *expected)
{
    if ((actual == NULL) != (expected == NULL) || (actual && strcmp(actual, expected) != 0)) {
        check_failed++;
        fprintf(stderr, "%s: %s is %s, expected %s\n", name ? name : "(null)", field,
                actual ? actual : "NULL", expected ? expected : "NULL");
    } else {
        check_passed++;
    }
}

int main(void)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const struct expected *e = &table[i];
        struct nccl_kernel_info info;
        int is_nccl = nccl_kernel_name_parse(e->name, &info);
        if (is_nccl != e->is_nccl)
            fprintf(stderr, "%s: recognised as NCCL: %d\n", e->name ? e->name : "(null)", is_nccl);
        CHECK_INT(is_nccl, e->is_nccl);
        check_field(e->name, "op", info.op, e->op);
        check_field(e->name, "reduction", info.reduction, e->reduction);
        check_field(e->name, "dtype", info.dtype, e->dtype);
        check_field(e->name, "algorithm", info.algorithm, e->algorithm);
        check_field(e->name, "protocol", info.protocol, e->protocol);
    }
    return check_finish();
}
