/* test_selection.c: the selected clock C(t) and clipping over a set of intervals. */
#include "check.h"
#include "selection.h"

int main(void)
{
    struct selection selection;
    selection_init_empty(&selection);
    selection_add(&selection, 50, 60);
    selection_add(&selection, 10, 20);
    selection_add(&selection, 15, 30); /* overlaps: merged into [10, 30) */
    selection_add(&selection, 40, 40); /* empty: ignored */
    CHECK_INT(selection_finish(&selection), 0);
    CHECK_INT(selection.count, 2);
    CHECK_INT(selection_clock(&selection, 0), 0);
    CHECK_INT(selection_clock(&selection, 15), 5);
    CHECK_INT(selection_clock(&selection, 30), 20);
    CHECK_INT(selection_clock(&selection, 45), 20);
    CHECK_INT(selection_clock(&selection, 55), 25);
    CHECK_INT(selection_clock(&selection, 100), 30);
    CHECK_INT(selection_clock(&selection, 12), 2); /* going back in time still answers */
    CHECK(selection_contains(&selection, 10));
    CHECK(!selection_contains(&selection, 30));
    CHECK(selection_contains(&selection, 59));
    CHECK(selection_overlaps(&selection, 25, 45));
    CHECK(!selection_overlaps(&selection, 30, 50));
    CHECK(selection_overlaps(&selection, 55, 55));
    CHECK(!selection_overlaps(&selection, 60, 60));
    CHECK_INT(selection_clip_start(&selection, 0), 10);
    CHECK_INT(selection_clip_start(&selection, 35), 50);
    CHECK_INT(selection_clip_end(&selection, 45), 30);
    CHECK_INT(selection_clip_end(&selection, 100), 60);
    CHECK_INT(selection_first_ns(&selection), 10);
    CHECK_INT(selection_last_ns(&selection), 60);
    selection_free(&selection);

    selection_init_everything(&selection);
    CHECK_INT(selection_clock(&selection, 1234), 1234);
    CHECK(selection_overlaps(&selection, 5, 5));
    CHECK_INT(selection_clip_start(&selection, 7), 7);
    selection_free(&selection);
    return check_finish();
}
