/* lz_kernel.c - the index's kernel packed at 2 bits per ACGT, other bytes
 * (lowercase, N, IUPAC) as exception runs: packing when the index is
 * written, and unpacking any range of residues from the chunks a read index
 * leaves packed (a scan's readers unpack their own segments).
 */
#define _POSIX_C_SOURCE 200809L
#include "lz_file.h"

#include <pthread.h>

void gs_lz_kernel_pack(const uint8_t *k, uint64_t n, buf *out)
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

gs_status gs_lz_kchunk_index(gs_lz_kchunk *kc, const uint8_t *p, uint64_t len, uint64_t n)
{
    uint64_t packed = n / 4 + (n % 4 != 0);
    if (len < packed)
        return GS_EINPUT;
    kc->packed = p;
    rd r = {p + packed, p + len, 0};
    uint64_t runs = get_varint(&r), at = 0;
    if (r.bad || runs > (uint64_t)(r.end - r.p) / 2) /* a run takes 2 bytes or more */
        return GS_EINPUT;
    if (runs && (kc->runs = malloc(3 * runs * sizeof *kc->runs)) == NULL)
        return GS_ESYS;
    kc->n_runs = runs;
    for (uint64_t i = 0; i < runs && !r.bad; i++) {
        uint64_t gap = get_varint(&r), rl = get_varint(&r);
        if (r.bad || gap > n - at || rl > n - at - gap || rl > (uint64_t)(r.end - r.p))
            return GS_EINPUT;
        kc->runs[3 * i] = at + gap;
        kc->runs[3 * i + 1] = rl;
        kc->runs[3 * i + 2] = (uint64_t)(r.p - p);
        r.p += rl;
        at += gap + rl;
    }
    return !r.bad && r.p == r.end ? GS_OK : GS_EINPUT;
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

void gs_lz_unpack_init(void)
{
    pthread_once(&four_once, make_four);
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
