/* Which Python frames are the user's (common/python_source.h): the folder of the program's own
 * script from its command line, and that folder's files the user's whatever its name (a program
 * in workloads/torch/ is not PyTorch's, though its path holds "torch/"). */
#include <string.h>

#include "check.h"
#include "python_source.h"

struct folder_case {
    const char *argv[6];
    int count;
    const char *cwd, *folder; /* "": no folder */
};

static const struct folder_case folders[] = {
    /* a relative script, as tests/gpu/ records seed 004 */
    {{"/opt/torch/.venv/bin/python3", "workloads/torch/sync_loop.py", "--randn"},
     3,
     "/work/main",
     "/work/main/workloads/torch/"},
    /* "." and ".." taken out, as Python's abspath does; an option before the script */
    {{"python3", "-u", "./exp/../exp2/./train.py"}, 3, "/home/me", "/home/me/exp2/"},
    {{"python3", "train.py"}, 2, "/home/me", "/home/me/"},
    {{"python3", "/abs/dir/train.py"}, 2, "/home/me", "/abs/dir/"},
    {{"python3.12", "../up.py"}, 2, "/a/b", "/a/"},
    /* options whose value is the next argument */
    {{"python3", "-W", "ignore", "-X", "importtime", "t.py"}, 6, "/", "/"},
    {{"python3", "--check-hash-based-pycs", "always", "t.py"}, 4, "/c", "/c/"},
    {{"python3", "-Wignore", "t.py"}, 3, "/c", "/c/"},
    /* no script file: a module, code, stdin, not Python, a working folder that is not absolute */
    {{"python3", "-m", "torch.distributed.run", "t.py"}, 4, "/x", ""},
    {{"python3", "-uc", "print(1)"}, 3, "/x", ""},
    {{"python3", "-"}, 2, "/x", ""},
    {{"python3"}, 1, "/x", ""},
    {{"bash", "t.py"}, 2, "/x", ""},
    {{"python3", "t.py"}, 2, "relative", ""},
};

int main(void)
{
    for (size_t i = 0; i < sizeof folders / sizeof folders[0]; i++) {
        char folder[256] = "unchanged";
        int found = python_source_program_folder((char *const *)folders[i].argv, folders[i].count,
                                                 folders[i].cwd, folder, sizeof folder);
        CHECK_INT(found, folders[i].folder[0] != '\0');
        if (found)
            CHECK_STR(folder, folders[i].folder);
    }
    /* a folder that does not fit */
    char small[8];
    CHECK_INT(
        python_source_program_folder((char *const *)folders[0].argv, 2, "/work/main", small, sizeof small),
        0);

    /* the program's folder first, then the packages' rule */
    CHECK_INT(
        python_source_is_library_in("/work/main/workloads/torch/sync_loop.py", "/work/main/workloads/torch/"),
        0);
    CHECK_INT(python_source_is_library_in("/work/main/workloads/torch/sync_loop.py", ""), 1);
    CHECK_INT(python_source_is_library_in("/work/main/workloads/torch/sync_loop.py", NULL), 1);
    CHECK_INT(
        python_source_is_library_in("/opt/torch/.venv/lib/python3.12/site-packages/torch/cuda/__init__.py",
                                    "/work/main/workloads/torch/"),
        1);
    CHECK_INT(python_source_is_library_in("/home/me/train.py", "/work/"), 0);
    CHECK_INT(python_source_is_library_in("/usr/lib/python3.12/threading.py", "/home/me/"), 1);
    return check_finish();
}
