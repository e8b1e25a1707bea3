/* gpu_pipe.cuh - the state of the device pipeline (gpu.cu), shared with the
 * files that do part of its work: gpu_hits.cu turns a finished batch's hits
 * into a sorted run, raw.cu parses batches of raw FASTA bytes on the device.
 * Private to src/gpu, C++ only.
 */
#ifndef GS_GPU_PIPE_CUH
#define GS_GPU_PIPE_CUH

#include <mutex>

#include "gpu_cuda.h"

extern "C" {
#include "core/gs_dna2.h"
#include "core/gs_hitkey.h"
#include "core/gs_tally.h"
}

/* One segment of a raw batch as the parse kernels read it (raw.cu): its
 * bytes from `at` of the batch's raw bytes, its residues to text[out, out +
 * len), lines of lb residues every lw bytes from column col (lb == lw ==
 * len for text already parsed), flags RAW_CHECK and RAW_TAIL; with
 * RAW_LOOSE the residues of the lb bytes at `at` but their line ends and
 * blanks (a loose text, gs_raw_text.span), with RAW_CODES too its residues
 * as 2-bit codes in those bytes (gs_raw_text.codes). */
typedef struct gs_raw_desc {
    unsigned long long at;
    uint32_t out, len, lb, lw, col, flags;
} gs_raw_desc;
enum { RAW_CHECK = 1, RAW_TAIL = 2, RAW_LOOSE = 4, RAW_CODES = 8 };

/* A raw segment's record name, file and first position, for the message of
 * a fault found once the caller's descriptions are gone. */
typedef struct gs_raw_where {
    const char *record, *path;
    uint64_t base;
} gs_raw_where;

/* Copies from the caller's buffers (raw batches, batches in place) run on
 * a stream of their own; each submit from such a buffer ends with a fence
 * there (a ring of FENCES events), which the caller waits for before it
 * reuses the buffer. */
enum { FENCES = 4 };

/* BATCH_SEGS bounds the per-slot segment table (16 bytes a segment) when
 * records are tiny; SEPARATOR joins the segments of a dna batch. */
enum { NSLOT = 3, BATCH_SEGS = 1 << 20 };
static const uint8_t SEPARATOR = GS_GPU_SEPARATOR;

typedef struct gs_gpu_slot {
    struct gs_gpu *g; /* whose slot */
    cudaStream_t st;
    uint8_t *h_text, *d_text;
    unsigned long long *d_kh; /* key hits */
    uint32_t kh_cap;
    uint32_t *d_nhits, *h_nhits;
    cudaEvent_t t0, t1, k0, k1;
    int open;        /* a batch is being filled on the host */
    int busy;        /* a batch is queued on the device */
    size_t len, own; /* the packed text: bytes, owned starts */
    gs_run_seg *segs; /* hits only: where each segment sits in the packed text */
    size_t n_seg, seg_cap;
    /* a batch in place (gs_gpu_submit_run with a ticket): while it is
     * filled, its packed text lies in the caller's pinned buffer from src
     * on, not in h_text */
    const uint8_t *src;
    /* a batch of raw FASTA bytes (raw.cu): while it is filled, its bytes
     * lie in the caller's pinned buffer from raw on (NULL: h_text holds the
     * batch); one descriptor a segment (n_seg of them), and where each lies
     * for a message */
    const uint8_t *raw;
    size_t raw_bytes;
    int raw_batch; /* the batch in flight was parsed from raw bytes */
    size_t n_loose; /* of its segments, loose texts */
    /* a batch of a reader's table (gs_gpu_submit_laid): the entries, whose
     * at and out count from laid_at0 and laid_out0, copied from laid_src
     * (h_laid, or where the caller's pinned table lies) */
    int laid;
    gs_laid *h_laid, *d_laid;
    const gs_laid *laid_src;
    size_t h_laid_cap, d_laid_cap;
    uint32_t laid_at0, laid_out0;
    gs_raw_desc *h_desc, *d_desc;
    size_t h_desc_cap, d_desc_cap;
    gs_raw_where *where;
    size_t where_cap;
    uint8_t *d_raw;
    size_t d_raw_cap;
    unsigned long long *h_bad, *d_bad; /* the first fault the parse found */
    /* exact hits queued right behind the scan (gs_gpu_queue_hits): its key
     * hits expanded and sorted on the slot's stream, q_keys sort keys
     * (padded: the total is not known yet), so the host waits for none of
     * it; where the total exceeds them it is made again once known. The
     * keys, once back, are kept as runs on CUDA's host thread (keep_landed),
     * which sets kept (1: done, with keep_st and keep_err) before the
     * stream goes on, so a retire finds them kept */
    int queued, kept;
    gs_status keep_st;
    gs_error keep_err;
    uint32_t q_keys;
    uint32_t *q_cnt, *q_offs, *h_total;
    unsigned long long *q_in, *q_sorted;
    uint64_t *q_host; /* the sorted keys, padding and all, copied back behind the sort */
    void *q_temp;
    size_t q_cnt_cap, q_offs_cap, q_in_cap, q_sorted_cap, q_host_cap, q_temp_cap;
} gs_gpu_slot;

