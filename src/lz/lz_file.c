/* lz_file.c - the hybrid index file: write, read and check, summarise.
 *
 * Layout (docs/index-format.md): an 8-byte magic, a version, a header of
 * counts with its own CRC-32, then five sections (names, phrases, literals,
 * pieces, kernel), each a zlib stream with its raw length and the CRC-32 of
 * its raw bytes. Phrases and pieces are varints of deltas: in a strain set a
 * phrase's source usually continues where the previous one's ended, so most
 * deltas are a byte or two before zlib. The kernel is packed at 2 bits per
 * residue with the other bytes (lowercase, N, IUPAC) as exception runs:
 * zlib at level 9 on DNA text took most of the build time and saved
 * little over the packing. Reading checks every checksum and
 * every structural invariant the scan relies on (phrases tile each record,
 * sources lie before their phrase and inside one record, pieces lie inside
 * their record), so a damaged or truncated file is GS_EINPUT and never a
 * crash or a wrong hit.
 */
#define _POSIX_C_SOURCE 200809L
#include "lz.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../io/replace_file.h"

static const uint8_t MAGIC[8] = {0x89, 'G', 'S', 'L', 'Z', '\r', '\n', 0x1a};
enum { VERSION = 1, N_HDR = 7 };
enum { SEC_NAMES = 1, SEC_PHRASES, SEC_LITERALS, SEC_PIECES, SEC_KERNEL, N_SEC = 5 };
static const char *const sec_name[] = {"", "names", "phrases", "literals", "pieces", "kernel"};

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

