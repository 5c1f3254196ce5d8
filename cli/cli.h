/* cli.h: what the subcommands of the overlapscope command line share.
 *
 * Each subcommand lives in its own file cmd_NAME.c and exports
 *     int cmd_NAME(int argc, char **argv);
 * with argv[0] the subcommand's name; it returns the process exit status: 0 success, 1 a check
 * failed (check, diff), 2 a usage or input error (CLI_EXIT_*). The table in main.c lists them. */
#ifndef OVERLAPSCOPE_CLI_H
#define OVERLAPSCOPE_CLI_H

#include <stdio.h>

enum { CLI_EXIT_OK = 0, CLI_EXIT_CHECK_FAILED = 1, CLI_EXIT_ERROR = 2 };

struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

int cmd_record(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_merge(int argc, char **argv);

/* Prints "overlapscope: COMMAND: message" and a newline to stderr. Returns CLI_EXIT_ERROR. */
int cli_error(const char *command, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* printf to out, every control byte and invalid UTF-8 escaped (text_safe.h's terminal style) but a
 * final newline: a line that quotes a file name or a trace's text (a writer's summary) stays one
 * line and sends the terminal no control sequence. */
void cli_print_safe(FILE *out, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* The options of the commands that write one new trace from their inputs (import, merge):
 * -o/--output TRACE and -f/--force. Parses argv from its first option on, sets *output_path and
 * *force, and leaves optind at the first input. Returns 0, or CLI_EXIT_ERROR after the usage error
 * (an unknown option, or no -o: "missing -o TRACE (output_what)"). */
int cli_parse_output_options(int argc, char **argv, const char *output_what, const char **output_path,
                             int *force);

/* The width text output wraps at: COLUMNS when it holds a positive number, else the terminal's
 * columns when out is a terminal, else 80. */
int cli_terminal_width(FILE *out);

/* Prints the manual page of a subcommand (docs/overlapscope-COMMAND.md, embedded at build time)
 * to stdout. Returns 0, or -1 when there is none. */
int cli_print_manual(const char *command);

/* Prints "usage: ..." and "try 'overlapscope help COMMAND'" to stderr; returns CLI_EXIT_ERROR. */
int cli_usage_error(const char *command, const char *format, ...) __attribute__((format(printf, 2, 3)));

#endif
