/* hold_gpus.cu - keeps a context on every visible GPU while a benchmark
 * runs, as a node's daemon would. On a 4 x H100 host (persistence mode on)
 * four processes starting CUDA at once took 1.63-1.72 s each against
 * 0.33-0.45 s alone, and 0.74 s against 0.22 s while this held the GPUs:
 * running a benchmark with and without it tells the driver's part of a
 * multi-rank start from gscan's (docs/performance.md, "Four GPUs on one
 * host").
 *
 *   nvcc -O2 -o hold_gpus bench/gpu/hold_gpus.cu && ./hold_gpus SECONDS &
 */
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int n = 0, secs = argc > 1 ? atoi(argv[1]) : 600;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        fprintf(stderr, "hold_gpus: no GPU visible\n");
        return 1;
    }
    for (int i = 0; i < n; i++)
        if (cudaSetDevice(i) != cudaSuccess || cudaFree(0) != cudaSuccess) {
            fprintf(stderr, "hold_gpus: cannot start CUDA on GPU %d\n", i);
            return 1;
        }
    printf("holding %d GPUs for %d s\n", n, secs);
    fflush(stdout);
    sleep(secs);
    return 0;
}
