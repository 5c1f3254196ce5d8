/* cmd_render.c: placeholder until the render subcommand lands; it says so and fails. */
#include "cli.h"

int cmd_render(int argc, char **argv)
{
    (void)argc;
    return cli_error(argv[0], "not available in this build yet");
}
