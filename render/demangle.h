/* demangle.h: short, readable kernel names for labels ("vectorized_elementwise_kernel",
 * "ncclDevKernel_AllReduce_Sum_f32_RING_LL") from what CUPTI or an importer stored: an Itanium
 * C++ ABI mangled name (_Z...), an already demangled C++ signature, or a plain C name.
 *
 * This is deliberately not a demangler: a label needs the innermost identifier, not the
 * namespaces, template arguments or parameter types, and overlapscope must not depend on
 * libstdc++ (__cxa_demangle) for it. Mangling grammar: https://itanium-cxx-abi.github.io/cxx-abi/abi.html#mangling */
#ifndef OVERLAPSCOPE_DEMANGLE_H
#define OVERLAPSCOPE_DEMANGLE_H

#include <stddef.h>

/* Writes the short name of name into buffer (always NUL-terminated, truncated to size) and
 * returns buffer. Names it cannot parse come back unchanged (truncated). */
char *demangle_short_name(const char *name, char *buffer, size_t size);

#endif
