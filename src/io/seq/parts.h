/* parts.h - read plain FASTA and FASTQ files on several threads.
 *
 * One streaming reader (fasta.h) parses about 1 GB/s, so a corpus of many
 * short records (ESTs, reads) that has no index to cut it by would be read
 * on one thread. Here each file is cut into parts of about part_bytes, each
 * starting at a record, and n lanes take the parts in order, the next one
 * free as each lane is done with its last, each read through a
 * streaming reader of its own: the same records, ids, names, lengths,
 * warnings and messages (file and line, or record) as one reader of the
 * whole corpus. Each lane is a segment iterator for a thread of its own
 * (gs_source, scan/pipeline.h).
 *
 * Only plain (uncompressed) regular files sniffed as FASTA or FASTQ are
 * read so; gs_parts_open leaves *out NULL for any other corpus, which is
 * then streamed.
 */
#ifndef GS_PARTS_H
#define GS_PARTS_H

#include "fasta.h"

typedef struct gs_parts gs_parts;

/* Parts of files[0, n_files) for n_lanes lanes (>= 2), records appended to
 * layout (its files are set here); part_bytes 0: 8 MiB. *out = NULL, with
 * GS_OK and layout untouched, where the corpus cannot be read in parts or
 * has fewer than two. */
gs_status gs_parts_open(const char *const *files, size_t n_files, const gs_reader_opts *o,
                        uint64_t part_bytes, int n_lanes, gs_layout *layout, gs_parts **out,
                        gs_error *err);

/* How many parts the files were cut into. */
size_t gs_parts_count(const gs_parts *ps);

/* Lane i's iterator: its ctx for gs_parts_next. */
void *gs_parts_lane(gs_parts *ps, int i);

/* Seconds the lanes spent, summed (--debug time): reading (pread; a
 * FASTQ part's map and sequence copies), finding the records of the parts
 * given loose, waiting for the parts before their own to be counted (a
 * part's record ids), making the record tables of the parts given loose,
 * counting parts other lanes took (their reads included), and (not
 * seconds) how many such parts. */
enum { GS_PT_READ, GS_PT_WALK, GS_PT_WAIT, GS_PT_TABLES, GS_PT_OTHERS, GS_PT_OTHER_PARTS,
       GS_PARTS_TIMES };
void gs_parts_times(const gs_parts *ps, double t[GS_PARTS_TIMES]);

/* gs_reader_next for one lane (ctx: gs_parts_lane's): its parts' segments
 * in order, each segment's record its corpus-wide id. */
gs_status gs_parts_next(void *lane, uint8_t *buf, gs_segment *seg, int *more, gs_error *err);

/* The same segments for a device that drops line ends itself (gs_source's
 * next_raw): a part whose records the lane can find in its bytes is read
 * into buf as it lies in its file (a FASTQ part: only its sequence lines,
 * one after another, from the file's mapped pages) and given a record at a
 * time as loose texts (gs_raw_text.span: the host parses no residue); any
 * other part, and every part of --circular, through its streaming reader,
 * as residues. */
gs_status gs_parts_next_raw(void *lane, uint8_t *buf, size_t room, gs_segment *seg,
                            gs_raw_text *raw, int *more, gs_error *err);

/* The next of those loose texts, as many at a time as run's limits allow
 * (gs_source's next_run: the records of the part being given, from where
 * the last text ended, buf, on), laid as a device takes them; run->n 0
 * where gs_parts_next_raw must give the next segment (the part's first,
 * the first of a fresh batch, a part read the streaming way, the end). */
gs_status gs_parts_next_run(void *lane, uint8_t *buf, gs_laid_run *run, gs_error *err);

/* Once every lane has ended: the layout's records in corpus order, named
 * as gs_reader_next leaves them. */
gs_status gs_parts_finish(gs_parts *ps, gs_error *err);

/* Bytes read from the files (each part is counted before it is parsed, in
 * the same read where the lane that counts it parses it). */
uint64_t gs_parts_bytes_in(const gs_parts *ps);

/* The first warning in corpus order (gs_reader_warning's), or NULL. */
const char *gs_parts_warning(const gs_parts *ps);

void gs_parts_close(gs_parts *ps);

#endif
