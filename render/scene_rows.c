/* scene_rows.c: which lanes the picture has and where they go: each lane's title (its stream's
 * role), the lanes ordered by rank, process, device and stream and grouped per device, and the
 * vertical layout of the groups. */
#include "scene_private.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "describe.h"
#include "naming.h"

static const struct analysis_lane *analysis_lane_of(const struct analysis_result *analysis,
                                                    const struct canvas_lane *lane)
{
    if (!analysis)
        return NULL;
    for (size_t i = 0; i < analysis->lane_count; i++) {
        const struct analysis_lane *candidate = &analysis->lanes[i];
        if (candidate->process_id == lane->process_id && candidate->device_id == lane->device_id &&
            candidate->stream_id == lane->stream_id)
            return candidate;
    }
    return NULL;
}

/* The role a lane shows: the analyzer's when there is one, else the stream's stored label,
 * else what most of its busy time was. */
static void lane_role(const struct scene *scene, const struct canvas_lane *lane, int *is_legacy_default,
                      char *role, size_t size)
{
    const struct analysis_lane *analyzed = analysis_lane_of(scene->input.analysis, lane);
    role[0] = '\0';
    *is_legacy_default = analyzed ? analyzed->is_legacy_default : 0;
    if (analyzed)
        snprintf(role, size, "%s", analyzed->role);
    int stored_legacy = 0;
    char label[64];
    if (store_stream_description(scene->input.trace, lane->process_id, lane->device_id, lane->stream_id,
                                 &stored_legacy, label, sizeof label)) {
        *is_legacy_default |= stored_legacy;
        if (!role[0] && label[0])
            snprintf(role, size, "%s", label);
    }
    if (role[0])
        return;
    snprintf(role, size, "%s", store_stream_role(lane->busy_ns, 0));
}

static void lane_title(const struct scene *scene, struct placed_lane *placed)
{
    const struct canvas_lane *lane = placed->lane;
    if (lane->kind == CANVAS_LANE_HOST) {
        snprintf(placed->title, sizeof placed->title, "thread %" PRId64 " \xc2\xb7 CUDA API",
                 lane->thread_id);
        return;
    }
    if (lane->kind == CANVAS_LANE_NVTX) {
        if (lane->thread_id < 0)
            snprintf(placed->title, sizeof placed->title, "GPU annotations \xc2\xb7 NVTX %" PRId64,
                     lane->depth);
        else
            snprintf(placed->title, sizeof placed->title, "thread %" PRId64 " \xc2\xb7 NVTX %" PRId64,
                     lane->thread_id, lane->depth);
        return;
    }
    char role[32];
    lane_role(scene, lane, &placed->is_legacy_default, role, sizeof role);
    const char *shown = strcmp(role, "nccl") == 0 ? "NCCL" : role;
    int plain = strcmp(shown, "default") == 0 || strcmp(shown, "compute") == 0 || strcmp(shown, "mixed") == 0;
    if (placed->is_legacy_default && plain)
        snprintf(placed->title, sizeof placed->title, "stream %" PRId64 " \xc2\xb7 legacy default",
                 lane->stream_id);
    else if (placed->is_legacy_default)
        snprintf(placed->title, sizeof placed->title, "stream %" PRId64 " \xc2\xb7 %s, legacy default",
                 lane->stream_id, shown);
    else
        snprintf(placed->title, sizeof placed->title, "stream %" PRId64 " \xc2\xb7 %s", lane->stream_id,
                 shown);
}

/* Ranks first in order (unknown ranks last), then process, then its devices, then its host
 * lanes; within a device by stream, within a host by thread and nesting. */
static int compare_lanes(const void *left, const void *right)
{
    const struct placed_lane *a = left, *b = right;
    uint64_t rank_a = (uint64_t)a->rank, rank_b = (uint64_t)b->rank; /* -1 sorts last */
    if (rank_a != rank_b)
        return rank_a < rank_b ? -1 : 1;
    if (a->lane->process_id != b->lane->process_id)
        return a->lane->process_id < b->lane->process_id ? -1 : 1;
    int host_a = a->lane->kind != CANVAS_LANE_GPU, host_b = b->lane->kind != CANVAS_LANE_GPU;
    if (host_a != host_b)
        return host_a - host_b;
    if (!host_a) {
        if (a->lane->device_id != b->lane->device_id)
            return a->lane->device_id < b->lane->device_id ? -1 : 1;
        return a->lane->stream_id < b->lane->stream_id ? -1 : a->lane->stream_id > b->lane->stream_id;
    }
    if (a->lane->thread_id != b->lane->thread_id)
        return a->lane->thread_id < b->lane->thread_id ? -1 : 1;
    if (a->lane->kind != b->lane->kind)
        return (int)a->lane->kind - (int)b->lane->kind;
    return a->lane->depth < b->lane->depth ? -1 : a->lane->depth > b->lane->depth;
}

/* "rank 0 · GPU 0 · NVIDIA H200 · pid 748"; a process without a rank is named by its pid,
 * first, as the report does ("pid 1823 · GPU 0 · NVIDIA H200"), never "rank -1". */
