/* gpu_vendor.c: see gpu_vendor.h. */
#include "gpu_vendor.h"

#include <ctype.h>
#include <string.h>

/* NVIDIA's product lines as CUDA names them without "NVIDIA" (cudaDeviceProp.name). */
static int has_nvidia_brand(const char *name)
{
    static const char *const brands[] = {"Tesla ", "Quadro", "GeForce", "TITAN", "Titan", "Jetson", "RTX "};
    for (size_t i = 0; i < sizeof brands / sizeof brands[0]; i++)
        if (strncmp(name, brands[i], strlen(brands[i])) == 0)
            return 1;
    return 0;
}

/* A data-centre part named by its series letter and number alone: "A100-SXM4-40GB", "H100 PCIe",
 * "V100-PCIE-32GB", "T4", "L40S", "A10G", "P100", "K80", "GH200", "GB200", "B200". No other
 * vendor's GPU name starts so (AMD's "MI250X" comes after "AMD Instinct"). */
static int is_series_number(const char *name)
{
    static const char *const series[] = {"GH", "GB", "A", "B", "H", "K", "L", "M", "P", "T", "V"};
    for (size_t i = 0; i < sizeof series / sizeof series[0]; i++) {
        size_t length = strlen(series[i]);
        if (strncmp(name, series[i], length) == 0 && isdigit((unsigned char)name[length]))
            return 1;
    }
    return 0;
}

int gpu_vendor_is_nvidia(const char *name)
{
    if (!name)
        return 0;
    return strstr(name, "NVIDIA") != NULL || has_nvidia_brand(name) || is_series_number(name);
}
