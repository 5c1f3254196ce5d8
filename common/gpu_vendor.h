/* gpu_vendor.h: whether a GPU is NVIDIA's, from the name its runtime reports (a PyTorch profiler
 * trace's deviceProperties carry only the name, and ROCm traces use the same fields).
 *
 * CUDA has named NVIDIA's products without the company name for most of its life ("Tesla
 * V100-SXM2-16GB", "Tesla T4", "A100-SXM4-40GB", "Quadro RTX 6000", "GeForce RTX 3090", "TITAN
 * V"); drivers since about R510 prefix "NVIDIA " ("NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB
 * HBM3"). ROCm says "AMD Instinct MI250X", "AMD Radeon Graphics" or the architecture ("gfx90a");
 * Intel "Intel(R) Data Center GPU Max 1550". Pure C, no state. */
#ifndef OVERLAPSCOPE_GPU_VENDOR_H
#define OVERLAPSCOPE_GPU_VENDOR_H

/* 1 when name is an NVIDIA GPU's, 0 otherwise (another vendor's, or NULL). */
int gpu_vendor_is_nvidia(const char *name);

#endif
