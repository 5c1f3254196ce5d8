/* cmd_report.c: placeholder until the report subcommand lands; it says so and fails. */
#include "cli.h"

int cmd_report(int argc, char **argv)
{
    (void)argc;
    return cli_error(argv[0], "not available in this build yet");
}
