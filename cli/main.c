/* main.c: the overlapscope command: one table of subcommands, help, version. */
#include <errno.h>
#include <getopt.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"
#include "cli_manuals.h"
#include "manual_man.h"
#include "manual_text.h"
#include "metrics_manual.h"
#include "store.h"
#include "text_safe.h"
#include "version.h"

static const struct cli_command commands[] = {
    {"record", cmd_record, "run a CUDA program and record its GPU activity into a trace"},
    {"info", cmd_info, "say what a trace holds: processes, ranks, devices, drops, warnings"},
    {"report", cmd_report, "measure overlap, explain each missed one (--json, --markdown, --csv)"},
    {"stats", cmd_stats, "summary tables like nsys stats: kernels, API calls, NVTX, copies"},
    {"check", cmd_check, "gate CI on overlap metrics (--min NAME=V, --max NAME=V)"},
    {"diff", cmd_diff, "compare the metrics and causes of two traces"},
    {"render", cmd_render, "draw a timeline (PNG, SVG, PDF)"},
    {"import", cmd_import, "read PyTorch profiler JSON or an Nsight Systems export into a trace"},
    {"export", cmd_export, "write a trace as Chrome/Perfetto JSON"},
    {"merge", cmd_merge, "join the traces of several nodes into one, aligning their clocks"},
};
static const size_t command_count = sizeof commands / sizeof commands[0];
static const char tagline[] = "why don't my CUDA streams overlap, and what does it cost?";

/* "overlapscope: COMMAND: message" on stderr. The message can quote a name from a trace or a
 * file name: it goes out escaped (text_safe.h), so that it stays one line and sends the terminal
 * no control sequence. */
static void print_error(const char *command, const char *format, va_list args)
{
    char message[4096];
    vsnprintf(message, sizeof message, format, args);
    fprintf(stderr, "overlapscope: %s: ", command);
    text_safe_fputs(message, TEXT_SAFE_TERMINAL, stderr);
}

int cli_error(const char *command, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    print_error(command, format, args);
    fputc('\n', stderr);
    va_end(args);
    return CLI_EXIT_ERROR;
}

void cli_print_safe(FILE *out, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *text = NULL;
    int length = vasprintf(&text, format, args);
    va_end(args);
    if (length < 0)
        return;
    int newline = length > 0 && text[length - 1] == '\n';
    if (newline)
        text[length - 1] = '\0';
    text_safe_fputs(text, TEXT_SAFE_TERMINAL, out);
    if (newline)
        fputc('\n', out);
    free(text);
}

int cli_usage_error(const char *command, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    print_error(command, format, args);
    fprintf(stderr, "\ntry 'overlapscope help %s'\n", command);
    va_end(args);
    return CLI_EXIT_ERROR;
}

int cli_parse_output_options(int argc, char **argv, const char *output_what, const char **output_path,
                             int *force)
{
    static const struct option options[] = {
        {"output", required_argument, 0, 'o'}, {"force", no_argument, 0, 'f'}, {0, 0, 0, 0}};
    *output_path = NULL;
    *force = 0;
    optind = 1;
    int option;
    while ((option = getopt_long(argc, argv, "o:f", options, NULL)) != -1) {
        if (option == 'o')
            *output_path = optarg;
        else if (option == 'f')
            *force = 1;
        else
            return cli_usage_error(argv[0], "unknown option or missing value: '%s'", argv[optind - 1]);
    }
    if (!*output_path)
        return cli_usage_error(argv[0], "missing -o TRACE (%s)", output_what);
    return 0;
}

