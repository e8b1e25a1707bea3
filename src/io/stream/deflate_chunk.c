/* deflate_chunk.c - decode a piece of a gzip file from any deflate block,
 * with the window before it known or not (deflate_chunk.h).
 *
 * Why a decoder of our own: ISA-L, zlib and libdeflate all start at the
 * beginning of a stream with a known window, and none writes markers for an
 * unknown one; that is what lets pieces of one stream be decoded on many
 * threads at once (the pugz / rapidgzip method). It is built to be checked
 * against zlib byte for byte, so it follows zlib's rules on what is valid
 * (which incomplete codes are allowed, where a repeat may start, the header
 * CRC) and names errors with zlib's words.
 *
 * Huffman decoding uses one table per code: a primary table of LIT_BITS
 * (DIST_BITS) bits indexed by the next input bits, whose entries give the
 * symbol and its code length, or point to a subtable for the longer codes
 * sharing those first bits (all subtables of a code have the size its
 * longest code needs). Entries are 32-bit words:
 *   bits 0-3 code length, 4-7 extra bits (subtable: its index bits),
 *   8-11 kind, 16-31 value (literal, length or distance base, subtable offset).
 * A zero entry is invalid (a code an incomplete set leaves unused).
 *
 * The bit buffer is refilled 8 bytes at a time (a branch-free refill, as in
 * libdeflate); near the end of the input it is refilled byte by byte with
 * zeros past the end, counted, so a stream cut short is found without ever
 * reading past the buffer.
 *
 * Searching for a block start tries every bit: a non-final dynamic block
 * header (type bits, symbol counts, a complete code-length code, valid
 * code lengths, an end-of-block code, valid literal/length and distance
 * codes) whose whole block then decodes. Random data passes that with
 * vanishing probability, and a false start costs only time: the caller
 * uses a piece only when it starts where the one before stopped.
 */
#include "deflate_chunk.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

enum { W = GS_DEFLATE_WINDOW };
enum { LIT_BITS = 10, DIST_BITS = 8, CL_BITS = 7 };
enum { LIT_SIZE = (1 << LIT_BITS) + 288 * 32, DIST_SIZE = (1 << DIST_BITS) + 32 * 128 };
enum { K_INVALID = 0, K_LIT, K_LEN, K_EOB, K_DIST, K_SUB };
enum { R_EOB = 0, R_ROOM, R_EOF, R_BADLIT, R_BADDIST, R_FAR };

#define ENT(kind, xbits, val) ((uint32_t)(kind) << 8 | (uint32_t)(xbits) << 4 | (uint32_t)(val) << 16)
#define CLEN(e) ((e)&15u)
#define XBITS(e) (((e) >> 4) & 15u)
#define KIND(e) (((e) >> 8) & 15u)
#define VAL(e) ((e) >> 16)
#define MASK(n) ((1u << (n)) - 1u)

typedef struct tables {
    uint32_t lit[LIT_SIZE];
    uint32_t dist[DIST_SIZE];
    uint32_t cl[1 << CL_BITS];
} tables;

typedef struct bitin {
    const uint8_t *base, *p, *end;
    uint64_t buf;
    unsigned n;  /* valid bits in buf */
    size_t over; /* zero bytes appended past end */
} bitin;

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v; /* deflate is little-endian, as every machine gscan targets */
}

static inline void refill(bitin *b)
{
    if (b->end - b->p >= 8) {
        b->buf |= load64(b->p) << b->n;
        b->p += (63 - b->n) >> 3;
        b->n |= 56;
        return;
    }
    while (b->n <= 56) {
        if (b->p < b->end)
            b->buf |= (uint64_t)*b->p++ << b->n;
        else
            b->over++;
        b->n += 8;
    }
}

static inline unsigned take(bitin *b, unsigned k)
{
    unsigned v = (unsigned)(b->buf & MASK(k));
    b->buf >>= k;
    b->n -= k;
    return v;
}

static uint64_t bit_pos(const bitin *b)
{
    return ((uint64_t)(b->p - b->base) + b->over) * 8 - b->n;
}

/* Past the input: bits that were never there were consumed. */
static int past_end(const bitin *b)
{
    return bit_pos(b) > (uint64_t)(b->end - b->base) * 8;
}

