/* native_caller.h: the native function that made a CUDA call, for programs that do not run
 * Python (and Python threads that run no Python code).
 *
 * Called inside a CUDA callback, so the thread's stack runs from here through the collector,
 * libcupti, libcuda and libcudart up to the program. The caller is the first return address
 * outside those (and outside any library named libcuda*, libcudart*, libcupti* or libnvperf*),
 * named by dladdr: "symbol+0xOFF (object)", or "object+0xOFF" when the object exports no symbol
 * there (a static function, a stripped or non -rdynamic executable: `addr2line -e object 0xOFF`
 * names it). C++ names stay mangled (demangling would pull the C++ runtime into the collector).
 * A program that links cudart statically names a frame of its own copy of cudart. */
#ifndef OVERLAPSCOPE_NATIVE_CALLER_H
#define OVERLAPSCOPE_NATIVE_CALLER_H

#include <stddef.h>

/* Loads the unwinder (glibc's backtrace dlopens libgcc_s at its first call): call once at start,
 * never first inside a CUDA callback. */
void native_caller_prepare(void);

/* Fills source with the caller's description; returns 1, or 0 when no frame outside CUDA, CUPTI
 * and the collector was found within 64 frames. */
int native_caller_describe(char *source, size_t size);

#endif
