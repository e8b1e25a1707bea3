/* parts_loose.c - a part's records found in its bytes (parts_loose.h).
 *
 * Per record the host does a memchr for the header's line end and one for
 * the next '>' (FASTA; for FASTQ one a line), and counts the bytes the
 * reader would drop among the residues in one vectorised pass: about 50 ns
 * for a 500 bp EST, against about 1 us to copy it line by line. */
#include "parts_loose.h"
#include "seq_cursor.h"
#include "seqformat.h"

#include <stdlib.h>
#include <string.h>

/* The bytes of s[0, n) that a reader drops from a sequence, and (*nl)
 * its line ends. With SSE2 (every x86-64) 16 at a time: the matches
 * subtracted from byte counters that are summed every 255 loads; elsewhere
 * runs of 240 in byte lanes, a loop the compiler vectorises. */
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
static uint64_t dropped(const uint8_t *s, size_t n, uint64_t *nl)
{
    uint64_t total = 0, lines = 0;
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), sp = _mm_set1_epi8(' '),
                  tab = _mm_set1_epi8('\t'), zero = _mm_setzero_si128();
    while (i + 16 <= n) {
        __m128i acc = zero, acc_nl = zero;
        for (int r = 0; r < 255 && i + 16 <= n; r++, i += 16) {
            const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
            const __m128i l = _mm_cmpeq_epi8(v, lf);
            const __m128i m = _mm_or_si128(_mm_or_si128(l, _mm_cmpeq_epi8(v, cr)),
                                           _mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, tab)));
            acc = _mm_sub_epi8(acc, m);
            acc_nl = _mm_sub_epi8(acc_nl, l);
        }
        const __m128i sum = _mm_sad_epu8(acc, zero), sum_nl = _mm_sad_epu8(acc_nl, zero);
        total += (uint64_t)_mm_cvtsi128_si32(sum) + (uint64_t)_mm_extract_epi16(sum, 4);
        lines += (uint64_t)_mm_cvtsi128_si32(sum_nl) + (uint64_t)_mm_extract_epi16(sum_nl, 4);
    }
#endif
    while (i < n) {
        const size_t m = n - i < 240 ? n - i : 240;
        uint8_t k = 0, e = 0;
        for (size_t j = i; j < i + m; j++) {
            const uint8_t c = s[j];
            k += (uint8_t)((c == '\n') | (c == '\r') | (c == ' ') | (c == '\t'));
            e += (uint8_t)(c == '\n');
        }
        total += k;
        lines += e;
        i += m;
    }
    *nl += lines;
    return total;
}

/* The end of the line at b[at], '\n' excluded, or SIZE_MAX where none ends it. */
static size_t eol(const uint8_t *b, size_t n, size_t at)
{
    const uint8_t *nl = at < n ? memchr(b + at, '\n', n - at) : NULL;
    return nl ? (size_t)(nl - b) : SIZE_MAX;
}

/* A header line b[at, e) ('>' or '@' at b[at]): its name into x, or 0 where
 * the reader would refuse it. */
static int header(const uint8_t *b, size_t at, size_t e, gs_loose_rec *x)
{
    const uint8_t *h = b + at + 1;
    const size_t hn = e - at - 1;
    size_t len;
    /* no NUL and no '\r' but a last one: most headers pass in one vector pass */
    if (!gs_seq_all_above(h, hn - (hn > 0 && h[hn - 1] == '\r'), '\r') &&
        gs_header_fault(h, hn, 0) != NULL)
        return 0;
    const size_t i = gs_header_name(h, hn, &len);
    x->name = at + 1 + i;
    x->name_len = (uint32_t)len;
    return len < UINT32_MAX;
}

/* What a record's step found: the record, that the part must go to the
 * streaming reader, or that its bytes are not all at hand yet. */
enum { GIVE_UP = 0, FOUND = 1, WAIT = 2 };

/* FASTA: the record at b[lz->at] ('>') of part b[0, n), of which b[0,
 * have) is at hand. */
static int fasta_rec(gs_loose *lz, const uint8_t *b, size_t have, size_t n, gs_loose_rec *x)
{
    const size_t at = lz->at;
    if (b[at] != '>')
        return GIVE_UP;
    const size_t e = eol(b, have, at);
    if (e == SIZE_MAX && have < n)
        return WAIT;
    if (!header(b, at, e == SIZE_MAX ? n : e, x))
        return GIVE_UP;
    x->seq = e == SIZE_MAX ? n : e + 1;
    /* the next '>' opening a line, looked for once in each byte */
    size_t next = lz->from > x->seq ? lz->from : x->seq;
    const uint8_t *g = next < have ? memchr(b + next, '>', have - next) : NULL;
    if (g == NULL && have < n) {
        lz->from = have;
        return WAIT;
    }
    next = g ? (size_t)(g - b) : n;
    if (g && b[next - 1] != '\n')
        return GIVE_UP; /* inside a line: the reader warns */
    x->span = next - x->seq;
    lz->lines += e != SIZE_MAX;
    x->residues = x->span - dropped(b + x->seq, x->span, &lz->lines);
    lz->at = next;
    return FOUND;
}

/* FASTQ: the four lines at b[lz->at] ('@'). A sequence line as long as
 * the last read's, clean of line ends and blanks, a "+" line alone and a
 * clean quality are each proved in one vector pass; anything else is
 * looked at byte by byte. */
