/* lz_file.h - what the index file's writer and reader share, private to
 * src/lz: the format's constants (docs/index-format.md), the byte buffer and
 * varint codec, and the chunk table.
 */
#ifndef GS_LZ_FILE_H
#define GS_LZ_FILE_H

#include <libdeflate.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lz.h"

extern const uint8_t gs_lz_magic[8];
enum { GS_LZ_VERSION = 3, N_HDR = 9 };
enum { SEC_NAMES = 1, SEC_PHRASES, SEC_PIECES, SEC_KERNEL, SEC_SOURCES, N_SEC = 5 };

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

static inline void put_varint(buf *b, uint64_t v)
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

static inline void put_le(buf *b, uint64_t v, int bytes)
{
    uint8_t t[8];
    for (int i = 0; i < bytes; i++)
        t[i] = (uint8_t)(v >> (8 * i));
    put(b, t, (size_t)bytes);
}

static inline uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

typedef struct rd {
    const uint8_t *p, *end;
    int bad;
} rd;

static inline uint64_t get_varint(rd *r)
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

static inline uint64_t get_le(rd *r, int bytes)
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

static inline const char *get_str(rd *r)
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

typedef struct chunk {
    int section, method;
    uint64_t first, count; /* items: records, phrases, pieces or kernel residues */
    uint64_t raw_len, len; /* raw bytes; bytes in the file */
    uint32_t crc;          /* CRC-32 of the raw bytes */
    uint8_t *out;          /* write: the bytes to store */
    const uint8_t *data;   /* read: the stored bytes, in the file */
    gs_lz_kchunk *kc;      /* read: a kernel chunk's place in the index */
    uint64_t start[2], end[3]; /* read: the decoder's state at both ends (check_chain) */
    gs_status st;          /* write: GS_ESYS out of memory; read: also GS_EINPUT corrupt */
    int cut;               /* read: the file was cut under its map (gs_mapguard.h) */
} chunk;

typedef struct chunk_pool {
    gs_lz_index *ix;
    chunk *c;
    size_t n;
    const uint8_t *map; /* the file's bytes, guarded (gs_mapguard.h) */
    size_t map_len;
    atomic_size_t next; /* tasks are taken from the end: the kernel's, the largest, first */
} chunk_pool;

static inline uint32_t crc(const uint8_t *p, size_t n) { return libdeflate_crc32(0, p, n); }

/* The kernel packed at 2 bits per ACGT, other bytes as exception runs,
 * appended to out (lz_kernel.c). */
void gs_lz_kernel_pack(const uint8_t *k, uint64_t n, buf *out);
/* Index a kernel chunk of n residues stored as p[0..len): its runs of
 * other bytes into kc (checked to lie inside the chunk, in order, their
 * bytes inside p). GS_EINPUT when the chunk is inconsistent, GS_ESYS out
 * of memory; no gs_error: chunks are read on threads, and the caller names
 * the file and the section. */
gs_status gs_lz_kchunk_index(gs_lz_kchunk *kc, const uint8_t *p, uint64_t len, uint64_t n);
/* Once before any gs_lz_kernel_copy of a read index: the unpacking table. */
void gs_lz_unpack_init(void);

/* GS_EINPUT "corrupt or truncated index: what (path)". */
gs_status gs_lz_corrupt(gs_error *err, const char *path, const char *what);

#endif
