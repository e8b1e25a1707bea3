/* bv_zone.cuh - the zone-first scan of approximate matching on the GPU
 * (device code only; bv.cu launches it): mismatch keys whose --exact-3p
 * zone is selective (src/match/zones.h picks them, for the CPU engine too)
 * are counted only at the windows where their zone matches, instead of at
 * every window by gs_bv_kernel.
 *
 * A block holds a chunk of zone positions and the text they need as codes
 * in shared memory, and takes the zone groups in turn (100 guides with NGG
 * make one group a strand). For each group it works in rounds of 1024
 * positions: every thread tests the zone at 4 of them and queues those
 * where it matches; the queued positions' windows become bit planes
 * (zones.h), one a thread; then the block takes the (queued position, key
 * of the group) pairs, one a thread, each a dozen word operations and a
 * popcount. The queue keeps every lane busy where the zone is rare: building
 * planes or counting in the thread that found the zone would leave a warp
 * one active lane in 16 for NGG, and almost every warp finds one. A round
 * never queues more positions than it tests, so the queue never overflows.
 *
 * Hits are pushed as gs_bv_kernel's (end, distance, key): gs_bv_finish,
 * the sort and everything after are the same as for the other kernels. The
 * arithmetic (planes, counts, block ranges) is zones.h's, which
 * test_zones replays on the CPU against a brute force.
 */
#ifndef GS_GPU_BV_ZONE_CUH
#define GS_GPU_BV_ZONE_CUH

#include "bv.cuh"

extern "C" {
#include "match/zones.h"
}

/* One launch: every zone group over one segment. */
typedef struct gs_bv_zview {
    const gs_zone_group *groups; /* zones.h's tables */
    const gs_zone_key *keys;
    const uint8_t *kbytes;       /* key base sets: the zones' residues */
    uint32_t n_groups;
    uint32_t chunk;              /* zone positions a block */
    uint32_t max_len;            /* the longest zoned key */
    uint32_t stop;               /* ends 1 .. stop are scanned (ownership: engine.h) */
} gs_bv_zview;

enum { GS_BV_ZROUND = 4 * GS_BV_THREADS, GS_BV_ZCHUNK = 8 * GS_BV_ZROUND };

__global__ void __launch_bounds__(GS_BV_THREADS)
    gs_bv_zone(const __grid_constant__ gs_bv_zview v, const __grid_constant__ gs_gpu_scan a)
{
    extern __shared__ __align__(16) uint8_t gs_bv_smem[]; /* text codes [t0, t1) */
    __shared__ unsigned long long qpl[3][GS_BV_ZROUND];  /* queued planes */
    __shared__ uint32_t qp[GS_BV_ZROUND];                /* queued zone positions */
    __shared__ uint32_t qn;
    uint8_t *tx = gs_bv_smem;
    uint32_t c1, t0, t1;
    const uint32_t c0 = blockIdx.x * v.chunk;
    gs_zone_block(c0, v.chunk, v.stop, v.max_len, &c1, &t0, &t1);
    for (uint32_t i = t0 + threadIdx.x; i < t1; i += blockDim.x)
        tx[i - t0] = (uint8_t)gs_bv_code(a.text[i]);
    __syncthreads();
    for (uint32_t g = 0; g < v.n_groups; g++) {
        const gs_zone_group gr = v.groups[g];
        const uint8_t *zb = v.kbytes + gr.zoff;
        /* pair i is (queued i / nk, key i % nk); a thread steps by blockDim */
        const uint32_t nk = gr.k1 - gr.k0, H = blockDim.x / nk, S = blockDim.x % nk;
        for (uint32_t base = c0; base < c1; base += GS_BV_ZROUND) {
            if (threadIdx.x == 0)
                qn = 0;
            __syncthreads();
            for (uint32_t r = 0; r < GS_BV_ZROUND; r += blockDim.x) {
                const uint32_t p = base + r + threadIdx.x;
                if (p < c1 && p + gr.n <= v.stop && gs_zone_codes_ok(zb, gr.n, tx + (p - t0)))
                    qp[atomicAdd(&qn, 1u)] = p;
            }
            __syncthreads();
            const uint32_t nq = qn;
            for (uint32_t q = threadIdx.x; q < nq; q += blockDim.x) {
                uint64_t pl[3];
                gs_zone_planes(tx, (int64_t)(qp[q] - t0) + gr.off, t1 - t0, gr.len, pl);
                qpl[0][q] = pl[0];
                qpl[1][q] = pl[1];
                qpl[2][q] = pl[2];
            }
            __syncthreads();
            for (uint32_t h = threadIdx.x / nk, x = threadIdx.x % nk; h < nq;) {
                const gs_zone_key *zk = &v.keys[gr.k0 + x];
                uint32_t end;
                if (gs_zone_fits(zk, qp[h], v.stop, &end)) {
                    const uint64_t pl[3] = {qpl[0][h], qpl[1][h], qpl[2][h]};
                    const uint32_t d = gs_zone_mismatches(zk, pl);
                    if (d <= zk->k)
                        gs_bv_hit(a, end, d, zk->key);
                }
                h += H;
                x += S;
                if (x >= nk) {
                    x -= nk;
                    h++;
                }
            }
            __syncthreads(); /* the queue is read before the next round resets it */
        }
    }
}

#endif
