/* cmd_check.c: placeholder until the check subcommand lands; it says so and fails. */
#include "cli.h"

int cmd_check(int argc, char **argv)
{
    (void)argc;
    return cli_error(argv[0], "not available in this build yet");
}
