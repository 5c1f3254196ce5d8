/* cmd_render.c: `overlapscope render TRACE -o timeline.png`: the timeline picture of a trace,
 * with the analyzer's explained waits and key figures. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "timeline.h"

/* "250us", "1.5ms", "2s", "0": a duration for --window. Returns 0, or -1 when text is not one. */
static int parse_duration(const char *text, int64_t *nanoseconds)
{
    static const struct {
        const char *suffix;
        double ns;
    } units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (end == text || errno != 0 || !isfinite(value) || value < 0)
        return -1;
    while (*end == ' ')
        end++;
    if (*end == '\0') {
        if (value != 0)
            return -1; /* a bare number would be ambiguous: only 0 needs no unit */
        *nanoseconds = 0;
        return 0;
    }
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(end, units[i].suffix) == 0) {
            double ns = value * units[i].ns;
            if (ns > 9e18)
                return -1;
            *nanoseconds = (int64_t)llround(ns);
            return 0;
        }
    }
    return -1;
}

/* START:END, either side may be empty (from the first / to the last GPU activity). */
static int parse_window(const char *text, int64_t *start_ns, int64_t *end_ns)
{
    const char *colon = strchr(text, ':');
    if (!colon)
        return -1;
    char start[64], end[64];
    if ((size_t)(colon - text) >= sizeof start || strlen(colon + 1) >= sizeof end)
        return -1;
    snprintf(start, sizeof start, "%.*s", (int)(colon - text), text);
    snprintf(end, sizeof end, "%s", colon + 1);
    *start_ns = STORE_NULL;
    *end_ns = STORE_NULL;
    if (start[0] && parse_duration(start, start_ns) != 0)
        return -1;
    if (end[0] && parse_duration(end, end_ns) != 0)
        return -1;
    return 0;
}

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
    const char *trace_path, *output_path, *window, *range_name;
    long step, rank;
    struct timeline_options options;
};

static int parse_arguments(int argc, char **argv, struct render_request *request)
{
    static const struct option options[] = {
        {"output", required_argument, 0, 'o'}, {"window", required_argument, 0, 'w'},
        {"range", required_argument, 0, 'r'},  {"step", required_argument, 0, 's'},
        {"rank", required_argument, 0, 'R'},   {"width", required_argument, 0, 'W'},
        {"height", required_argument, 0, 'H'}, {"dpi", required_argument, 0, 'd'},
        {"host", no_argument, 0, 'h'},         {"nvtx", no_argument, 0, 'n'},
        {"title", required_argument, 0, 't'},  {0, 0, 0, 0}};
    memset(request, 0, sizeof *request);
    request->step = -1;
    request->rank = -1;
    timeline_options_init(&request->options);
    optind = 1;
    opterr = 0;
    int option;
    long value;
    while ((option = getopt_long(argc, argv, "o:", options, NULL)) != -1) {
        switch (option) {
        case 'o': request->output_path = optarg; break;
        case 'w': request->window = optarg; break;
        case 'r': request->range_name = optarg; break;
        case 't': request->options.title = optarg; break;
        case 'h': request->options.show_host_calls = 1; break;
        case 'n': request->options.show_nvtx = 1; break;
        case 's':
            if (parse_int(optarg, 0, 1000000000, &request->step) != 0)
                return cli_usage_error(argv[0], "--step wants an iteration number, not '%s'", optarg);
            break;
        case 'R':
            if (parse_int(optarg, 0, 1000000000, &request->rank) != 0)
                return cli_usage_error(argv[0], "--rank wants a rank number, not '%s'", optarg);
            request->options.rank = request->rank;
            break;
        case 'W':
        case 'H':
            if (parse_int(optarg, 1, 1000000, &value) != 0)
                return cli_usage_error(argv[0], "--%s wants pixels, not '%s'", option == 'W' ? "width" : "height",
                                       optarg);
            *(option == 'W' ? &request->options.width_px : &request->options.height_px) = (int)value;
            break;
        case 'd':
            if (parse_int(optarg, 1, 100000, &value) != 0)
                return cli_usage_error(argv[0], "--dpi wants a number, not '%s'", optarg);
            request->options.dpi = (double)value;
            break;
        default:
            return cli_usage_error(argv[0], "unknown option or missing value: '%s'", argv[optind - 1]);
        }
    }
    if (argc - optind != 1)
        return cli_usage_error(argv[0], "expected one trace file");
    request->trace_path = argv[optind];
    if (!request->output_path)
        return cli_usage_error(argv[0], "say where to write the picture: -o timeline.png (or .svg, .pdf)");
    if (request->window && (request->range_name || request->step >= 0))
        return cli_usage_error(argv[0], "--window and --range/--step both choose the window: give one");
    return 0;
}

