/* fake_cudart.c: libcudart_overlapscope_test.so, a stand-in for CUDA's runtime library between a
 * program and the collector: its name starts with "libcudart", so native_caller.h must look past
 * its frames to the program that called it. */
#include <stddef.h>

#define EXPORTED __attribute__((visibility("default")))

int probe_native_source(char *source, size_t size);

/* Asks the probe for the native caller as a CUDA callback would, inside the "CUDA call"; the
 * return address into the caller is the test's expected answer. */
EXPORTED __attribute__((noinline)) int fake_cuda_synchronize(char *source, size_t size, void **return_address)
{
    *return_address = __builtin_return_address(0);
    int found = probe_native_source(source, size);
    __asm__ volatile("" ::: "memory"); /* keeps this frame: no tail call */
    return found;
}
