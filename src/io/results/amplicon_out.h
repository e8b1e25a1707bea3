/* amplicon_out.h - the products of gscan pcr as text (TSV, BED6, FASTA).
 *
 *   tsv    header "pair record start end kind mismatches_5 mismatches_3
 *          size", one row a product in /amplicons order: pair name, record
 *          name, 0-based start, end one past the last residue (past the
 *          record's length: across a circular record's origin), kind name,
 *          the mismatches of the forward- and reverse-strand sites, end - start
 *   bed    BED6 without header: record start end pair score strand, where
 *          the name is "pair:kind", the score the sum of both sites'
 *          mismatches and the strand '+'
 *   fasta  one record a product, ">pair:kind record:start-end" then the
 *          product's residues on the forward strand (read back through the
 *          corpus .fai: res->seq)
 */
#ifndef GS_AMPLICON_OUT_H
#define GS_AMPLICON_OUT_H

#include "core/gs_error.h"
#include "core/gs_result.h"

typedef enum gs_amp_format { GS_AMP_TSV, GS_AMP_BED, GS_AMP_FASTA } gs_amp_format;

/* Rank 0: res->amplicons to path ("-": standard output), through a
 * temporary name and a rename for a file. */
gs_status gs_amp_text_write(const char *path, gs_amp_format f, const gs_result *res,
                            gs_error *err);

#endif
