/* parts_map.c - a FASTQ part given loose from its file's pages (parts.c,
 * parts_internal.h).
 *
 * A read's sequence is about 40% of its record's bytes: the header, the
 * '+' line and the quality are the rest. Read with pread(), every byte is
 * copied from the page cache into the batch and every byte goes to the
 * device, so a FASTQ residue cost the host 2.4 bytes of copy and the bus
 * 2.4 bytes, where an EST's cost 1.2. Here the file is mapped instead
 * (once a lane), the walk (parts_loose.h) finds a part's records where
 * they lie in its pages, and
 * only their sequence lines are copied, one after another, into the batch
 * while the walk's piece is in the core's cache: the quality never leaves
 * the page cache. A read of A, C, G and T only is copied as its 2-bit codes
 * (core/gs_dna2.h), a quarter of the bytes to write and to send, and the
 * device lays out its residues; any other read as its bytes. A file cut
 * short under the map faults into an error naming it (gs_mapguard.h), as a
 * short pread() does.
 */
#define _DEFAULT_SOURCE
#include "parts_internal.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/gs_clock.h"
#include "core/gs_dna2.h"
#include "core/gs_mapguard.h"

void gs_parts_unpack(lane *ln)
{
    ln->lz_src = NULL;
}

void gs_parts_unmap(lane *ln)
{
    if (ln->map)
        munmap(ln->map, ln->map_len);
    ln->map = NULL;
    ln->map_len = 0;
    ln->lz_src = NULL;
}

/* Bytes [at, at + n) of the lane's file at ln->lz_src, in the lane's map
 * of the whole file (made at its first part, kept for the next: a map and
 * an unmap a part stalled every reading thread, as each takes the
 * process's map lock and an unmap makes every core drop the part's pages
 * from its TLB); 0 where the system would not map it. Their page tables
 * made at once (MADV_POPULATE_READ, not a fault a page) unless the tuning
 * says not to; a kernel without it faults them in as they are read. */
static int map_bytes(lane *ln, uint64_t at, size_t n)
{
    ln->lz_src = NULL;
    const gs_tune *tune = ln->ps->o.tune;
    const int how = tune ? tune->io_fastq_map : 0;
    if (how < 0)
        return 0;
    const int codes = tune ? tune->io_fastq_codes : GS_DNA2_AUTO;
    ln->codes = gs_dna2_on(codes) ? codes : GS_DNA2_OFF;
    const double t0 = gs_now();
    if (ln->map == NULL || ln->map_file != ln->fd_file) {
        gs_parts_unmap(ln);
        const uint64_t size = ln->ps->files[ln->fd_file].size;
        void *m = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, ln->range.fd, 0);
        if (m == MAP_FAILED) {
            ln->t[GS_PT_READ] += gs_now() - t0;
            return 0;
        }
        ln->map = m;
        ln->map_len = (size_t)size;
        ln->map_file = ln->fd_file;
    }
    if (at + n > ln->map_len) /* not past the size the file was opened with */
        return 0;
    ln->lz_src = (const uint8_t *)ln->map + at;
    ln->lz_src_n = n;
#ifdef MADV_POPULATE_READ
    if (how == 0) {
        const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), lo = at / page * page;
        (void)madvise((uint8_t *)ln->map + lo, (size_t)(at + n - lo), MADV_POPULATE_READ);
    }
#endif
    ln->t[GS_PT_READ] += gs_now() - t0;
    ln->bytes += n;
    return 1;
}

/* Record x's text at dst: its codes where it has them (x->codes; where the
 * coder finds a byte that is no base, not), else its sequence's bytes. */
static void put_text(const lane *ln, uint8_t *dst, gs_loose_rec *x)
{
    const uint8_t *src = ln->lz_src + x->seq;
    if (x->codes && gs_dna2_code(src, (size_t)x->residues, (size_t)(ln->lz_src_n - x->seq), dst,
                                 ln->codes))
        return;
    x->codes = 0;
    memcpy(dst, src, (size_t)x->span);
}

/* The texts of records [from, to), laid out already (their out set),
 * copied to out, record from's at out[0]. */
