/* timeline_layout.c: the small functions over what a picture holds (timeline_layout.h). */
#include "timeline_layout.h"

#include <stdlib.h>

double timeline_layout_x(const struct timeline_layout *layout, int64_t time_ns)
{
    return layout->plot_left + (double)(time_ns - layout->window_start_ns) *
                                   (layout->plot_right - layout->plot_left) /
                                   (double)(layout->window_end_ns - layout->window_start_ns);
}

void timeline_layout_free(struct timeline_layout *layout)
{
    if (!layout)
        return;
    free(layout->lanes);
    free(layout->texts);
    free(layout->legend);
    free(layout->waits);
    free(layout->accounting_marks);
    free(layout);
}
