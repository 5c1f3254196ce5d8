/* python_source.c: see python_source.h. */
#include "python_source.h"

#include <stdio.h>
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

int python_source_is_library_in(const char *text, const char *program_folder)
{
    if (program_folder && program_folder[0] && strncmp(text, program_folder, strlen(program_folder)) == 0)
        return 0;
    return python_source_is_library(text);
}

/* Appends the components of path to folder (length used), "." dropped and ".." taking the last
 * one off. Returns the new length, or size when it would not fit. */
static size_t add_components(char *folder, size_t length, size_t size, const char *path)
{
    while (*path) {
        const char *end = strchr(path, '/');
        size_t part = end ? (size_t)(end - path) : strlen(path);
        if (part == 2 && path[0] == '.' && path[1] == '.') {
            while (length > 1 && folder[length - 1] == '/')
                length--;
            while (length > 1 && folder[length - 1] != '/')
                length--;
        } else if (part > 0 && !(part == 1 && path[0] == '.')) {
            if (length + part + 2 > size)
                return size;
            if (folder[length - 1] != '/')
                folder[length++] = '/';
            memcpy(folder + length, path, part);
            length += part;
        }
        path += part + (end != NULL);
    }
    folder[length] = '\0';
    return length;
}

int python_source_program_folder(char *const *argv, int count, const char *cwd, char *folder, size_t size)
{
    if (count < 2 || size < 2 || !argv[0])
        return 0;
    const char *interpreter = strrchr(argv[0], '/');
    if (strncmp(interpreter ? interpreter + 1 : argv[0], "python", 6) != 0)
        return 0;
    const char *script = NULL;
    for (int i = 1; i < count && !script; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-')
            script = arg;
        else if (arg[1] == '\0' || (arg[1] == '-' && arg[2] == '\0'))
            return 0; /* "-": the program from stdin */
        else if (arg[1] == '-') {
            if (strcmp(arg, "--check-hash-based-pycs") == 0)
                i++; /* its value; the other long options (--help, --version) run no script */
        } else if (arg[1] == 'W' || arg[1] == 'X') {
            if (arg[2] == '\0')
                i++; /* -W ignore, -X importtime: the value is the next argument */
        } else if (strpbrk(arg + 1, "cm"))
            return 0; /* -c CODE, -m MODULE, alone or after other flags (-uc, -Bm) */
    }
    if (!script)
        return 0;
    folder[0] = '/';
    folder[1] = '\0';
    size_t length = 1;
    if (script[0] != '/' &&
        (!cwd || cwd[0] != '/' || (length = add_components(folder, length, size, cwd)) >= size))
        return 0;
    const char *slash = strrchr(script, '/');
    char directory[4096];
    if (slash) {
        size_t part = (size_t)(slash - script);
        if (part >= sizeof directory)
            return 0;
        memcpy(directory, script, part);
        directory[part] = '\0';
        if ((length = add_components(folder, length, size, directory)) >= size)
            return 0;
    }
    if (folder[length - 1] != '/') {
        if (length + 2 > size)
            return 0;
        folder[length++] = '/';
        folder[length] = '\0';
    }
    return 1;
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
