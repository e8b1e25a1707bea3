/* reader_part.h - the streaming reader (fasta.c) on a part of one file,
 * for the parts reader (parts.c); private to src/io/seq.
 */
#ifndef GS_READER_PART_H
#define GS_READER_PART_H

#include "fasta.h"
#include "seq_cursor.h"

/* A part of one plain FASTA or FASTQ file (parts.c): the records whose
 * bytes range holds, which starts at a record's first byte and ends after
 * a record's last; the first is record rec_id0 of the corpus and record
 * rec_in_file + 1 of the file, its first line line0. */
typedef struct gs_reader_part {
    gs_seq_range *range;
    uint32_t file;
    int fastq;
    uint64_t rec_id0, rec_in_file, line0;
} gs_reader_part;

/* A reader of the records of part pt, appended to layout (the part's own;
 * segments carry their corpus ids, pt->rec_id0 on). It reads pt->range,
 * which must outlive it. */
gs_status gs_reader_open_part(const gs_reader_opts *o, const gs_reader_part *pt,
                              gs_layout *layout, gs_reader **r, gs_error *err);

#endif
