/* lz_file.c - the hybrid index file: write, read and check, summarise.
 *
 * Layout (docs/index-format.md): an 8-byte magic, a version, a header of
 * counts with its own CRC-32, a chunk table with its own CRC-32, then the
 * chunks: the sections (names, phrases, pieces, kernel, sources) cut into
 * pieces that decode alone, each deflated (libdeflate) or stored, with the
 * CRC-32 of its raw bytes. Loading the index is on the path of every scan,
 * so reading maps the file and inflates, decodes and checks the chunks on
 * all threads; one zlib stream a section, inflated one after another, made
 * the load take most of an index scan. Phrases and pieces are varints of
 * deltas. The copy phrases' sources are stored in source order (format 3),
 * the order locate walks, so that no scan sorts them: source deltas are
 * then a byte, and each phrase index a few (phrases of different strains
 * alternate). The kernel is
 * packed at 2 bits per residue with the other bytes (lowercase, N, IUPAC)
 * as exception runs; the packing does not deflate, so it is stored. Reading
 * checks every checksum and every structural invariant the scan relies on
 * (phrases tile each record, sources lie before their phrase and inside one
 * record, pieces lie inside their record, each chunk continues the one
 * before it), so a damaged or truncated file is GS_EINPUT and never a crash
 * or a wrong hit.
 */
#define _POSIX_C_SOURCE 200809L
#include "lz.h"

#include "core/gs_clock.h"

#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/stream/bgzf.h"

#include "io/stream/replace_file.h"

static const uint8_t MAGIC[8] = {0x89, 'G', 'S', 'L', 'Z', '\r', '\n', 0x1a};
enum { VERSION = 3, N_HDR = 9 };
enum { SEC_NAMES = 1, SEC_PHRASES, SEC_PIECES, SEC_KERNEL, SEC_SOURCES, N_SEC = 5 };
static const char *const sec_name[] = {"", "section names", "section phrases", "section pieces",
                                       "section kernel", "section sources"};

/* ---- byte buffers and varints ------------------------------------------ */

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
    int oom;
} buf;

static void put(buf *b, const void *src, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n)
            cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (p == NULL) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}

static void put_varint(buf *b, uint64_t v)
{
    uint8_t t[10];
    int n = 0;
    while (v >= 0x80) {
        t[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    t[n++] = (uint8_t)v;
    put(b, t, (size_t)n);
}

static void put_le(buf *b, uint64_t v, int bytes)
{
    uint8_t t[8];
    for (int i = 0; i < bytes; i++)
        t[i] = (uint8_t)(v >> (8 * i));
    put(b, t, (size_t)bytes);
}

static uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static int64_t unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

typedef struct rd {
    const uint8_t *p, *end;
    int bad;
} rd;

static uint64_t get_varint(rd *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->p == r->end) {
            r->bad = 1;
            return 0;
        }
        uint8_t c = *r->p++;
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return v;
    }
    r->bad = 1;
    return 0;
}

static uint64_t get_le(rd *r, int bytes)
{
    if (r->end - r->p < bytes) {
        r->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)r->p[i] << (8 * i);
    r->p += bytes;
    return v;
}

static const char *get_str(rd *r)
{
    const uint8_t *z = r->p ? memchr(r->p, 0, (size_t)(r->end - r->p)) : NULL;
    if (z == NULL) {
        r->bad = 1;
        return NULL;
    }
    const char *s = (const char *)r->p;
    r->p = z + 1;
    return s;
}

/* ---- the kernel: 2 bits per ACGT, other bytes as exception runs --------- */

static void pack_kernel(const uint8_t *k, uint64_t n, buf *out)
{
    static const int8_t code[256] = {['A'] = 1, ['C'] = 2, ['G'] = 3, ['T'] = 4};
    for (uint64_t i = 0; i < n; i += 4) {
        uint8_t b = 0;
        for (uint64_t j = i; j < i + 4 && j < n; j++)
            b |= (uint8_t)((code[k[j]] ? code[k[j]] - 1 : 0) << (2 * (j - i)));
        put(out, &b, 1);
    }
    uint64_t runs = 0;
    for (uint64_t i = 0; i < n; i++)
        runs += !code[k[i]] && (i == 0 || code[k[i - 1]]);
    put_varint(out, runs);
    uint64_t prev_end = 0;
    for (uint64_t i = 0; i < n;) {
        if (code[k[i]]) {
            i++;
            continue;
        }
        uint64_t e = i;
        while (e < n && !code[k[e]])
            e++;
        put_varint(out, i - prev_end);
        put_varint(out, e - i);
        put(out, k + i, e - i);
        prev_end = i = e;
    }
}

