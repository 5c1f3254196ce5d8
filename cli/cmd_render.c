/* cmd_render.c: `overlapscope render TRACE -o timeline.png`: the timeline picture of a trace,
 * with the analyzer's explained waits and key figures. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_note.h"
#include "cli.h"
#include "filters.h"
#include "output_file.h"
#include "steady_state.h"
#include "text_safe.h"
#include "timeline.h"
#include "trace_input.h"
#include "units.h"

static int parse_int(const char *text, long minimum, long maximum, long *value)
{
    char *end = NULL;
    errno = 0;
    long parsed = strtol(text, &end, 10);
    if (end == text || *end || errno || parsed < minimum || parsed > maximum)
        return -1;
    *value = parsed;
    return 0;
}

struct render_request {
    const char *trace_path, *output_path;
    int verbose;
    int steady;                           /* the window is the steady state (choose_steady_window) */
    struct analysis_steady steady_window; /* chosen once, handed to the analysis */
    struct cli_filters filters;
    struct timeline_options options;
};

static int parse_arguments(int argc, char **argv, struct render_request *request)
{
    static const struct option options[] = {{"output", required_argument, 0, 'o'},
                                            {"width", required_argument, 0, 'W'},
                                            {"height", required_argument, 0, 'H'},
                                            {"dpi", required_argument, 0, 'd'},
                                            {"host", no_argument, 0, 'h'},
                                            {"nvtx", no_argument, 0, 'n'},
                                            {"title", required_argument, 0, 't'},
                                            {"verbose", no_argument, 0, 'v'},
                                            {"force", no_argument, 0, 'f'},
                                            CLI_FILTER_OPTIONS,
                                            {0, 0, 0, 0}};
    memset(request, 0, sizeof *request);
    cli_filters_init(&request->filters);
    timeline_options_init(&request->options);
    optind = 1;
    opterr = 0;
    int option;
    long value;
    while ((option = getopt_long(argc, argv, "o:", options, NULL)) != -1) {
        switch (option) {
        case 'o':
            request->output_path = optarg;
            break;
        case 't':
            request->options.title = optarg;
            break;
        case 'h':
            request->options.show_host_calls = 1;
            break;
        case 'n':
            request->options.show_nvtx = 1;
            break;
        case 'v':
            request->verbose = 1;
            break;
        case 'f':
            request->options.force = 1;
            break;
        case 'W':
        case 'H':
            if (parse_int(optarg, 1, 1000000, &value) != 0)
                return cli_usage_error(argv[0], "--%s wants pixels, not '%s'",
                                       option == 'W' ? "width" : "height", optarg);
            *(option == 'W' ? &request->options.width_px : &request->options.height_px) = (int)value;
            break;
        case 'd':
            if (parse_int(optarg, 1, 100000, &value) != 0)
                return cli_usage_error(argv[0], "--dpi wants a number, not '%s'", optarg);
            request->options.dpi = (double)value;
            break;
        default:
            if (cli_filters_take(&request->filters, argv, option) != 0)
                return CLI_EXIT_ERROR;
        }
    }
    if (argc - optind != 1)
        return cli_usage_error(argv[0], "expected one trace file");
    request->trace_path = argv[optind];
    if (!request->output_path)
        return cli_usage_error(argv[0], "say where to write the picture: -o timeline.png (or .svg, .pdf)");
    /* Until the analysis resolves it, the picture knows the ids chosen; its window is open. */
    request->options.selection = analysis_selection_of(&request->filters.analysis);
    return 0;
}

/* What the figures of a --range or --step picture count: the picture shows everything from the
 * first selected instant to the last, the analysis only the selected time (as report). */
static void describe_selection(const struct analysis_options *chosen, char *note, size_t size)
{
    note[0] = '\0'; /* the picture makes a name from the trace safe to draw (text_safe.h) */
    if (chosen->range_name && chosen->step >= 0)
        snprintf(note, size, "figures inside NVTX ranges '%.80s' of step %" PRId64, chosen->range_name,
                 chosen->step);
    else if (chosen->range_name)
        snprintf(note, size, "figures inside NVTX ranges '%.80s'", chosen->range_name);
    else if (chosen->step >= 0)
        snprintf(note, size, "figures of step %" PRId64, chosen->step);
}

/* Without --all, --window, --range or --step: the steady state (steady_state.h), as a window the
 * analysis measures too, and a note of what it leaves out ("set-up 0 - 6.00 s not shown; --all draws
 * everything") for the figures line. */
static int choose_steady_window(store *trace, struct render_request *request, char *note, size_t size,
                                error_info *err)
{
    struct analysis_steady *steady = &request->steady_window;
    if (steady_state_of_trace(trace, steady, err) != 0)
        return strstr(err->message, store_path(trace)) ? -1 : error_prefix(err, "%s", store_path(trace));
    /* The analysis takes this window as the steady state it would choose (its messages then say
     * so), without reading the trace for it again. */
    request->filters.analysis.steady_chosen = steady;
    if (!steady->trimmed)
        return 0;
    char left_out[200];
    steady_state_describe(steady, left_out, sizeof left_out);
    snprintf(note, size, "%s not shown; --all draws everything", left_out);
    request->options.window_note = note;
    request->steady = 1;
    request->options.selection.window_start_ns = steady->start_ns; /* also when the analysis fails */
    request->options.selection.window_end_ns = steady->end_ns;
    return 0;
}

/* --verbose: the window drawn, in the report's terms (report --json's window), and the title's
 * lines, so a script can hold the picture against the report. */
