/* gpu_cuda.h - what the CUDA sources of src/gpu share (private, C++ only).
 *
 * The pipeline (gpu.cu) drives engines through a small table of functions,
 * like the CPU engines of src/match: open compiles the keyset on the host once
 * and copies the tables to the device; scan queues the kernels for one
 * segment on a stream and never blocks; close frees. Kernels receive plain
 * "view" structs of device pointers by value; the host objects own the memory.
 */
#ifndef GS_GPU_CUDA_H
#define GS_GPU_CUDA_H

#include <cuda_runtime.h>

extern "C" {
#include "gpu.h"
}

/* Record "CUDA call <call> failed: <error name> (<file>:<line>)" as GS_ESYS. */
gs_status gs_gpu_cuda_fail(gs_error *err, cudaError_t e, const char *call, const char *file,
                           int line);

/* Check a CUDA runtime call; on failure fill `err` and jump to the function's
 * `fail` label. Every function that uses it has `gs_error *err` and `fail:`. */
#define GS_CUDA_CHECK(call)                                                       \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            gs_gpu_cuda_fail(err, e_, #call, __FILE__, __LINE__);                 \
            goto fail;                                                            \
        }                                                                         \
    } while (0)

/* After every kernel launch: a bad configuration shows up here, not later. */
#define GS_CUDA_LAUNCH_CHECK() GS_CUDA_CHECK(cudaGetLastError())

/* What the engines need to know about the device to size their launches. */
typedef struct gs_gpu_dev {
    int id;
    int sm_count;
    size_t smem_optin; /* largest dynamic + static shared memory of one block */
    size_t smem_sm;    /* shared memory of one multiprocessor */
} gs_gpu_dev;

/* One segment as the kernels see it. Key hits are packed by gs_keyhit_pack
 * (core/gs_hitkey.h). */
typedef struct gs_gpu_scan {
    const uint8_t *text;       /* device, padded to a multiple of 64 bytes */
    uint32_t len, own;         /* as in gs_segment, own <= len */
    unsigned long long *counts; /* [n_keys] added to, or NULL (hits-only rerun) */
    unsigned long long *hits;  /* [hit_cap] or NULL (counts only) */
    uint32_t *n_hits;          /* hits found, may exceed hit_cap */
    uint32_t hit_cap;
    unsigned int *work;        /* chunk counters (gs_next_chunk): the first 0 at launch,
                                * GS_GPU_WORK_COUNTERS in all */
} gs_gpu_scan;
enum { GS_GPU_WORK_COUNTERS = 16 };

typedef struct gs_gpu_engine {
    const char *name;
    /* a: as given to gs_gpu_open, its tune never NULL; a->want_hits:
     * whether scans will record hits (counts-only may use leaner kernels);
     * text_cap: the longest segment text that will be scanned. */
    gs_status (*open)(const gs_keyset *ks, const gs_gpu_dev *dev, const gs_gpu_args *a,
                      size_t text_cap, void **state, gs_error *err);
    gs_status (*scan)(void *state, const gs_gpu_scan *a, cudaStream_t s, gs_error *err);
    void (*close)(void *state);
} gs_gpu_engine;

extern const gs_gpu_engine gs_gpu_engine_ac, gs_gpu_engine_wm, gs_gpu_engine_rk,
    gs_gpu_engine_bv;

/* bv (approximate keysets): its kernels push raw hits (end << 32 |
 * distance << 27 | key); this queues their conversion into n 64-bit sort
 * keys (core/gs_hitkey.h, layout {4, lbits, pbits}), where a length of 0
 * (edit keys over 64 residues) leaves the start to the host. text: the
 * scanned segment on the device. A hit that --exact-3p rules out becomes
 * GS_BV_DROPPED, above every sort key, and is cut off after the sort. */
#define GS_BV_DROPPED (~0ull)
gs_status gs_gpu_bv_finish(void *state, const uint8_t *text, const unsigned long long *kh,
                           uint32_t n, uint32_t pbits, uint32_t lbits, unsigned long long *keys,
                           cudaStream_t s, gs_error *err);
/* Benchmarks: write the best distance at every end of the next scans
 * (uint16 each, one key) to profile, or stop with NULL. */
void gs_gpu_bv_profile(void *state, uint16_t *profile);

/* Host-to-device copy of a host array into a fresh allocation (*d = NULL for
 * n == 0 is avoided: at least one element is allocated). */
gs_status gs_gpu_upload(void **d, const void *h, size_t bytes, gs_error *err);

/* Let kernel fn take smem bytes of dynamic shared memory and size a grid that
 * fills the device: as many blocks of `threads` as fit on one
 * multiprocessor, times the multiprocessors. */
template <typename Kernel>
static gs_status gs_gpu_fit_grid(Kernel fn, int threads, size_t smem, const gs_gpu_dev *dev,
                                 int *grid, gs_error *err)
{
    int nb = 0;
    GS_CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    GS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, fn, threads, smem));
    *grid = (nb > 1 ? nb : 1) * dev->sm_count;
    return GS_OK;
fail:
    return err->code;
}

static inline unsigned gs_gpu_div_up(size_t a, size_t b) { return (unsigned)((a + b - 1) / b); }

#endif
