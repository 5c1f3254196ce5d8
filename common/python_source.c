/* python_source.c: see python_source.h. */
#include "python_source.h"

#include <string.h>

int python_source_is_library(const char *text)
{
    static const char *const library[] = {"site-packages/", "dist-packages/", "<built-in",    "<frozen",
                                          "torch/",         "/lib/python",    "threading.py", "<string>"};
    for (size_t i = 0; i < sizeof library / sizeof library[0]; i++)
        if (strstr(text, library[i]))
            return 1;
    return 0;
}