static void print_drawn(const struct timeline_layout *layout)
{
    printf("window: %" PRId64 " ns to %" PRId64 " ns after the first GPU activity\n",
           layout->window_start_ns - layout->origin_ns, layout->window_end_ns - layout->origin_ns);
    for (size_t i = 0; i < layout->text_count; i++)
        if (layout->texts[i].kind == TIMELINE_TEXT_TITLE)
            cli_print_safe(stdout, "title: %s\n", layout->texts[i].text);
}

static int chooses_ids(const struct render_request *request)
{
    const struct analysis_options *chosen = &request->filters.analysis;
    return chosen->rank >= 0 || chosen->device_id >= 0 || chosen->stream_id >= 0;
}

/* After a failure: when the rank, device or stream chosen is one the trace does not have, err
 * says so as report does ("no rank 3 (the trace has ranks 0, 1)") rather than "no GPU activity
 * in the window": a picture's window comes from the same selection. why: the analysis's error. */
static void name_missing_ids(const struct render_request *request, const error_info *why, error_info *err)
{
    if (chooses_ids(request) &&
        (strncmp(why->message, "no rank ", 8) == 0 || strncmp(why->message, "no device ", 10) == 0 ||
         strncmp(why->message, "no stream ", 10) == 0))
        error_set(err, "%s: %s", request->trace_path, why->message);
}

/* Draws the trace at request->trace_path; command names the command in messages. */
static int draw(const char *command, struct render_request *request)
{
    error_info err;
    store *trace = store_open(request->trace_path, 1, &err);
    if (!trace)
        return cli_error(command, "%s", err.message);
    char note[160];
    describe_selection(&request->filters.analysis, note, sizeof note);
    request->options.window_note = note;
    if (!request->filters.all && !cli_filters_choose_time(&request->filters) &&
        choose_steady_window(trace, request, note, sizeof note, &err) != 0) {
        /* No picture and no analysis yet: the analysis runs (once) only to name an id the trace
         * lacks. */
        error_info why;
        struct analysis_result *analysis =
            chooses_ids(request) ? analysis_run(trace, &request->filters.analysis, &why) : NULL;
        if (chooses_ids(request) && !analysis)
            name_missing_ids(request, &why, &err);
        analysis_free(analysis);
        store_close(trace, NULL);
        return cli_error(command, "%s", err.message);
    }
    /* The analyzer resolves the filters into GPU time; the picture draws the window it reports, so
     * its figures and the report's cover the same time. */
    error_info analysis_err;
    struct analysis_result *analysis = analysis_run(trace, &request->filters.analysis, &analysis_err);
    if (!analysis && cli_filters_choose_time(&request->filters)) {
        store_close(trace, NULL);
        return cli_error(command, "%s: %s", request->trace_path, analysis_err.message);
    }
    if (analysis && (cli_filters_choose_time(&request->filters) || request->steady))
        request->options.selection = analysis->selection;
    struct timeline_layout *layout = NULL;
    if (timeline_draw(trace, analysis, &request->options, request->output_path, &layout, &err) != 0) {
        if (store_work_exceeded(trace, &err) == 0 && !strstr(err.message, request->trace_path))
            error_prefix(&err, "%s", request->trace_path); /* every render error names the trace */
        if (!analysis) /* its error says whether an id chosen is missing: no second analysis */
            name_missing_ids(request, &analysis_err, &err);
        analysis_free(analysis);
        store_close(trace, NULL);
        timeline_release_caches(); /* a write error comes after the fonts were loaded */
        return cli_error(command, "%s", err.message);
    }
    size_t stream_lanes = 0;
    for (size_t i = 0; i < layout->lane_count; i++)
        stream_lanes += layout->lanes[i].kind == TIMELINE_LANE_GPU;
    char lanes[48], waits[48];
    cli_print_safe(stdout, "%s: %d x %d px, %s, %s marked%s\n", request->output_path, layout->width_px,
                   layout->height_px,
                   units_format_count(lanes, sizeof lanes, (int64_t)stream_lanes, "stream lane"),
                   units_format_count(waits, sizeof waits, (int64_t)layout->wait_count, "explained wait"),
                   layout->from_overview ? " (streams drawn from the trace's stored overview)" : "");
    char captured[512];
    if (cli_capture_note(trace, captured, sizeof captured)) {
        fputs("captured: ", stdout);
        text_safe_fputs(captured, TEXT_SAFE_TERMINAL, stdout);
        fputs(" (the picture shows only that)\n", stdout);
    }
    if (request->verbose)
        print_drawn(layout);
    if (!analysis)
        cli_error(command, "drawn without the analysis: %s", analysis_err.message);
    timeline_layout_free(layout);
    analysis_free(analysis);
    store_close(trace, NULL);
    timeline_release_caches();
    return CLI_EXIT_OK;
}

int cmd_render(int argc, char **argv)
{
    struct render_request request;
    int status = parse_arguments(argc, argv, &request);
    if (status != 0)
        return status;
    error_info err;
    enum timeline_format format;
    const char *input = request.trace_path;
    /* The output is refused before the import or the analysis, which may take long (timeline_draw
     * checks again). */
    if (timeline_format_from_path(request.output_path, &format, &err) != 0 ||
        output_file_check(request.output_path, request.options.force, &input, 1, &err) != 0)
        return cli_error(argv[0], "%s", err.message);
    struct cli_trace_input trace_input;
    status = cli_trace_input_open(&trace_input, argv[0], request.trace_path);
    if (status == 0) {
        request.trace_path = trace_input.path;
        status = draw(argv[0], &request);
    }
    cli_trace_input_release(&trace_input);
    return status;
}