/* Index a kernel chunk of n residues stored as p[0..len): its runs of
 * other bytes into kc (checked to lie inside the chunk, in order, their
 * bytes inside p); 1, 0 when the chunk is inconsistent, -1 out of memory. */
static int index_kernel(gs_lz_kchunk *kc, const uint8_t *p, uint64_t len, uint64_t n)
{
    uint64_t packed = n / 4 + (n % 4 != 0);
    if (len < packed)
        return 0;
    kc->packed = p;
    rd r = {p + packed, p + len, 0};
    uint64_t runs = get_varint(&r), at = 0;
    if (r.bad || runs > (uint64_t)(r.end - r.p) / 2) /* a run takes 2 bytes or more */
        return 0;
    if (runs && (kc->runs = malloc(3 * runs * sizeof *kc->runs)) == NULL)
        return -1;
    kc->n_runs = runs;
    for (uint64_t i = 0; i < runs && !r.bad; i++) {
        uint64_t gap = get_varint(&r), rl = get_varint(&r);
        if (r.bad || gap > n - at || rl > n - at - gap || rl > (uint64_t)(r.end - r.p))
            return 0;
        kc->runs[3 * i] = at + gap;
        kc->runs[3 * i + 1] = rl;
        kc->runs[3 * i + 2] = (uint64_t)(r.p - p);
        r.p += rl;
        at += gap + rl;
    }
    return !r.bad && r.p == r.end;
}

/* A packed byte's four residues, low bits first. */
static uint8_t four[256][4];
static pthread_once_t four_once = PTHREAD_ONCE_INIT;

static void make_four(void)
{
    static const char acgt[4] = {'A', 'C', 'G', 'T'};
    for (int b = 0; b < 256; b++)
        for (int j = 0; j < 4; j++)
            four[b][j] = (uint8_t)acgt[(b >> (2 * j)) & 3];
}

/* Residues [a, a + n) of a chunk: the packed bases, then the runs over
 * them. */
static void unpack(const gs_lz_kchunk *kc, uint64_t a, uint64_t n, uint8_t *dst)
{
    uint64_t i = a, e = a + n;
    for (; i < e && i % 4; i++)
        *dst++ = four[kc->packed[i / 4]][i % 4];
    for (; i + 4 <= e; i += 4, dst += 4)
        memcpy(dst, four[kc->packed[i / 4]], 4);
    for (; i < e; i++)
        *dst++ = four[kc->packed[i / 4]][i % 4];
    dst -= n;
    uint64_t lo = 0, hi = kc->n_runs; /* the first run ending after a */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (kc->runs[3 * mid] + kc->runs[3 * mid + 1] <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (uint64_t k = lo; k < kc->n_runs && kc->runs[3 * k] < e; k++) {
        uint64_t at = kc->runs[3 * k], end = at + kc->runs[3 * k + 1];
        uint64_t x = at > a ? at : a, y = end < e ? end : e;
        memcpy(dst + (x - a), kc->packed + kc->runs[3 * k + 2] + (x - at), y - x);
    }
}

void gs_lz_kernel_copy(const gs_lz_index *ix, uint64_t k, uint64_t n, uint8_t *dst)
{
    if (ix->kernel != NULL) {
        memcpy(dst, ix->kernel + k, n);
        return;
    }
    while (n > 0) {
        size_t lo = 0, hi = ix->n_kchunks; /* the last chunk starting at or before k */
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (ix->kchunks[mid].first <= k)
                lo = mid;
            else
                hi = mid;
        }
        const gs_lz_kchunk *kc = &ix->kchunks[lo];
        uint64_t a = k - kc->first, take = kc->count - a < n ? kc->count - a : n;
        unpack(kc, a, take, dst);
        dst += take;
        k += take;
        n -= take;
    }
}

/* ---- chunks ---------------------------------------------------------------
 *
 * Every section but names is cut into chunks that decode on their own: a
 * phrases chunk opens with the global start of its first phrase, a pieces
 * chunk with its first piece's record and kernel offset, a kernel chunk is
 * its residues packed alone. So writing and reading both run one chunk per
 * task on all threads, and reading checks each chunk alone, then only that
 * each chunk continues where the one before it ended. A chunk is stored
 * deflated (libdeflate) unless that saves under 1/32 of it: the packed
 * kernel, most of the file, does not compress, and stored it is only
 * checksummed and unpacked. */

