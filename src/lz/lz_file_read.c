/* lz_file_read.c - read and check the hybrid index file.
 *
 * Loading the index is on the path of every scan, so reading maps the file
 * and inflates, decodes and checks the chunks on all threads (one zlib
 * stream a section, inflated one after another, made the load take most of
 * an index scan); the kernel's chunks stay packed (lz_kernel.c). Reading
 * checks every checksum and every structural invariant the scan relies on
 * (phrases tile each record, sources lie before their phrase and inside one
 * record, pieces lie inside their record, each chunk continues the one
 * before it), so a damaged or truncated file is GS_EINPUT and never a crash
 * or a wrong hit. The layout is docs/index-format.md; lz_file_write.c
 * writes it.
 */
#define _POSIX_C_SOURCE 200809L
#include "lz_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/gs_clock.h"
#include "core/gs_mapguard.h"
#include "core/gs_parallel.h"

const uint8_t gs_lz_magic[8] = {0x89, 'G', 'S', 'L', 'Z', '\r', '\n', 0x1a};
static const char *const sec_name[] = {"", "section names", "section phrases", "section pieces",
                                       "section kernel", "section sources"};

int gs_lz_format_version(void)
{
    return GS_LZ_VERSION;
}

gs_status gs_lz_corrupt(gs_error *err, const char *path, const char *what)
{
    return gs_fail(err, GS_EINPUT, "corrupt or truncated index: %s (%s)", what, path);
}

typedef struct mapped {
    uint8_t *p;
    size_t n;
    int is_map;
} mapped;

/* An index being read: the file, its header's counts and chunk table. */
typedef struct load {
    gs_lz_index *ix;
    const char *path;
    mapped m;
    uint64_t h[N_HDR];
    chunk *c; /* the chunk table; c[0] holds the names */
    size_t n;
} load;

/* The names section, raw bytes p[0..n): files, then records with their
 * lengths and files. */
static gs_status read_names(const load *ld, const uint8_t *p, uint64_t n, gs_error *err)
{
    gs_lz_index *ix = ld->ix;
    const char *path = ld->path;
    const uint64_t n_rec = ld->h[0], n_files = ld->h[1];
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
            return gs_lz_corrupt(err, path, "section names");
        if ((l->files[f] = strdup(s)) == NULL)
            return gs_fail(err, GS_ESYS, "out of memory (index names)");
        l->n_files++;
    }
    ix->rec_off[0] = 0;
    for (uint64_t i = 0; i < n_rec; i++) {
        const char *s = get_str(&r);
        uint64_t len = get_varint(&r), file = get_varint(&r);
        if (s == NULL || r.bad || file >= n_files || len > ((uint64_t)1 << 56) - ix->rec_off[i])
            return gs_lz_corrupt(err, path, "section names");
        if ((l->rec[i].name = strdup(s)) == NULL)
            return gs_fail(err, GS_ESYS, "out of memory (index names)");
        l->rec[i].length = len;
        l->rec[i].file = (uint32_t)file;
        l->n_rec = l->cap_rec = i + 1;
        ix->rec_off[i + 1] = ix->rec_off[i] + len;
    }
    if (r.p != r.end || ix->rec_off[n_rec] != ix->n_residues)
        return gs_lz_corrupt(err, path, "section names");
    return GS_OK;
}

/* The end of the record holding global position g. */
static uint64_t rec_end_at(const gs_lz_index *ix, uint64_t g)
{
    return ix->rec_off[gs_lz_last_le(ix->rec_off, ix->layout.n_rec, g) + 1];
}

/* The decoders of a chunk's items below: GS_OK, or GS_EINPUT when the
 * chunk is inconsistent (the caller names the file and the section).
 *
 * Phrases [first, first + count); start/end: the global start of the
 * first phrase and the end of the last, then the copies among them (their
 * sources come from the sources section). */
static gs_status read_phrases(gs_lz_index *ix, chunk *c, const uint8_t *p, uint64_t n)
{
    rd r = {p, p + n, 0};
    uint64_t g = get_varint(&r), rec_end = 0, copies = 0;
    c->start[0] = g;
    for (uint64_t j = c->first; j < c->first + c->count; j++) {
        uint64_t v = get_varint(&r), len = v >> 1;
        if (r.bad || len == 0 || g >= ix->n_residues)
            return GS_EINPUT;
        if (g >= rec_end)
            rec_end = rec_end_at(ix, g);
        if (len > rec_end - g) /* a phrase never crosses a record */
            return GS_EINPUT;
        ix->ph_start[j] = g;
        if (v & 1) {
            ix->ph_src[j] = GS_LZ_SOURCE_UNSET;
            ix->lit[j] = 0;
            copies++;
        } else {
            if (len != 1 || r.p == r.end)
                return GS_EINPUT;
            ix->ph_src[j] = GS_LZ_LITERAL;
            ix->lit[j] = *r.p++;
        }
        g += len;
    }
    c->end[0] = g;
    c->end[1] = copies;
    return r.p == r.end ? GS_OK : GS_EINPUT;
}