static void copy_texts(const lane *ln, uint8_t *out, size_t from, size_t to)
{
    gs_loose_rec *v = ln->lz.v;
    for (size_t i = from; i < to; i++)
        put_text(ln, out + (v[i].out - v[from].out), &v[i]);
}

/* Records [from, to) of the walk laid out, each one's out after the one
 * before it, their texts copied to out[their out]: as codes where the lane
 * codes reads and the read is one line of bases (a CRLF's '\r' after it). */
static void pack(lane *ln, uint8_t *out, size_t from, size_t to)
{
    gs_loose_rec *v = ln->lz.v;
    for (size_t i = from; i < to; i++) {
        gs_loose_rec *x = &v[i];
        x->out = i ? v[i - 1].out + gs_loose_bytes(&v[i - 1]) : 0;
        x->codes = ln->codes != GS_DNA2_OFF &&
                   (x->span == x->residues ||
                    (x->span == x->residues + 1 && ln->lz_src[x->seq + x->residues] == '\r'));
        put_text(ln, out + x->out, x);
    }
}

/* Bytes the walk is fed at a time, their sequences packed while the piece
 * is in the core's cache. (The next piece prefetched while one was walked
 * made the walk faster and the reader no faster once the file was mapped
 * whole: the prefetches' own wait, ~1 ms a part, was the walk's stall.) */
enum { PIECE = 64 << 10 };

gs_status gs_parts_walk_mapped(lane *ln, uint64_t at, size_t n, uint8_t *out, int *done,
                               gs_error *err)
{
    *done = 0;
    if (n == 0 || !map_bytes(ln, at, n))
        return GS_OK;
    gs_loose *lz = &ln->lz;
    gs_loose_begin(lz, 1, ln->ps->o.block);
    gs_mapguard g;
    gs_mapguard_arm(&g, ln->lz_src, n);
    if (sigsetjmp(g.env, 0)) {
        gs_mapguard_disarm(&g);
        gs_parts_unpack(ln);
        return gs_mapguard_fail(err, ln->range.path);
    }
    gs_status st = GS_OK;
    size_t packed = 0;
    for (size_t o = 0; st == GS_OK && lz->state == GS_LOOSE_WALKING; o += PIECE) {
        const size_t have = n - o < PIECE ? n : o + PIECE;
        if ((st = gs_parts_feed(ln, ln->lz_src, have, n, err)) == GS_OK) {
            const double t0 = gs_now();
            pack(ln, out, packed, lz->n);
            packed = lz->n;
            ln->t[GS_PT_READ] += gs_now() - t0;
        }
        if (have == n)
            break;
    }
    gs_mapguard_disarm(&g);
    if (st == GS_OK && lz->state == GS_LOOSE_DONE) {
        *done = 1;
        return GS_OK;
    }
    gs_parts_unpack(ln); /* read the usual way: its walk gave up */
    return st;
}

gs_status gs_parts_pack_from(lane *ln, size_t from, uint8_t *out, gs_error *err)
{
    gs_mapguard g;
    gs_mapguard_arm(&g, ln->map, ln->map_len);
    if (sigsetjmp(g.env, 0)) {
        gs_mapguard_disarm(&g);
        return gs_mapguard_fail(err, ln->range.path);
    }
    const double t0 = gs_now();
    copy_texts(ln, out, from, ln->lz.n);
    ln->t[GS_PT_READ] += gs_now() - t0;
    gs_mapguard_disarm(&g);
    return GS_OK;
}

gs_status gs_parts_loose_layout(lane *ln, const uint8_t *buf, uint32_t file, int drop_names,
                                gs_layout *lay, gs_error *err)
{
    if (ln->lz_src == NULL || drop_names) /* no name read from the map */
        return gs_loose_layout(ln->lz_src ? ln->lz_src : buf, &ln->lz, file, drop_names, lay, err);
    gs_mapguard g; /* the names are read from the map */
    gs_mapguard_arm(&g, ln->map, ln->map_len);
    if (sigsetjmp(g.env, 0)) {
        gs_mapguard_disarm(&g);
        return gs_mapguard_fail(err, ln->range.path);
    }
    gs_status st = gs_loose_layout(ln->lz_src, &ln->lz, file, drop_names, lay, err);
    gs_mapguard_disarm(&g);
    return st;
}
