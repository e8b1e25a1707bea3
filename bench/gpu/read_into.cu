/* read_into.cu - how fast threads can move a corpus from the page cache
 * into the host buffers the GPU copies from, and which way of reading is
 * cheapest: each of T threads reads its files in PIECE-byte preads
 *   hot      into one small buffer it reuses (as `cat` does: the bound of
 *            the page cache itself),
 *   cold     straight into a large buffer, a new place each piece (the
 *            readers' way today: pinned memory the GPU copies from),
 *   bounce   into the small buffer, then memcpy into the large one,
 *   stream   into the small buffer, then copied with non-temporal stores
 *            (the destination never read into the cache),
 * the large buffers pinned (cudaMallocHost) or not (malloc, touched once
 * before). Prints GB/s for each. The ingest path's reader rests on these
 * numbers (docs/performance.md, "16 GiB on one GPU").
 *
 *   nvcc -O2 -o read_into bench/gpu/read_into.cu -lpthread
 *   ./read_into THREADS BUF_MIB FILE...   (files cached: cat them first)
 */
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <emmintrin.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>
#include <vector>

#include <cuda_runtime.h>

enum { PIECE = 256 << 10 };

static double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

enum { HOT, COLD, BOUNCE, STREAM, N_WAYS };
static const char *way_name[N_WAYS] = {"hot", "cold", "bounce", "stream"};

struct job {
    int way;
    std::vector<const char *> files;
    unsigned char *big; /* the thread's large buffer */
    size_t big_n;
    unsigned char *small;
    size_t bytes;
};

static void stream_copy(unsigned char *to, const unsigned char *from, size_t n)
{
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(from + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(from + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(from + i + 32));
        __m128i d = _mm_loadu_si128((const __m128i *)(from + i + 48));
        _mm_stream_si128((__m128i *)(to + i), a);
        _mm_stream_si128((__m128i *)(to + i + 16), b);
        _mm_stream_si128((__m128i *)(to + i + 32), c);
        _mm_stream_si128((__m128i *)(to + i + 48), d);
    }
    memcpy(to + i, from + i, n - i);
}

static void *run(void *arg)
{
    job *j = (job *)arg;
    size_t at_big = 0;
    for (const char *path : j->files) {
        int fd = open(path, O_RDONLY);
        if (fd < 0) {
            perror(path);
            exit(1);
        }
        for (off_t at = 0;;) {
            if (at_big + PIECE > j->big_n)
                at_big = 0;
            unsigned char *to = j->way == COLD ? j->big + at_big : j->small;
            ssize_t got = pread(fd, to, PIECE, at);
            if (got <= 0)
                break;
            if (j->way == BOUNCE)
                memcpy(j->big + at_big, j->small, (size_t)got);
            else if (j->way == STREAM)
                stream_copy(j->big + at_big, j->small, (size_t)got);
            at += got;
            at_big += ((size_t)got + 63) & ~(size_t)63; /* streaming stores want 16-byte alignment */
            j->bytes += (size_t)got;
        }
        close(fd);
    }
    _mm_sfence();
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: read_into THREADS BUF_MIB FILE...\n");
        return 1;
    }
    int t = atoi(argv[1]);
    size_t big_n = (size_t)atoi(argv[2]) << 20;
    std::vector<job> jobs(t);
    for (int pinned = 0; pinned < 2; pinned++) {
        for (int i = 0; i < t; i++) {
            if (pinned) {
                if (cudaMallocHost((void **)&jobs[i].big, big_n) != cudaSuccess)
                    return 1;
            } else {
                jobs[i].big = (unsigned char *)malloc(big_n);
            }
            memset(jobs[i].big, 1, big_n);
            jobs[i].big_n = big_n;
            jobs[i].small = (unsigned char *)aligned_alloc(4096, PIECE);
            memset(jobs[i].small, 1, PIECE);
        }
        for (int a = 3; a < argc; a++)
            jobs[(a - 3) % t].files.push_back(argv[a]);
        for (int rep = 0; rep < 2; rep++)
            for (int w = 0; w < N_WAYS; w++) {
                std::vector<pthread_t> th(t);
                double t0 = now();
                for (int i = 0; i < t; i++) {
                    jobs[i].way = w;
                    jobs[i].bytes = 0;
                    pthread_create(&th[i], NULL, run, &jobs[i]);
                }
                size_t bytes = 0;
                for (int i = 0; i < t; i++) {
                    pthread_join(th[i], NULL);
                    bytes += jobs[i].bytes;
                }
                double s = now() - t0;
                printf("%s %-7s %2d threads: %.2f GB in %.3f s, %.1f GB/s\n",
                       pinned ? "pinned" : "malloc", way_name[w], t, bytes / 1e9, s, bytes / 1e9 / s);
            }
        for (int i = 0; i < t; i++) {
            if (pinned)
                cudaFreeHost(jobs[i].big);
            else
                free(jobs[i].big);
            free(jobs[i].small);
            jobs[i].files.clear();
        }
    }
    return 0;
}