enum { METHOD_STORED = 0, METHOD_DEFLATE = 1, ENTRY_BYTES = 44 };
enum { CHUNK_KERNEL = 1 << 24, CHUNK_ITEMS = 1 << 18 }; /* residues; phrases or pieces */

typedef struct chunk {
    int section, method;
    uint64_t first, count; /* items: records, phrases, pieces or kernel residues */
    uint64_t raw_len, len; /* raw bytes; bytes in the file */
    uint32_t crc;          /* CRC-32 of the raw bytes */
    uint8_t *out;          /* write: the bytes to store */
    const uint8_t *data;   /* read: the stored bytes, in the file */
    gs_lz_kchunk *kc;      /* read: a kernel chunk's place in the index */
    uint64_t start[2], end[3]; /* read: the decoder's state at both ends (check_chain) */
    int bad;               /* write: out of memory; read: corrupt */
} chunk;

typedef struct chunk_pool {
    gs_lz_index *ix;
    chunk *c;
    size_t n;
    atomic_size_t next; /* tasks are taken from the end: the kernel's, the largest, first */
} chunk_pool;

static uint32_t crc(const uint8_t *p, size_t n) { return libdeflate_crc32(0, p, n); }

/* Chunk sizes; GS_LZ_CHUNK (items per chunk, all sections) lets the tests
 * put chunk edges inside small corpora. */
static void chunk_sizes(uint64_t *kernel, uint64_t *items)
{
    const char *e = getenv("GS_LZ_CHUNK");
    unsigned long long v = e ? strtoull(e, NULL, 10) : 0;
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

/* ---- write --------------------------------------------------------------- */

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
        pack_kernel(ix->kernel + f, c->count, s);
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
            c->bad = 1;
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
    put(b, MAGIC, sizeof MAGIC);
    put_le(b, VERSION, 4);
    uint64_t h[N_HDR] = {ix->layout.n_rec, ix->layout.n_files, ix->n_residues, ix->n_phrases,
                         ix->n_pieces, ix->kernel_len, ix->max_pat, n_chunks, ix->n_copies};
    size_t at = b->n;
    for (int i = 0; i < N_HDR; i++)
        put_le(b, h[i], 8);
    if (!b->oom)
        put_le(b, crc(b->p + at, 8 * N_HDR), 4);
}