static int fastq_rec(gs_loose *lz, const uint8_t *b, size_t have, size_t n, gs_loose_rec *x)
{
    const size_t h = lz->at, he = eol(b, have, h), L = lz->last;
    if (b[h] != '@')
        return GIVE_UP;
    const size_t s = he == SIZE_MAX ? SIZE_MAX : he + 1;
    int clean = s != SIZE_MAX && L > 0 && s + L < have && b[s + L] == '\n' &&
                gs_seq_all_above(b + s, L, ' ');
    const size_t se = clean ? s + L : eol(b, have, s);
    const size_t pe = se == SIZE_MAX                                  ? SIZE_MAX
                      : se + 2 < have && b[se + 2] == '\n' ? se + 2
                                                                      : eol(b, have, se + 1);
    if (pe == SIZE_MAX)
        return have < n ? WAIT : GIVE_UP;
    if (b[se + 1] != '+' || !header(b, h, he, x))
        return GIVE_UP;
    /* the quality: as many bytes as the sequence (a '\r' before the line
     * end not counted in either), then its line end */
    const size_t len = se - s - (se > s && b[se - 1] == '\r'), q = pe + 1;
    if (q + len + 2 > have && have < n)
        return WAIT;
    if (q + len >= n ||
        !(gs_seq_all_above(b + q, len, '\r') || memchr(b + q, '\n', len) == NULL) ||
        (len && b[q + len - 1] == '\r'))
        return GIVE_UP;
    size_t end;
    if (b[q + len] == '\n')
        end = q + len + 1;
    else if (b[q + len] == '\r' && q + len + 1 < n && b[q + len + 1] == '\n')
        end = q + len + 2;
    else
        return GIVE_UP;
    uint64_t none = 0; /* a sequence line holds no line end */
    x->seq = s;
    x->span = se - s;
    x->residues = clean ? x->span : x->span - dropped(b + s, x->span, &none);
    lz->last = x->span;
    lz->lines += 4;
    lz->at = end;
    return FOUND;
}

void gs_loose_begin(gs_loose *lz, int fastq, uint64_t max_residues)
{
    lz->n = lz->at = lz->from = lz->last = lz->pf = 0;
    lz->lines = 0;
    lz->fastq = fastq;
    lz->max_residues = max_residues;
    lz->state = GS_LOOSE_WALKING;
}

/* How far ahead of a record the walk asks for the part's bytes. A FASTQ
 * part is walked from its file's pages (parts_map.c), not from a piece just
 * read: each new page began with a wait on memory, the hardware's prefetch
 * stopping at page ends. A cache line at a time, this far ahead (about six
 * reads), the walk of 7 Gi residues of reads took 2.9 s summed over 15
 * readers instead of 4.1 (H200 host; 512 and 8192 bytes did as well). */
enum { AHEAD = 2048, LINE = 64 };

gs_status gs_loose_feed(gs_loose *lz, const uint8_t *b, size_t have, size_t n, gs_error *err)
{
    while (lz->state == GS_LOOSE_WALKING && lz->at < have) {
        const size_t stop = lz->at + AHEAD < n ? lz->at + AHEAD : n;
        if (lz->pf < lz->at)
            lz->pf = lz->at;
        for (; lz->pf < stop; lz->pf += LINE)
            __builtin_prefetch(b + lz->pf);
        if (gs_grow(&lz->v, &lz->cap, lz->n, sizeof *lz->v, 1024) != GS_OK)
            return gs_fail(err, GS_ESYS, "out of memory (a part's records)");
        gs_loose_rec *x = &lz->v[lz->n];
        x->codes = 0; /* a part read the usual way lays its bytes */
        const int r = lz->fastq ? fastq_rec(lz, b, have, n, x) : fasta_rec(lz, b, have, n, x);
        if (r == WAIT)
            return GS_OK;
        if (r == GIVE_UP || x->residues > lz->max_residues)
            lz->state = GS_LOOSE_GAVE_UP;
        else
            lz->n++;
        lz->from = 0;
    }
    if (lz->state == GS_LOOSE_WALKING && have == n && lz->at >= n)
        lz->state = GS_LOOSE_DONE;
    return GS_OK;
}

gs_status gs_loose_layout(const uint8_t *b, const gs_loose *lz, uint32_t file, int drop_names,
                          gs_layout *lay, gs_error *err)
{
    size_t bytes = 0;
    for (size_t i = 0; i < lz->n; i++)
        bytes += (drop_names ? 0 : lz->v[i].name_len) + 1;
    lay->rec = gs_malloc((lz->n ? lz->n : 1) * sizeof *lay->rec, err, "the record table");
    lay->names = lay->rec ? gs_malloc(bytes ? bytes : 1, err, "record names") : NULL;
    if (lay->names == NULL)
        return GS_ESYS;
    char *p = lay->names;
    for (size_t i = 0; i < lz->n; i++) {
        const gs_loose_rec *x = &lz->v[i];
        const size_t len = drop_names ? 0 : x->name_len;
        memcpy(p, b + x->name, len);
        p[len] = 0;
        lay->rec[i] = (gs_record){p, x->residues, file};
        p += len + 1;
    }
    lay->n_rec = lay->cap_rec = lz->n;
    lay->names_len = bytes;
    return GS_OK;
}

void gs_loose_free(gs_loose *lz)
{
    free(lz->v);
    *lz = (gs_loose){0};
}
