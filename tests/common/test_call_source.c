/* Where an API call was made, as every output shows it (common/call_source.h): the collector's
 * native callers ("SYMBOL+0xOFFSET (MODULE)", collector/native_caller.c) with a C++ symbol
 * demangled, in full and short; every other source as stored. The mangled symbols are the
 * golden traces' own (tests/data/gpu-h100/copy_pageable.db: wl_device_sum of workloads/) and
 * libtorch's autograd thread, as a native caller of a PyTorch program records it. */
#include <stdlib.h>

#include "call_source.h"
#include "check.h"

struct expected {
    const char *source, *full, *short_form;
};

static const struct expected table[] = {
    /* a C++ caller in the program: the symbol demangled, offset and module kept */
    {"_Z13wl_device_sumPKfm+0x3f (copy_compute)",
     "wl_device_sum(float const*, unsigned long)+0x3f (copy_compute)", "wl_device_sum+0x3f (copy_compute)"},
    {"_ZN5torch8autograd6Engine11thread_mainERKSt10shared_ptrINS0_9GraphTaskEE+0x1a4 (libtorch_cpu.so)",
     "torch::autograd::Engine::thread_main(std::shared_ptr<torch::autograd::GraphTask> const&)+0x1a4 "
     "(libtorch_cpu.so)",
     "thread_main+0x1a4 (libtorch_cpu.so)"},
    /* no module (the collector writes one whenever dladdr names the object) */
    {"_Z13wl_device_sumPKfm+0x3f", "wl_device_sum(float const*, unsigned long)+0x3f", "wl_device_sum+0x3f"},
    /* a C symbol, and an object without a symbol: nothing to demangle */
    {"main+0x336 (copy_compute)", "main+0x336 (copy_compute)", "main+0x336 (copy_compute)"},
    {"libcuda_app.so+0x1f0", "libcuda_app.so+0x1f0", "libcuda_app.so+0x1f0"},
    /* Python frames and CPU operators, from the collector or an importer */
    {"train.py:17 main", "train.py:17 main", "train.py:17 main"},
    {"aten::item", "aten::item", "aten::item"},
    /* a frame of an installed package, from the package on (the venv's path says nothing); the
     * user's own absolute path kept; a name that only ends in the root kept */
    {"/opt/torch/.venv/lib/python3.12/site-packages/torch/nn/modules/conv.py:548 _conv_forward",
     "torch/nn/modules/conv.py:548 _conv_forward", "torch/nn/modules/conv.py:548 _conv_forward"},
    {"/usr/lib/python3/dist-packages/numpy/core/fromnumeric.py:57 _wrapfunc",
     "numpy/core/fromnumeric.py:57 _wrapfunc", "numpy/core/fromnumeric.py:57 _wrapfunc"},
    {"/home/me/site-packages/proj/site-packages/x.py:3 f", "x.py:3 f", "x.py:3 f"},
    {"/home/me/train.py:17 main", "/home/me/train.py:17 main", "/home/me/train.py:17 main"},
    {"weird/site-packages/", "weird/site-packages/", "weird/site-packages/"},
    /* garbage: looks mangled but is not, a mangled name cut short, not the collector's shape */
    {"_Zgarbage+0x10 (x)", "_Zgarbage+0x10 (x)", "_Zgarbage+0x10 (x)"},
    {"_ZN5torch8autograd6Engine11thr+0x10 (x)", "_ZN5torch8autograd6Engine11thr+0x10 (x)",
     "_ZN5torch8autograd6Engine11thr+0x10 (x)"},
    {"_Z13wl_device_sumPKfm+0xzz (x)", "_Z13wl_device_sumPKfm+0xzz (x)", "_Z13wl_device_sumPKfm+0xzz (x)"},
    {"_Z13wl_device_sumPKfm+0x3f copy_compute", "_Z13wl_device_sumPKfm+0x3f copy_compute",
     "_Z13wl_device_sumPKfm+0x3f copy_compute"},
    {"+0x3f (x)", "+0x3f (x)", "+0x3f (x)"},
    {"", "", ""},
};

int main(void)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        char *full = call_source_readable(table[i].source, CALL_SOURCE_FULL);
        char *short_form = call_source_readable(table[i].source, CALL_SOURCE_SHORT);
        CHECK_STR(full, table[i].full);
        CHECK_STR(short_form, table[i].short_form);
        free(full);
        free(short_form);
    }
    char *none = call_source_readable(NULL, CALL_SOURCE_FULL);
    CHECK_STR(none, "");
    free(none);
    return check_finish();
}
