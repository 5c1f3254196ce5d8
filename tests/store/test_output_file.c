/* test_output_file.c: the output discipline every writer follows (store/output_file.h): what is
 * refused, that of two processes racing for one name exactly one wins, and that a failed, killed
 * or abandoned write leaves nothing behind. Runs in a fresh folder of its own (relative names). */
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "output_file.h"

static void write_text(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    fputs(text, file);
    fclose(file);
}

static const char *read_text(const char *path)
{
    static char text[64];
    text[0] = '\0';
    FILE *file = fopen(path, "r");
    if (file) {
        size_t got = fread(text, 1, sizeof text - 1, file);
        text[got] = '\0';
        fclose(file);
    }
    return text;
}

/* Temporary files of this module left in the current folder. */
static int leftovers(void)
{
    DIR *folder = opendir(".");
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(folder)) != NULL)
        count += output_file_is_unfinished(entry->d_name) || strstr(entry->d_name, ".partial-") != NULL;
    closedir(folder);
    return count;
}

/* Writes text to path through the module; returns commit's status (err filled on failure). */
static int write_through(const char *path, int force, const char *text, error_info *err)
{
    output_file *out = output_file_begin(path, force, NULL, 0, err);
    FILE *stream = out ? output_file_stream(out, err) : NULL;
    if (!stream) {
        output_file_discard(out);
        return -1;
    }
    fputs(text, stream);
    return output_file_commit(out, err);
}

static void test_refusals(void)
{
    error_info err;
    write_text("t.txt", "keep");
    CHECK_INT(symlink("t.txt", "l.png"), 0);
    for (int force = 0; force <= 1; force++) {
        CHECK(output_file_begin("l.png", force, NULL, 0, &err) == NULL);
        CHECK_CONTAINS(err.message, "cannot write 'l.png': it is a symbolic link");
    }
    CHECK_STR(read_text("t.txt"), "keep");
    CHECK_INT(write_through("t.txt", 0, "new", &err), -1);
    CHECK_CONTAINS(err.message, "cannot write 't.txt': file exists (use --force to overwrite)");
    CHECK_STR(read_text("t.txt"), "keep");

    /* The input, named as it is, through a symbolic link, or as a hard link of it. */
    write_text("in.db", "input");
    CHECK_INT(link("in.db", "hard.db"), 0);
    CHECK_INT(symlink("in.db", "sym.db"), 0);
    const char *direct[] = {"other.db", "in.db"}, *through_link[] = {"sym.db"};
    CHECK(output_file_begin("in.db", 1, direct, 2, &err) == NULL);
    CHECK_CONTAINS(err.message, "cannot write 'in.db': it is the input 'in.db'");
    CHECK(output_file_begin("hard.db", 1, direct, 2, &err) == NULL);
    CHECK_CONTAINS(err.message, "cannot write 'hard.db': it is the input 'in.db'");
    CHECK(output_file_begin("in.db", 1, through_link, 1, &err) == NULL);
    CHECK_CONTAINS(err.message, "it is the input 'sym.db'");
    CHECK_STR(read_text("in.db"), "input");

    CHECK_INT(output_file_check("", 1, NULL, 0, &err), -1);
    CHECK_CONTAINS(err.message, "cannot write '': empty file name");
    CHECK_INT(output_file_check("no-folder/x.db", 1, NULL, 0, &err), -1);
    CHECK_CONTAINS(err.message,
                   "cannot write 'no-folder/x.db': folder 'no-folder': No such file or directory");
    CHECK_INT(output_file_check("x/", 1, NULL, 0, &err), -1);
    CHECK_CONTAINS(err.message, "names a folder");
    CHECK_INT(mkfifo("fifo", 0600), 0);
    CHECK_INT(output_file_check("fifo", 1, NULL, 0, &err), -1);
    CHECK_CONTAINS(err.message, "cannot write 'fifo': not a regular file");
    CHECK_INT(output_file_check(".", 1, NULL, 0, &err), -1);
    CHECK_CONTAINS(err.message, "is a directory");
    CHECK_INT(leftovers(), 0);
}

