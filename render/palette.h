/* palette.h: the colours and names of everything a timeline draws, in one place.
 *
 * GPU categories use the Okabe-Ito palette (Okabe & Ito, "Color Universal Design", 2008),
 * which stays distinguishable under the common colour-vision deficiencies; the concurrency
 * strip is a grey ramp so it never competes with the categories. */
#ifndef OVERLAPSCOPE_PALETTE_H
#define OVERLAPSCOPE_PALETTE_H

#include <stdint.h>

#include "analysis.h"

/* What a lane's interval is drawn as: the analyzer's GPU categories, then the host lanes. */
enum palette_kind {
    PALETTE_HOST_API = ANALYSIS_CATEGORY_COUNT, /* a CUDA API call on a host thread */
    PALETTE_NVTX,                               /* an NVTX range */
    PALETTE_KIND_COUNT
};

/* 0xRRGGBB of a palette kind (an analysis_category or a palette_kind). */
uint32_t palette_colour(int kind);
/* Legend text: "compute", "NCCL", "copy HtoD", ... */
const char *palette_name(int kind);
/* 0xRRGGBB for the concurrency strip: level 0, 1, 2 or 3 (3 or more streams busy). */
uint32_t palette_concurrency_colour(int level);
/* Black or white, whichever reads better on background (WCAG relative luminance). */
uint32_t palette_text_on(uint32_t background);

#define PALETTE_BACKGROUND 0xFFFFFFu
#define PALETTE_LANE_BACKGROUND 0xF4F4F4u
#define PALETTE_TEXT 0x1A1A1Au
#define PALETTE_MUTED_TEXT 0x555555u
#define PALETTE_GRID 0xDDDDDDu
#define PALETTE_WAIT 0x000000u /* hatch and connector of an explained wait */
/* A device's idle time whose cause is not the host blocked (that one is hatched like a wait), and
 * its exposed communication (NCCL's orange, hatched): the accounting lane under its strip. */
#define PALETTE_IDLE 0xDCCFAFu
#define PALETTE_EXPOSED_COMMUNICATION 0xE69F00u
/* Pale sky blue, pale reddish purple and grey (Okabe-Ito hues, lightened like PALETTE_IDLE): the
 * host-sample verdicts of idle time (data loading, the host's own work, a lock or GIL wait). */
#define PALETTE_IDLE_DATA_LOADING 0xA9D8F2u
#define PALETTE_IDLE_HOST_WORK 0xE8BCD6u
#define PALETTE_IDLE_LOCK_WAIT 0xBBBBBBu
/* Copy time with no kernel running (the SMs waited for it): copy HtoD's bluish green, hatched. */
#define PALETTE_EXPOSED_COPY 0x009E73u

#endif
