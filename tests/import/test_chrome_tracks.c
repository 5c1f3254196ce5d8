/* test_chrome_tracks.c: the export's track placement (export/chrome_tracks.h): slices that would
 * partially overlap go to extra tracks, slices that nest stay (except on strict tracks: a stream,
 * the waits), a slice out of start order never joins a track it could break, and a slice's track
 * can be found again by its times. */
#include <stdlib.h>

#include "check.h"
#include "chrome_tracks.h"

static int64_t place(chrome_tracks *tracks, struct chrome_track_key key, int64_t start, int64_t end)
{
    int64_t tid = -1;
    CHECK_INT(chrome_tracks_place(tracks, &key, start, end, &tid), 0);
    return tid;
}

static void test_nesting_track(void)
{
    chrome_tracks *tracks = chrome_tracks_new();
    struct chrome_track_key api = {1, CHROME_TRACK_API, CHROME_TRACK_HOST, 42};
    int64_t outer = place(tracks, api, 0, 100);
    CHECK_INT(place(tracks, api, 10, 20), outer);   /* inside: nests */
    CHECK_INT(place(tracks, api, 20, 100), outer);  /* touching its sibling, ending with the parent */
    int64_t crossing = place(tracks, api, 90, 150); /* crosses the end of [0, 100]: another track */
    CHECK(crossing != outer);
    CHECK_INT(place(tracks, api, 100, 120), outer); /* after everything of the first track */
    CHECK_INT(place(tracks, api, 110, 115), outer);
    CHECK_INT(place(tracks, api, 95, 96),
              crossing); /* out of start order for the first track: nests in the other */
    CHECK_INT(chrome_tracks_find(tracks, &api, 90, 150), crossing);
    CHECK_INT(chrome_tracks_find(tracks, &api, 10, 20), outer);
    struct chrome_track_key other = {1, CHROME_TRACK_API, CHROME_TRACK_HOST, 43};
    CHECK_INT(chrome_tracks_find(tracks, &other, 10, 20), 0);
    chrome_tracks_free(tracks);
}

static void test_strict_track(void)
{
    chrome_tracks *tracks = chrome_tracks_new();
    struct chrome_track_key stream = {1, CHROME_TRACK_STREAM, 0, 7};
    int64_t first = place(tracks, stream, 0, 100);
    int64_t inside = place(tracks, stream, 10, 20); /* nested, but a stream's ops never share time */
    CHECK(inside != first);
    CHECK_INT(place(tracks, stream, 100, 150), first);
    CHECK_INT(place(tracks, stream, 120, 130), inside);
    int64_t third = place(tracks, stream, 125, 126);
    CHECK(third != first && third != inside);
    CHECK_INT(place(tracks, stream, 200, 200), first);
    CHECK_INT(chrome_tracks_find(tracks, &stream, 125, 126), third);
    chrome_tracks_free(tracks);
}

static void test_list_order(void)
{
    chrome_tracks *tracks = chrome_tracks_new();
    place(tracks, (struct chrome_track_key){2, CHROME_TRACK_API, CHROME_TRACK_HOST, 5}, 0, 1);
    place(tracks, (struct chrome_track_key){1, CHROME_TRACK_STREAM, 0, 7}, 0, 10);
    place(tracks, (struct chrome_track_key){1, CHROME_TRACK_STREAM, 0, 7}, 5, 15);
    place(tracks, (struct chrome_track_key){1, CHROME_TRACK_WAITS, 0, 0}, 0, 1);
    place(tracks, (struct chrome_track_key){1, CHROME_TRACK_SYNC, CHROME_TRACK_HOST, 0}, 0, 1);
    place(tracks, (struct chrome_track_key){1, CHROME_TRACK_STREAM, 1, 3}, 0, 1);
    size_t count = 0;
    struct chrome_track *list = chrome_tracks_list(tracks, &count);
    CHECK_INT(count, 6);
    if (list && count == 6) {
        /* process 1: GPU 0 waits, its stream 7 and that stream's second track, GPU 1's stream, then
         * the host's tracks; process 2 after. */
        CHECK_INT(list[0].key.kind, CHROME_TRACK_WAITS);
        CHECK_INT(list[1].key.kind, CHROME_TRACK_STREAM);
        CHECK_INT(list[1].overflow, 0);
        CHECK_INT(list[2].overflow, 1);
        CHECK_INT(list[3].key.device_id, 1);
        CHECK_INT(list[4].key.kind, CHROME_TRACK_SYNC);
        CHECK_INT(list[5].key.process_id, 2);
        for (size_t i = 0; i < count; i++)
            for (size_t j = 0; j < i; j++)
                CHECK(list[i].tid != list[j].tid);
    }
    free(list);
    chrome_tracks_free(tracks);
}

int main(void)
{
    test_nesting_track();
    test_strict_track();
    test_list_order();
    return check_finish();
}
