/* bench_bv.cu - the seeds' edit-distance workload on the GPU engine bv:
 * random text over a 2-letter alphabet, one pattern X over the same
 * letters, the minimum edit distance of X against the text at every end
 * position (semi-global DP), for |X| = 32 .. 1024.
 *
 * It drives gscan's own engine (gs_gpu_engine_bv, the kernels of
 * src/gpu/bv.cuh) on one segment holding the whole text, with K = |X| - 1:
 * every distance is then exact (no alignment is longer than 2|X| - 1, the
 * warm-up the kernels take), and the engine writes the distance of every
 * end to a profile instead of hits. The kernels alone are timed with CUDA
 * events, median of 5 runs after one warm-up run; the profile of the
 * smaller text is checked against a plain Myers DP on the CPU (bv_step.h).
 *
 *   bench_bv [LOG2N ...]       default: 22 30
 *
 * prints one row per (n, |X|): milliseconds and cell updates per second
 * (n x |X| / time).
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpu/gpu_cuda.h"

extern "C" {
#include "match/bv_step.h"
}

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "bench_bv: %s failed: %s (%s:%d)\n", #call, cudaGetErrorName(e_),     \
                    __FILE__, __LINE__);                                                           \
            exit(3);                                                                               \
        }                                                                                          \
    } while (0)

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The semi-global distance at every end, by a chain of 64-bit words. */
static void cpu_profile(const uint8_t *x, uint32_t m, const uint8_t *text, size_t n,
                        std::vector<uint16_t> &out)
{
    uint32_t nw = (m + 63) / 64;
    std::vector<uint64_t> peq(4 * nw, 0), pv(nw, ~0ull), mv(nw, 0);
    for (uint32_t i = 0; i < m; i++)
        peq[4 * (i / 64) + gs_bv_code(x[i])] |= 1ull << (i % 64);
    uint32_t score = m;
    out.resize(n);
    for (size_t j = 0; j < n; j++) {
        uint32_t c = gs_bv_code(text[j]);
        int h = 0;
        for (uint32_t w = 0; w < nw; w++)
            h = gs_bv_edit_step64(gs_bv_eq64(&peq[4 * w], c), &pv[w], &mv[w], h,
                                  w == nw - 1 ? 1ull << ((m - 1) % 64) : 1ull << 63);
        score += h;
        out[j] = (uint16_t)score;
    }
}

int main(int argc, char **argv)
{
    std::vector<int> logs;
    for (int i = 1; i < argc; i++)
        logs.push_back(atoi(argv[i]));
    if (logs.empty())
        logs = {22, 30};
    const uint32_t lengths[] = {32, 64, 128, 256, 512, 1024};
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        fprintf(stderr, "bench_bv: no CUDA device\n");
        return 77;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    gs_gpu_dev dev = {0, prop.multiProcessorCount, prop.sharedMemPerBlockOptin,
                      prop.sharedMemPerMultiprocessor};
    printf("# %s, %d SMs; kernel time, median of 5\n", prop.name, prop.multiProcessorCount);
    printf("%-8s %6s %12s %14s %s\n", "n", "|X|", "ms", "cells/s", "check");
    int bad = 0;
    for (int lg : logs) {
        size_t n = (size_t)1 << lg;
        std::vector<uint8_t> text(n);
        for (size_t i = 0; i < n; i += 64) {
            uint64_t r = next_rand();
            for (size_t b = 0; b < 64 && i + b < n; b++)
                text[i + b] = (r >> b & 1) ? 'C' : 'A';
        }
        uint8_t *d_text = NULL;
        uint16_t *d_prof = NULL;
        uint32_t *d_nhits = NULL;
        unsigned *d_work = NULL;
        CK(cudaMalloc(&d_text, n + 256));
        CK(cudaMemset(d_text, 0, n + 256));
        CK(cudaMemcpy(d_text, text.data(), n, cudaMemcpyHostToDevice));
        CK(cudaMalloc(&d_prof, n * 2));
        CK(cudaMalloc(&d_nhits, 4));
        CK(cudaMalloc(&d_work, 4));
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        for (uint32_t m : lengths) {
            std::vector<uint8_t> x(m), kb(m);
            for (uint32_t i = 0; i < m; i++) {
                x[i] = (next_rand() & 1) ? 'C' : 'A';
                kb[i] = x[i] == 'A' ? 1 : 2; /* base sets: A=1 C=2 */
            }
            uint64_t key_off[2] = {0, m};
            uint32_t out_off[2] = {0, 1}, outputs[1] = {0};
            gs_keyset ks;
            memset(&ks, 0, sizeof ks);
            ks.alphabet = GS_ALPHA_DNA;
            ks.n_keys = 1;
            ks.key_off = key_off;
            ks.key_bytes = kb.data();
            ks.out_off = out_off;
            ks.outputs = outputs;
            ks.min_len = ks.max_len = m;
            ks.n_patterns = 1;
            ks.n_strands = 1;
            ks.mode = GS_MATCH_EDITS;
            ks.max_dist = m - 1;
            ks.span = 2 * m - 1;
            gs_error err;
            memset(&err, 0, sizeof err);
            void *st = NULL;
            gs_tune tune;
            memset(&tune, 0, sizeof tune);
            gs_gpu_args args;
            memset(&args, 0, sizeof args);
            args.tune = &tune; /* want_hits 0: the full-scan kernels alone */
            if (gs_gpu_engine_bv.open(&ks, &dev, &args, n, &st, &err) != GS_OK) {
                fprintf(stderr, "bench_bv: %s\n", err.msg);
                return 3;
            }
            gs_gpu_bv_profile(st, d_prof);
            gs_gpu_scan a;
            memset(&a, 0, sizeof a);
            a.text = d_text;
            a.len = a.own = (uint32_t)std::min<size_t>(n, 0xFFFFFFFFu);
            a.n_hits = d_nhits;
            a.work = d_work;
            std::vector<float> ms;
            for (int r = 0; r < 6; r++) {
                CK(cudaEventRecord(e0));
                if (gs_gpu_engine_bv.scan(st, &a, 0, &err) != GS_OK) {
                    fprintf(stderr, "bench_bv: %s\n", err.msg);
                    return 3;
                }
                CK(cudaEventRecord(e1));
                CK(cudaEventSynchronize(e1));
                float t = 0;
                CK(cudaEventElapsedTime(&t, e0, e1));
                if (r > 0)
                    ms.push_back(t);
            }
            std::sort(ms.begin(), ms.end());
            const char *check = "-";
            if (lg <= 24) {
                std::vector<uint16_t> got(n), want;
                CK(cudaMemcpy(got.data(), d_prof, n * 2, cudaMemcpyDeviceToHost));
                cpu_profile(x.data(), m, text.data(), n, want);
                check = got == want ? "ok" : "DIFFERS";
                bad += got != want;
            }
            printf("2^%-6d %6u %12.3f %14.3e %s\n", lg, m, ms[2], (double)n * m / (ms[2] / 1e3),
                   check);
            fflush(stdout);
            gs_gpu_engine_bv.close(st);
        }
        cudaFree(d_text);
        cudaFree(d_prof);
        cudaFree(d_nhits);
        cudaFree(d_work);
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
    }
    return bad ? 1 : 0;
}
