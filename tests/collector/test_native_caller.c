/* A program that is not Python calls "CUDA" (libcudart_overlapscope_test.so), which asks the
 * collector's capture (libcall_site_probe.so) who called: the answer must name this program's
 * known_caller, at the offset of the return address the fake runtime saw, with the runtime's
 * and the capture's own frames skipped. And Python is absent here. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

int fake_cuda_synchronize(char *source, size_t size, void **return_address);
const char *probe_python_status(void);
int probe_python_source(char *source, size_t size);

/* exported (ENABLE_EXPORTS), so dladdr can name it */
__attribute__((noinline)) int known_caller(char *source, size_t size, void **return_address)
{
    int found = fake_cuda_synchronize(source, size, return_address);
    __asm__ volatile("" ::: "memory"); /* keeps the call a call, not a jump */
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
    CHECK_STR(probe_python_status(), "absent");
    CHECK_INT(probe_python_source(source, sizeof source), 0);
    return check_finish();
}
