/* call_source.h: how every output shows where in the program an API call was made (the
 * call_sources table, docs/trace-format.md). A Python frame ("train.py:17 step") and a CPU
 * operator ("aten::item") read well as stored. A native caller, as the collector writes it,
 * "SYMBOL+0xOFFSET (MODULE)" or "MODULE+0xOFFSET", carries the symbol as the linker spells it,
 * mangled for C++ ("_Z13wl_device_sumPKfm+0x3f (copy_compute)"): it is shown with the symbol
 * demangled through the one demangler of common/kernel_name.h, in full
 * ("wl_device_sum(float const*, unsigned long)+0x3f (copy_compute)") or, where space is short,
 * with the function's short name ("wl_device_sum+0x3f (copy_compute)"). A Python frame in an
 * installed package is shown from the package on (python_source_shown: "torch/nn/modules/
 * conv.py:548 _conv_forward", not the virtual environment's path before it). Pure functions. */
#ifndef OVERLAPSCOPE_CALL_SOURCE_H
#define OVERLAPSCOPE_CALL_SOURCE_H

enum call_source_form {
    CALL_SOURCE_FULL, /* the symbol demangled in full, with its parameters */
    CALL_SOURCE_SHORT /* the symbol's short name (kernel_name_short) */
};

/* source as people read it: a native caller's mangled symbol demangled in the given form, the
 * offset and module kept; a Python frame of an installed package from the package on; anything
 * else (the user's own Python frame, a CPU operator, a C symbol, a symbol that does not demangle)
 * unchanged. A newly allocated string the caller frees, or NULL when out of
 * memory; NULL source gives "". */
char *call_source_readable(const char *source, enum call_source_form form);

/* 1 for a native caller the collector could name no function for, "MODULE+0xOFFSET" (a frame in a
 * function its library does not export: "libtorch_cuda.so+0xd44816"), 0 for anything else. */
int call_source_is_anonymous(const char *source);

#endif
