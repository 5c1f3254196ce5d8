/* trace_input.c: see trace_input.h. Owns: the temporary folder of an import made for one command. */
#include "trace_input.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "import.h"
#include "overview.h"
#include "progress.h"
#include "store.h"
#include "text_safe.h"

#define CACHE_SUFFIX ".overlapscope.db"
#define CACHE_META_KEY "cache_of"
/* The identity of what the cache was made from (import.h: import_input_identity). */
#define CACHE_IDENTITY_KEY "cache_identity"

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

enum cache_state { CACHE_ABSENT, CACHE_OURS, CACHE_DAMAGED, CACHE_FOREIGN };

/* Whether the unreadable file at path was written by overlapscope: an SQLite header carrying
 * our application id, or what is left of one (a file cut short, down to nothing). Such a file at
 * a cache's name is a damaged cache, replaced; anything else there is the user's. */
static int is_damaged_trace(const char *path)
{
    static const char magic[16] = "SQLite format 3";
    unsigned char header[100];
    FILE *file = fopen(path, "rb");
    if (!file)
        return 0;
    size_t got = fread(header, 1, sizeof header, file);
    fclose(file);
    if (got < sizeof header)
        return memcmp(header, magic, got < sizeof magic ? got : sizeof magic) == 0;
    uint32_t application_id =
        (uint32_t)header[68] << 24 | (uint32_t)header[69] << 16 | (uint32_t)header[70] << 8 | header[71];
    return memcmp(header, magic, sizeof magic) == 0 && application_id == STORE_APPLICATION_ID;
}

/* What is at path: a cache this overlapscope wrote for the input called name (a trace it can
 * open whose meta says so; *identity then holds the identity kept in it, NULL for a cache of an
 * older version, and *why says why it cannot be opened for a damaged one), or something else: a
 * user's file, a link, another schema version. */
static enum cache_state cache_state(const char *path, const char *name, char **identity, error_info *why)
{
    *identity = NULL;
    struct stat info;
    if (lstat(path, &info) != 0)
        return errno == ENOENT ? CACHE_ABSENT : CACHE_FOREIGN;
    if (!S_ISREG(info.st_mode))
        return CACHE_FOREIGN;
    store *trace = store_open(path, 1, why);
    if (!trace)
        return is_damaged_trace(path) ? CACHE_DAMAGED : CACHE_FOREIGN;
    char *cache_of = store_get_meta(trace, CACHE_META_KEY);
    enum cache_state state = cache_of && strcmp(cache_of, name) == 0 ? CACHE_OURS : CACHE_FOREIGN;
    if (state == CACHE_OURS)
        *identity = store_get_meta(trace, CACHE_IDENTITY_KEY);
    free(cache_of);
    store_close(trace, NULL);
    return state;
}

/* Our cache at path, made from the input whose identity is now identity. */
static int is_cache_of(const char *path, const char *name, const char *identity)
{
    char *kept = NULL;
    error_info ignored;
    int matches = cache_state(path, name, &kept, &ignored) == CACHE_OURS && kept &&
                  import_identity_change(kept, identity) == NULL;
    free(kept);
    return matches;
}

/* A folder's entry named like a trace that is none (a rank missing): said, not only stored. */
static void print_skipped(void *command, const char *message)
{
    fprintf(stderr, "overlapscope: %s: warning: ", (const char *)command);
    text_safe_fputs(message, TEXT_SAFE_TERMINAL, stderr);
    fputc('\n', stderr);
}

static int import_to(const char *command, char *const *arguments, int argument_count, const char *output,
                     const char *name, int force, error_info *err)
{
    const char *const meta[] = {CACHE_META_KEY, name, NULL};
    struct import_options options = {.force = force,
                                     .finish = overview_build_or_warn,
                                     .meta = meta,
                                     .identity_meta_key = CACHE_IDENTITY_KEY,
                                     .warn = print_skipped,
                                     .warn_context = (void *)command};
    struct cli_progress progress;
    if (cli_progress_init(&progress, "importing")) {
        options.progress = cli_progress_update;
        options.progress_context = &progress;
    }
    int imported = import_run(output, arguments, argument_count, &options, err);
    cli_progress_finish(&progress);
    return imported < 0 ? -1 : 0;
}

/* Whether the cache's name fits its folder's limit on a name, with the 16 bytes more of the
 * temporary name its writer uses first (store/output_file.c, ".NAME.partial-XXXXXX"): a trace named
 * near the limit (NAME_MAX, 255 on Linux) has no room for a cache beside it. */
static int cache_name_fits(const struct cache_place *place)
{
    long limit = pathconf(place->folder, _PC_NAME_MAX);
    return strlen(place->name) + strlen(CACHE_SUFFIX) + 16 <= (size_t)(limit > 0 ? limit : NAME_MAX);
}

/* The import of arguments (argument: what to call them) into a temporary folder, for a command that
 * cannot keep a cache; why says why. */
