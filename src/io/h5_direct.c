/* h5_direct.c - write a chunked shuffle+deflate dataset by compressing its
 * chunks on all cores and handing them to HDF5 as they are.
 *
 * Why: at 10^8 hits the write phase was mostly zlib's deflate, run by
 * H5Dwrite one chunk after another on one core. Here the chunks of a batch
 * are filled, shuffled (HDF5's byte transposition) and deflated (libdeflate,
 * a zlib stream as HDF5's filter writes it) by one thread each, and the
 * calling thread stores them in order with H5Dwrite_chunk. The file is the
 * same standard filtered dataset (h5py, h5dump read it; only the compressed
 * bytes differ from zlib's). H5Dwrite_chunk allocates file space on its own
 * rank, which parallel HDF5 cannot share, so h5out.c uses this path only
 * when one process writes the file.
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include "h5_internal.h"

#include <libdeflate.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_THREADS = 64 };

typedef struct job {
    const gs_h5_direct *d;
    uint64_t first;   /* first chunk of the batch */
    int n;            /* chunks in the batch */
    uint8_t **raw, **packed, **out;
    size_t *out_len, cap;
    atomic_int next;
    atomic_int failed;
} job;

static void *compress_main(void *arg)
{
    job *j = arg;
    const gs_h5_direct *d = j->d;
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(d->level);
    size_t bytes = d->chunk_rows * d->elem;
    for (int i; (i = atomic_fetch_add(&j->next, 1)) < j->n;) {
        uint64_t from = (j->first + (uint64_t)i) * d->chunk_rows;
        uint64_t rows = d->n_rows - from < d->chunk_rows ? d->n_rows - from : d->chunk_rows;
        uint8_t *raw = j->raw[i], *in = raw;
        memset(raw + rows * d->elem, 0, bytes - rows * d->elem); /* an edge chunk is stored whole */
        d->fill(d->src, d->elem, from, (size_t)rows, raw);
        if (d->shuffle && d->elem > 1) { /* HDF5's shuffle: byte k of every element together */
            in = j->packed[i];
            for (size_t k = 0; k < d->elem; k++)
                for (size_t e = 0; e < d->chunk_rows; e++)
                    in[k * d->chunk_rows + e] = raw[e * d->elem + k];
        }
        j->out_len[i] = c ? libdeflate_zlib_compress(c, in, bytes, j->out[i], j->cap) : 0;
        if (j->out_len[i] == 0)
            atomic_store(&j->failed, 1);
    }
    libdeflate_free_compressor(c);
    return NULL;
}

int gs_h5_threads(int most)
{
    /* the cores this process may run on (a Slurm allocation), not the host's */
    cpu_set_t set;
    long cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                            : sysconf(_SC_NPROCESSORS_ONLN);
    return cores < 1 ? 1 : cores > most ? most : (int)cores;
}

int gs_h5_write_direct(const gs_h5_direct *d)
{
    int nt = gs_h5_threads(MAX_THREADS), ok = 1;
    size_t bytes = d->chunk_rows * d->elem;
    uint64_t n_chunks = (d->n_rows + d->chunk_rows - 1) / d->chunk_rows;
    uint8_t *mem[3][MAX_THREADS] = {{0}};
    size_t out_len[MAX_THREADS];
    struct libdeflate_compressor *probe = libdeflate_alloc_compressor(d->level);
    job j = {.d = d, .raw = mem[0], .packed = mem[1], .out = mem[2], .out_len = out_len,
             .cap = probe ? libdeflate_zlib_compress_bound(probe, bytes) : 0};
    libdeflate_free_compressor(probe);
    if (j.cap == 0)
        return 0;
    if ((uint64_t)nt > n_chunks)
        nt = (int)n_chunks;
    for (int i = 0; i < nt; i++)
        if ((mem[0][i] = malloc(bytes)) == NULL || (mem[1][i] = malloc(bytes)) == NULL
            || (mem[2][i] = malloc(j.cap)) == NULL)
            ok = 0;
    for (uint64_t c = 0; ok && c < n_chunks; c += (uint64_t)nt) {
        pthread_t tid[MAX_THREADS];
        int started = 0;
        j.first = c;
        j.n = n_chunks - c < (uint64_t)nt ? (int)(n_chunks - c) : nt;
        atomic_store(&j.next, 0);
        for (; started < j.n - 1; started++)
            if (pthread_create(&tid[started], NULL, compress_main, &j))
                break;
        compress_main(&j); /* with no thread started, this one does all */
        for (int i = 0; i < started; i++)
            pthread_join(tid[i], NULL);
        if (atomic_load(&j.failed)) {
            ok = 0;
            break;
        }
        for (int i = 0; i < j.n && ok; i++) {
            hsize_t off = (c + (uint64_t)i) * d->chunk_rows;
            if (H5Dwrite_chunk(d->dset, H5P_DEFAULT, 0, &off, out_len[i], mem[2][i]) < 0)
                ok = 0;
        }
    }
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < nt; i++)
            free(mem[k][i]);
    return ok;
}