static void seek(bitin *b, uint64_t bit)
{
    size_t n = (size_t)(b->end - b->base), byte = (size_t)(bit >> 3);
    b->p = b->base + (byte < n ? byte : n);
    b->over = byte < n ? 0 : byte - n;
    b->buf = 0;
    b->n = 0;
    refill(b);
    take(b, (unsigned)(bit & 7));
}

#define LOOP_NAME block_bytes
#define OUT_T uint8_t
#define WIDE 0
#include "deflate_chunk_loop.h"
#undef LOOP_NAME
#undef OUT_T
#undef WIDE
#define LOOP_NAME block_symbols
#define OUT_T uint16_t
#define WIDE 1
#include "deflate_chunk_loop.h"
#undef LOOP_NAME
#undef OUT_T
#undef WIDE

/* Canonical Huffman table for lens[0, n) (entries ent[sym] without the
 * length). zlib's rules: an over-subscribed set is invalid; an incomplete
 * one only when it is a single code of length 1 (never for the code-length
 * code, strict); no code at all gives a table of invalid entries. GS_EINPUT: an invalid
 * set. */
static gs_status build(uint32_t *tab, unsigned pbits, const uint8_t *lens, unsigned n,
                       const uint32_t *ent, int strict)
{
    unsigned count[16] = {0}, offs[16];
    uint16_t sorted[288];
    for (unsigned s = 0; s < n; s++)
        count[lens[s]]++;
    count[0] = 0;
    unsigned max = 15;
    while (max > 0 && count[max] == 0)
        max--;
    memset(tab, 0, sizeof *tab << pbits);
    if (max == 0)
        return strict ? GS_EINPUT : GS_OK;
    int left = 1;
    for (unsigned l = 1; l <= 15; l++) {
        left = left * 2 - (int)count[l];
        if (left < 0)
            return GS_EINPUT;
    }
    if (left > 0 && (strict || max != 1))
        return GS_EINPUT;
    offs[1] = 0;
    for (unsigned l = 1; l < 15; l++)
        offs[l + 1] = offs[l] + count[l];
    for (unsigned s = 0; s < n; s++)
        if (lens[s])
            sorted[offs[lens[s]]++] = (uint16_t)s;
    unsigned code = 0, i = 0, sub = max > pbits ? max - pbits : 0;
    uint32_t sub_next = 1u << pbits, base = 0;
    int prefix = -1;
    for (unsigned l = 1; l <= max; l++, code <<= 1)
        for (unsigned k = 0; k < count[l]; k++, code++) {
            unsigned s = sorted[i++], rev = 0;
            for (unsigned b = 0; b < l; b++)
                rev |= ((code >> b) & 1u) << (l - 1 - b);
            uint32_t e = ent[s] | l;
            if (l <= pbits) {
                for (unsigned r = rev; r < (1u << pbits); r += 1u << l)
                    tab[r] = e;
                continue;
            }
            if ((int)(rev & MASK(pbits)) != prefix) { /* codes sharing a prefix are adjacent */
                prefix = (int)(rev & MASK(pbits));
                base = sub_next;
                sub_next += 1u << sub;
                memset(tab + base, 0, sizeof *tab << sub);
                tab[prefix] = ENT(K_SUB, sub, base);
            }
            for (unsigned r = rev >> pbits; r < (1u << sub); r += 1u << (l - pbits))
                tab[base + r] = e;
        }
    return GS_OK;
}

