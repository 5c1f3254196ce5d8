/* cmd_merge.c: placeholder until the merge subcommand lands; it says so and fails. */
#include "cli.h"

int cmd_merge(int argc, char **argv)
{
    (void)argc;
    return cli_error(argv[0], "not available in this build yet");
}
