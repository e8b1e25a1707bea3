/* gs_spill.h - a rank's hits beyond its memory budget, as sorted runs in a
 * temporary folder beside the output, read back as one sorted stream.
 *
 * The folder, ".<output name>.gscan-spill.XXXXXX" in the output's
 * directory (the current one for standard output), is made at the first
 * run and removed with every run by gs_spill_free, on success and on every
 * error path; a signal removes it through gs_spill_remove_all
 * (src/cli/signals.c). A run is a file of packed hits (GS_SPILL_HIT_BYTES
 * each: start, end, record, pattern, strand, distance; native byte order,
 * read only by the process that wrote it).
 */
#ifndef GS_SPILL_H
#define GS_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include "gs_error.h"
#include "gs_hitmerge.h"
#include "gs_types.h"

enum { GS_SPILL_HIT_BYTES = 26 };

typedef struct gs_spill gs_spill;

/* A spill for the output path out (nothing is made yet). GS_ESYS when out
 * of memory. */
gs_status gs_spill_new(const char *out, gs_spill **sp, gs_error *err);

/* Write v[0..n) (sorted in contract §3 order) as one run; any thread. A
 * full disk or a file-size limit: GS_ESYS "cannot write spilled hits:
 * REASON (FOLDER)", the run removed. */
gs_status gs_spill_run(gs_spill *sp, const gs_hit *v, size_t n, gs_error *err);

size_t gs_spill_runs(const gs_spill *sp);    /* runs written (0: nothing spilled) */
uint64_t gs_spill_hits(const gs_spill *sp);  /* hits in them */
uint64_t gs_spill_bytes(const gs_spill *sp); /* bytes on disk, the largest total held */

/* Every run, and tail[0..n_tail) (sorted, still the caller's), as one
 * sorted source whose buffers take about mem bytes: where more runs are
 * open than that allows at 1024 hits a buffer (and never more than 64),
 * the oldest are first merged into new runs. The source lives until the
 * next gs_spill_stream (which reads from the start again: a tally, then
 * the writer), gs_spill_retire, gs_spill_collapse or gs_spill_free. */
gs_status gs_spill_stream(gs_spill *sp, const gs_hit *tail, size_t n_tail, size_t mem,
                          gs_hit_source *src, gs_error *err);

/* A pass's hits as one sorted source: gs_spill_stream where sp spilled,
 * else tail[0..n_tail) alone, read through *held (sp may be NULL). */
gs_status gs_spill_source(gs_spill *sp, const gs_hit *tail, size_t n_tail, size_t mem,
                          gs_hit_array_src *held, gs_hit_source *src, gs_error *err);
/* Replace every run with one run of the hits src gives, which may read the
 * runs themselves (a stream of gs_spill_stream: it is closed after). */
gs_status gs_spill_collapse(gs_spill *sp, gs_hit_source src, gs_error *err);

/* Close the stream and remove the oldest k runs: those it read while
 * gs_spill_run added the hits made from them (the hits of --best-per-site). */
void gs_spill_retire(gs_spill *sp, size_t k);

/* The folder ("" before the first run). */
const char *gs_spill_dir(const gs_spill *sp);

/* Close the stream, remove the runs and the folder; NULL is fine. */
void gs_spill_free(gs_spill *sp);

/* Remove the runs and folders of the live spills (the first two made and
 * not yet freed: a scan's and --verify's): async-signal-safe (unlink and
 * rmdir only). */
void gs_spill_remove_all(void);

#endif
