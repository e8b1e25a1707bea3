/* lz_file_write.c - write the hybrid index file.
 *
 * Layout (docs/index-format.md): an 8-byte magic, a version, a header of
 * counts with its own CRC-32, a chunk table with its own CRC-32, then the
 * chunks: the sections (names, phrases, pieces, kernel, sources) cut into
 * pieces that decode alone, each deflated (libdeflate) or stored, with the
 * CRC-32 of its raw bytes; the chunks are encoded and deflated on all
 * threads. Phrases and pieces are varints of deltas. The copy phrases'
 * sources are stored in source order (format 3), the order locate walks,
 * so that no scan sorts them: source deltas are then a byte, and each
 * phrase index a few (phrases of different strains alternate). The kernel
 * is packed at 2 bits per residue (lz_kernel.c); the packing does not
 * deflate, so it is stored. Reading is lz_file_read.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "lz_file.h"

#include <errno.h>
#include <stdio.h>

#include "core/gs_parallel.h"
#include "io/stream/replace_file.h"

enum { CHUNK_KERNEL = 1 << 24, CHUNK_ITEMS = 1 << 18 }; /* residues; phrases or pieces */

/* Chunk sizes; tune lz.chunk (items per chunk, all sections) lets the
 * tests put chunk edges inside small corpora. */
static void chunk_sizes(const gs_tune *tune, uint64_t *kernel, uint64_t *items)
{
    uint64_t v = tune ? tune->lz_chunk : 0;
    *kernel = v ? v : CHUNK_KERNEL;
    *items = v ? v : CHUNK_ITEMS;
}

/* Append the chunks of a section of n items cut every `size`. */
static chunk *add_chunks(chunk *c, size_t *n, int section, uint64_t items, uint64_t size)
{
    for (uint64_t f = 0; f < items; f += size)
        c[(*n)++] = (chunk){.section = section, .first = f,
                            .count = items - f < size ? items - f : size};
    return c;
}

static void encode_chunk(const gs_lz_index *ix, const chunk *c, buf *s)
{
    uint64_t f = c->first, e = c->first + c->count;
    if (c->section == SEC_NAMES) {
        for (size_t i = 0; i < ix->layout.n_files; i++)
            put(s, ix->layout.files[i], strlen(ix->layout.files[i]) + 1);
        for (size_t r = 0; r < ix->layout.n_rec; r++) {
            put(s, ix->layout.rec[r].name, strlen(ix->layout.rec[r].name) + 1);
            put_varint(s, ix->layout.rec[r].length);
            put_varint(s, ix->layout.rec[r].file);
        }
    } else if (c->section == SEC_PHRASES) {
        put_varint(s, ix->ph_start[f]);
        for (uint64_t j = f; j < e; j++) {
            uint64_t len = ix->ph_start[j + 1] - ix->ph_start[j];
            int copy = ix->ph_src[j] != GS_LZ_LITERAL;
            put_varint(s, len << 1 | (uint64_t)copy);
            if (!copy)
                put(s, &ix->lit[j], 1);
        }
    } else if (c->section == SEC_SOURCES) {
        uint64_t prev_s = 0, prev_j = 0;
        for (uint64_t i = f; i < e; i++) {
            uint64_t j = gs_lz_last_le(ix->ph_start, ix->n_phrases, ix->cp_target[i]);
            put_varint(s, ix->cp_start[i] - prev_s);
            put_varint(s, zigzag((int64_t)(j - prev_j)));
            prev_s = ix->cp_start[i];
            prev_j = j;
        }
    } else if (c->section == SEC_PIECES) {
        uint32_t prev_rec = ix->pc_rec[f];
        uint64_t prev_end = ix->rec_off[prev_rec];
        put_varint(s, prev_rec);
        put_varint(s, ix->pc_koff[f]);
        for (uint64_t p = f; p < e; p++) {
            uint32_t r = ix->pc_rec[p];
            if (r != prev_rec)
                prev_end = ix->rec_off[r];
            uint64_t len = ix->pc_koff[p + 1] - ix->pc_koff[p];
            put_varint(s, r - prev_rec);
            put_varint(s, ix->pc_pos[p] - prev_end);
            put_varint(s, len);
            prev_rec = r;
            prev_end = ix->pc_pos[p] + len;
        }
    } else {
        gs_lz_kernel_pack(ix->kernel + f, c->count, s);
    }
}

