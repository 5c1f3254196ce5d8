/* timeline.h: overlapscope's timeline pictures (PNG, SVG, PDF) for a person reading a pull
 * request: one lane per CUDA stream, grouped by rank and device, coloured by what ran
 * (compute, NCCL, copies by direction, memsets), a concurrency strip per device, optional lanes
 * for each host thread's CUDA API calls and NVTX ranges, the analyzer's explained waits
 * hatched on the waiting stream with their cause and a connector to the blocking operation, and
 * per device a lane of where its idle time and exposed communication went (the host blocked in
 * a synchronizing call hatched like a wait, with the cause's name where there is room).
 *
 * The trace is streamed from the store into per-pixel-column accumulators (render/canvas.h):
 * every interval in the window is drawn, the narrow ones as the coverage of their pixel column,
 * and memory grows with lanes x width, not with the number of intervals.
 *
 * What was placed where (lanes, text boxes, legend swatches, wait marks) is returned as a
 * timeline_layout (timeline_layout.h) so tests can read the picture's pixels at known places
 * and check that no two labels overlap. */
#ifndef OVERLAPSCOPE_TIMELINE_H
#define OVERLAPSCOPE_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "error.h"
#include "store.h"
#include "timeline_layout.h"

enum timeline_format { TIMELINE_PNG, TIMELINE_SVG, TIMELINE_PDF };

/* The tallest picture drawn, in output pixels (--height's bound too): lanes beyond it are refused
 * with one line rather than painted into a picture no viewer opens. */
#define TIMELINE_MAX_HEIGHT_PX 30000

struct timeline_options {
    /* What is drawn: the analysis's resolved selection (analysis_selection.h) when there is one;
     * an open window (STORE_NULL) is the trace's first/last GPU activity. */
    struct analysis_selection selection;
    int width_px;  /* picture width (default 1600) */
    int height_px; /* 0: from the number of lanes */
    double dpi;    /* 96 draws 1 px per CSS pixel; 192 doubles every size */
    int show_host_calls, show_nvtx;
    int max_waits;           /* explained waits drawn, largest first (default 64) */
    const char *title;       /* NULL: meta.command, else the first process's command line */
    int force;               /* replace an existing picture (output_file.h) */
    const char *window_note; /* NULL, or what the window is, said after it in the figures
                                line ("set-up 0 - 6.00 s not shown; --all draws
                                everything", "figures inside NVTX ranges 'fwd'") */
};
void timeline_options_init(struct timeline_options *options);

/* The format named by path's extension (.png, .svg, .pdf, any case). Returns 0, or -1 with
 * err filled ("unknown picture format '.jpg' (use .png, .svg or .pdf)"). */
int timeline_format_from_path(const char *path, enum timeline_format *format, error_info *err);

/* Draws the trace's timeline into path, in the format of its extension. analysis may be NULL
 * (no waits, no overlap figures in the title); it should have been computed over the same
 * window and rank. The picture is written as output_file.h says: an existing file is refused
 * unless options->force, the trace itself and symbolic links always, and nothing is left at path
 * unless the whole picture was written and synced. When layout is not NULL it receives what was
 * placed (caller frees with timeline_layout_free). Returns 0, or -1 with err filled: an unknown
 * extension, a refused or unwritable path, an empty window, a window without GPU activity, a bad
 * trace, a write error (a full disk). */
int timeline_draw(store *trace, const struct analysis_result *analysis,
                  const struct timeline_options *options, const char *path, struct timeline_layout **layout,
                  error_info *err);

/* Frees the process-wide font caches Cairo and fontconfig keep, so leak checkers see a clean
 * exit. Call once, after the last picture. */
void timeline_release_caches(void);

#endif
