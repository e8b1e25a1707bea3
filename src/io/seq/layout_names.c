/* layout_names.c - records that repeat an earlier record's name
 * (gs_layout_dup_names, fasta.h), for every reader's layout.
 */
#include "fasta.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a: names are short words, so hashing is cheap next to the table's
 * cache misses. */
static uint64_t name_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3u;
    return h;
}

/* One pass in record order over an open-addressing table (a sort of
 * millions of EST names cost more than the rest of the layout): each slot
 * holds a name's hash (high 32 bits) and its first record + 1 (low 32 bits,
 * record ids are 32-bit). The first record found in the table is the
 * smallest b; the slot gives its a. */
gs_status gs_layout_dup_names(const gs_layout *l, size_t *n, size_t *a, size_t *b, gs_error *err)
{
    size_t dups = 0;
    *n = *a = *b = 0;
    if (l->n_rec < 2 || l->n_rec >= UINT32_MAX)
        return GS_OK;
    size_t named = 0; /* the table is for these: 100 M nameless reads need none */
    for (size_t i = 0; i < l->n_rec; i++)
        named += l->rec[i].name[0] != 0;
    if (named < 2)
        return GS_OK;
    size_t cap = 64;
    while (cap < named + named / 2)
        cap *= 2;
    /* zeroed by writing, not calloc: a table calloc maps to the zero page
     * takes a second fault (and a TLB flush on every thread's core) on each
     * page's first store, after the probe that read it */
    uint64_t *slot = gs_malloc(cap * sizeof *slot, err, "record names");
    if (slot == NULL)
        return GS_ESYS;
    memset(slot, 0, cap * sizeof *slot);
    for (size_t i = 0; i < l->n_rec; i++) {
        const char *name = l->rec[i].name;
        if (name[0] == 0) /* no name (FASTQ reads when names are not kept) */
            continue;
        uint64_t h = name_hash(name), tag = h >> 32 << 32;
        for (size_t k = (size_t)h & (cap - 1);; k = (k + 1) & (cap - 1)) {
            if (slot[k] == 0) {
                slot[k] = tag | (i + 1);
                break;
            }
            size_t first = (size_t)(slot[k] & UINT32_MAX) - 1;
            if ((slot[k] >> 32 << 32) == tag && strcmp(l->rec[first].name, name) == 0) {
                if (dups++ == 0)
                    *a = first, *b = i;
                break;
            }
        }
    }
    free(slot);
    *n = dups;
    return GS_OK;
}