static void *write_chunks(void *arg)
{
    chunk_pool *pool = *(chunk_pool **)arg;
    struct libdeflate_compressor *z = libdeflate_alloc_compressor(6);
    size_t i;
    while ((i = atomic_fetch_add(&pool->next, 1)) < pool->n) {
        chunk *c = &pool->c[pool->n - 1 - i];
        buf s = {0};
        encode_chunk(pool->ix, c, &s);
        if (z == NULL || s.oom) {
            c->st = GS_ESYS;
            free(s.p);
            continue;
        }
        c->raw_len = s.n;
        c->crc = crc(s.p, s.n);
        size_t bound = libdeflate_deflate_compress_bound(z, s.n);
        uint8_t *d = malloc(bound ? bound : 1);
        size_t dn = d ? libdeflate_deflate_compress(z, s.p, s.n, d, bound) : 0;
        if (dn > 0 && dn < s.n - s.n / 32) {
            free(s.p);
            c->out = d;
            c->len = dn;
            c->method = METHOD_DEFLATE;
        } else {
            free(d);
            c->out = s.p;
            c->len = s.n;
            c->method = METHOD_STORED;
        }
    }
    libdeflate_free_compressor(z);
    return NULL;
}

static void put_header(buf *b, const gs_lz_index *ix, uint64_t n_chunks)
{
    put(b, gs_lz_magic, sizeof gs_lz_magic);
    put_le(b, GS_LZ_VERSION, 4);
    uint64_t h[N_HDR] = {ix->layout.n_rec, ix->layout.n_files, ix->n_residues, ix->n_phrases,
                         ix->n_pieces, ix->kernel_len, ix->max_pat, n_chunks, ix->n_copies};
    size_t at = b->n;
    for (int i = 0; i < N_HDR; i++)
        put_le(b, h[i], 8);
    if (!b->oom)
        put_le(b, crc(b->p + at, 8 * N_HDR), 4);
}

/* Names, then each section's chunks in order: the file's chunk table. */
static chunk *plan_chunks(const gs_lz_index *ix, const gs_tune *tune, size_t *n, gs_error *err)
{
    uint64_t kc, ic;
    chunk_sizes(tune, &kc, &ic);
    size_t most = 1 + ix->n_phrases / ic + ix->n_pieces / ic + ix->kernel_len / kc +
                  ix->n_copies / ic + 4;
    chunk *c = gs_calloc(most, sizeof *c, err, "index chunks");
    if (c == NULL)
        return NULL;
    *n = 0;
    c[(*n)++] = (chunk){.section = SEC_NAMES, .count = ix->layout.n_rec};
    add_chunks(c, n, SEC_PHRASES, ix->n_phrases, ic);
    add_chunks(c, n, SEC_PIECES, ix->n_pieces, ic);
    add_chunks(c, n, SEC_KERNEL, ix->kernel_len, kc);
    add_chunks(c, n, SEC_SOURCES, ix->n_copies, ic);
    return c;
}

/* The header and the chunk table, into head. */
static gs_status put_head(buf *head, const gs_lz_index *ix, const chunk *c, size_t n,
                          const char *path, gs_error *err)
{
    put_header(head, ix, n);
    size_t at = head->n;
    for (size_t i = 0; i < n; i++) {
        if (c[i].st != GS_OK)
            head->oom = 1;
        put_le(head, (uint64_t)c[i].section, 4);
        put_le(head, (uint64_t)c[i].method, 4);
        put_le(head, c[i].first, 8);
        put_le(head, c[i].count, 8);
        put_le(head, c[i].raw_len, 8);
        put_le(head, c[i].len, 8);
        put_le(head, c[i].crc, 4);
    }
    if (!head->oom)
        put_le(head, crc(head->p + at, head->n - at), 4);
    if (head->oom)
        return gs_fail(err, GS_ESYS, "out of memory (writing %s)", path);
    return GS_OK;
}

gs_status gs_lz_write(const char *path, gs_lz_index *ix, int threads, const gs_tune *tune,
                      gs_error *err)
{
    size_t n = 0;
    chunk *c = plan_chunks(ix, tune, &n, err);
    if (c == NULL)
        return GS_ESYS;
    threads = gs_parallel_threads(threads, n);
    chunk_pool pool = {.ix = ix, .c = c, .n = n};
    chunk_pool *share[GS_PARALLEL_MAX]; /* every thread takes from one pool */
    for (int t = 0; t < threads; t++)
        share[t] = &pool;
    gs_run_parallel(write_chunks, share, sizeof *share, threads);
    buf head = {0};
    gs_replace_file rf;
    gs_status st = put_head(&head, ix, c, n, path, err);
    if (st == GS_OK)
        st = gs_replace_open(&rf, path, "index", err);
    if (st == GS_OK) {
        uint64_t bytes = head.n;
        int ok = fwrite(head.p, 1, head.n, rf.f) == head.n;
        for (size_t i = 0; ok && i < n; i++) {
            ok = fwrite(c[i].out, 1, c[i].len, rf.f) == c[i].len;
            bytes += c[i].len;
        }
        if (!ok)
            gs_fail(err, GS_ESYS, "cannot write: %s (%s)", strerror(errno), path);
        st = gs_replace_commit(&rf, "index", err);
        ix->file_bytes = bytes;
    }
    for (size_t i = 0; i < n; i++)
        free(c[i].out);
    free(c);
    free(head.p);
    return err->code != GS_OK ? err->code : st;
}