/* Names, then each section's chunks in order: the file's chunk table. */
static chunk *plan_chunks(const gs_lz_index *ix, size_t *n, gs_error *err)
{
    uint64_t kc, ic;
    chunk_sizes(&kc, &ic);
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

gs_status gs_lz_write(const char *path, gs_lz_index *ix, int threads, gs_error *err)
{
    size_t n = 0;
    chunk *c = plan_chunks(ix, &n, err);
    if (c == NULL)
        return GS_ESYS;
    threads = gs_parallel_threads(threads, n);
    chunk_pool pool = {.ix = ix, .c = c, .n = n};
    chunk_pool *share[GS_PARALLEL_MAX]; /* every thread takes from one pool */
    for (int t = 0; t < threads; t++)
        share[t] = &pool;
    gs_run_parallel(write_chunks, share, sizeof *share, threads);
    buf head = {0};
    gs_status st = GS_OK;
    put_header(&head, ix, n);
    size_t at = head.n;
    for (size_t i = 0; i < n; i++) {
        if (c[i].bad)
            head.oom = 1;
        put_le(&head, (uint64_t)c[i].section, 4);
        put_le(&head, (uint64_t)c[i].method, 4);
        put_le(&head, c[i].first, 8);
        put_le(&head, c[i].count, 8);
        put_le(&head, c[i].raw_len, 8);
        put_le(&head, c[i].len, 8);
        put_le(&head, c[i].crc, 4);
    }
    if (!head.oom)
        put_le(&head, crc(head.p + at, head.n - at), 4);
    if (head.oom) {
        st = gs_fail(err, GS_ESYS, "out of memory (writing %s)", path);
        goto fail;
    }
    gs_replace_file rf;
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
fail:
    for (size_t i = 0; i < n; i++)
        free(c[i].out);
    free(c);
    free(head.p);
    return err->code != GS_OK ? err->code : st;
}

/* ---- read ---------------------------------------------------------------- */

static gs_status corrupt(gs_error *err, const char *path, const char *what)
{
    return gs_fail(err, GS_EINPUT, "corrupt or truncated index: %s (%s)", what, path);
}

static gs_status read_names(gs_lz_index *ix, const uint8_t *p, uint64_t n, uint64_t n_rec,
                            uint64_t n_files, const char *path, gs_error *err)
{
    rd r = {p, p + n, 0};
    gs_layout *l = &ix->layout;
    l->files = gs_calloc(n_files ? n_files : 1, sizeof *l->files, err, "index names");
    l->rec = gs_calloc(n_rec ? n_rec : 1, sizeof *l->rec, err, "index names");
    ix->rec_off = gs_malloc((n_rec + 1) * sizeof *ix->rec_off, err, "index names");
    if (!l->files || !l->rec || !ix->rec_off)
        return GS_ESYS;
    for (uint64_t f = 0; f < n_files; f++) {
        const char *s = get_str(&r);
        if (s == NULL)
            return corrupt(err, path, "section names");
        if ((l->files[f] = strdup(s)) == NULL)
            return gs_fail(err, GS_ESYS, "out of memory (index names)");
        l->n_files++;
    }
    ix->rec_off[0] = 0;
    for (uint64_t i = 0; i < n_rec; i++) {
        const char *s = get_str(&r);
        uint64_t len = get_varint(&r), file = get_varint(&r);
        if (s == NULL || r.bad || file >= n_files || len > ((uint64_t)1 << 56) - ix->rec_off[i])
            return corrupt(err, path, "section names");
        if ((l->rec[i].name = strdup(s)) == NULL)
            return gs_fail(err, GS_ESYS, "out of memory (index names)");
        l->rec[i].length = len;
        l->rec[i].file = (uint32_t)file;
        l->n_rec = l->cap_rec = i + 1;
        ix->rec_off[i + 1] = ix->rec_off[i] + len;
    }
    if (r.p != r.end || ix->rec_off[n_rec] != ix->n_residues)
        return corrupt(err, path, "section names");
    return GS_OK;
}

/* The end of the record holding global position g. */
static uint64_t rec_end_at(const gs_lz_index *ix, uint64_t g)
{
    return ix->rec_off[gs_lz_last_le(ix->rec_off, ix->layout.n_rec, g) + 1];
}

/* Phrases [first, first + count); start/end: the global start of the
 * first phrase and the end of the last, then the copies among them (their
 * sources come from the sources section). */
static int read_phrases(gs_lz_index *ix, chunk *c, const uint8_t *p, uint64_t n)
{
    rd r = {p, p + n, 0};
    uint64_t g = get_varint(&r), rec_end = 0, copies = 0;
    c->start[0] = g;
    for (uint64_t j = c->first; j < c->first + c->count; j++) {
        uint64_t v = get_varint(&r), len = v >> 1;
        if (r.bad || len == 0 || g >= ix->n_residues)
            return 0;
        if (g >= rec_end)
            rec_end = rec_end_at(ix, g);
        if (len > rec_end - g) /* a phrase never crosses a record */
            return 0;
        ix->ph_start[j] = g;
        if (v & 1) {
            ix->ph_src[j] = GS_LZ_SOURCE_UNSET;
            ix->lit[j] = 0;
            copies++;
        } else {
            if (len != 1 || r.p == r.end)
                return 0;
            ix->ph_src[j] = GS_LZ_LITERAL;
            ix->lit[j] = *r.p++;
        }
        g += len;
    }
    c->end[0] = g;
    c->end[1] = copies;
    return r.p == r.end;
}

/* Copies [first, first + count) in source order: per copy varint (source
 * start - the previous one's in the chunk, or 0) and varint zigzag(phrase
 * - the previous one's); cp_target holds the phrase until
 * gs_lz_sources_finish checks it. start/end: the first and last source. */
static int read_sources(gs_lz_index *ix, chunk *c, const uint8_t *p, uint64_t n)
{
    rd r = {p, p + n, 0};
    uint64_t s = 0, j = 0;
    for (uint64_t i = c->first; i < c->first + c->count; i++) {
        uint64_t ds = get_varint(&r);
        j += (uint64_t)unzigzag(get_varint(&r)); /* wraps: checked against n_phrases later */
        if (r.bad || ds >= ix->n_residues - s)
            return 0;
        s += ds;
        if (i == c->first)
            c->start[0] = s;
        ix->cp_start[i] = s;
        ix->cp_target[i] = j;
    }
    c->end[0] = s;
    return r.p == r.end;
}

/* Pieces [first, first + count); start: (record, kernel offset) of the
 * first piece; end: (record, end) of the last, and its kernel end. */
static int read_pieces(gs_lz_index *ix, chunk *c, const uint8_t *p, uint64_t n)
{
    rd r = {p, p + n, 0};
    uint64_t rec = get_varint(&r), k = get_varint(&r);
    if (r.bad || rec >= ix->layout.n_rec || k > ix->kernel_len)
        return 0;
    uint64_t prev_end = ix->rec_off[rec];
    c->start[0] = rec;
    c->start[1] = k;
    for (uint64_t i = c->first; i < c->first + c->count; i++) {
        uint64_t dr = get_varint(&r), dp = get_varint(&r), len = get_varint(&r);
        if (r.bad || dr >= ix->layout.n_rec - rec)
            return 0;
        if (dr) {
            rec += dr;
            prev_end = ix->rec_off[rec];
        }
        uint64_t end = ix->rec_off[rec + 1];
        if (len == 0 || dp > end - prev_end || len > end - prev_end - dp || len > ix->kernel_len - k)
            return 0;
        ix->pc_rec[i] = (uint32_t)rec;
        ix->pc_pos[i] = prev_end + dp;
        ix->pc_koff[i] = k;
        prev_end += dp + len;
        k += len;
    }
    c->end[0] = rec;
    c->end[1] = prev_end;
    c->end[2] = k;
    return r.p == r.end;
}

/* Decode chunk c (its raw bytes checked against the CRC) into ix. */
static int read_chunk(gs_lz_index *ix, chunk *c, struct libdeflate_decompressor *z)
{
    const uint8_t *raw = c->data;
    uint8_t *own = NULL;
    int ok = 0;
    if (c->method == METHOD_DEFLATE) {
        if (z == NULL || (own = malloc(c->raw_len ? c->raw_len : 1)) == NULL)
            return -1; /* out of memory, not corrupt */
        /* no actual_out: anything but exactly raw_len bytes fails */
        if (libdeflate_deflate_decompress(z, c->data, c->len, own, c->raw_len, NULL) !=
            LIBDEFLATE_SUCCESS)
            goto done;
        raw = own;
    }
    if (crc(raw, c->raw_len) != c->crc)
        goto done;
    if (c->section == SEC_KERNEL) { /* left packed; an inflated one is kept */
        *c->kc = (gs_lz_kchunk){.first = c->first, .count = c->count, .own = own};
        own = NULL;
        ok = index_kernel(c->kc, raw, c->raw_len, c->count);
    } else if (c->section == SEC_PHRASES)
        ok = read_phrases(ix, c, raw, c->raw_len);
    else if (c->section == SEC_PIECES)
        ok = read_pieces(ix, c, raw, c->raw_len);
    else if (c->section == SEC_SOURCES)
        ok = read_sources(ix, c, raw, c->raw_len);
done:
    free(own);
    return ok;
}

static void *read_chunks(void *arg)
{
    chunk_pool *pool = *(chunk_pool **)arg;
    struct libdeflate_decompressor *z = libdeflate_alloc_decompressor();
    size_t i;
    while ((i = atomic_fetch_add(&pool->next, 1)) < pool->n) {
        chunk *c = &pool->c[pool->n - 1 - i];
        int ok = read_chunk(pool->ix, c, z);
        c->bad = ok < 0 ? 2 : !ok;
    }
    libdeflate_free_decompressor(z);
    return NULL;
}

/* Each chunk continues where the one before it in its section ended. */
static const char *check_chain(gs_lz_index *ix, const chunk *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const chunk *prev = i ? &c[i - 1] : NULL; /* of the same section when first > 0 */
        if (c[i].section == SEC_PHRASES) {
            if (c[i].start[0] != (c[i].first ? prev->end[0] : 0))
                return "section phrases";
        } else if (c[i].section == SEC_PIECES && c[i].first) {
            uint64_t rec = ix->pc_rec[c[i].first];
            if (c[i].start[1] != prev->end[2] || rec < prev->end[0] ||
                (rec == prev->end[0] && ix->pc_pos[c[i].first] < prev->end[1]))
                return "section pieces";
        } else if (c[i].section == SEC_PIECES && c[i].start[1] != 0) {
            return "section pieces";
        } else if (c[i].section == SEC_SOURCES && c[i].first && c[i].start[0] < prev->end[0]) {
            return "section sources"; /* sources ascend across chunks too */
        }
    }
    uint64_t g = 0, k = 0, copies = 0;
    for (size_t i = 0; i < n; i++) {
        if (c[i].section == SEC_PHRASES) {
            g = c[i].end[0];
            copies += c[i].end[1];
        }
        if (c[i].section == SEC_PIECES)
            k = c[i].end[2];
    }
    if (g != ix->n_residues || copies != ix->n_copies)
        return "section phrases";
    if (k != ix->kernel_len)
        return "section pieces";
    ix->ph_start[ix->n_phrases] = g;
    ix->pc_koff[ix->n_pieces] = k;
    return NULL;
}