static const uint16_t len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10,  11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {1,    2,    3,    4,    5,    7,     9,     13,    17,  25,
                                       33,   49,   65,   97,   129,  193,   257,   385,   513, 769,
                                       1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3,  3,  4,  4,  5,  5,  6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
static const uint8_t cl_order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

static uint32_t lit_ent[288], dist_ent[32], cl_ent[19];
static tables fixed;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init_static(void)
{
    for (unsigned s = 0; s < 288; s++)
        lit_ent[s] = s < 256    ? ENT(K_LIT, 0, s)
                     : s == 256 ? ENT(K_EOB, 0, 0)
                     : s < 286  ? ENT(K_LEN, len_extra[s - 257], len_base[s - 257])
                                : 0;
    for (unsigned s = 0; s < 32; s++)
        dist_ent[s] = s < 30 ? ENT(K_DIST, dist_extra[s], dist_base[s]) : 0;
    for (unsigned s = 0; s < 19; s++)
        cl_ent[s] = ENT(K_LIT, 0, s);
    uint8_t lens[288];
    for (unsigned s = 0; s < 288; s++)
        lens[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
    build(fixed.lit, LIT_BITS, lens, 288, lit_ent, 0);
    memset(lens, 5, 32);
    build(fixed.dist, DIST_BITS, lens, 32, dist_ent, 0);
}

/* A dynamic block's header, after its 3 type bits: NULL or why it is invalid. */
static const char *read_dynamic(bitin *b, tables *t)
{
    uint8_t lens[286 + 30], cl[19] = {0};
    refill(b);
    unsigned nlit = take(b, 5) + 257, ndist = take(b, 5) + 1, ncl = take(b, 4) + 4;
    if (nlit > 286 || ndist > 30)
        return "too many length or distance symbols";
    for (unsigned i = 0; i < ncl; i++) {
        if (b->n < 3)
            refill(b);
        cl[cl_order[i]] = (uint8_t)take(b, 3);
    }
    if (build(t->cl, CL_BITS, cl, 19, cl_ent, 1) != GS_OK)
        return "invalid code lengths set";
    for (unsigned i = 0, total = nlit + ndist; i < total;) {
        if (b->n < 14)
            refill(b);
        if (b->over > 8)
            return "unexpected end of file";
        uint32_t e = t->cl[b->buf & MASK(CL_BITS)];
        take(b, CLEN(e));
        unsigned sym = VAL(e), rep, v = 0;
        if (sym < 16) {
            lens[i++] = (uint8_t)sym;
            continue;
        }
        if (sym == 16) {
            if (i == 0)
                return "invalid bit length repeat";
            v = lens[i - 1];
            rep = 3 + take(b, 2);
        } else if (sym == 17) {
            rep = 3 + take(b, 3);
        } else {
            rep = 11 + take(b, 7);
        }
        if (i + rep > total)
            return "invalid bit length repeat";
        memset(lens + i, (int)v, rep);
        i += rep;
    }
    if (lens[256] == 0)
        return "invalid code -- missing end-of-block";
    if (build(t->lit, LIT_BITS, lens, nlit, lit_ent, 0) != GS_OK)
        return "invalid literal/lengths set";
    if (build(t->dist, DIST_BITS, lens + nlit, ndist, dist_ent, 0) != GS_OK)
        return "invalid distances set";
    return past_end(b) ? "unexpected end of file" : NULL;
}

typedef struct dec {
    gs_dchunk *c;
    bitin b;
    tables *t;
    int wide;           /* writing c->head (symbols), else c->tail (bytes) */
    size_t o;           /* next position in the buffer written (after its window) */
    size_t lo;          /* the first position a back-reference may reach */
    size_t last_marker; /* wide: one past the last position holding a marker */
    unsigned blocks;    /* blocks decoded whole */
} dec;

static uint64_t out_count(const dec *d)
{
    return d->wide ? d->o - W : d->c->n_head + d->o - W;
}

/* The data is invalid here: GS_EINPUT, with c->why and c->err_byte. */
static gs_status fail(dec *d, const char *why)
{
    uint64_t bit = bit_pos(&d->b);
    d->c->why = why;
    d->c->err_byte = bit / 8;
    return GS_EINPUT;
}

/* Room for need more entries in the buffer written (GS_ESYS: out of memory). */
static gs_status room(dec *d, size_t need)
{
    gs_dchunk *c = d->c;
    size_t *cap = d->wide ? &c->head_cap : &c->tail_cap, want = d->o + need + 258 + 16;
    if (want <= *cap)
        return GS_OK;
    size_t nc = *cap * 2 > want ? *cap * 2 : want, el = d->wide ? 2 : 1;
    void *p = realloc(d->wide ? (void *)c->head : (void *)c->tail, nc * el);
    if (p == NULL)
        return GS_ESYS;
    if (d->wide)
        c->head = p;
    else
        c->tail = p;
    *cap = nc;
    return GS_OK;
}

/* The gzip member header at the current (byte-aligned) position. */
static gs_status member_header(dec *d)
{
    const uint8_t *in = d->b.base;
    size_t n = (size_t)(d->b.end - in), at = (size_t)(bit_pos(&d->b) / 8), i = at;
    if (n - i < 10)
        return fail(d, "unexpected end of file");
    if (in[i] != 0x1f || in[i + 1] != 0x8b)
        return fail(d, "incorrect header check");
    if (in[i + 2] != 8)
        return fail(d, "unknown compression method");
    unsigned flg = in[i + 3];
    if (flg & 0xe0)
        return fail(d, "unknown header flags set");
    i += 10;
    if (flg & 4) {
        if (n - i < 2 || n - i - 2 < (size_t)(in[i] | in[i + 1] << 8))
            return fail(d, "unexpected end of file");
        i += 2 + (size_t)(in[i] | in[i + 1] << 8);
    }
    for (unsigned f = 8; f <= 16; f += 8)
        if (flg & f) {
            const uint8_t *z = memchr(in + i, 0, n - i);
            if (z == NULL)
                return fail(d, "unexpected end of file");
            i = (size_t)(z - in) + 1;
        }
    if (flg & 2) {
        if (n - i < 2)
            return fail(d, "unexpected end of file");
        if ((crc32(0, in + at, (uInt)(i - at)) & 0xffff) != (unsigned)(in[i] | in[i + 1] << 8))
            return fail(d, "header crc mismatch");
        i += 2;
    }
    seek(&d->b, (uint64_t)i * 8);
    d->lo = d->o; /* a member starts with an empty window */
    return GS_OK;
}

static gs_status stored(dec *d)
{
    const uint8_t *in = d->b.base;
    size_t n = (size_t)(d->b.end - in), i = (size_t)((bit_pos(&d->b) + 7) / 8);
    if (i > n || n - i < 4)
        return fail(d, "unexpected end of file");
    unsigned len = in[i] | in[i + 1] << 8, nlen = in[i + 2] | in[i + 3] << 8;
    if (len != (~nlen & 0xffffu))
        return fail(d, "invalid stored block lengths");
    i += 4;
    if (n - i < len) {
        seek(&d->b, (uint64_t)n * 8);
        return fail(d, "unexpected end of file");
    }
    if (room(d, len) != GS_OK)
        return GS_ESYS;
    if (d->wide)
        for (unsigned k = 0; k < len; k++)
            d->c->head[d->o + k] = in[i + k];
    else
        memcpy(d->c->tail + d->o, in + i, len);
    d->o += len;
    seek(&d->b, (uint64_t)(i + len) * 8);
    return GS_OK;
}

static gs_status huffman(dec *d, const tables *t)
{
    for (;;) {
        int rc = d->wide ? block_symbols(&d->b, t, d->c->head, &d->o, d->c->head_cap, d->lo,
                                         &d->last_marker)
                         : block_bytes(&d->b, t, d->c->tail, &d->o, d->c->tail_cap, d->lo, NULL);
        switch (rc) {
        case R_EOB:
            return past_end(&d->b) ? fail(d, "unexpected end of file") : GS_OK;
        case R_ROOM:
            if (room(d, 1 << 20) != GS_OK)
                return GS_ESYS;
            break;
        case R_EOF: return fail(d, "unexpected end of file");
        case R_BADLIT: return past_end(&d->b) ? fail(d, "unexpected end of file")
                                              : fail(d, "invalid literal/length code");
        case R_BADDIST: return past_end(&d->b) ? fail(d, "unexpected end of file")
                                               : fail(d, "invalid distance code");
        default: return past_end(&d->b) ? fail(d, "unexpected end of file")
                                        : fail(d, "invalid distance too far back");
        }
    }
}

/* Wide and the last window of symbols holds no marker: go on in bytes. */
static gs_status narrow(dec *d)
{
    gs_dchunk *c = d->c;
    if (!d->wide || d->o - d->last_marker < W)
        return GS_OK;
    c->n_head = d->o - W;
    if (c->tail_cap < 2 * W) {
        void *p = realloc(c->tail, 2 * W);
        if (p == NULL)
            return GS_ESYS;
        c->tail = p;
        c->tail_cap = 2 * W;
    }
    for (size_t i = 0; i < W; i++)
        c->tail[i] = (uint8_t)c->head[d->o - W + i];
    d->lo = d->lo > d->o - W ? d->lo - (d->o - W) : 0;
    d->o = W;
    d->wide = 0;
    return GS_OK;
}

static gs_status member_end(dec *d, int *more)
{
    gs_dchunk *c = d->c;
    const uint8_t *in = d->b.base;
    size_t n = (size_t)(d->b.end - in), i = (size_t)((bit_pos(&d->b) + 7) / 8);
    if (i > n || n - i < 8) {
        seek(&d->b, (uint64_t)n * 8);
        return fail(d, "unexpected end of file");
    }
    if (c->n_ends == c->ends_cap) {
        size_t cap = c->ends_cap ? c->ends_cap * 2 : 16;
        void *p = realloc(c->ends, cap * sizeof *c->ends);
        if (p == NULL)
            return GS_ESYS;
        c->ends = p;
        c->ends_cap = cap;
    }
    uint32_t crc = (uint32_t)in[i] | (uint32_t)in[i + 1] << 8 | (uint32_t)in[i + 2] << 16 |
                   (uint32_t)in[i + 3] << 24;
    uint32_t isize = (uint32_t)in[i + 4] | (uint32_t)in[i + 5] << 8 |
                     (uint32_t)in[i + 6] << 16 | (uint32_t)in[i + 7] << 24;
    c->ends[c->n_ends++] = (gs_member_end){out_count(d), crc, isize};
    i += 8;
    seek(&d->b, (uint64_t)i * 8);
    /* another member follows if its magic does; other bytes after the last
     * are an error, as in the one-thread reader (stream.c) */
    *more = n - i >= 2 && in[i] == 0x1f && in[i + 1] == 0x8b;
    if (!*more && i < n)
        return fail(d, "trailing garbage after the last member");
    return GS_OK;
}

static gs_status run(dec *d, int at_member, uint64_t stop_bit, size_t max_out)
{
    gs_dchunk *c = d->c;
    gs_status rc;
    for (;;) {
        if (at_member && (rc = member_header(d)) != GS_OK)
            return rc;
        at_member = 0;
        uint64_t pos = bit_pos(&d->b);
        if (d->blocks > 0 && (pos >= stop_bit || out_count(d) >= max_out)) {
            c->stop_bit = pos;
            return GS_OK;
        }
        refill(&d->b);
        unsigned final = take(&d->b, 1), type = take(&d->b, 2);
        if (type == 0)
            rc = stored(d);
        else if (type == 1)
            rc = huffman(d, &fixed);
        else if (type == 2) {
            const char *why = read_dynamic(&d->b, d->t);
            rc = why ? fail(d, why) : huffman(d, d->t);
        } else
            rc = fail(d, "invalid block type");
        if (rc == GS_OK)
            rc = narrow(d);
        if (rc != GS_OK)
            return rc;
        d->blocks++;
        if (final) {
            int more;
            if ((rc = member_end(d, &more)) != GS_OK)
                return rc;
            if (!more) {
                c->eos = 1;
                c->stop_bit = bit_pos(&d->b);
                return GS_OK;
            }
            at_member = 1;
        }
    }
}

/* Set d up to decode c from start_bit with the window given or unknown. */
static gs_status start(dec *d, gs_dchunk *c, const uint8_t *in, size_t n, uint64_t start_bit,
                       const uint8_t *window, size_t win_len)
{
    pthread_once(&once, init_static);
    if (c->tables == NULL && (c->tables = malloc(sizeof(tables))) == NULL)
        return GS_ESYS;
    *d = (dec){.c = c, .t = c->tables, .b = {.base = in, .end = in + n}, .o = W};
    c->start_bit = start_bit;
    c->stop_bit = start_bit;
    c->eos = 0;
    c->why = NULL;
    c->err_byte = 0;
    c->n_head = c->n_tail = c->n_ends = 0;
    d->wide = window == NULL;
    if (room(d, 1 << 16) != GS_OK)
        return GS_ESYS;
    if (d->wide) {
        for (size_t i = 0; i < W; i++)
            c->head[i] = (uint16_t)(256 + i);
        d->last_marker = W;
    } else {
        if (win_len > W)
            win_len = W;
        memcpy(c->tail + W - win_len, window, win_len);
        d->lo = W - win_len;
    }
    seek(&d->b, start_bit);
    return GS_OK;
}

static void finish(dec *d)
{
    if (d->wide)
        d->c->n_head = d->o - W;
    else
        d->c->n_tail = d->o - W;
}

gs_status gs_dchunk_decode(gs_dchunk *c, const uint8_t *in, size_t n, uint64_t start_bit,
                           int at_member, const uint8_t *window, size_t win_len, uint64_t stop_bit,
                           size_t max_out)
{
    dec d;
    if (start(&d, c, in, n, start_bit, window, win_len) != GS_OK)
        return GS_ESYS;
    gs_status rc = run(&d, at_member, stop_bit, max_out);
    finish(&d);
    return rc;
}

/* Could a non-final dynamic block start at bit? The fixed-size part of its
 * header: type bits, symbol counts, a complete code-length code. */
static int plausible(const uint8_t *in, size_t n, uint64_t bit)
{
    size_t byte = (size_t)(bit >> 3);
    uint8_t tmp[16] = {0};
    const uint8_t *p = in + byte;
    if (n - byte < 16) {
        memcpy(tmp, p, n - byte);
        p = tmp;
    }
    uint64_t x = load64(p) >> (bit & 7);
    if ((x & 7) != 4 || ((x >> 3) & 31) > 29 || ((x >> 8) & 31) > 29)
        return 0;
    unsigned ncl = (unsigned)((x >> 13) & 15) + 4, kraft = 0;
    for (unsigned i = 0, off = (unsigned)(bit & 7) + 17; i < ncl; i++, off += 3) {
        unsigned l = ((unsigned)p[off >> 3] | (unsigned)p[(off >> 3) + 1] << 8) >> (off & 7) & 7;
        kraft += l ? 128u >> l : 0;
    }
    return kraft == 128;
}

gs_status gs_dchunk_find(gs_dchunk *c, const uint8_t *in, size_t n, uint64_t from_bit,
                         uint64_t to_bit, uint64_t stop_bit, size_t max_out, int *found)
{
    *found = 0;
    if (to_bit > (uint64_t)n * 8)
        to_bit = (uint64_t)n * 8;
    for (uint64_t bit = from_bit; bit < to_bit; bit++) {
        if (!plausible(in, n, bit))
            continue;
        dec d;
        if (start(&d, c, in, n, bit, NULL, 0) != GS_OK)
            return GS_ESYS;
        refill(&d.b);
        take(&d.b, 3);
        if (read_dynamic(&d.b, d.t) != NULL)
            continue;
        seek(&d.b, bit);
        gs_status rc = run(&d, 0, stop_bit, max_out);
        finish(&d);
        if (rc == GS_ESYS)
            return GS_ESYS;
        if (rc == GS_OK || d.blocks > 0) {
            *found = 1;
            return GS_OK;
        }
    }
    return GS_OK;
}

const uint8_t *gs_dchunk_resolve(gs_dchunk *c, const uint8_t *window, size_t win_len)
{
    uint8_t map[256 + W];
    const uint16_t *h = c->head + W;
    uint8_t *out = (uint8_t *)c->head; /* byte i is written before symbol i/2 + W is read */
    size_t n = c->n_head;
    if (win_len < W) { /* markers before the member's start are invalid data */
        for (size_t i = 0; i < n; i++)
            if (h[i] >= 256 && h[i] < 256 + W - win_len)
                return NULL;
    }
    for (unsigned i = 0; i < 256; i++)
        map[i] = (uint8_t)i;
    memcpy(map + 256, window, W);
    for (size_t i = 0; i < n; i++)
        out[i] = map[h[i]];
    return out;
}

void gs_dchunk_free(gs_dchunk *c)
{
    free(c->head);
    free(c->tail);
    free(c->ends);
    free(c->tables);
    *c = (gs_dchunk){0};
}
