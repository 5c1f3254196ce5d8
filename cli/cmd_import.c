/* cmd_import.c: placeholder until the import subcommand lands; it says so and fails. */
#include "cli.h"

int cmd_import(int argc, char **argv)
{
    (void)argc;
    return cli_error(argv[0], "not available in this build yet");
}