/* The chunk table: names first, then each section's chunks tiling its
 * items in order, the stored bytes filling the rest of the file exactly. */
static int check_table(const gs_lz_index *ix, uint64_t n_rec, const chunk *c, size_t n,
                       uint64_t data_left)
{
    uint64_t total[N_SEC + 1] = {0, n_rec, ix->n_phrases, ix->n_pieces, ix->kernel_len,
                                 ix->n_copies};
    uint64_t next = total[SEC_NAMES], bytes = 0; /* names: the one chunk, checked here */
    int sec = SEC_NAMES;
    if (n == 0 || c[0].section != SEC_NAMES || c[0].first != 0 || c[0].count != total[SEC_NAMES])
        return 0;
    for (size_t i = 0; i < n; i++) /* every chunk, names too: a known section and method */
        if (c[i].section < SEC_NAMES || c[i].section > N_SEC ||
            (c[i].method != METHOD_STORED && c[i].method != METHOD_DEFLATE) ||
            (c[i].method == METHOD_STORED && c[i].len != c[i].raw_len))
            return 0;
    for (size_t i = 1; i <= n; i++) {
        int s = i < n ? c[i].section : N_SEC + 1;
        if (s != sec) { /* the previous section is complete; skip the empty ones */
            if (s < sec || next != total[sec])
                return 0;
            for (sec++; sec < s && sec <= N_SEC; sec++)
                if (total[sec] != 0)
                    return 0;
            next = 0;
        }
        if (i == n)
            break;
        const chunk *k = &c[i];
        if (k->first != next || k->count == 0 || k->count > total[sec] - next ||
            k->raw_len / 32 > k->count + 1) /* no item takes 32 bytes: no huge allocation */
            return 0;
        next += k->count;
    }
    for (size_t i = 0; i < n; i++) {
        if (c[i].len > data_left - bytes)
            return 0;
        bytes += c[i].len;
    }
    return bytes == data_left;
}

