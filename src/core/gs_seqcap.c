/* gs_seqcap.c - hits' residues captured during the scan (see gs_seqcap.h).
 *
 * Entries and bytes grow by doubling (gs_grow); the table is sorted once,
 * at the end, with qsort: --seq runs print every hit as a text row, so the
 * rows, not this sort, are the cost.
 */
#include "gs_seqcap.h"

#include <stdlib.h>
#include <string.h>

#include "gs_types.h"

gs_status gs_seqcap_add(gs_seqcap *c, uint32_t record, uint64_t start, const uint8_t *text,
                        uint32_t len)
{
    if (c->n > 0) {
        const gs_seqcap_ent *last = &c->v[c->n - 1];
        if (last->record == record && last->start == start && last->len == len)
            return GS_OK;
    }
    if (gs_grow(&c->v, &c->cap, c->n, sizeof *c->v, 256) != GS_OK ||
        gs_grow(&c->bytes, &c->cap_bytes, c->n_bytes + len, 1, 4096) != GS_OK)
        return GS_ESYS;
    memcpy(c->bytes + c->n_bytes, text, len);
    c->v[c->n++] = (gs_seqcap_ent){.start = start, .off = c->n_bytes, .record = record,
                                   .len = len};
    c->n_bytes += len;
    c->sorted = 0;
    return GS_OK;
}

gs_status gs_seqcap_add_keys(gs_seqcap *c, const uint64_t *keys, size_t n,
                             const gs_run_seg *segs, size_t n_seg, gs_key_layout lay,
                             const uint8_t *text)
{
    const gs_run_seg *b = segs, *last = segs + (n_seg ? n_seg - 1 : 0);
    for (size_t i = 0; i < n && n_seg > 0; i++) {
        uint64_t pos = gs_hitkey_pos(lay, keys[i]), len = gs_hitkey_len(lay, keys[i]);
        while (b < last && b[1].off <= pos)
            b++;
        if (pos < b->off)
            continue; /* before the first segment: no hit of this batch */
        if (gs_seqcap_add(c, b->record, b->base + (pos - b->off), text + pos, (uint32_t)len) !=
            GS_OK)
            return GS_ESYS;
    }
    return GS_OK;
}

gs_status gs_seqcap_move(gs_seqcap *dst, gs_seqcap *src, gs_error *err)
{
    if (src->n == 0) {
        gs_seqcap_free(src);
        return GS_OK;
    }
    if (dst->n == 0) {
        gs_seqcap_free(dst);
        *dst = *src;
        memset(src, 0, sizeof *src);
        return GS_OK;
    }
    if (gs_grow(&dst->v, &dst->cap, dst->n + src->n - 1, sizeof *dst->v, 256) != GS_OK ||
        gs_grow(&dst->bytes, &dst->cap_bytes, dst->n_bytes + src->n_bytes, 1, 4096) != GS_OK)
        return gs_fail(err, GS_ESYS, "out of memory (matched residues of %zu hits)",
                       dst->n + src->n);
    memcpy(dst->bytes + dst->n_bytes, src->bytes, src->n_bytes);
    for (size_t i = 0; i < src->n; i++) {
        dst->v[dst->n + i] = src->v[i];
        dst->v[dst->n + i].off += dst->n_bytes;
    }
    dst->n += src->n;
    dst->n_bytes += src->n_bytes;
    dst->sorted = 0;
    gs_seqcap_free(src);
    return GS_OK;
}

static int ent_cmp(const void *pa, const void *pb)
{
    const gs_seqcap_ent *a = pa, *b = pb;
    if (a->record != b->record)
        return a->record < b->record ? -1 : 1;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return (a->len > b->len) - (a->len < b->len);
}

void gs_seqcap_finish(gs_seqcap *c)
{
    if (c->sorted)
        return;
    if (c->n > 1)
        qsort(c->v, c->n, sizeof *c->v, ent_cmp);
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++)
        if (k == 0 || ent_cmp(&c->v[k - 1], &c->v[i]) != 0)
            c->v[k++] = c->v[i];
    c->n = k;
    c->sorted = 1;
}

const uint8_t *gs_seqcap_find(const gs_seqcap *c, uint32_t record, uint64_t start, uint64_t end)
{
    if (c->n == 0 || end < start || end - start > UINT32_MAX)
        return NULL;
    const gs_seqcap_ent key = {.start = start, .record = record, .len = (uint32_t)(end - start)};
    const gs_seqcap_ent *e = bsearch(&key, c->v, c->n, sizeof *c->v, ent_cmp);
    return e ? c->bytes + e->off : NULL;
}

void gs_seqcap_free(gs_seqcap *c)
{
    free(c->v);
    free(c->bytes);
    memset(c, 0, sizeof *c);
}
