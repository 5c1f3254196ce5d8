/* write_fixture.c: writes the renderer's scenario trace (fixture.h) to the path given, for the
 * CLI scenario script. */
#include <stdio.h>

#include "fixture.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s TRACE.db\n", argv[0]);
        return 2;
    }
    store *trace = fixture_scenario(argv[1]);
    if (!trace) {
        fprintf(stderr, "%s: cannot write the scenario\n", argv[1]);
        return 1;
    }
    return store_close(trace, NULL) == 0 ? 0 : 1;
}