typedef struct mapped {
    uint8_t *p;
    size_t n;
    int is_map;
} mapped;

/* The whole file, mapped (read when it cannot be). */
static gs_status map_file(const char *path, mapped *m, gs_error *err)
{
    int fd = open(path, O_RDONLY);
    struct stat sb;
    if (fd < 0)
        return gs_fail(err, errno == ENOENT || errno == EACCES ? GS_EINPUT : GS_ESYS,
                       "cannot open index: %s (%s)", strerror(errno), path);
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size == 0) {
        close(fd);
        return gs_fail(err, GS_EINPUT, "not a gscan LZ index (empty or not a file) (%s)", path);
    }
    m->n = (size_t)sb.st_size;
    m->p = mmap(NULL, m->n, PROT_READ, MAP_PRIVATE, fd, 0);
    m->is_map = m->p != MAP_FAILED;
    if (!m->is_map) {
        size_t got = 0;
        ssize_t k = 1;
        m->p = malloc(m->n);
        while (m->p && got < m->n && (k = read(fd, m->p + got, m->n - got)) > 0)
            got += (size_t)k;
        if (m->p == NULL || got != m->n) {
            close(fd);
            free(m->p);
            m->p = NULL;
            return gs_fail(err, GS_ESYS, "cannot read index (%s)", path);
        }
    }
    close(fd);
    return GS_OK;
}

static void unmap_file(mapped *m)
{
    if (m->p && m->is_map)
        munmap(m->p, m->n);
    else
        free(m->p);
}

