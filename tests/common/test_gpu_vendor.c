/* GPU names as CUDA, ROCm and Intel's runtimes report them (deviceProperties of PyTorch profiler
 * traces, nvidia-smi -L, rocm-smi): NVIDIA's with or without the company name, and the others'. */
#include "check.h"
#include "gpu_vendor.h"

int main(void)
{
    static const char *const nvidia[] = {"NVIDIA A100-PG509-200", /* tests/data/kineto/nccl_data.json.gz */
                                         "NVIDIA H100 80GB HBM3",
                                         "NVIDIA H200",
                                         "Tesla V100-SXM2-16GB",
                                         "Tesla T4",
                                         "Tesla P100-PCIE-16GB",
                                         "Tesla K80",
                                         "A100-SXM4-40GB",
                                         "A10G",
                                         "H100 PCIe",
                                         "L40S",
                                         "T4",
                                         "GH200 480GB",
                                         "B200",
                                         "Quadro RTX 6000",
                                         "GeForce RTX 3090",
                                         "GeForce GTX 1080 Ti",
                                         "TITAN V",
                                         "Titan Xp"};
    static const char *const others[] = {
        "AMD Radeon Graphics", /* tests/data/kineto/amd_mi250_rocm.json.gz */
        "AMD Instinct MI250X", "MI300X", "gfx90a", "Intel(R) Data Center GPU Max 1550", "", "Apple M2"};
    for (size_t i = 0; i < sizeof nvidia / sizeof nvidia[0]; i++)
        if (!gpu_vendor_is_nvidia(nvidia[i]))
            CHECK_STR("not NVIDIA", nvidia[i]);
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        if (gpu_vendor_is_nvidia(others[i]))
            CHECK_STR("NVIDIA", others[i]);
    CHECK(!gpu_vendor_is_nvidia(NULL));
    return check_finish();
}
