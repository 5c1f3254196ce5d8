/* trace_input.c: see trace_input.h. Owns: the temporary folder of an import made for one command. */
#include "trace_input.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "import.h"
#include "overview.h"
#include "store.h"

#define CACHE_SUFFIX ".overlapscope.db"
#define CACHE_META_KEY "cache_of"

/* Where an input's cache lives and what it is called in its folder. */
struct cache_place {
    char input[PATH_MAX +
               1];    /* the argument without trailing slashes (a folder's real path for "." or "..") */
    const char *name; /* the input's last component, inside input */
    char folder[PATH_MAX + 1];
};

/* 0, or -1 when the input has no name to put a cache beside (the root folder). */
static int find_place(const char *argument, struct cache_place *place)
{
    place->name = "trace"; /* for a temporary import when there is no place */
    snprintf(place->input, sizeof place->input, "%s", argument);
    size_t length = strlen(place->input);
    while (length > 1 && place->input[length - 1] == '/')
        place->input[--length] = '\0';
    const char *slash = strrchr(place->input, '/');
    const char *name = slash ? slash + 1 : place->input;
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
        char resolved[PATH_MAX];
        if (!realpath(place->input, resolved))
            return -1;
        snprintf(place->input, sizeof place->input, "%s", resolved);
        slash = strrchr(place->input, '/');
        name = slash + 1;
    }
    if (!*name)
        return -1;
    place->name = name;
    if (!slash)
        snprintf(place->folder, sizeof place->folder, ".");
    else if (slash == place->input)
        snprintf(place->folder, sizeof place->folder, "/");
    else
        snprintf(place->folder, sizeof place->folder, "%.*s", (int)(slash - place->input), place->input);
    return 0;
}

enum cache_state { CACHE_ABSENT, CACHE_OURS, CACHE_FOREIGN };

/* Whether path is a cache this overlapscope wrote for the input called name: a trace it can open,
 * whose meta says so. Anything else (a user's file, a link, another schema version) is foreign. */
static enum cache_state cache_state(const char *path, const char *name)
{
    struct stat info;
    if (lstat(path, &info) != 0)
        return errno == ENOENT ? CACHE_ABSENT : CACHE_FOREIGN;
    if (!S_ISREG(info.st_mode))
        return CACHE_FOREIGN;
    error_info ignored;
    store *trace = store_open(path, 1, &ignored);
    if (!trace)
        return CACHE_FOREIGN;
    char *cache_of = store_get_meta(trace, CACHE_META_KEY);
    enum cache_state state = cache_of && strcmp(cache_of, name) == 0 ? CACHE_OURS : CACHE_FOREIGN;
    free(cache_of);
    store_close(trace, NULL);
    return state;
}

static int is_newer(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

/* Our cache for the input called name, newer than newest (the input's latest change). */
static int is_fresh_cache(const char *path, const char *name, const struct timespec *newest)
{
    struct stat info;
    return cache_state(path, name) == CACHE_OURS && stat(path, &info) == 0 && is_newer(&info.st_mtim, newest);
}

static int import_to(const char *argument, const char *output, const char *name, int force, error_info *err)
{
    const char *const meta[] = {CACHE_META_KEY, name, NULL};
    struct import_options options = {.force = force, .finish = overview_build_or_warn, .meta = meta};
    char *inputs[] = {(char *)argument};
    return import_run(output, inputs, 1, &options, err) < 0 ? -1 : 0;
}

/* The import into a temporary folder, for a command that cannot keep a cache; why says why. */
static int import_temporarily(struct cli_trace_input *input, const char *command, const char *argument,
                              const struct cache_place *place, const char *why)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(input->temporary_directory, sizeof input->temporary_directory, "%s/overlapscope-import-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(input->temporary_directory)) {
        input->temporary_directory[0] = '\0';
        return cli_error(command,
                         "cannot import '%s' to read it: %s, nor is the temporary folder: run `overlapscope"
                         " import %s -o TRACE` where it can write, and give TRACE to %s",
                         argument, why, argument, command);
    }
    snprintf(input->imported_path, sizeof input->imported_path, "%s/%s" CACHE_SUFFIX,
             input->temporary_directory, place->name);
    error_info err;
    if (import_to(argument, input->imported_path, place->name, 0, &err) != 0)
        return cli_error(command, "%s", err.message);
    input->path = input->imported_path;
    fprintf(stderr,
            "overlapscope: %s: imported '%s' into a temporary trace (%s; to keep one: overlapscope import %s"
            " -o TRACE)\n",
            command, argument, why, argument);
    return 0;
}

int cli_trace_input_open(struct cli_trace_input *input, const char *command, const char *argument)
{
    *input = (struct cli_trace_input){.path = argument};
    if (!import_is_foreign(argument))
        return 0; /* an overlapscope trace, or a file whose problem the reader names */
    struct cache_place place;
    struct stat info;
    if (stat(argument, &info) == 0 && S_ISFIFO(info.st_mode)) {
        place.name = "pipe"; /* `report <(zcat rank0.json.gz)`: read once, nothing to keep a cache of */
        return import_temporarily(input, command, argument, &place, "a pipe is read once");
    }
    if (find_place(argument, &place) != 0)
        return import_temporarily(input, command, argument, &place, "no folder to keep a cache in");
    snprintf(input->imported_path, sizeof input->imported_path, "%s" CACHE_SUFFIX, place.input);
    char *inputs[] = {(char *)argument};
    struct timespec newest;
    error_info err;
    if (import_newest_input(inputs, 1, &newest, &err) != 0)
        return cli_error(command, "%s", err.message);
    enum cache_state state = cache_state(input->imported_path, place.name);
    if (state == CACHE_OURS && is_fresh_cache(input->imported_path, place.name, &newest)) {
        input->path = input->imported_path;
        fprintf(stderr, "overlapscope: %s: reading '%s' (imported from '%s', unchanged since)\n", command,
                input->path, argument);
        return 0;
    }
    char why[PATH_MAX + 96];
    if (state == CACHE_FOREIGN) {
        snprintf(why, sizeof why, "'%s' is not a cache overlapscope wrote: left as it is",
                 input->imported_path);
        return import_temporarily(input, command, argument, &place, why);
    }
    if (access(place.folder, W_OK) != 0) {
        snprintf(why, sizeof why, "'%s' is not writable", place.folder);
        return import_temporarily(input, command, argument, &place, why);
    }
    if (import_to(argument, input->imported_path, place.name, state == CACHE_OURS, &err) != 0) {
        /* Two commands on one new input (a CI job's report and render) import it at once; the
         * first to finish puts the cache in place, the other's exclusive move then fails: read it. */
        if (state == CACHE_ABSENT && is_fresh_cache(input->imported_path, place.name, &newest)) {
            input->path = input->imported_path;
            fprintf(stderr, "overlapscope: %s: reading '%s' (imported from '%s' at the same time)\n", command,
                    input->path, argument);
            return 0;
        }
        return cli_error(command, "%s", err.message);
    }
    input->path = input->imported_path;
    if (state == CACHE_OURS)
        fprintf(stderr, "overlapscope: %s: '%s' changed since '%s' was written: imported it again\n", command,
                argument, input->path);
    else
        fprintf(stderr,
                "overlapscope: %s: imported '%s' into '%s' (a cache, read again while '%s' is unchanged)\n",
                command, argument, input->path, argument);
    return 0;
}

void cli_trace_input_release(struct cli_trace_input *input)
{
    if (!input->temporary_directory[0])
        return;
    unlink(input->imported_path);
    rmdir(input->temporary_directory);
    input->temporary_directory[0] = '\0';
}