gs_status gs_lz_read(const char *path, int threads, gs_lz_index *ix, gs_error *err)
{
    memset(ix, 0, sizeof *ix);
    mapped m = {0};
    chunk *c = NULL;
    const char *bad = NULL;
    gs_status st = map_file(path, &m, err);
    if (st != GS_OK)
        return st;
    ix->file_bytes = m.n;
    rd f = {m.p, m.p + m.n, 0};
    if (m.n < sizeof MAGIC || memcmp(m.p, MAGIC, sizeof MAGIC)) {
        st = gs_fail(err, GS_EINPUT, "not a gscan LZ index (bad magic number) (%s)", path);
        goto fail;
    }
    f.p += sizeof MAGIC;
    uint64_t version = get_le(&f, 4);
    if (!f.bad && version != VERSION) {
        st = gs_fail(err, GS_EINPUT,
                     "index version %llu, this gscan reads version %d: rebuild it with gscan "
                     "index --lz (%s)", (unsigned long long)version, VERSION, path);
        goto fail;
    }
    const uint8_t *h0 = f.p;
    uint64_t h[N_HDR];
    for (int i = 0; i < N_HDR; i++)
        h[i] = get_le(&f, 8);
    uint64_t hcrc = get_le(&f, 4);
    if (f.bad || crc(h0, 8 * N_HDR) != (uint32_t)hcrc || h[0] > UINT32_MAX || h[6] == 0 ||
        h[6] > UINT32_MAX || h[8] > h[3] || h[7] == 0 || h[7] > (uint64_t)(f.end - f.p) / ENTRY_BYTES) {
        bad = "header";
        goto fail;
    }
    ix->n_residues = h[2];
    ix->n_phrases = h[3];
    ix->n_pieces = h[4];
    ix->kernel_len = h[5];
    ix->max_pat = (uint32_t)h[6];
    ix->n_copies = h[8];
    size_t n = (size_t)h[7];
    if ((c = gs_calloc(n, sizeof *c, err, "index chunks")) == NULL) {
        st = GS_ESYS;
        goto fail;
    }
    const uint8_t *t0 = f.p;
    for (size_t i = 0; i < n; i++) {
        c[i].section = (int)get_le(&f, 4);
        c[i].method = (int)get_le(&f, 4);
        c[i].first = get_le(&f, 8);
        c[i].count = get_le(&f, 8);
        c[i].raw_len = get_le(&f, 8);
        c[i].len = get_le(&f, 8);
        c[i].crc = (uint32_t)get_le(&f, 4);
    }
    uint64_t tcrc = get_le(&f, 4);
    if (f.bad || crc(t0, n * ENTRY_BYTES) != (uint32_t)tcrc) {
        bad = "chunk table";
        goto fail;
    }
    if (!check_table(ix, h[0], c, n, (uint64_t)(f.end - f.p))) {
        bad = "chunk table";
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        c[i].data = f.p;
        f.p += c[i].len;
    }

    /* names first, alone: every other check needs the record offsets */
    struct libdeflate_decompressor *z = libdeflate_alloc_decompressor();
    uint8_t *names = c[0].method == METHOD_DEFLATE ? malloc(c[0].raw_len ? c[0].raw_len : 1) : NULL;
    const uint8_t *nraw = c[0].method == METHOD_DEFLATE ? names : c[0].data;
    int zok = z != NULL && (c[0].method != METHOD_DEFLATE || names != NULL);
    int nok = zok && (c[0].method != METHOD_DEFLATE ||
                      libdeflate_deflate_decompress(z, c[0].data, c[0].len, names, c[0].raw_len,
                                                    NULL) == LIBDEFLATE_SUCCESS) &&
              crc(nraw, c[0].raw_len) == c[0].crc;
    libdeflate_free_decompressor(z);
    if (!zok)
        st = gs_fail(err, GS_ESYS, "out of memory (index names)");
    else if (!nok)
        bad = "section names";
    else
        st = read_names(ix, nraw, c[0].raw_len, h[0], h[1], path, err);
    free(names);
    if (st != GS_OK || bad)
        goto fail;

    uint64_t np = ix->n_phrases, nk = ix->n_pieces;
    ix->ph_start = gs_malloc((np + 1) * sizeof *ix->ph_start, err, "phrases");
    ix->ph_src = gs_malloc((np ? np : 1) * sizeof *ix->ph_src, err, "phrases");
    ix->lit = gs_malloc(np ? np : 1, err, "phrases");
    ix->pc_rec = gs_malloc((nk ? nk : 1) * sizeof *ix->pc_rec, err, "pieces");
    ix->pc_pos = gs_malloc((nk ? nk : 1) * sizeof *ix->pc_pos, err, "pieces");
    ix->pc_koff = gs_malloc((nk + 1) * sizeof *ix->pc_koff, err, "pieces");
    size_t nkc = 0;
    for (size_t i = 1; i < n; i++)
        nkc += c[i].section == SEC_KERNEL;
    ix->kchunks = gs_calloc(nkc ? nkc : 1, sizeof *ix->kchunks, err, "kernel");
    uint64_t nc = ix->n_copies;
    ix->cp_start = gs_malloc((nc ? nc : 1) * sizeof *ix->cp_start, err, "sources");
    ix->cp_target = gs_malloc((nc ? nc : 1) * sizeof *ix->cp_target, err, "sources");
    if (!ix->ph_start || !ix->ph_src || !ix->lit || !ix->pc_rec || !ix->pc_pos || !ix->pc_koff ||
        !ix->kchunks || !ix->cp_start || !ix->cp_target) {
        st = GS_ESYS;
        goto fail;
    }
    for (size_t i = 1; i < n; i++)
        if (c[i].section == SEC_KERNEL)
            c[i].kc = &ix->kchunks[ix->n_kchunks++];
    pthread_once(&four_once, make_four);
    double t_chunks = gs_now();
    chunk_pool pool = {.ix = ix, .c = c + 1, .n = n - 1};
    chunk_pool *share[GS_PARALLEL_MAX];
    threads = gs_parallel_threads(threads, n - 1);
    for (int t = 0; t < threads; t++)
        share[t] = &pool;
    if (n > 1)
        gs_run_parallel(read_chunks, share, sizeof *share, threads);
    for (size_t i = 1; i < n && st == GS_OK && !bad; i++)
        if (c[i].bad == 2)
            st = gs_fail(err, GS_ESYS, "out of memory (index %s)", sec_name[c[i].section]);
        else if (c[i].bad)
            bad = sec_name[c[i].section];
    if (st == GS_OK && !bad)
        bad = check_chain(ix, c + 1, n - 1);
    double t1 = gs_now();
    if (st == GS_OK && !bad) { /* every copy phrase's source, once; locate's tree */
        int ok = gs_lz_sources_finish(ix, threads);
        if (getenv("GS_DEBUG_TIME")) /* the load figures of docs/performance.md */
            fprintf(stderr, "gscan: index load: chunks %.3f s, sources and tree %.3f s "
                    "(%d threads)\n", t1 - t_chunks, gs_now() - t1, threads);
        if (ok < 0)
            st = gs_fail(err, GS_ESYS, "out of memory (index sources)");
        else if (!ok)
            bad = sec_name[SEC_SOURCES];
    }
fail:
    if (bad)
        st = corrupt(err, path, bad);
    if (st == GS_OK) { /* the kernel chunks point into it */
        ix->map = m.p;
        ix->map_len = m.n;
        ix->map_is_mmap = m.is_map;
    } else {
        unmap_file(&m);
    }
    free(c);
    if (st != GS_OK) {
        uint64_t bytes = ix->file_bytes;
        gs_lz_free(ix);
        ix->file_bytes = bytes;
    }
    return st;
}

