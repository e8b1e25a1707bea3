/* lz_text.c - residues read out of the index: the matched text of located
 * hits (--seq with --index), where no corpus file is at hand (see lz.h).
 *
 * A residue lies in a kernel piece (read from there), or in a literal
 * phrase (its residue is stored), or in a copy phrase, whose source holds
 * the same residue strictly earlier: following sources ends. Hits are few
 * next to the corpus, and each residue costs a few binary searches.
 */
#include "lz.h"

#include <stdlib.h>

/* Residue g (global) of the index into *out; 0 when the index does not lead
 * to one (a corrupt index). */
static int residue_at(const gs_lz_index *ix, uint64_t g, uint8_t *out)
{
    for (uint64_t steps = 0; steps <= ix->n_phrases; steps++) {
        uint64_t k = gs_lz_last_le(ix->pc_pos, ix->n_pieces, g);
        if (k < ix->n_pieces && g - ix->pc_pos[k] < ix->pc_koff[k + 1] - ix->pc_koff[k]) {
            gs_lz_kernel_copy(ix, ix->pc_koff[k] + (g - ix->pc_pos[k]), 1, out);
            return 1;
        }
        uint64_t p = gs_lz_last_le(ix->ph_start, ix->n_phrases, g);
        if (p >= ix->n_phrases)
            return 0;
        if (ix->ph_src[p] == GS_LZ_LITERAL) {
            *out = ix->lit[p];
            return 1;
        }
        if (ix->ph_src[p] >= ix->ph_start[p])
            return 0;
        g = ix->ph_src[p] + (g - ix->ph_start[p]);
    }
    return 0;
}

gs_status gs_lz_capture(const gs_lz_index *ix, const gs_patset *ps, const gs_hits *hits,
                        gs_seqcap *cap, gs_error *err)
{
    uint8_t *buf = NULL;
    size_t buf_cap = 0;
    for (size_t i = 0; i < hits->n; i++) {
        const gs_hit *h = &hits->v[i];
        if (h->pattern >= ps->n || h->record >= ix->layout.n_rec)
            goto bad;
        const uint64_t len = ps->v[h->pattern].len; /* exact hits only */
        if (h->start + len > ix->layout.rec[h->record].length)
            goto bad;
        if (gs_grow(&buf, &buf_cap, len, 1, 64) != GS_OK)
            goto oom;
        for (uint64_t k = 0; k < len; k++)
            if (!residue_at(ix, ix->rec_off[h->record] + h->start + k, &buf[k]))
                goto bad;
        if (gs_seqcap_add(cap, h->record, h->start, buf, (uint32_t)len) != GS_OK)
            goto oom;
    }
    free(buf);
    gs_seqcap_finish(cap);
    return GS_OK;
oom:
    free(buf);
    return gs_fail(err, GS_ESYS, "out of memory (matched residues of %zu hits, --index)", hits->n);
bad:
    free(buf);
    return gs_fail(err, GS_EINPUT, "the index does not hold the residues of a hit: a damaged "
                   "index (%s)", ix->path ? ix->path : "--index");
}
