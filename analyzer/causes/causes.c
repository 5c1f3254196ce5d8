/* causes.c: the text tables of causes.h, each built from the rows of causes.def. */
#include "causes.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *tag, *title, *metric, *advice, *advice_source;
    enum analysis_fix fix;
} wait_causes[ANALYSIS_CAUSE_COUNT] = {
#define WAIT_CAUSE(NAME, tag, title, metric, fix, advice, reference)                                         \
    [ANALYSIS_CAUSE_##NAME] = {tag, title, metric, advice, reference, ANALYSIS_FIX_##fix},
#include "causes.def"
};

enum accounting_group { GROUP_IDLE, GROUP_BETWEEN_STEPS, GROUP_COMM, GROUP_COPY };

/* label_format: a printf format taking the label, or one of these two. */
#define TITLE_ONLY NULL
static const char LABEL_AFTER_TITLE[] = "%s (%s)";

static const struct {
    const char *tag, *title, *metric, *label_format;
    enum analysis_fix fix;
    enum accounting_group group;
    enum cause_picture picture;
} accounting_causes[ACCOUNTING_CAUSE_COUNT] = {
#define ACCOUNTING_ROW(NAME, tag, title, metric, fix, group, label_format, picture)                          \
    [ACCOUNTING_##NAME] = {                                                                                  \
        tag, title, metric, label_format, ANALYSIS_FIX_##fix, GROUP_##group, CAUSE_PICTURE_##picture},
#define IDLE_CAUSE ACCOUNTING_ROW
#define COMM_CAUSE ACCOUNTING_ROW
#define COPY_CAUSE ACCOUNTING_ROW
#include "causes.def"
#undef ACCOUNTING_ROW
};

static const struct {
    const char *tag, *title, *basis, *assumptions;
    int by_design;
} fixes[ANALYSIS_FIX_COUNT] = {
#define FIX(NAME, tag, title, basis, by_design, assumptions)                                                 \
    [ANALYSIS_FIX_##NAME] = {tag, title, basis, assumptions, by_design},
#include "causes.def"
};

#define IN_RANGE(value, count) ((unsigned)(value) < (unsigned)(count))

const char *analysis_cause_tag(enum analysis_cause cause)
{
    return IN_RANGE(cause, ANALYSIS_CAUSE_COUNT) ? wait_causes[cause].tag : "?";
}

const char *analysis_cause_title(enum analysis_cause cause)
{
    return IN_RANGE(cause, ANALYSIS_CAUSE_COUNT) ? wait_causes[cause].title : "?";
}

const char *analysis_cause_advice(enum analysis_cause cause)
{
    return IN_RANGE(cause, ANALYSIS_CAUSE_COUNT) ? wait_causes[cause].advice : "?";
}

const char *analysis_cause_advice_source(enum analysis_cause cause)
{
    return IN_RANGE(cause, ANALYSIS_CAUSE_COUNT) ? wait_causes[cause].advice_source : "?";
}

const char *analysis_cause_metric(enum analysis_cause cause)
{
    return IN_RANGE(cause, ANALYSIS_CAUSE_COUNT) ? wait_causes[cause].metric : "?";
}

enum analysis_fix analysis_cause_fix(enum analysis_cause cause)
{
    return IN_RANGE(cause, ANALYSIS_CAUSE_COUNT) ? wait_causes[cause].fix : ANALYSIS_FIX_COUNT;
}

const char *accounting_cause_tag(enum accounting_cause cause)
{
    return IN_RANGE(cause, ACCOUNTING_CAUSE_COUNT) ? accounting_causes[cause].tag : "?";
}

const char *accounting_cause_title(enum accounting_cause cause)
{
    return IN_RANGE(cause, ACCOUNTING_CAUSE_COUNT) ? accounting_causes[cause].title : "?";
}

const char *accounting_cause_metric(enum accounting_cause cause)
{
    return IN_RANGE(cause, ACCOUNTING_CAUSE_COUNT) ? accounting_causes[cause].metric : "?";
}

int accounting_cause_is_idle(enum accounting_cause cause)
{
    return IN_RANGE(cause, ACCOUNTING_CAUSE_COUNT) && (accounting_causes[cause].group == GROUP_IDLE ||
                                                       accounting_causes[cause].group == GROUP_BETWEEN_STEPS);
}

int accounting_cause_is_copy(enum accounting_cause cause)
{
    return IN_RANGE(cause, ACCOUNTING_CAUSE_COUNT) && accounting_causes[cause].group == GROUP_COPY;
}

int accounting_cause_is_between_steps(enum accounting_cause cause)
{
    return IN_RANGE(cause, ACCOUNTING_CAUSE_COUNT) && accounting_causes[cause].group == GROUP_BETWEEN_STEPS;
}

enum cause_picture accounting_cause_picture(enum accounting_cause cause)
{
    return IN_RANGE(cause, ACCOUNTING_CAUSE_COUNT) ? accounting_causes[cause].picture : CAUSE_PICTURE_IDLE;
}

enum analysis_fix accounting_cause_fix(enum accounting_cause cause)
{
    return IN_RANGE(cause, ACCOUNTING_CAUSE_COUNT) ? accounting_causes[cause].fix : ANALYSIS_FIX_COUNT;
}

char *accounting_cause_name(char *buffer, size_t size, enum accounting_cause cause, const char *label)
{
    const char *format =
        IN_RANGE(cause, ACCOUNTING_CAUSE_COUNT) ? accounting_causes[cause].label_format : NULL;
    if (!format || !label || !label[0])
        snprintf(buffer, size, "%s", accounting_cause_title(cause));
    else if (format == LABEL_AFTER_TITLE)
        snprintf(buffer, size, LABEL_AFTER_TITLE, accounting_cause_title(cause), label);
    else
        snprintf(buffer, size, format, label);
    return buffer;
}

const char *analysis_fix_tag(enum analysis_fix fix)
{
    return IN_RANGE(fix, ANALYSIS_FIX_COUNT) ? fixes[fix].tag : "unknown";
}

const char *analysis_fix_title(enum analysis_fix fix)
{
    return IN_RANGE(fix, ANALYSIS_FIX_COUNT) ? fixes[fix].title : "unknown";
}

const char *analysis_fix_assumptions(enum analysis_fix fix)
{
    return IN_RANGE(fix, ANALYSIS_FIX_COUNT) ? fixes[fix].assumptions : "";
}

const char *analysis_fix_basis(enum analysis_fix fix)
{
    return IN_RANGE(fix, ANALYSIS_FIX_COUNT) ? fixes[fix].basis : "all";
}

int analysis_fix_by_design(enum analysis_fix fix)
{
    return IN_RANGE(fix, ANALYSIS_FIX_COUNT) && fixes[fix].by_design;
}