/* Turns --window, --range and --step into the trace's clock. */
static int resolve_window(store *trace, struct render_request *request, error_info *err)
{
    int64_t origin_ns;
    if (timeline_trace_span(trace, &origin_ns, NULL, err) != 0)
        return -1;
    struct timeline_options *options = &request->options;
    if (request->window) {
        int64_t start_ns, end_ns;
        if (parse_window(request->window, &start_ns, &end_ns) != 0)
            return error_set(err, "--window '%s': expected START:END with units, e.g. 2ms:3.5ms", request->window);
        options->window_start_ns = start_ns == STORE_NULL ? STORE_NULL : origin_ns + start_ns;
        options->window_end_ns = end_ns == STORE_NULL ? STORE_NULL : origin_ns + end_ns;
        return 0;
    }
    if (request->range_name || request->step >= 0)
        return timeline_find_range(trace, request->range_name, request->step, request->rank,
                                   &options->window_start_ns, &options->window_end_ns, err);
    return 0;
}

static struct analysis_result *analyze(store *trace, const struct timeline_options *options, error_info *err)
{
    struct analysis_options analysis_options;
    analysis_options_init(&analysis_options);
    analysis_options.rank = options->rank;
    analysis_options.window_start_ns = options->window_start_ns;
    analysis_options.window_end_ns = options->window_end_ns;
    return analysis_run(trace, &analysis_options, err);
}

int cmd_render(int argc, char **argv)
{
    struct render_request request;
    int status = parse_arguments(argc, argv, &request);
    if (status != 0)
        return status;
    error_info err;
    enum timeline_format format;
    if (timeline_format_from_path(request.output_path, &format, &err) != 0)
        return cli_error(argv[0], "%s", err.message);
    store *trace = store_open(request.trace_path, 1, &err);
    if (!trace)
        return cli_error(argv[0], "%s", err.message);
    if (resolve_window(trace, &request, &err) != 0) {
        store_close(trace, NULL);
        return cli_error(argv[0], "%s", err.message);
    }
    error_info analysis_err;
    struct analysis_result *analysis = analyze(trace, &request.options, &analysis_err);
    struct timeline_layout *layout = NULL;
    if (timeline_draw(trace, analysis, &request.options, request.output_path, &layout, &err) != 0) {
        analysis_free(analysis);
        store_close(trace, NULL);
        return cli_error(argv[0], "%s", err.message);
    }
    size_t stream_lanes = 0;
    for (size_t i = 0; i < layout->lane_count; i++)
        stream_lanes += layout->lanes[i].kind == TIMELINE_LANE_GPU;
    printf("%s: %d x %d px, %zu stream lanes, %zu explained waits marked%s\n", request.output_path, layout->width_px,
           layout->height_px, stream_lanes, layout->wait_count,
           layout->from_overview ? " (streams drawn from the trace's stored overview)" : "");
    if (!analysis)
        cli_error(argv[0], "drawn without the analysis: %s", analysis_err.message);
    timeline_layout_free(layout);
    analysis_free(analysis);
    store_close(trace, NULL);
    timeline_release_caches();
    return CLI_EXIT_OK;
}