struct gs_gpu {
    gs_gpu_dev dev;
    const gs_gpu_engine *eng;
    void *est;
    gs_gpu_args args; /* as opened; args.tune points at tune */
    gs_tune tune;
    int want_hits, pack; /* pack: segments may share a batch (dna, exact) */
    int copy_threads;    /* gs_gpu_set_copy_threads */
    gs_seqcap *seqcap;   /* gs_gpu_set_seqcap, or NULL */
    const gs_keyset *ks; /* borrowed; approximate keysets: starts of long keys */
    int approx;
    uint32_t lbits;      /* bits of a hit length 0 .. span */
    size_t block, text_cap, text_alloc;
    uint32_t n_keys, pbits, sort_bits;
    uint32_t max_out;    /* exact keys: the most outputs (sort keys) of one key */
    uint32_t q_guess;    /* sort keys a queued batch makes room for: twice the most
                          * a batch has had */
    gs_key_layout lay;   /* of the sort keys: the runs' layout */
    unsigned long long *d_counts;
    unsigned int *d_work; /* scans run one at a time, so one counter serves all */
    uint32_t *d_out_off;
    unsigned long long *d_outkey; /* [outputs]: strand, pattern, length of a sort key */
    gs_gpu_slot slot[NSLOT];
    int next;
    cudaEvent_t scan_done, h0, h1;
    /* hit expansion scratch, used by one retire at a time */
    uint32_t *d_cnt, *d_offs;
    size_t cnt_cap;
    unsigned long long *d_keys, *d_sorted;
    uint64_t *h_sorted; /* a batch's sorted keys, pinned: copied into its runs */
    size_t keys_cap, h_sorted_cap;
    void *d_temp;
    size_t temp_cap;
    gs_hit_runs runs;   /* added to on CUDA's host thread too: under runs_lock */
    /* args.tally_files: the batches' keys counted as they land, instead of
     * runs (under runs_lock too): rows of finished units, the counter of
     * the unit counted last */
    int by_file;
    gs_tally tally;
    gs_tally_counter counter;
    uint32_t unit;
    std::mutex runs_lock; /* runs, the tally, seqcap and times.keep */
    gs_gpu_times times;
    cudaStream_t copy_st; /* copies from the caller's buffers; made at the first */
    cudaEvent_t fence[FENCES];
    unsigned fences;      /* fences recorded so far */
};

/* Batches (gpu.cu): whether seg may be submitted; the slot that takes it
 * next, raw (its bytes' address) or not (NULL), the open batch while it
 * fits and is of the same kind, else a fresh one (the open batch launched);
 * its place in that slot after a separator (*at: the offset of its text);
 * the launch of the batch when seg closes it; the launch of the open batch. */
gs_status gs_gpu_check_seg(const gs_gpu *g, const gs_segment *seg, gs_error *err);
gs_status gs_gpu_slot_for(gs_gpu *g, const gs_segment *seg, const uint8_t *raw,
                          gs_gpu_slot **out, gs_error *err);
gs_status gs_gpu_slot_add(gs_gpu *g, gs_gpu_slot *s, const gs_segment *seg, size_t *at,
                          gs_error *err);
gs_status gs_gpu_slot_added(gs_gpu *g, gs_gpu_slot *s, const gs_segment *seg, gs_error *err);
gs_status gs_gpu_launch_open(gs_gpu *g, gs_error *err);
/* The next slot opened for a raw batch from raw on, the open batch
 * launched first. */
gs_status gs_gpu_slot_fresh(gs_gpu *g, const uint8_t *raw, gs_gpu_slot **out, gs_error *err);
float gs_gpu_elapsed(cudaEvent_t a, cudaEvent_t b);
/* Queue one scan of slot s (counts: add to the per-key counts too). */
gs_status gs_gpu_scan_slot(gs_gpu *g, gs_gpu_slot *s, int counts, gs_error *err);
/* Grow a buffer (contents dropped) to at least n elements of size es, on
 * the device or pinned on the host. */
gs_status gs_gpu_reserve(void **d, size_t *cap, size_t n, size_t es, int pinned, gs_error *err);
/* Expand, sort and copy back the hits of a finished slot (gpu_hits.cu). */
gs_status gs_gpu_collect_hits(gs_gpu *g, gs_gpu_slot *s, gs_error *err);
/* Exact hits: queue the expansion and sort of slot s's hits behind its
 * scan, and the copy of the sorted keys back, where the padded keys fit
 * (else gs_gpu_collect_hits does it all once the scan is done). */
gs_status gs_gpu_queue_hits(gs_gpu *g, gs_gpu_slot *s, gs_error *err);
/* Free what gs_gpu_queue_hits made for slot s. */
void gs_gpu_queue_free(gs_gpu_slot *s);
/* Queue the copy of raw batch s to the device and its parse into s->d_text
 * (raw.cu); gs_gpu_raw_check: what the parse of a finished batch found;
 * gs_gpu_raw_free: the raw path's state of g. */
gs_status gs_gpu_raw_copy(gs_gpu *g, gs_gpu_slot *s, gs_error *err);
/* The copy stream and its fences, made at the first copy from a caller's
 * buffer (gpu.cu); gs_gpu_fence: a fence after the copies queued so far,
 * which gs_gpu_wait(*ticket) waits for. */
gs_status gs_gpu_copy_stream(gs_gpu *g, gs_error *err);
gs_status gs_gpu_fence(gs_gpu *g, unsigned *ticket, gs_error *err);
gs_status gs_gpu_raw_check(gs_gpu_slot *s, gs_error *err);
void gs_gpu_raw_free(gs_gpu *g);

#endif
