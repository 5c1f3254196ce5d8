/* cmd_diff.c: placeholder until the diff subcommand lands; it says so and fails. */
#include "cli.h"

int cmd_diff(int argc, char **argv)
{
    (void)argc;
    return cli_error(argv[0], "not available in this build yet");
}
