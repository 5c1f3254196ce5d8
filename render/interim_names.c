/* interim_names.c: the analyzer's name functions (analysis.h), built into the renderer only
 * while no overlapscope_analyzer library exists in the build (render/CMakeLists.txt); the
 * analyzer's own definitions replace these as soon as it lands. Tags follow analysis.h's
 * examples ("sm-saturation", "late-launch"). */
#include "analysis.h"

static const struct {
    const char *tag, *title;
} causes[ANALYSIS_CAUSE_COUNT] = {
    [ANALYSIS_CAUSE_SM_SATURATION] = {"sm-saturation", "SM saturation"},
    [ANALYSIS_CAUSE_LATE_LAUNCH] = {"late-launch", "late launch"},
    [ANALYSIS_CAUSE_EVENT_DEPENDENCY] = {"event-dependency", "event dependency"},
    [ANALYSIS_CAUSE_LEGACY_DEFAULT_STREAM] = {"legacy-default-stream", "legacy default stream"},
    [ANALYSIS_CAUSE_PAGEABLE_COPY] = {"pageable-copy", "pageable copy"},
    [ANALYSIS_CAUSE_COPY_ENGINE] = {"copy-engine", "copy engine"},
    [ANALYSIS_CAUSE_SHARED_QUEUE] = {"shared-queue", "shared hardware queue"},
    [ANALYSIS_CAUSE_STREAM_PRIORITY] = {"stream-priority", "stream priority"},
    [ANALYSIS_CAUSE_COMM_BEHIND_COMPUTE] = {"comm-behind-compute", "communication behind compute"},
    [ANALYSIS_CAUSE_HOST_SYNC] = {"host-sync", "host synchronization"},
    [ANALYSIS_CAUSE_UNEXPLAINED] = {"unexplained", "unexplained"},
};

const char *analysis_cause_tag(enum analysis_cause cause)
{
    return (unsigned)cause < ANALYSIS_CAUSE_COUNT ? causes[cause].tag : "unknown";
}

const char *analysis_cause_title(enum analysis_cause cause)
{
    return (unsigned)cause < ANALYSIS_CAUSE_COUNT ? causes[cause].title : "unknown";
}

const char *analysis_category_tag(enum analysis_category category)
{
    static const char *const tags[ANALYSIS_CATEGORY_COUNT] = {"compute", "communication", "copy-htod", "copy-dtoh",
                                                              "copy-dtod", "copy-peer", "copy-other", "memset"};
    return (unsigned)category < ANALYSIS_CATEGORY_COUNT ? tags[category] : "unknown";
}
