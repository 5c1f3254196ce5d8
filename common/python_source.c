/* python_source.c: see python_source.h. */
#include "python_source.h"

#include <string.h>

/* Where pip and Debian install packages: a file below one of these is a package's. */
static const char *const package_roots[] = {"site-packages/", "dist-packages/"};

int python_source_is_library(const char *text)
{
    for (size_t i = 0; i < sizeof package_roots / sizeof package_roots[0]; i++)
        if (strstr(text, package_roots[i]))
            return 1;
    static const char *const library[] = {"<built-in",   "<frozen",      "torch/",
                                          "/lib/python", "threading.py", "<string>"};
    for (size_t i = 0; i < sizeof library / sizeof library[0]; i++)
        if (strstr(text, library[i]))
            return 1;
    return 0;
}

const char *python_source_shown(const char *text)
{
    const char *shown = text;
    for (size_t i = 0; i < sizeof package_roots / sizeof package_roots[0]; i++) {
        size_t length = strlen(package_roots[i]);
        for (const char *at = strstr(text, package_roots[i]); at; at = strstr(at + 1, package_roots[i]))
            if (at + length > shown && at[length] != '\0')
                shown = at + length;
    }
    return shown;
}
