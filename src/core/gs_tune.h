/* gs_tune.h - the tuning knobs of gscan, one struct filled once.
 *
 * Every knob that changes how (never what) gscan computes lives here: sizes
 * that tests shrink to put chunk edges inside small inputs, variants of a GPU
 * kernel to compare, and the debug output. The command line fills it once
 * (src/cli: `--tune key=value`, keys namespaced by the layer they steer, and
 * `--debug time`), and the stages receive it through their options; no stage
 * reads the environment. Zero in a field means "the stage's own default", so
 * a zeroed struct is the product as shipped.
 */
#ifndef GS_TUNE_H
#define GS_TUNE_H

#include <stdint.h>

/* --debug bits. time: per-step timings on stderr (the figures of
 * docs/performance.md) beside the /timing datasets. */
enum { GS_DEBUG_TIME = 1u << 0 };

typedef struct gs_tune {
    unsigned debug;           /* GS_DEBUG_* bits (--debug) */
    /* src/io */
    uint64_t io_gzip_region;  /* io.gzip.region: compressed bytes a region of a parallel
                               * gzip inflate (0: 4 MiB) */
    uint64_t io_fai_split;    /* io.fai.split: bytes a part of the in-memory .fai build
                               * (0: one part a thread) */
    uint64_t io_part;         /* io.part: bytes a part of a plain FASTA or FASTQ file read
                               * on several threads (0: 8 MiB) */
    int io_fastq_map;         /* io.fastq.map: a FASTQ part given to a GPU as loose texts
                               * 0: mapped, page tables made at once (the default);
                               * 1: mapped, pages faulted as read; -1: read with pread()
                               * whole, qualities included */
    int io_fastq_codes;       /* io.fastq.codes: a mapped FASTQ part's reads of A, C, G and T
                               * only copied as 2-bit codes (core/gs_dna2.h): 0 by the vector
                               * coder where the processor has one (the default), 1 by the
                               * portable one, -1 never (their bytes) */
    int io_fai_dense;         /* io.fai.dense: -1 a .fai is always used; 0 one process reads
                               * a file whose .fai is dense in parts instead (the default;
                               * gs_policy_index_dense) */
    int io_bgzf_inflate;      /* io.bgzf.inflate: 0 ISA-L (the default), 1 libdeflate */
    int io_h5_threads;        /* io.h5.threads: threads of the direct chunk writer (0: its own) */
    int io_h5_slots;          /* io.h5.slots: chunks in flight in that writer (0: its own) */
    uint64_t io_h5_align;     /* io.h5.align: HDF5 objects of at least this size start at a
                               * multiple of it (0: 1 MiB; 1: no alignment) */
    /* src/lz */
    uint64_t lz_batch;        /* lz.batch: residues a build batch holds (0: 512 Mi) */
    uint64_t lz_chunk;        /* lz.chunk: items a chunk of the index file (0: its own) */
    /* src/match and src/gpu */
    int match_seed_filter;    /* match.seed.filter: -1 off; 0 or 1 on (the default) */
    int match_zone_scan;      /* match.zone.scan: -1 never; 0 keys off the seed filter whose
                               * --exact-3p zone is selective, and those of small zone groups
                               * (the default); 1 those of the seed filter too
                               * (src/match/zones.h) */
    int gpu_bv_direct;        /* gpu.bv.direct: -1 never, 0 where it pays, 1 wherever it fits */
    int gpu_ac_parts;         /* gpu.ac.parts: the least parts of the partitioned AC (0: 2) */
    int gpu_ac_compact;       /* gpu.ac.compact: -1 never; 0 or 1 where it fits (the default) */
    int gpu_laid;             /* gpu.laid: -1 a reader's batch goes to the device a segment
                               * at a time (the road its table falls back to); 0 as its
                               * table where every segment fits one (the default) */
    int host_numa;            /* host.numa: -1 never; 0 with two or more GPU ranks on a node
                               * (the default); 1 whenever the GPU's node is known (host.h) */
    int host_visible;         /* host.visible: -1 CUDA sees every GPU the process may; 0 (the
                               * default) only the one its node-local rank takes (host.h) */
} gs_tune;

#endif