int gs_lz_is_index(const char *path)
{
    uint8_t m[sizeof MAGIC];
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return 0;
    size_t n = fread(m, 1, sizeof m, f);
    fclose(f);
    return n == sizeof m && !memcmp(m, MAGIC, sizeof m);
}

void gs_lz_info(const gs_lz_index *ix, FILE *out)
{
    uint64_t lits = 0;
    for (uint64_t j = 0; j < ix->n_phrases; j++)
        lits += ix->ph_src[j] == GS_LZ_LITERAL;
    fprintf(out, "gscan LZ77 hybrid index, format version %d\n", VERSION);
    fprintf(out, "files:              %zu\n", ix->layout.n_files);
    for (size_t f = 0; f < ix->layout.n_files; f++)
        fprintf(out, "  %s\n", ix->layout.files[f]);
    fprintf(out, "records:            %zu\n", ix->layout.n_rec);
    fprintf(out, "residues:           %llu\n", (unsigned long long)ix->n_residues);
    fprintf(out, "phrases:            %llu (%llu literal, %.1f residues per phrase)\n",
            (unsigned long long)ix->n_phrases, (unsigned long long)lits,
            ix->n_phrases ? (double)ix->n_residues / (double)ix->n_phrases : 0.0);
    fprintf(out, "max pattern length: %u\n", ix->max_pat);
    fprintf(out, "kernel:             %llu residues in %llu pieces (%.2f%% of the residues)\n",
            (unsigned long long)ix->kernel_len, (unsigned long long)ix->n_pieces,
            ix->n_residues ? 100.0 * (double)ix->kernel_len / (double)ix->n_residues : 0.0);
    fprintf(out, "index file:         %llu bytes (%.2f%% of one byte per residue)\n",
            (unsigned long long)ix->file_bytes,
            ix->n_residues ? 100.0 * (double)ix->file_bytes / (double)ix->n_residues : 0.0);
}
