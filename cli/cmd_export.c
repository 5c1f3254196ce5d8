/* cmd_export.c: placeholder until the export subcommand lands; it says so and fails. */
#include "cli.h"

int cmd_export(int argc, char **argv)
{
    (void)argc;
    return cli_error(argv[0], "not available in this build yet");
}