int cli_terminal_width(FILE *out)
{
    /* COLUMNS first, as ls and less read it: how a user (or a test) asks for a width. */
    const char *columns = getenv("COLUMNS");
    if (columns && columns[0]) {
        char *end = NULL;
        long value = strtol(columns, &end, 10);
        if (*end == '\0' && value > 0 && value <= 100000)
            return (int)value;
    }
    struct winsize size;
    if (isatty(fileno(out)) && ioctl(fileno(out), TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
        return size.ws_col;
    return 80;
}

static const char *find_manual(const char *command)
{
    for (size_t i = 0; i < sizeof cli_manuals / sizeof cli_manuals[0]; i++)
        if (strcmp(cli_manuals[i].command, command) == 0)
            return cli_manuals[i].text;
    return NULL;
}

int cli_print_manual(const char *command)
{
    const char *manual = find_manual(command);
    if (!manual)
        return -1;
    manual_text_write(manual, cli_terminal_width(stdout), stdout); /* a write error is caught at exit */
    return 0;
}

static void print_overview(FILE *out)
{
    fprintf(out, "overlapscope %s: %s\n\n", OVERLAPSCOPE_VERSION, tagline);
    fprintf(out, "usage: overlapscope COMMAND [OPTIONS] ...\n\ncommands:\n");
    for (size_t i = 0; i < command_count; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'overlapscope help COMMAND' (or 'overlapscope COMMAND --help') shows its manual;\n"
                 "'overlapscope help metrics' lists every metric and cause.\n");
}

static const struct cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < command_count; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

/* overlapscope(1): the overview as a man page, naming each command's own page. */
static void print_man_overview(FILE *out)
{
    manual_man_header("overlapscope", tagline, OVERLAPSCOPE_VERSION, out);
    fputs(".SH SYNOPSIS\n\\fBoverlapscope\\fR \\fICOMMAND\\fR [\\fIOPTIONS\\fR] ...\n"
          ".br\n\\fBoverlapscope help\\fR [\\fICOMMAND\\fR]\n.br\n\\fBoverlapscope \\-\\-version\\fR\n"
          ".SH COMMANDS\n",
          out);
    for (size_t i = 0; i < command_count; i++) {
        fprintf(out, ".TP\n\\fB%s\\fR\n", commands[i].name);
        /* the summary as a sentence: "... into a trace. See overlapscope-record(1)." */
        char sentence[256];
        int length = snprintf(sentence, sizeof sentence, "%s.", commands[i].summary);
        manual_man_inline(sentence, length > 0 && (size_t)length < sizeof sentence ? (size_t)length : 0, out);
        fprintf(out, "See \\fBoverlapscope\\-%s\\fR(1).\n", commands[i].name);
    }
    fputs(".SH HELP\n.PP\n\\fBoverlapscope help\\fR \\fICOMMAND\\fR and \\fBoverlapscope\\fR \\fICOMMAND\\fR "
          "\\fB\\-\\-help\\fR print a command's manual as text wrapped to the terminal; "
          "\\fBoverlapscope help \\-\\-man\\fR [\\fICOMMAND\\fR] prints it as this man page.\n"
          ".SH EXIT STATUS\n.PP\n0 success, 1 a check failed (\\fBcheck\\fR, \\fBdiff\\fR), 2 a usage or "
          "input error.\n"
          ".SH SEE ALSO\n.PP\n",
          out);
    for (size_t i = 0; i < command_count; i++)
        fprintf(out, "\\fBoverlapscope\\-%s\\fR(1),\n", commands[i].name);
    fputs("\\fBoverlapscope\\-metrics\\fR(7)\n", out);
}

/* help metrics: the metrics and causes, written from the tool's tables (metrics_manual.h); as
 * terminal text, or as the man page overlapscope-metrics(7) with --man. */
static int print_metrics_manual(int man)
{
    char *markdown = metrics_manual_markdown();
    if (!markdown)
        return cli_error("help", "out of memory");
    if (man)
        manual_man_write_section(markdown, METRICS_MANUAL_PAGE, "7", METRICS_MANUAL_SUMMARY,
                                 OVERLAPSCOPE_VERSION, stdout);
    else
        manual_text_write(markdown, cli_terminal_width(stdout), stdout); /* a write error is caught at exit */
    free(markdown);
    return CLI_EXIT_OK;
}

/* overlapscope help --man [COMMAND]: the man page the build installs (cli/CMakeLists.txt). */
static int print_man_page(const char *name)
{
    if (!name) {
        print_man_overview(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(name, "metrics") == 0)
        return print_metrics_manual(1);
    const struct cli_command *command = find_command(name);
    const char *manual = command ? find_manual(name) : NULL;
    if (!manual)
        return cli_error("help", "no manual for '%s'", name);
    char page[64];
    snprintf(page, sizeof page, "overlapscope-%s", name);
    manual_man_write(manual, page, command->summary, OVERLAPSCOPE_VERSION, stdout);
    return CLI_EXIT_OK;
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        print_overview(stderr);
        return CLI_EXIT_ERROR;
    }
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        printf("overlapscope %s\n", OVERLAPSCOPE_VERSION);
        return CLI_EXIT_OK;
    }
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        print_overview(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(name, "help") == 0) {
        if (argc >= 3 && strcmp(argv[2], "--man") == 0)
            return print_man_page(argc >= 4 ? argv[3] : NULL);
        if (argc < 3) {
            print_overview(stdout);
            return CLI_EXIT_OK;
        }
        if (strcmp(argv[2], "metrics") == 0)
            return print_metrics_manual(0);
        if (!find_command(argv[2]))
            return cli_error("help", "no such command '%s'", argv[2]);
        if (cli_print_manual(argv[2]) != 0)
            return cli_error("help", "no manual for '%s'", argv[2]);
        return CLI_EXIT_OK;
    }
    const struct cli_command *command = find_command(name);
    if (!command) {
        fputs("overlapscope: no such command '", stderr);
        text_safe_fputs(name, TEXT_SAFE_TERMINAL, stderr);
        fputs("'\n", stderr);
        print_overview(stderr);
        return CLI_EXIT_ERROR;
    }
    /* Every subcommand answers --help the same way, before its own option parsing. */
    for (int i = 2; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            if (cli_print_manual(name) != 0)
                printf("overlapscope %s: %s\n", name, command->summary);
            return CLI_EXIT_OK;
        }
    }
    /* getopt stays quiet: each command names an unknown option itself, in one line of its own
     * style (cli_filters_take), not getopt's line and then ours */
    opterr = 0;
    return command->run(argc - 1, argv + 1);
}

/* Every command's standard output ends here: a write that failed (a full disk, /dev/full, a
 * closed descriptor) is an error, never exit status 0 with a truncated report. */
static int finish_standard_output(const char *command, int status)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return status;
    if (status == CLI_EXIT_ERROR)
        return status; /* the command said why already: one line */
    cli_error(command, "cannot write to standard output: %s", errno ? strerror(errno) : "write error");
    return CLI_EXIT_ERROR;
}

int main(int argc, char **argv)
{
#ifdef __GLIBC__
    /* Arrays of 1 MiB and more mapped, always: the analysis lets go of its large per-operation
     * arrays (and shrinks them) before the what-if replay takes its own, which returns their pages
     * only from a mapped array. glibc's threshold otherwise rises to the size of the first such
     * array freed, and later ones stayed in the heap, resident: 4 MB more at the peak of 250,000
     * operations (docs/security.md, issue 33). */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
    store_process_setup(); /* before anything opens a trace (the input's sniffing included) */
    int status = dispatch(argc, argv);
    return finish_standard_output(argc >= 2 ? argv[1] : "overlapscope", status);
}
