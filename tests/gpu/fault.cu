// fault.cu: a long GPU run that ends badly, for issue 7.1 (tests/gpu/faults.sh). Batches of
// 10 spin kernels (~1 ms each) are launched and synchronized one after another; after each
// batch the program prints "completed N at MS" (kernels known finished, milliseconds since
// start) and flushes stdout, so the test knows what had finished when the end came. After
// --seconds S it ends the way MODE says:
//   segv   writes through a null pointer (SIGSEGV)      abort  calls abort() (SIGABRT)
//   exit   calls _exit(3): no atexit, no CUDA teardown  kill   raises SIGKILL (nothing can run)
//   term   raises SIGTERM                               wait   keeps running until killed
//   ok     returns 0 (the eight-process run)
// Usage: fault MODE [SECONDS]
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

__global__ void fault_spin(long long cycles)
{
    long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: fault segv|abort|exit|kill|term|wait|ok [SECONDS]\n");
        return 2;
    }
    const char *mode = argv[1];
    double seconds = argc > 2 ? atof(argv[2]) : 3.0;
    int clock_khz = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
    long long cycles = (long long)clock_khz; // ~1 ms
    auto start = std::chrono::steady_clock::now();
    long completed = 0;
    for (;;) {
        for (int i = 0; i < 10; i++)
            fault_spin<<<1, 32>>>(cycles);
        cudaError_t status = cudaDeviceSynchronize();
        if (status != cudaSuccess) {
            fprintf(stderr, "fault: %s\n", cudaGetErrorString(status));
            return 1;
        }
        completed += 10;
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        printf("completed %ld at %.1f\n", completed, ms);
        fflush(stdout);
        if (ms < seconds * 1000 || strcmp(mode, "wait") == 0)
            continue;
        if (strcmp(mode, "ok") == 0)
            return 0;
        if (strcmp(mode, "segv") == 0)
            *(volatile int *)(uintptr_t)argc = 0; // argc is a small integer: an unmapped address
        else if (strcmp(mode, "abort") == 0)
            abort();
        else if (strcmp(mode, "exit") == 0)
            _exit(3);
        else if (strcmp(mode, "kill") == 0)
            raise(SIGKILL);
        else if (strcmp(mode, "term") == 0)
            raise(SIGTERM);
        fprintf(stderr, "fault: unknown mode %s\n", mode);
        return 2;
    }
}
