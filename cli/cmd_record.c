/* cmd_record.c: placeholder until the record subcommand lands; it says so and fails. */
#include "cli.h"

int cmd_record(int argc, char **argv)
{
    (void)argc;
    return cli_error(argv[0], "not available in this build yet");
}
