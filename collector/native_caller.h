/* native_caller.h: the native function that made a CUDA call, for programs that do not run
 * Python (and Python threads that run no Python code).
 *
 * Called inside a CUDA callback, so the thread's stack runs from here through the collector,
 * libcupti, libcuda and libcudart up to the program. The caller is the first return address
 * outside those (libraries named libcuda*, libcudart*, libcupti*, libnvperf*, and functions of the
 * CUDA runtime linked statically into the program or a library, nvcc's default: "cuda...",
 * "__cuda...", "cudart::..."), as "symbol+0xOFF (object)". Symbols come from dladdr, and for the
 * program itself from its own .symtab (read once at start: a program exports none of its
 * functions unless linked with -rdynamic); "object+0xOFF" when neither names the address (a
 * stripped program: `addr2line -e object 0xOFF`). C++ names stay mangled (demangling would pull
 * the C++ runtime into the collector). */
#ifndef OVERLAPSCOPE_NATIVE_CALLER_H
#define OVERLAPSCOPE_NATIVE_CALLER_H

#include <stddef.h>

/* Loads the unwinder (glibc's backtrace dlopens libgcc_s at its first call) and reads the
 * program's function symbols: call once at start, never first inside a CUDA callback. Not
 * thread-safe; the symbols are kept for the life of the process (at most 1M functions and 16 MiB
 * of names; a larger .symtab is not read). */
void native_caller_prepare(void);

/* Fills source with the caller's description; returns 1, or 0 when no frame outside CUDA, CUPTI
 * and the collector was found within 64 frames. */
int native_caller_describe(char *source, size_t size);

#endif
