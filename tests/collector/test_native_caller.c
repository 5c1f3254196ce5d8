/* A program that is not Python calls "CUDA" (libcudart_overlapscope_test.so), which asks the
 * collector's capture (libcall_site_probe.so) who called: the answer must name this program's
 * known_caller, at the offset of the return address the fake runtime saw, with the runtime's
 * and the capture's own frames skipped. Then as a program that links cudart statically calls it:
 * a static function of the program (named only by its .symtab) calls a "cudaStatic..." function of
 * the program, which must be looked past too. And Python is absent here. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

int fake_cuda_synchronize(char *source, size_t size, void **return_address);
int probe_native_source(char *source, size_t size);
const char *probe_python_status(void);
int probe_python_source(char *source, size_t size);

/* exported (ENABLE_EXPORTS), so dladdr can name it */
__attribute__((noinline)) int known_caller(char *source, size_t size, void **return_address)
{
    int found = fake_cuda_synchronize(source, size, return_address);
    __asm__ volatile("" ::: "memory"); /* keeps the call a call, not a jump */
    return found;
}

/* The program's own copy of the CUDA runtime, as nvcc's -cudart static links it. */
static __attribute__((noinline)) int cudaStaticRuntimeSynchronize(char *source, size_t size,
                                                                  void **return_address)
{
    *return_address = __builtin_return_address(0);
    int found = probe_native_source(source, size);
    __asm__ volatile("" ::: "memory");
    return found;
}

/* Static: no dynamic symbol names it. Called through a volatile pointer, so the compiler keeps it
 * whole under its own name (no clone for known arguments). */
static __attribute__((noinline)) int static_caller(char *source, size_t size, void **return_address)
{
    int found = cudaStaticRuntimeSynchronize(source, size, return_address);
    __asm__ volatile("" ::: "memory");
    return found;
}

int main(void)
{
    char source[512] = "", expected[512];
    void *return_address = NULL;
    CHECK_INT(known_caller(source, sizeof source, &return_address), 1);
    snprintf(expected, sizeof expected, "known_caller+0x%lx (test_native_caller)",
             (unsigned long)((uintptr_t)return_address - (uintptr_t)known_caller));
    CHECK_STR(source, expected);
    int (*volatile call_static)(char *, size_t, void **) = static_caller;
    CHECK_INT(call_static(source, sizeof source, &return_address), 1);
    snprintf(expected, sizeof expected, "static_caller+0x%lx (test_native_caller)",
             (unsigned long)((uintptr_t)return_address - (uintptr_t)static_caller));
    CHECK_STR(source, expected);
    CHECK_STR(probe_python_status(), "absent");
    CHECK_INT(probe_python_source(source, sizeof source), 0);
    return check_finish();
}
