/* pin_speed.cu - what pinning host memory costs on this machine: one
 * cudaMallocHost of SIZE bytes, the same in 16 MiB pieces, and
 * cudaHostRegister of malloc'd (touched) memory, each timed, then the
 * pinned host-to-device copy rate. The ingest path's buffer plan rests on
 * these numbers (docs/performance.md, section 10). Last, the pool's own
 * way: SIZE bytes malloc'd and not yet touched, registered in 32 MiB
 * buffers as the feeding thread does (the pages faulted in by the
 * registration). Run N copies at once to see ranks pinning side by side.
 *
 *   nvcc -O2 -o pin_speed bench/gpu/pin_speed.cu && ./pin_speed [MiB]
 */
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

static double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

#define CHECK(x)                                                                               \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                           \
            return 1;                                                                          \
        }                                                                                      \
    } while (0)

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256, bytes = mib << 20;
    double t = now();
    CHECK(cudaFree(0));
    printf("context %.3f s\n", now() - t);
    void *h, *d;
    t = now();
    CHECK(cudaMallocHost(&h, bytes));
    double one = now() - t;
    memset(h, 'A', bytes);
    CHECK(cudaMalloc(&d, bytes));
    CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    t = now();
    for (int i = 0; i < 4; i++)
        CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    double copy = (now() - t) / 4;
    CHECK(cudaFreeHost(h));
    size_t n = mib / 16;
    void **v = (void **)calloc(n, sizeof *v);
    t = now();
    for (size_t i = 0; i < n; i++)
        CHECK(cudaMallocHost(&v[i], 16u << 20));
    double pieces = now() - t;
    for (size_t i = 0; i < n; i++)
        CHECK(cudaFreeHost(v[i]));
    void *m = malloc(bytes);
    memset(m, 0, bytes);
    t = now();
    CHECK(cudaHostRegister(m, bytes, cudaHostRegisterDefault));
    double reg = now() - t;
    CHECK(cudaHostUnregister(m));
    free(m);
    size_t nb = mib / 32 ? mib / 32 : 1;
    void **b = (void **)calloc(nb, sizeof *b);
    for (size_t i = 0; i < nb; i++)
        b[i] = malloc(32u << 20);
    t = now();
    for (size_t i = 0; i < nb; i++)
        CHECK(cudaHostRegister(b[i], 32u << 20, cudaHostRegisterDefault));
    double fresh = now() - t;
    for (size_t i = 0; i < nb; i++) {
        CHECK(cudaHostUnregister(b[i]));
        free(b[i]);
    }
    printf("%zu MiB: cudaMallocHost %.3f s (%.2f ms/MiB), in 16 MiB pieces %.3f s, "
           "cudaHostRegister of touched memory %.3f s (%.2f ms/MiB), of untouched 32 MiB "
           "buffers %.3f s (%.2f ms/MiB); H2D %.1f GB/s\n",
           mib, one, one * 1e3 / mib, pieces, reg, reg * 1e3 / mib, fresh, fresh * 1e3 / (nb * 32),
           bytes / copy / 1e9);
    return 0;
}
