/* gs_dna2.h - a read's residues as 2-bit codes, four a byte, for the
 * device to lay out (io/seq/parts_map.c, gpu/raw.cu).
 *
 * A FASTQ read is copied from its file's pages into a batch and the batch
 * crosses to the device: a byte a residue written and a byte read again by
 * the copy. Four residues a byte, a read of A, C, G and T only costs a
 * quarter of that. A residue's code is (byte >> 1) & 3: A 0, C 1, T 2,
 * G 3 (GS_DNA2_BASES), residue i in bits 2 * (i % 4) of byte i / 4. Any
 * other byte (N, lowercase, IUPAC) leaves the read as its bytes, so the
 * device's text is always the file's own.
 */
#ifndef GS_DNA2_H
#define GS_DNA2_H

#include <stddef.h>
#include <stdint.h>

/* The byte of each code, code c at bits 8 * c (the device's table). */
#define GS_DNA2_BASES 0x47544341u

/* Which coder gs_dna2_code uses (io.fastq.codes): none (reads as bytes),
 * the vector coder where the processor has one (else none), or the
 * portable one. */
typedef enum { GS_DNA2_OFF = -1, GS_DNA2_AUTO = 0, GS_DNA2_PORTABLE = 1 } gs_dna2_how;

static inline size_t gs_dna2_bytes(size_t n)
{
    return (n + 3) / 4;
}

/* 1 if this process codes reads where asked how (a vector coder where
 * the processor has none, or none asked, is 0). */
int gs_dna2_on(int how);

/* src[0, n) as codes at dst[0, gs_dna2_bytes(n)) (the last byte's unused
 * bits 0) if every byte is one of A, C, G, T; else 0, dst's bytes
 * undefined. src[n, readable) may be read (the vector coder reads up to
 * 31 bytes past n where it may, rather than copy the last few). how:
 * GS_DNA2_AUTO or GS_DNA2_PORTABLE (gs_dna2_on). */
int gs_dna2_code(const uint8_t *src, size_t n, size_t readable, uint8_t *dst, int how);

#endif