/* Copies [first, first + count) in source order: per copy varint (source
 * start - the previous one's in the chunk, or 0) and varint zigzag(phrase
 * - the previous one's); cp_target holds the phrase until
 * gs_lz_sources_finish checks it. start/end: the first and last source. */
static gs_status read_sources(gs_lz_index *ix, chunk *c, const uint8_t *p, uint64_t n)
{
    rd r = {p, p + n, 0};
    uint64_t s = 0, j = 0;
    for (uint64_t i = c->first; i < c->first + c->count; i++) {
        uint64_t ds = get_varint(&r);
        j += (uint64_t)unzigzag(get_varint(&r)); /* wraps: checked against n_phrases later */
        if (r.bad || ds >= ix->n_residues - s)
            return GS_EINPUT;
        s += ds;
        if (i == c->first)
            c->start[0] = s;
        ix->cp_start[i] = s;
        ix->cp_target[i] = j;
    }
    c->end[0] = s;
    return r.p == r.end ? GS_OK : GS_EINPUT;
}

/* Pieces [first, first + count); start: (record, kernel offset) of the
 * first piece; end: (record, end) of the last, and its kernel end. */
static gs_status read_pieces(gs_lz_index *ix, chunk *c, const uint8_t *p, uint64_t n)
{
    rd r = {p, p + n, 0};
    uint64_t rec = get_varint(&r), k = get_varint(&r);
    if (r.bad || rec >= ix->layout.n_rec || k > ix->kernel_len)
        return GS_EINPUT;
    uint64_t prev_end = ix->rec_off[rec];
    c->start[0] = rec;
    c->start[1] = k;
    for (uint64_t i = c->first; i < c->first + c->count; i++) {
        uint64_t dr = get_varint(&r), dp = get_varint(&r), len = get_varint(&r);
        if (r.bad || dr >= ix->layout.n_rec - rec)
            return GS_EINPUT;
        if (dr) {
            rec += dr;
            prev_end = ix->rec_off[rec];
        }
        uint64_t end = ix->rec_off[rec + 1];
        if (len == 0 || dp > end - prev_end || len > end - prev_end - dp || len > ix->kernel_len - k)
            return GS_EINPUT;
        ix->pc_rec[i] = (uint32_t)rec;
        ix->pc_pos[i] = prev_end + dp;
        ix->pc_koff[i] = k;
        prev_end += dp + len;
        k += len;
    }
    c->end[0] = rec;
    c->end[1] = prev_end;
    c->end[2] = k;
    return r.p == r.end ? GS_OK : GS_EINPUT;
}

/* Decode chunk c (its raw bytes checked against the CRC) into ix:
 * GS_EINPUT when corrupt, GS_ESYS out of memory. */
static gs_status read_chunk(gs_lz_index *ix, chunk *c, struct libdeflate_decompressor *z)
{
    const uint8_t *raw = c->data;
    uint8_t *own = NULL;
    gs_status st = GS_EINPUT;
    if (c->method == METHOD_DEFLATE) {
        if (z == NULL || (own = malloc(c->raw_len ? c->raw_len : 1)) == NULL)
            return GS_ESYS; /* out of memory, not corrupt */
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
        st = gs_lz_kchunk_index(c->kc, raw, c->raw_len, c->count);
    } else if (c->section == SEC_PHRASES)
        st = read_phrases(ix, c, raw, c->raw_len);
    else if (c->section == SEC_PIECES)
        st = read_pieces(ix, c, raw, c->raw_len);
    else if (c->section == SEC_SOURCES)
        st = read_sources(ix, c, raw, c->raw_len);
done:
    free(own);
    return st;
}

