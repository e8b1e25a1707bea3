/* files.h - read a corpus's files side by side, whole files on several
 * threads.
 *
 * A gzip file can only be read from its start, so a corpus of gzip files
 * (or of files the parts reader does not take, parts.h) is otherwise one
 * stream: file after file, each inflated on all threads in turn. Here each
 * of n lanes takes the next file not yet taken and reads it through a
 * streaming reader of its own (fasta.h), inflated on a share of o->threads:
 * a lane's while every lane has a file to read, more for the last files
 * (whose lanes would otherwise leave the others idle). The records, names, lengths and warnings are one
 * reader's of the whole corpus; a segment's record, though, is its index
 * in its file, since a file's first id is known only once the files before
 * it are read: so this serves scans whose results name no record (counts,
 * without tallies or hits).
 */
#ifndef GS_FILES_H
#define GS_FILES_H

#include "fasta.h"

typedef struct gs_files gs_files;

/* files[0, n_files) on n_lanes lanes (fewer where there are fewer files),
 * records appended to layout (its files are set here). *out = NULL, with
 * GS_OK and layout untouched, for fewer than two files or lanes. */
gs_status gs_files_open(const char *const *files, size_t n_files, const gs_reader_opts *o,
                        int n_lanes, gs_layout *layout, gs_files **out, gs_error *err);

/* The lanes opened, and lane i's iterator: its ctx for gs_files_next. */
int gs_files_lanes(const gs_files *fs);
void *gs_files_lane(gs_files *fs, int i);

/* gs_reader_next for one lane: the segments of the files it takes, each
 * segment's record its index in its file. */
gs_status gs_files_next(void *lane, uint8_t *buf, gs_segment *seg, int *more, gs_error *err);

/* Once every lane has ended: the layout's records in corpus order. */
gs_status gs_files_finish(gs_files *fs, gs_error *err);

/* Where a lane failed: the failure of the first file in corpus order that
 * failed (lanes stop at the first failure, so a later file's may be the one
 * a lane returned). */
void gs_files_first_error(const gs_files *fs, gs_error *err);

/* Bytes read from the files (compressed bytes for gzip). */
uint64_t gs_files_bytes_in(const gs_files *fs);

/* The first warning in corpus order (gs_reader_warning's), or NULL. */
const char *gs_files_warning(const gs_files *fs);

void gs_files_close(gs_files *fs);

#endif
