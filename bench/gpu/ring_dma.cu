/* ring_dma.cu - the page cache to GPU memory, end to end: T threads pread
 * their files (PIECE bytes a call) and copy them to the device, each on its
 * own stream, through R pinned buffers of P bytes a thread, a buffer sent
 * with one cudaMemcpyAsync as soon as it is full and reused once its copy
 * has landed:
 *   hot           no copy to the device, one small buffer reused: the page
 *                 cache's own bound (as `cat`);
 *   32 MiB x 2    the readers' way today (a 32 MiB batch of the pool a
 *                 reader, the next filled while the last one is copied):
 *                 every byte written to DRAM, then read again by the DMA;
 *   32 MiB x 2, 1 MiB sends
 *                 the same buffers, each 1 MiB sent as soon as it is read
 *                 (a reader copying pieces into the device's batch from
 *                 its pool buffer): the DMA may find them in the cache,
 *                 but they are still written back;
 *   4 MiB x 4 down to 256 KiB x 4
 *                 smaller buffers, until a thread's fit the last-level
 *                 cache with the others' (16 threads x 1 MiB): the page
 *                 cache is read from DRAM once, the buffers are overwritten
 *                 before they are written back, and the DMA may read them
 *                 from the cache.
 * Prints GB/s counted until every copy has landed, twice for each way.
 * Whether the small rings are faster decides the shape of the raw reader
 * (docs/performance.md, "16 GiB on one GPU").
 *
 *   nvcc -O2 -o ring_dma bench/gpu/ring_dma.cu -lpthread
 *   ./ring_dma THREADS FILE...   (files cached: cat them first)
 */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>
#include <vector>

#include <cuda_runtime.h>

enum { PIECE = 256 << 10, MAX_R = 4 };
static const size_t DEV_BYTES = (size_t)256 << 20; /* a thread's device area, reused */

static double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

struct way {
    const char *name;
    size_t p; /* bytes a buffer; 0: hot */
    int r;
    size_t send; /* bytes a copy, sent as they are read; 0: the whole buffer */
};

struct job {
    std::vector<const char *> files;
    way w;
    unsigned char *buf[MAX_R];
    unsigned char *dev;
    cudaStream_t st;
    cudaEvent_t ev[MAX_R];
    size_t bytes;
    int failed;
};

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                           \
            j->failed = 1;                                                                     \
            return NULL;                                                                       \
        }                                                                                      \
    } while (0)

static void *run(void *arg)
{
    job *j = (job *)arg;
    CK(cudaSetDevice(0));
    size_t p = j->w.p ? j->w.p : PIECE, fill = 0, at_dev = 0, sent = 0;
    int slot = 0;
    for (const char *path : j->files) {
        int fd = open(path, O_RDONLY);
        if (fd < 0) {
            perror(path);
            j->failed = 1;
            return NULL;
        }
        for (off_t at = 0;;) {
            size_t want = std::min((size_t)PIECE, p - fill);
            ssize_t got = pread(fd, j->buf[slot] + fill, want, at);
            if (got <= 0)
                break;
            at += got;
            j->bytes += (size_t)got;
            if (fill == 0 && at_dev + p > DEV_BYTES)
                at_dev = 0;
            fill += (size_t)got;
            if (j->w.send && (fill - sent >= j->w.send || fill == p)) { /* a piece on its way */
                CK(cudaMemcpyAsync(j->dev + at_dev + sent, j->buf[slot] + sent, fill - sent,
                                   cudaMemcpyHostToDevice, j->st));
                sent = fill;
            }
            if (fill < p)
                continue;
            if (j->w.p) { /* full: to the device, then wait for the next buffer's copy */
                if (!j->w.send)
                    CK(cudaMemcpyAsync(j->dev + at_dev, j->buf[slot], fill,
                                       cudaMemcpyHostToDevice, j->st));
                CK(cudaEventRecord(j->ev[slot], j->st));
                at_dev += fill;
                slot = (slot + 1) % j->w.r;
                CK(cudaEventSynchronize(j->ev[slot]));
            }
            fill = sent = 0;
        }
        close(fd);
    }
    if (j->w.p && fill > sent)
        CK(cudaMemcpyAsync(j->dev + at_dev + sent, j->buf[slot] + sent, fill - sent,
                           cudaMemcpyHostToDevice, j->st));
    CK(cudaStreamSynchronize(j->st));
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: ring_dma THREADS FILE...\n");
        return 1;
    }
    int t = atoi(argv[1]);
    if (t < 1)
        return 1;
    const way ways[] = {{"hot", 0, 1},
                        {"32 MiB x 2", (size_t)32 << 20, 2},
                        {"32 MiB x 2, 1 MiB sends", (size_t)32 << 20, 2, (size_t)1 << 20},
                        {"4 MiB x 4", (size_t)4 << 20, 4},
                        {"1 MiB x 4", (size_t)1 << 20, 4},
                        {"512 KiB x 4", (size_t)512 << 10, 4},
                        {"256 KiB x 4", (size_t)256 << 10, 4}};
    std::vector<job> jobs(t);
    for (int i = 0; i < t; i++) {
        job *j = &jobs[i];
        for (int s = 0; s < MAX_R; s++) /* the largest way's buffers, shared by all ways */
            if (cudaMallocHost((void **)&j->buf[s], s < 2 ? (size_t)32 << 20 : (size_t)4 << 20) !=
                    cudaSuccess ||
                cudaEventCreateWithFlags(&j->ev[s], cudaEventDisableTiming) != cudaSuccess)
                return 1;
        if (cudaMalloc((void **)&j->dev, DEV_BYTES) != cudaSuccess ||
            cudaStreamCreateWithFlags(&j->st, cudaStreamNonBlocking) != cudaSuccess)
            return 1;
    }
    for (int a = 2; a < argc; a++)
        jobs[(a - 2) % t].files.push_back(argv[a]);
    for (int rep = 0; rep < 2; rep++)
        for (const way &w : ways) {
            std::vector<pthread_t> th(t);
            double t0 = now();
            for (int i = 0; i < t; i++) {
                jobs[i].w = w;
                jobs[i].bytes = 0;
                pthread_create(&th[i], NULL, run, &jobs[i]);
            }
            size_t bytes = 0;
            int failed = 0;
            for (int i = 0; i < t; i++) {
                pthread_join(th[i], NULL);
                bytes += jobs[i].bytes;
                failed |= jobs[i].failed;
            }
            double s = now() - t0;
            if (failed)
                return 1;
            printf("%-24s %2d threads: %.2f GB in %.3f s, %.1f GB/s\n", w.name, t, bytes / 1e9, s,
                   bytes / 1e9 / s);
        }
    return 0;
}