static void *read_chunks(void *arg)
{
    chunk_pool *pool = *(chunk_pool **)arg;
    struct libdeflate_decompressor *z = libdeflate_alloc_decompressor();
    size_t i;
    while ((i = atomic_fetch_add(&pool->next, 1)) < pool->n) {
        chunk *c = &pool->c[pool->n - 1 - i];
        gs_mapguard g;
        gs_mapguard_arm(&g, pool->map, pool->map_len);
        if (sigsetjmp(g.env, 0)) {
            c->cut = 1;
            c->st = GS_EINPUT;
        } else {
            c->st = read_chunk(pool->ix, c, z);
        }
        gs_mapguard_disarm(&g);
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

/* The whole file, mapped (read when it cannot be). */
static gs_status map_file(const char *path, mapped *m, gs_error *err)
{
    int fd = open(path, O_RDONLY);
    struct stat sb;
    if (fd < 0)
        return gs_fail_open(err, "index", path);
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

/* The header and the chunk table (checked, each chunk's data located):
 * ld->h the header's counts, ld->c and ld->n the table. */
static gs_status read_head(load *ld, gs_error *err)
{
    gs_lz_index *ix = ld->ix;
    const mapped *m = &ld->m;
    const char *path = ld->path;
    uint64_t *h = ld->h;
    chunk **c = &ld->c;
    size_t *n = &ld->n;
    rd f = {m->p, m->p + m->n, 0};
    if (m->n < sizeof gs_lz_magic || memcmp(m->p, gs_lz_magic, sizeof gs_lz_magic))
        return gs_fail(err, GS_EINPUT, "not a gscan LZ index (bad magic number) (%s)", path);
    f.p += sizeof gs_lz_magic;
    uint64_t version = get_le(&f, 4);
    if (!f.bad && version != GS_LZ_VERSION)
        return gs_fail(err, GS_EINPUT,
                       "index version %llu, this gscan reads version %d: rebuild it with gscan "
                       "index --lz (%s)", (unsigned long long)version, GS_LZ_VERSION, path);
    const uint8_t *h0 = f.p;
    for (int i = 0; i < N_HDR; i++)
        h[i] = get_le(&f, 8);
    uint64_t hcrc = get_le(&f, 4);
    if (f.bad || crc(h0, 8 * N_HDR) != (uint32_t)hcrc || h[0] > UINT32_MAX || h[6] == 0 ||
        h[6] > UINT32_MAX || h[8] > h[3] || h[7] == 0 || h[7] > (uint64_t)(f.end - f.p) / ENTRY_BYTES)
        return gs_lz_corrupt(err, path, "header");
    ix->n_residues = h[2];
    ix->n_phrases = h[3];
    ix->n_pieces = h[4];
    ix->kernel_len = h[5];
    ix->max_pat = (uint32_t)h[6];
    ix->n_copies = h[8];
    *n = (size_t)h[7];
    chunk *t = *c = gs_calloc(*n, sizeof *t, err, "index chunks");
    if (t == NULL)
        return GS_ESYS;
    const uint8_t *t0 = f.p;
    for (size_t i = 0; i < *n; i++) {
        t[i].section = (int)get_le(&f, 4);
        t[i].method = (int)get_le(&f, 4);
        t[i].first = get_le(&f, 8);
        t[i].count = get_le(&f, 8);
        t[i].raw_len = get_le(&f, 8);
        t[i].len = get_le(&f, 8);
        t[i].crc = (uint32_t)get_le(&f, 4);
    }
    uint64_t tcrc = get_le(&f, 4);
    if (f.bad || crc(t0, *n * ENTRY_BYTES) != (uint32_t)tcrc ||
        !check_table(ix, h[0], t, *n, (uint64_t)(f.end - f.p)))
        return gs_lz_corrupt(err, path, "chunk table");
    for (size_t i = 0; i < *n; i++) {
        t[i].data = f.p;
        f.p += t[i].len;
    }
    return GS_OK;
}

/* The names chunk c, first and alone: every other check needs the record
 * offsets. */
static gs_status read_names_chunk(const load *ld, gs_error *err)
{
    const chunk *c = &ld->c[0];
    struct libdeflate_decompressor *z = libdeflate_alloc_decompressor();
    int deflated = c->method == METHOD_DEFLATE;
    uint8_t *names = deflated ? malloc(c->raw_len ? c->raw_len : 1) : NULL;
    const uint8_t *nraw = deflated ? names : c->data;
    int zok = z != NULL && (!deflated || names != NULL);
    int nok = zok && (!deflated || libdeflate_deflate_decompress(z, c->data, c->len, names,
                                                                 c->raw_len, NULL) ==
                                       LIBDEFLATE_SUCCESS) &&
              crc(nraw, c->raw_len) == c->crc;
    libdeflate_free_decompressor(z);
    gs_status st;
    if (!zok)
        st = gs_fail(err, GS_ESYS, "out of memory (index names)");
    else if (!nok)
        st = gs_lz_corrupt(err, ld->path, "section names");
    else
        st = read_names(ld, nraw, c->raw_len, err);
    free(names);
    return st;
}

/* The arrays the chunks decode into; the kernel chunks' places. */
static gs_status alloc_sections(load *ld, gs_error *err)
{
    gs_lz_index *ix = ld->ix;
    chunk *c = ld->c;
    const size_t n = ld->n;
    uint64_t np = ix->n_phrases, nk = ix->n_pieces, nc = ix->n_copies;
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
    ix->cp_start = gs_malloc((nc ? nc : 1) * sizeof *ix->cp_start, err, "sources");
    ix->cp_target = gs_malloc((nc ? nc : 1) * sizeof *ix->cp_target, err, "sources");
    if (!ix->ph_start || !ix->ph_src || !ix->lit || !ix->pc_rec || !ix->pc_pos || !ix->pc_koff ||
        !ix->kchunks || !ix->cp_start || !ix->cp_target)
        return GS_ESYS;
    for (size_t i = 1; i < n; i++)
        if (c[i].section == SEC_KERNEL)
            c[i].kc = &ix->kchunks[ix->n_kchunks++];
    return GS_OK;
}

/* Every chunk but the names: decoded and checked on all threads, then
 * chained; then every copy phrase's source, once, and locate's tree. */
static gs_status decode_chunks(load *ld, int threads, const gs_tune *tune, gs_error *err)
{
    gs_lz_index *ix = ld->ix;
    chunk *c = ld->c;
    const size_t n = ld->n;
    const char *path = ld->path;
    gs_lz_unpack_init();
    double t0 = gs_now();
    chunk_pool pool = {.ix = ix, .c = c + 1, .n = n - 1, .map = ld->m.p, .map_len = ld->m.n};
    chunk_pool *share[GS_PARALLEL_MAX];
    threads = gs_parallel_threads(threads, n - 1);
    for (int t = 0; t < threads; t++)
        share[t] = &pool;
    if (n > 1)
        gs_run_parallel(read_chunks, share, sizeof *share, threads);
    for (size_t i = 1; i < n; i++)
        if (c[i].cut)
            return gs_mapguard_fail(err, path);
        else if (c[i].st == GS_ESYS)
            return gs_fail(err, GS_ESYS, "out of memory (index %s)", sec_name[c[i].section]);
        else if (c[i].st != GS_OK)
            return gs_lz_corrupt(err, path, sec_name[c[i].section]);
    const char *bad = check_chain(ix, c + 1, n - 1);
    if (bad)
        return gs_lz_corrupt(err, path, bad);
    double t1 = gs_now();
    gs_status st = gs_lz_sources_finish(ix, threads, path, err);
    if (tune && tune->debug & GS_DEBUG_TIME) /* the load figures of docs/performance.md */
        fprintf(stderr, "gscan: index load: chunks %.3f s, sources and tree %.3f s "
                "(%d threads)\n", t1 - t0, gs_now() - t1, threads);
    return st;
}

gs_status gs_lz_read(const char *path, int threads, const gs_tune *tune, gs_lz_index *ix,
                     gs_error *err)
{
    memset(ix, 0, sizeof *ix);
    load ld = {.ix = ix, .path = path};
    gs_status st = map_file(path, &ld.m, err);
    if (st != GS_OK)
        return st;
    ix->file_bytes = ld.m.n;
    gs_mapguard g; /* the calling thread's reads; the workers guard their own */
    gs_mapguard_arm(&g, ld.m.p, ld.m.n);
    if (sigsetjmp(g.env, 0))
        st = gs_mapguard_fail(err, path);
    else if ((st = read_head(&ld, err)) == GS_OK && (st = read_names_chunk(&ld, err)) == GS_OK &&
             (st = alloc_sections(&ld, err)) == GS_OK)
        st = decode_chunks(&ld, threads, tune, err);
    gs_mapguard_disarm(&g);
    if (st == GS_OK && (ix->path = gs_malloc(strlen(path) + 1, err, "index name")) == NULL)
        st = GS_ESYS;
    if (st == GS_OK)
        memcpy(ix->path, path, strlen(path) + 1);
    free(ld.c);
    if (st == GS_OK) { /* the kernel chunks point into it */
        ix->map = ld.m.p;
        ix->map_len = ld.m.n;
        ix->map_is_mmap = ld.m.is_map;
        return GS_OK;
    }
    unmap_file(&ld.m);
    uint64_t bytes = ix->file_bytes;
    gs_lz_free(ix);
    ix->file_bytes = bytes;
    return st;
}

int gs_lz_is_index(const char *path)
{
    uint8_t m[sizeof gs_lz_magic];
    struct stat st;
    /* looked at before it is opened: opening a FIFO waits for a writer */
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return 0;
    size_t n = fread(m, 1, sizeof m, f);
    fclose(f);
    return n == sizeof m && !memcmp(m, gs_lz_magic, sizeof m);
}
