/* palette.c: see palette.h. */
#include "palette.h"

#include <math.h>

static const struct {
    uint32_t rgb;
    const char *name;
} kinds[PALETTE_KIND_COUNT] = {
    [ANALYSIS_COMPUTE] = {0x0072B2, "compute"},       /* Okabe-Ito blue */
    [ANALYSIS_COMMUNICATION] = {0xE69F00, "NCCL"},    /* orange */
    [ANALYSIS_COPY_HTOD] = {0x009E73, "copy HtoD"},   /* bluish green */
    [ANALYSIS_COPY_DTOH] = {0xCC79A7, "copy DtoH"},   /* reddish purple */
    [ANALYSIS_COPY_DTOD] = {0x56B4E9, "copy DtoD"},   /* sky blue */
    [ANALYSIS_COPY_PEER] = {0xD55E00, "copy peer"},   /* vermillion */
    [ANALYSIS_COPY_OTHER] = {0x8C8C8C, "copy other"}, /* neutral grey */
    [ANALYSIS_MEMSET] = {0xF0E442, "memset"},         /* yellow */
    [PALETTE_HOST_API] = {0xB0B0B0, "CUDA API call"}, [PALETTE_NVTX] = {0xC9B8E0, "NVTX range"},
};

uint32_t palette_colour(int kind)
{
    return kind >= 0 && kind < PALETTE_KIND_COUNT ? kinds[kind].rgb : 0x000000;
}

const char *palette_name(int kind)
{
    return kind >= 0 && kind < PALETTE_KIND_COUNT ? kinds[kind].name : "?";
}

uint32_t palette_concurrency_colour(int level)
{
    static const uint32_t ramp[4] = {0xEDEDED, 0xBDBDBD, 0x737373, 0x252525};
    return ramp[level < 0 ? 0 : level > 3 ? 3 : level];
}

static double linear_channel(uint32_t rgb, int shift)
{
    double c = (double)((rgb >> shift) & 0xFF) / 255.0;
    return c <= 0.03928 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

uint32_t palette_text_on(uint32_t background)
{
    double luminance = 0.2126 * linear_channel(background, 16) + 0.7152 * linear_channel(background, 8) +
                       0.0722 * linear_channel(background, 0);
    /* Contrast with black is (L + 0.05) / 0.05, with white 1.05 / (L + 0.05): equal at L = 0.179. */
    return luminance > 0.179 ? 0x000000 : 0xFFFFFF;
}
