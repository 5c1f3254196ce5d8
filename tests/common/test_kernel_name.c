/* Kernel names as CUPTI and the profilers stored them, with the short name every output prints,
 * whether the kernel counts as communication, and the demangled full name. Sources: the golden
 * traces in tests/data/gpu (CUPTI, mangled), the PyTorch profiler traces in tests/data/kineto
 * (HTA's test data, demangled, truncated by Kineto where long), gpu-notes.md, and, for families
 * absent from those files (Hopper cuBLAS, FlashAttention, Triton), the spellings the libraries
 * generate: cuBLAS's sm90_xmma / nvjet names, flash-attention's csrc/flash_attn kernels,
 * TorchInductor's triton_<kind>_fused_<ops>_<n>. */
#include <stdlib.h>

#include "check.h"
#include "kernel_name.h"

struct expected {
    const char *name;
    const char *short_name;
    int communication;
};

static const struct expected table[] = {
    /* plain C and C++ kernels: the function's own name */
    {"_Z14wl_spin_kernelPfxf", "wl_spin_kernel", 0},
    {"_Z14wl_gemm_kernelILi0ELi1EEviiiPKfS1_Pfi", "wl_gemm_kernel", 0},
    {"bucket_sum(float const*, unsigned long, double*)", "bucket_sum", 0},
    /* PyTorch: namespaces and template arguments folded, the same from CUPTI and from Kineto */
    {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
     "vectorized_elementwise_kernel", 0},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, "
     "1ul> >(int, "
     "at::native::FillFunctor<float>, std::array<char*, 1ul>)",
     "vectorized_elementwise_kernel", 0},
    /* "(anonymous namespace)" no longer eats the function's name (it printed "at::native::") */
    {"void at::native::(anonymous namespace)::CatArrayBatchedCopy_vectorized<at::native::(anonymous "
     "namespace)::OpaqueType<4u>, unsigned int, 1, 128, 1, 16, 4>(char*, at::native::(anonymous "
     "namespace)::CatArrInputTensorMetadata<at::native::(anonymous namespace)::OpaqueType<4u>",
     "CatArrayBatchedCopy_vectorized", 0},
    {"_ZN2at6native40_GLOBAL__N__0f1a8107_8_Shape_cu_49f7391c30CatArrayBatchedCopy_vectorizedINS1_"
     "10OpaqueTypeILj4EEEj"
     "Li1ELi128ELi1ELi16ELi4EEEvPcNS1_25CatArrInputTensorMetadataIT_T0_XT2_EXT3_EEENS1_16TensorSizeStrideIS8_"
     "Lj4EEEiS8_",
     "CatArrayBatchedCopy_vectorized", 0},
    {"void fbgemm_gpu::(anonymous namespace)::_get_FP8_qparam_cuda_kernel<float>(float const*, int, int, "
     "unsigned "
     "char*, float*, bool)",
     "_get_FP8_qparam_cuda_kernel", 0},
    {"void (anonymous namespace)::softmax_warp_forward<float, float, float, 1, false, false>(float*, float "
     "const*, int, "
     "int, int, bool const*, int, bool)",
     "softmax_warp_forward", 0},
    {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
     "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, "
     "float)#1}>, "
     "unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
     "at::native::sum_funct",
     "reduce_kernel", 0},
    {"void cub::DeviceScanInitKernel<cub::ScanTileState<int, true> >(cub::ScanTileState<int, true>, int)",
     "DeviceScanInitKernel", 0},
    /* cuBLAS / cuBLASLt */
    {"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsize4x2x1_ffma_aligna4_alignc4_"
     "execute_"
     "kernel__5x_cublas",
     "cuBLAS sgemm 256x128 (ffma)", 0},
    {"sm80_xmma_gemm_f32f32_f32f32_f32_nt_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_"
     "execute_kernel__"
     "5x_cublas",
     "cuBLAS sgemm 32x32 (ffma)", 0},
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
     "kernel__5x_"
     "cublas",
     "cuBLAS bf16 gemm 128x128 (tensor op)", 0},
    {"ampere_sgemm_128x64_nn", "cuBLAS sgemm 128x64", 0},
    {"ampere_gcgemm_64x64_nt", "cuBLAS gcgemm 64x64", 0},
    {"nvjet_tst_192x192_64x4_1x2_h_bz_coopB_NTN", "cuBLAS nvjet tst 192x192", 0},
    {"_Z11scal_kernelIffLi1ELb1ELi6ELi5ELi5ELi3EEv21cublasTransposeParamsIT0_EPKT_PS3_PKS1_",
     "cuBLAS scal_kernel", 0},
    {"_ZN8cublasLt8epilogue4impl12globalKernelILi8ELi32EfffLb1ELb1ELi1EEEviilPT1_18cublasLtEpilogue_tiPT2_"
     "lPvlllPT3_"
     "lPi",
     "cuBLASLt globalKernel", 0},
    {"std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, float, "
     "false, true, "
     "true, false, 7, false, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<float const>",
     "cuBLAS gemvx::kernel", 0},
    /* CUTLASS: the configuration in the template argument, not "Kernel" */
    {"_ZN7cutlass7Kernel2I43cutlass_80_simt_sgemm_256x128_8x4_nn_align1EEvNT_6ParamsE",
     "CUTLASS sgemm 256x128 (simt)", 0},
    {"void "
     "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>(cutlass_80_tensorop_s1688gemm_"
     "256x64_"
     "16x4_nn_align4::Params)",
     "CUTLASS sgemm 256x64 (tensor op)", 0},
    {"void "
     "cutlass_cudnn_infer::Kernel<cutlass_tensorop_s1688fprop_optimized_tf32_128x128_32x4_nhwc_align4>("
     "cutlass_"
     "tensorop_s1688fprop_optimized_tf32_128x128_32x4_nhwc_align4::Params)",
     "CUTLASS fprop 128x128 (tensor op)", 0},
    {"void "
     "cutlass_cudnn_train::Kernel<cutlass_cudnn_train::reduction::kernel::ReduceSplitK<cutlass_cudnn_train::"
     "MatrixShape<4, 128>, cutlass_cudnn_train::epilogue::thread::LinearCombination<float, 4, float, float, "
     "(cu",
     "CUTLASS ReduceSplitK", 0},
    /* truncated by the profiler so that it no longer demangles: read from its start */
    {"_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_"
     "11threadblock22ImplicitGemmMultista"
     "geINS_4gemm9GemmShapeILi128ELi128ELi32EEENS4_52Conv2dWgradOutputGradientTileAccessIteratorOptimizedI",
     "CUTLASS ImplicitGemmConvolution", 0},
    /* cuDNN */
    {"sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x64x32_stage5_warpsize2x2x1_"
     "g1_"
     "tensor16x8x8_execute_kernel__5x_cudnn",
     "cuDNN fprop implicit gemm tf32 128x64 (tensor op)", 0},
    {"cudnn_infer_ampere_scudnn_128x64_relu_xregs_large_nn_v1", "cuDNN scudnn 128x64", 0},
    {"void cudnn::bn_fw_tr_1C11_singleread<float, 512, true, 1, 2, 0>(cudnn::bn_fw_tr_1C11_args<float>)",
     "cuDNN bn_fw_tr_1C11_singleread", 0},
    {"void nchwToFoldedNhwcKernel<float, float, float, true, (cudnnKernelDataType_t)2>(int, int, int, int, "
     "float "
     "const*, float*, int, int, int, int, int, int, int, int, int, int, float, float, "
     "cudnn::reduced_divisor, c",
     "cuDNN nchwToFoldedNhwcKernel", 0},
    /* attention */
    {"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<128, 128, 64, 4, false, "
     "false, "
     "cutlass::half_t, pytorch_flash::Flash_kernel_traits<128, 128, 64, 4, cutlass::half_t> >, false, true, "
     "false, "
     "false, false, true, false, false>(pytorch_flash::Flash_fwd_params)",
     "FlashAttention fwd hdim 128", 0},
    {"void flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<64, 64, 128, 4, false, false, "
     "cutlass::bfloat16_t>, false, "
     "true>(Flash_fwd_params)",
     "FlashAttention fwd splitkv hdim 64", 0},
    {"void "
     "cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<flash::"
     "CollectiveMainloopFwdSm90"
     "<2> > > >(flash::FlashAttnFwdSm90<>::Params)",
     "FlashAttention 3 fwd", 0},
    {"fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<float, "
     "cutlass::arch::Sm80, "
     "true, 64, 64, 64, true, true>::Params)",
     "mem-efficient attention fwd 64x64", 0},
    /* Triton (TorchInductor) */
    {"triton_poi_fused_add_mul_0", "Triton pointwise add_mul", 0},
    {"triton_red_fused__to_copy_sum_1", "Triton reduction _to_copy_sum", 0},
    {"triton_per_fused_native_layer_norm_0", "Triton persistent reduction native_layer_norm", 0},
    /* AMD Tensile (tests/data/kineto/amd_mi250_rocm.json.gz) */
    {"Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_"
     "EPS0",
     "Tensile gemm SB 64x16", 0},
    /* NCCL: every version's spelling is communication, with what its name says */
    {"_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE",
     "NCCL AllReduce Sum f32 RING LL", 1},
    {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "NCCL AllGather RING LL", 1},
    {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
     "NCCL SendRecv Sum i8 RING SIMPLE", 1},
    {"ncclAllReduceRingLLKernel_sum_f32", "NCCL AllReduce Sum f32 RING LL", 1},
    {"ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)", "NCCL Generic_4", 1},
    {"ncclStrangeHelper(int)", "ncclStrangeHelper", 0},
    /* what cannot be read comes back as it is */
    {"_Z999broken", "_Z999broken", 0},
    {"", "?", 0},
    {NULL, "?", 0},
};

int main(void)
{
    char buffer[256];
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const struct expected *e = &table[i];
        CHECK_STR(kernel_name_short(e->name, buffer, sizeof buffer), e->short_name);
        CHECK_INT(kernel_name_is_communication(e->name), e->communication);
    }

    /* the full name is demangled for the JSON and the export; plain names are copied */
    char *full = kernel_name_demangle("_Z14wl_gemm_kernelILi0ELi1EEviiiPKfS1_Pfi");
    CHECK_STR(full, "void wl_gemm_kernel<0, 1>(int, int, int, float const*, float const*, float*, int)");
    free(full);
    full = kernel_name_demangle("ampere_sgemm_128x64_nn");
    CHECK_STR(full, "ampere_sgemm_128x64_nn");
    free(full);
    full = kernel_name_demangle("_Z999broken");
    CHECK_STR(full, "_Z999broken");
    free(full);

    /* a short buffer truncates, always terminated */
    char tiny[6];
    CHECK_STR(kernel_name_short("_Z14wl_spin_kernelPfxf", tiny, sizeof tiny), "wl_sp");
    return check_finish();
}