static uint32_t crc(const uint8_t *p, size_t n)
{
    uLong c = crc32(0L, Z_NULL, 0);
    while (n > 0) { /* crc32 takes a uInt length */
        uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
        c = crc32(c, p, k);
        p += k;
        n -= k;
    }
    return (uint32_t)c;
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

/* Unpack into k[0..n); 0 when the section is inconsistent. */
static int unpack_kernel(const uint8_t *p, uint64_t len, uint8_t *k, uint64_t n)
{
    static const char acgt[4] = {'A', 'C', 'G', 'T'};
    uint64_t packed = n / 4 + (n % 4 != 0);
    if (len < packed)
        return 0;
    uint8_t four[256][4]; /* a packed byte's four residues */
    for (int b = 0; b < 256; b++)
        for (int j = 0; j < 4; j++)
            four[b][j] = (uint8_t)acgt[(b >> (2 * j)) & 3];
    for (uint64_t i = 0; i + 4 <= n; i += 4)
        memcpy(k + i, four[p[i / 4]], 4);
    for (uint64_t i = n - n % 4; i < n; i++)
        k[i] = four[p[i / 4]][i % 4];
    rd r = {p + packed, p + len, 0};
    uint64_t runs = get_varint(&r), at = 0;
    for (uint64_t i = 0; i < runs && !r.bad; i++) {
        uint64_t gap = get_varint(&r), rl = get_varint(&r);
        if (r.bad || gap > n - at || rl > n - at - gap || rl > (uint64_t)(r.end - r.p))
            return 0;
        memcpy(k + at + gap, r.p, rl);
        r.p += rl;
        at += gap + rl;
    }
    return !r.bad && r.p == r.end;
}

/* ---- write --------------------------------------------------------------- */

/* zlib in bounded steps: sections may exceed 4 GiB (uInt lengths). */
static int deflate_all(const uint8_t *src, size_t n, buf *out)
{
    z_stream z = {0};
    if (deflateInit(&z, 6) != Z_OK)
        return -1;
    uint8_t chunk[1 << 16];
    int rc = Z_OK;
    z.next_in = (Bytef *)src;
    size_t left = n;
    do {
        uInt take = left > (1u << 30) ? (1u << 30) : (uInt)left;
        z.avail_in = take;
        left -= take;
        int flush = left ? Z_NO_FLUSH : Z_FINISH;
        do {
            z.next_out = chunk;
            z.avail_out = sizeof chunk;
            rc = deflate(&z, flush);
            put(out, chunk, sizeof chunk - z.avail_out);
        } while (z.avail_out == 0);
    } while (left);
    deflateEnd(&z);
    return rc == Z_STREAM_END && !out->oom ? 0 : -1;
}

static int put_section(buf *file, int id, const buf *raw)
{
    buf z = {0};
    if (raw->oom || deflate_all(raw->p, raw->n, &z)) {
        free(z.p);
        return -1;
    }
    put_le(file, (uint64_t)id, 4);
    put_le(file, raw->n, 8);
    put_le(file, z.n, 8);
    put_le(file, crc(raw->p, raw->n), 4);
    put(file, z.p, z.n);
    free(z.p);
    return file->oom ? -1 : 0;
}

static void put_header(buf *b, const gs_lz_index *ix)
{
    put(b, MAGIC, sizeof MAGIC);
    put_le(b, VERSION, 4);
    uint64_t h[N_HDR] = {ix->layout.n_rec, ix->layout.n_files, ix->n_residues, ix->n_phrases,
                         ix->n_pieces, ix->kernel_len, ix->max_pat};
    size_t at = b->n;
    for (int i = 0; i < N_HDR; i++)
        put_le(b, h[i], 8);
    if (!b->oom)
        put_le(b, crc(b->p + at, 8 * N_HDR), 4);
}

gs_status gs_lz_write(const char *path, gs_lz_index *ix, gs_error *err)
{
    buf file = {0}, s = {0};
    int bad = 0;
    put_header(&file, ix);

    for (size_t f = 0; f < ix->layout.n_files; f++)
        put(&s, ix->layout.files[f], strlen(ix->layout.files[f]) + 1);
    for (size_t r = 0; r < ix->layout.n_rec; r++) {
        put(&s, ix->layout.rec[r].name, strlen(ix->layout.rec[r].name) + 1);
        put_varint(&s, ix->layout.rec[r].length);
        put_varint(&s, ix->layout.rec[r].file);
    }
    bad |= put_section(&file, SEC_NAMES, &s);

    s.n = 0;
    uint64_t expect = 0;
    for (uint64_t j = 0; j < ix->n_phrases; j++) {
        uint64_t len = ix->ph_start[j + 1] - ix->ph_start[j];
        int copy = ix->ph_src[j] != GS_LZ_LITERAL;
        put_varint(&s, len << 1 | (uint64_t)copy);
        if (copy) {
            put_varint(&s, zigzag((int64_t)(ix->ph_src[j] - expect)));
            expect = ix->ph_src[j] + len;
        }
    }
    bad |= put_section(&file, SEC_PHRASES, &s);

    s.n = 0;
    for (uint64_t j = 0; j < ix->n_phrases; j++)
        if (ix->ph_src[j] == GS_LZ_LITERAL)
            put(&s, &ix->lit[j], 1);
    bad |= put_section(&file, SEC_LITERALS, &s);

    s.n = 0;
    uint32_t prev_rec = 0;
    uint64_t prev_end = 0;
    for (uint64_t p = 0; p < ix->n_pieces; p++) {
        uint32_t r = ix->pc_rec[p];
        if (r != prev_rec)
            prev_end = ix->rec_off[r];
        put_varint(&s, r - prev_rec);
        put_varint(&s, ix->pc_pos[p] - prev_end);
        put_varint(&s, ix->pc_koff[p + 1] - ix->pc_koff[p]);
        prev_rec = r;
        prev_end = ix->pc_pos[p] + ix->pc_koff[p + 1] - ix->pc_koff[p];
    }
    bad |= put_section(&file, SEC_PIECES, &s);

    s.n = 0;
    pack_kernel(ix->kernel, ix->kernel_len, &s);
    bad |= put_section(&file, SEC_KERNEL, &s);
    free(s.p);
    if (bad) {
        free(file.p);
        return gs_fail(err, GS_ESYS, "out of memory (writing %s)", path);
    }

    gs_replace_file rf;
    gs_status st = gs_replace_open(&rf, path, "index", err);
    if (st == GS_OK) {
        if (fwrite(file.p, 1, file.n, rf.f) != file.n)
            gs_fail(err, GS_ESYS, "cannot write: %s (%s)", strerror(errno), path);
        st = gs_replace_commit(&rf, "index", err);
    }
    ix->file_bytes = file.n;
    free(file.p);
    return err->code != GS_OK ? err->code : st;
}

/* ---- read ---------------------------------------------------------------- */

static gs_status corrupt(gs_error *err, const char *path, const char *what)
{
    return gs_fail(err, GS_EINPUT, "corrupt or truncated index: %s (%s)", what, path);
}

/* Inflate one section into *raw (allocated, raw_len bytes). */
static gs_status get_section(rd *f, int id, const char *path, uint8_t **raw, uint64_t *raw_len,
                             gs_error *err)
{
    char what[64];
    snprintf(what, sizeof what, "section %s", sec_name[id]);
    uint64_t sid = get_le(f, 4), n = get_le(f, 8), zn = get_le(f, 8), c = get_le(f, 4);
    if (f->bad || sid != (uint64_t)id || zn > (uint64_t)(f->end - f->p))
        return corrupt(err, path, what);
    *raw = gs_malloc(n ? n : 1, err, what);
    if (*raw == NULL)
        return GS_ESYS;
    z_stream z = {0};
    if (inflateInit(&z) != Z_OK)
        return gs_fail(err, GS_ESYS, "zlib cannot start (%s)", path);
    z.next_in = (Bytef *)f->p;
    z.next_out = *raw;
    uint64_t in_left = zn, out_left = n;
    int rc = Z_OK;
    while (rc == Z_OK) {
        uInt ti = in_left > (1u << 30) ? (1u << 30) : (uInt)in_left;
        uInt to = out_left > (1u << 30) ? (1u << 30) : (uInt)out_left;
        z.avail_in = ti;
        z.avail_out = to;
        rc = inflate(&z, Z_NO_FLUSH);
        in_left -= ti - z.avail_in;
        out_left -= to - z.avail_out;
        if (rc == Z_OK && ti == z.avail_in && to == z.avail_out)
            break; /* no progress: input or room exhausted */
    }
    inflateEnd(&z);
    f->p += zn;
    if (rc != Z_STREAM_END || in_left != 0 || out_left != 0 || crc(*raw, n) != (uint32_t)c)
        return corrupt(err, path, what);
    *raw_len = n;
    return GS_OK;
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

static gs_status read_phrases(gs_lz_index *ix, const uint8_t *p, uint64_t n, const uint8_t *lit,
                              uint64_t n_lit, const char *path, gs_error *err)
{
    rd r = {p, p + n, 0};
    uint64_t np = ix->n_phrases;
    if (np > n) /* each phrase takes at least one byte */
        return corrupt(err, path, "section phrases");
    ix->ph_start = gs_malloc((np + 1) * sizeof *ix->ph_start, err, "phrases");
    ix->ph_src = gs_malloc((np ? np : 1) * sizeof *ix->ph_src, err, "phrases");
    ix->lit = gs_calloc(np ? np : 1, 1, err, "phrases");
    if (!ix->ph_start || !ix->ph_src || !ix->lit)
        return GS_ESYS;
    uint64_t g = 0, expect = 0, li = 0, rec_end = 0;
    for (uint64_t j = 0; j < np; j++) {
        uint64_t v = get_varint(&r), len = v >> 1;
        if (r.bad || len == 0 || g >= ix->n_residues)
            return corrupt(err, path, "section phrases");
        if (g >= rec_end)
            rec_end = rec_end_at(ix, g);
        if (len > rec_end - g) /* a phrase never crosses a record */
            return corrupt(err, path, "section phrases");
        ix->ph_start[j] = g;
        if (v & 1) {
            uint64_t s = expect + (uint64_t)unzigzag(get_varint(&r));
            if (r.bad || s >= g || len > rec_end_at(ix, s) - s)
                return corrupt(err, path, "section phrases");
            ix->ph_src[j] = s;
            expect = s + len;
        } else {
            if (len != 1 || li >= n_lit)
                return corrupt(err, path, "section phrases");
            ix->ph_src[j] = GS_LZ_LITERAL;
            ix->lit[j] = lit[li++];
        }
        g += len;
    }
    if (r.p != r.end || g != ix->n_residues || li != n_lit)
        return corrupt(err, path, "section phrases");
    ix->ph_start[np] = g;
    return GS_OK;
}

static gs_status read_pieces(gs_lz_index *ix, const uint8_t *p, uint64_t n, const char *path,
                             gs_error *err)
{
    rd r = {p, p + n, 0};
    uint64_t np = ix->n_pieces;
    if (np > n)
        return corrupt(err, path, "section pieces");
    ix->pc_rec = gs_malloc((np ? np : 1) * sizeof *ix->pc_rec, err, "pieces");
    ix->pc_pos = gs_malloc((np ? np : 1) * sizeof *ix->pc_pos, err, "pieces");
    ix->pc_koff = gs_malloc((np + 1) * sizeof *ix->pc_koff, err, "pieces");
    if (!ix->pc_rec || !ix->pc_pos || !ix->pc_koff)
        return GS_ESYS;
    uint64_t rec = 0, prev_end = 0, k = 0;
    ix->pc_koff[0] = 0;
    for (uint64_t i = 0; i < np; i++) {
        uint64_t dr = get_varint(&r), dp = get_varint(&r), len = get_varint(&r);
        if (r.bad || dr >= ix->layout.n_rec - rec)
            return corrupt(err, path, "section pieces");
        if (dr) {
            rec += dr;
            prev_end = ix->rec_off[rec];
        }
        uint64_t end = ix->rec_off[rec + 1];
        if (len == 0 || dp > end - prev_end || len > end - prev_end - dp || len > ix->kernel_len - k)
            return corrupt(err, path, "section pieces");
        ix->pc_rec[i] = (uint32_t)rec;
        ix->pc_pos[i] = prev_end + dp;
        prev_end += dp + len;
        k += len;
        ix->pc_koff[i + 1] = k;
    }
    if (r.p != r.end || k != ix->kernel_len)
        return corrupt(err, path, "section pieces");
    return GS_OK;
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

static gs_status slurp(const char *path, uint8_t **data, size_t *n, gs_error *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return gs_fail(err, errno == ENOENT || errno == EACCES ? GS_EINPUT : GS_ESYS,
                       "cannot open index: %s (%s)", strerror(errno), path);
    buf b = {0};
    uint8_t chunk[1 << 16];
    size_t k;
    while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
        put(&b, chunk, k);
    int bad = ferror(f);
    fclose(f);
    if (bad || b.oom) {
        free(b.p);
        return gs_fail(err, GS_ESYS, "cannot read index (%s)", path);
    }
    *data = b.p;
    *n = b.n;
    return GS_OK;
}

gs_status gs_lz_read(const char *path, gs_lz_index *ix, gs_error *err)
{
    memset(ix, 0, sizeof *ix);
    uint8_t *data = NULL, *sec[N_SEC + 1] = {0};
    uint64_t len[N_SEC + 1] = {0};
    size_t n = 0;
    gs_status st = slurp(path, &data, &n, err);
    if (st != GS_OK)
        return st;
    ix->file_bytes = n;
    rd f = {data, data + n, 0};
    if (n < sizeof MAGIC || memcmp(data, MAGIC, sizeof MAGIC)) {
        st = gs_fail(err, GS_EINPUT, "not a gscan LZ index (bad magic number) (%s)", path);
        goto fail;
    }
    f.p += sizeof MAGIC;
    uint64_t version = get_le(&f, 4);
    if (!f.bad && version != VERSION) {
        st = gs_fail(err, GS_EINPUT, "index version %llu, this gscan reads version %d (%s)",
                     (unsigned long long)version, VERSION, path);
        goto fail;
    }
    const uint8_t *h0 = f.p;
    uint64_t h[N_HDR];
    for (int i = 0; i < N_HDR; i++)
        h[i] = get_le(&f, 8);
    uint64_t hcrc = get_le(&f, 4);
    if (f.bad || crc(h0, 8 * N_HDR) != (uint32_t)hcrc || h[0] > UINT32_MAX || h[6] == 0 ||
        h[6] > UINT32_MAX) {
        st = corrupt(err, path, "header");
        goto fail;
    }
    ix->n_residues = h[2];
    ix->n_phrases = h[3];
    ix->n_pieces = h[4];
    ix->kernel_len = h[5];
    ix->max_pat = (uint32_t)h[6];
    for (int s = 1; s <= N_SEC && st == GS_OK; s++)
        st = get_section(&f, s, path, &sec[s], &len[s], err);
    if (st == GS_OK && f.p != f.end)
        st = corrupt(err, path, "trailing bytes");
    if (st == GS_OK)
        st = read_names(ix, sec[SEC_NAMES], len[SEC_NAMES], h[0], h[1], path, err);
    if (st == GS_OK)
        st = read_phrases(ix, sec[SEC_PHRASES], len[SEC_PHRASES], sec[SEC_LITERALS],
                          len[SEC_LITERALS], path, err);
    if (st == GS_OK && (ix->kernel = gs_malloc(ix->kernel_len ? ix->kernel_len : 1, err,
                                               "kernel")) == NULL)
        st = GS_ESYS;
    if (st == GS_OK && !unpack_kernel(sec[SEC_KERNEL], len[SEC_KERNEL], ix->kernel, ix->kernel_len))
        st = corrupt(err, path, "section kernel");
    if (st == GS_OK)
        st = read_pieces(ix, sec[SEC_PIECES], len[SEC_PIECES], path, err);
fail:
    free(data);
    for (int s = 1; s <= N_SEC; s++)
        free(sec[s]);
    if (st != GS_OK) {
        uint64_t bytes = ix->file_bytes;
        gs_lz_free(ix);
        ix->file_bytes = bytes;
    }
    return st;
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