/* A begins, then B begins and finishes first: A's commit must fail, not replace B's file. */
static void test_exclusive_between_processes(void)
{
    error_info err;
    output_file *first = output_file_begin("race.txt", 0, NULL, 0, &err);
    CHECK(first != NULL);
    fputs("first", output_file_stream(first, &err));
    pid_t child = fork();
    if (child == 0)
        _exit(write_through("race.txt", 0, "second", &err) == 0 ? 0 : 1);
    int status = -1;
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_INT(output_file_commit(first, &err), -1);
    CHECK_CONTAINS(err.message, "cannot write 'race.txt': file exists (another writer created it meanwhile");
    CHECK_STR(read_text("race.txt"), "second");
    CHECK_INT(leftovers(), 0);
    /* With force the later writer replaces it. */
    CHECK_INT(write_through("race.txt", 1, "third", &err), 0);
    CHECK_STR(read_text("race.txt"), "third");
}

/* A write error (here a file size limit: write(2) fails with EFBIG, as with ENOSPC on a full disk)
 * fails the commit, and neither the output nor the temporary file remains. */
static void test_failed_write_leaves_nothing(void)
{
    pid_t child = fork();
    if (child == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit limit = {4096, 4096};
        setrlimit(RLIMIT_FSIZE, &limit);
        error_info err;
        output_file *out = output_file_begin("big.bin", 0, NULL, 0, &err);
        FILE *stream = output_file_stream(out, &err);
        for (int i = 0; i < 100000; i++)
            fputc('x', stream);
        int failed = output_file_commit(out, &err) != 0 &&
                     strstr(err.message, "cannot write 'big.bin': File too large");
        _exit(failed ? 0 : 1);
    }
    int status = -1;
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(access("big.bin", F_OK) != 0);
    CHECK_INT(leftovers(), 0);

    /* Abandoned: the temporary file and the sidecars SQLite would have made beside it go. */
    error_info err;
    output_file *out = output_file_begin("abandoned.db", 0, NULL, 0, &err);
    char sidecar[512];
    snprintf(sidecar, sizeof sidecar, "%s-wal", output_file_temporary(out));
    write_text(sidecar, "log");
    CHECK_INT(leftovers(), 2);
    output_file_discard(out);
    CHECK_INT(leftovers(), 0);
    CHECK(access("abandoned.db", F_OK) != 0);
}

/* SIGTERM while writing: the process still dies of it, and its temporary file is gone. */
static void test_signal_removes_temporary(void)
{
    pid_t child = fork();
    if (child == 0) {
        error_info err;
        output_file *out = output_file_begin("signalled.db", 0, NULL, 0, &err);
        fputs("half", output_file_stream(out, &err));
        raise(SIGTERM);
        _exit(0);
    }
    int status = -1;
    waitpid(child, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    CHECK(access("signalled.db", F_OK) != 0);
    CHECK_INT(leftovers(), 0);
}

static void test_unfinished_names(void)
{
    error_info err;
    output_file *out = output_file_begin("sub/x.db", 0, NULL, 0, &err);
    CHECK(out == NULL); /* no such folder yet */
    mkdir("sub", 0700);
    out = output_file_begin("sub/x.db", 0, NULL, 0, &err);
    CHECK(out && strncmp(output_file_temporary(out), "sub/.x.db.partial-", 18) == 0);
    CHECK_INT(output_file_is_unfinished(output_file_temporary(out)), 1);
    output_file_discard(out);
    CHECK_INT(output_file_is_unfinished(".run.db.partial-Ab12Cd"), 1);
    CHECK_INT(output_file_is_unfinished("/a/b/.run.db.partial-4242"), 1);
    CHECK_INT(output_file_is_unfinished("run.db"), 0);
    CHECK_INT(output_file_is_unfinished("run.partial-Ab12Cd"), 0); /* not hidden: a user's name */
    CHECK_INT(output_file_is_unfinished(".run.partial-"), 0);
    CHECK_INT(output_file_is_unfinished(".run.partial-Ab12Cd.db"), 0);
}

int main(void)
{
    char directory[] = "/tmp/overlapscope-test-output-XXXXXX";
    if (!mkdtemp(directory) || chdir(directory) != 0) {
        perror("mkdtemp");
        return 2;
    }
    test_refusals();
    test_exclusive_between_processes();
    test_failed_write_leaves_nothing();
    test_signal_removes_temporary();
    test_unfinished_names();
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", directory);
    if (system(command) != 0)
        fprintf(stderr, "could not remove %s\n", directory);
    return check_finish();
}