static void group_title(const struct scene *scene, struct group *group)
{
    char who[48] = "", pid[32] = "", name[96] = "";
    naming_process(who, sizeof who - 4, group->rank, group->pid, group->process_id);
    strcat(who, " \xc2\xb7 ");
    if (group->rank >= 0 && group->pid >= 0)
        snprintf(pid, sizeof pid, " \xc2\xb7 pid %" PRId64, group->pid);
    if (group->device_id < 0) {
        snprintf(group->title, sizeof group->title, "%shost threads%s", who, pid);
        return;
    }
    store_device_name(scene->input.trace, group->process_id, group->device_id, name, sizeof name);
    snprintf(group->title, sizeof group->title, "%sGPU %" PRId64 "%s%s%s", who, group->device_id,
             name[0] ? " \xc2\xb7 " : "", name, pid);
}

static int build_groups(struct scene *scene)
{
    scene->groups = calloc(scene->lane_count ? scene->lane_count : 1, sizeof *scene->groups);
    if (!scene->groups)
        return -1;
    for (size_t i = 0; i < scene->lane_count; i++) {
        const struct placed_lane *placed = &scene->lanes[i];
        int64_t device_id = placed->lane->kind == CANVAS_LANE_GPU ? placed->lane->device_id : -1;
        struct group *last = scene->group_count ? &scene->groups[scene->group_count - 1] : NULL;
        if (last && last->process_id == placed->lane->process_id && last->device_id == device_id) {
            last->lane_count++;
            continue;
        }
        struct group *group = &scene->groups[scene->group_count++];
        group->process_id = placed->lane->process_id;
        group->rank = placed->rank;
        group->pid = placed->pid;
        group->device_id = device_id;
        group->first_lane = i;
        group->lane_count = 1;
        group->device =
            device_id >= 0 ? canvas_find_device(scene->input.canvas, group->process_id, device_id) : NULL;
        group_title(scene, group);
    }
    return 0;
}

int scene_place_lanes(struct scene *scene)
{
    const struct canvas *canvas = scene->input.canvas;
    scene->lanes = calloc(canvas->lane_count ? canvas->lane_count : 1, sizeof *scene->lanes);
    if (!scene->lanes)
        return -1;
    for (size_t i = 0; i < canvas->lane_count; i++) {
        if (canvas->lanes[i]->interval_count == 0)
            continue;
        struct placed_lane *placed = &scene->lanes[scene->lane_count++];
        placed->lane = canvas->lanes[i];
        store_process_identity(scene->input.trace, placed->lane->process_id, &placed->pid, &placed->rank);
        lane_title(scene, placed);
    }
    qsort(scene->lanes, scene->lane_count, sizeof *scene->lanes, compare_lanes);
    return build_groups(scene);
}

/* --- vertical layout --- */

static double groups_height(const struct scene *scene, double lane_height)
{
    double height = 0;
    for (size_t g = 0; g < scene->group_count; g++) {
        height += GROUP_HEADER + (double)scene->groups[g].lane_count * (lane_height + LANE_GAP) + GROUP_GAP;
        if (scene->groups[g].device)
            height += STRIP_HEIGHT + STRIP_GAP;
        if (scene->groups[g].has_tag_row)
            height += TAG_ROW;
        if (scene->groups[g].has_accounting)
            height += ACCOUNTING_LANE + LANE_GAP;
    }
    return height;
}

void scene_layout_rows(struct scene *scene)
{
    double top = MARGIN + scene->title_height + scene->legend_height;
    scene->axis_y = top + AXIS_HEIGHT;
    scene->lanes_top = scene->axis_y + 6;
    scene->lane_height = LANE_HEIGHT;
    double fixed = scene->lanes_top + groups_height(scene, 0) + MARGIN;
    double wanted = scene->input.height_px > 0 ? scene->input.height_px / scene->input.scale : 0;
    if (wanted > 0 && scene->lane_count > 0) {
        double lane_height = (wanted - fixed) / (double)scene->lane_count;
        scene->lane_height = lane_height < MIN_LANE_HEIGHT   ? MIN_LANE_HEIGHT
                             : lane_height > MAX_LANE_HEIGHT ? MAX_LANE_HEIGHT
                                                             : lane_height;
    }
    double y = scene->lanes_top;
    for (size_t g = 0; g < scene->group_count; g++) {
        struct group *group = &scene->groups[g];
        group->header_y = y;
        y += GROUP_HEADER;
        if (group->device) {
            group->strip_y = y;
            y += STRIP_HEIGHT + STRIP_GAP;
        }
        if (group->has_accounting) {
            group->accounting_y = y;
            y += ACCOUNTING_LANE + LANE_GAP;
        }
        if (group->has_tag_row) {
            group->tag_row_y = y;
            y += TAG_ROW;
        }
        for (size_t i = 0; i < group->lane_count; i++) {
            scene->lanes[group->first_lane + i].y = y;
            y += scene->lane_height + LANE_GAP;
        }
        y += GROUP_GAP;
    }
    scene->height = wanted > 0 ? wanted : y + MARGIN;
}
