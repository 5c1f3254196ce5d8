/* python_source.h: which Python frames are the user's own code, the one home of that rule.
 *
 * A report says "300x at train.py:17": the line the user can change is the innermost frame of
 * their own program, not torch/cuda/__init__.py's synchronize() nor a frame of Python's standard
 * library. Two writers apply it and must agree: the Kineto importer (python_function events,
 * "train.py(17): step") and the collector, which reads the calling thread's frames itself
 * (collector/python_frames.h). Pure C, no state. */
#ifndef OVERLAPSCOPE_PYTHON_SOURCE_H
#define OVERLAPSCOPE_PYTHON_SOURCE_H

#include <stddef.h>

/* 1 when text (a file name, or a Kineto frame name that starts with one) belongs to Python itself
 * or to an installed package (site-packages, dist-packages, torch, the standard library, frozen
 * and built-in modules, code compiled from a string); 0 for the user's own files. */
int python_source_is_library(const char *text);

/* python_source_is_library, where a file below program_folder (NULL or "": none) is always the
 * user's: the folder of the program's own script, whatever its name (a program kept in
 * examples/torch/ is not PyTorch's, though its path holds "torch/"). */
int python_source_is_library_in(const char *text, const char *program_folder);

/* The folder of the script a Python command line runs, from its arguments (argv[0] the
 * interpreter, whose file name starts with "python"): "/home/me/exp/" of `python3 -u exp/train.py`
 * run in /home/me, the path made absolute against cwd and "." and ".." taken out, as Python makes
 * a script's path. Writes it with a trailing '/' into folder (size bytes) and returns 1; 0 when the
 * command runs no script file (not Python, -c, -m, stdin) or the folder does not fit. */
int python_source_program_folder(char *const *argv, int count, const char *cwd, char *folder, size_t size);

/* The part of text a reader recognizes: for a file of an installed package, the path from the
 * package on ("torch/nn/modules/conv.py:548 _conv_forward" of ".../site-packages/torch/nn/...");
 * anything else unchanged. Points into text. */
const char *python_source_shown(const char *text);

#endif