static int import_temporarily_all(struct cli_trace_input *input, const char *command, char *const *arguments,
                                  int argument_count, const char *argument, const struct cache_place *place,
                                  const char *why)
{
    const char *tmp = getenv("TMPDIR");
    tmp = tmp && *tmp ? tmp : "/tmp";
    snprintf(input->temporary_directory, sizeof input->temporary_directory, "%s/overlapscope-import-XXXXXX",
             tmp);
    if (!mkdtemp(input->temporary_directory)) {
        /* why is any reason to import elsewhere (a pipe, a long name, a folder not writable): "nor
         * is the temporary folder" read as nonsense after most of them, and hid TMPDIR's problem. */
        int error = errno;
        input->temporary_directory[0] = '\0';
        return cli_error(
            command,
            "cannot import '%s' to read it (%s), and no temporary folder can be made in '%s' (%s):"
            " run `overlapscope import %s -o TRACE` where it can write, and give TRACE to %s",
            argument, why, tmp, strerror(error), argument, command);
    }
    /* A short name of its own: the input's could be too long with the suffix (the reason to be here). */
    snprintf(input->imported_path, sizeof input->imported_path, "%s/trace" CACHE_SUFFIX,
             input->temporary_directory);
    error_info err;
    if (import_to(command, arguments, argument_count, input->imported_path, place->name, 0, &err) != 0)
        return cli_error(command, "%s", err.message);
    input->path = input->imported_path;
    cli_print_safe(stderr,
                   "overlapscope: %s: imported '%s' into a temporary trace (%s; to keep one: overlapscope"
                   " import %s%s -o TRACE)\n",
                   command, argument, why, arguments[0], argument_count > 1 ? " ..." : "");
    return 0;
}

static int import_temporarily(struct cli_trace_input *input, const char *command, const char *argument,
                              const struct cache_place *place, const char *why)
{
    return import_temporarily_all(input, command, (char *const[]){(char *)argument}, 1, argument, place, why);
}

/* Imports argument into its cache (state: what is there now). An input that changes while it is
 * read is imported once more (a profiler finishing its file); twice, and the error stands. */
static int import_into_cache(struct cli_trace_input *input, const char *command, const char *argument,
                             const struct cache_place *place, enum cache_state state, char **identity,
                             const char *why)
{
    error_info err;
    for (int attempt = 0;; attempt++) {
        if (import_to(command, (char *const[]){(char *)argument}, 1, input->imported_path, place->name,
                      state != CACHE_ABSENT, &err) == 0)
            break;
        char *now = NULL;
        error_info ignored;
        int changed = import_input_identity((char *const[]){(char *)argument}, 1, &now, &ignored) == 0 &&
                      import_identity_change(*identity, now) != NULL;
        free(*identity);
        *identity = now;
        /* Two commands on one new input (a CI job's report and render) import it at once; the
         * first to finish puts the cache in place, the other's exclusive move then fails: read it. */
        if (state == CACHE_ABSENT && now && is_cache_of(input->imported_path, place->name, now)) {
            input->path = input->imported_path;
            cli_print_safe(stderr, "overlapscope: %s: reading '%s' (imported from '%s' at the same time)\n",
                           command, input->path, argument);
            return 0;
        }
        if (!changed || attempt > 0 || !now)
            return cli_error(command, "%s", err.message);
    }
    input->path = input->imported_path;
    if (state == CACHE_OURS)
        cli_print_safe(stderr,
                       "overlapscope: %s: '%s' changed since '%s' was written (%s): imported it again\n",
                       command, argument, input->path, why);
    else if (state == CACHE_DAMAGED)
        cli_print_safe(stderr, "overlapscope: %s: '%s' was damaged (%s): imported '%s' into it again\n",
                       command, input->path, why, argument);
    else
        cli_print_safe(
            stderr,
            "overlapscope: %s: imported '%s' into '%s' (a cache, read again while '%s' is unchanged)\n",
            command, argument, input->path, argument);
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
    char *identity = NULL, *kept = NULL;
    error_info err;
    if (import_input_identity((char *const[]){(char *)argument}, 1, &identity, &err) != 0)
        return cli_error(command, "%s", err.message);
    error_info damage = {{0}};
    enum cache_state state = cache_state(input->imported_path, place.name, &kept, &damage);
    const char *change = state == CACHE_OURS ? import_identity_change(kept, identity) : NULL;
    char why[PATH_MAX + 96];
    /* store_open's "cannot open 'PATH': PROBLEM" is said as PROBLEM: the line names the path. */
    const char *problem = strstr(damage.message, "': ");
    snprintf(why, sizeof why, "%s", change ? change : problem ? problem + 3 : damage.message);
    free(kept);
    int status;
    if (!cache_name_fits(&place)) { /* no cache can be there: stat said the name was too long */
        snprintf(why, sizeof why, "its name is too long for a cache beside it");
        status = import_temporarily(input, command, argument, &place, why);
    } else if (state == CACHE_OURS && !change) {
        input->path = input->imported_path;
        cli_print_safe(stderr, "overlapscope: %s: reading '%s' (imported from '%s', unchanged since)\n",
                       command, input->path, argument);
        status = 0;
    } else if (state == CACHE_FOREIGN) {
        snprintf(why, sizeof why, "'%s' is not a cache overlapscope wrote: left as it is",
                 input->imported_path);
        status = import_temporarily(input, command, argument, &place, why);
    } else if (access(place.folder, W_OK) != 0) {
        snprintf(why, sizeof why, "'%s' is not writable", place.folder);
        status = import_temporarily(input, command, argument, &place, why);
    } else {
        status = import_into_cache(input, command, argument, &place, state, &identity, why);
    }
    free(identity);
    return status;
}

int cli_trace_inputs_open(struct cli_trace_input *input, const char *command, char *const *arguments,
                          int argument_count, const char *name)
{
    if (argument_count == 1)
        return cli_trace_input_open(input, command, arguments[0]);
    *input = (struct cli_trace_input){.path = arguments[0]};
    struct cache_place place = {.name = "trace"};
    return import_temporarily_all(input, command, arguments, argument_count, name, &place,
                                  "several files have no one place for a cache");
}

void cli_trace_input_release(struct cli_trace_input *input)
{
    if (!input->temporary_directory[0])
        return;
    unlink(input->imported_path);
    rmdir(input->temporary_directory);
    input->temporary_directory[0] = '\0';
}
