/* gs_seqcap.h - the residues of a scan's hits, captured while the scan
 * holds them, for text rows with a matched column (--seq, --aligned).
 *
 * A producer that emits a hit (a CPU worker's segment, a GPU batch, the
 * LZ index's located occurrences) has the hit's residues in memory; it
 * copies [start, end) of the forward strand, as read (case kept), into a
 * byte arena and notes (record, start, length, offset). The table is kept
 * apart from the hits and found again by those coordinates: a hit can go
 * through any sort, gather or spill and still find its text, and the hit
 * record stays as it is. Hits sharing coordinates (both strands, several
 * patterns, a site seen by two producers) share one entry once the table
 * is finished. Nothing is captured unless the text output asks for it.
 */
#ifndef GS_SEQCAP_H
#define GS_SEQCAP_H

#include <stddef.h>
#include <stdint.h>

#include "gs_error.h"
#include "gs_hitkey.h"
#include "gs_hitsort.h"

/* One captured interval: residues [start, start + len) of record (start
 * unrolled: a circular record's hit may run past its length), stored at
 * bytes[off .. off + len). */
typedef struct gs_seqcap_ent {
    uint64_t start;
    uint64_t off;
    uint32_t record;
    uint32_t len;
} gs_seqcap_ent;

typedef struct gs_seqcap {
    gs_seqcap_ent *v;
    size_t n, cap;
    uint8_t *bytes;
    size_t n_bytes, cap_bytes;
    int sorted; /* gs_seqcap_finish ran since the last addition */
} gs_seqcap;

/* Append the interval of len residues at text (record's residues from
 * start on). An interval equal to the last one added is not stored again.
 * GS_ESYS when memory is short (no message: it runs on worker threads). */
gs_status gs_seqcap_add(gs_seqcap *c, uint32_t record, uint64_t start, const uint8_t *text,
                        uint32_t len);

/* The intervals of a run of packed hit keys keys[0 .. n) (ascending, as
 * gs_hit_runs_add_batch takes them), whose positions index text, the
 * packed text of the segments segs[0 .. n_seg) (ascending in off). The
 * GPU's batches and the CPU's segments both come this way. */
gs_status gs_seqcap_add_keys(gs_seqcap *c, const uint64_t *keys, size_t n,
                             const gs_run_seg *segs, size_t n_seg, gs_key_layout lay,
                             const uint8_t *text);

/* Move every interval of src to the end of dst (src is left empty). */
gs_status gs_seqcap_move(gs_seqcap *dst, gs_seqcap *src, gs_error *err);

/* Sort by (record, start, len) and drop repeated intervals, so that
 * gs_seqcap_find can search. */
void gs_seqcap_finish(gs_seqcap *c);

/* The residues of [start, end) of record (a finished table), or NULL when
 * none was captured. */
const uint8_t *gs_seqcap_find(const gs_seqcap *c, uint32_t record, uint64_t start,
                              uint64_t end);

void gs_seqcap_free(gs_seqcap *c);

#endif
