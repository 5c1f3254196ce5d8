/* python_source.h: which Python frames are the user's own code, the one home of that rule.
 *
 * A report says "300x at train.py:17": the line the user can change is the innermost frame of
 * their own program, not torch/cuda/__init__.py's synchronize() nor a frame of Python's standard
 * library. Two writers apply it and must agree: the Kineto importer (python_function events,
 * "train.py(17): step") and the collector, which reads the calling thread's frames itself
 * (collector/python_frames.h). Pure C, no state. */
#ifndef OVERLAPSCOPE_PYTHON_SOURCE_H
#define OVERLAPSCOPE_PYTHON_SOURCE_H

/* 1 when text (a file name, or a Kineto frame name that starts with one) belongs to Python itself
 * or to an installed package (site-packages, dist-packages, torch, the standard library, frozen
 * and built-in modules, code compiled from a string); 0 for the user's own files. */
int python_source_is_library(const char *text);

/* The part of text a reader recognizes: for a file of an installed package, the path from the
 * package on ("torch/nn/modules/conv.py:548 _conv_forward" of ".../site-packages/torch/nn/...");
 * anything else unchanged. Points into text. */
const char *python_source_shown(const char *text);

#endif
