/* test_seqcap.c - the captured residues of --seq (core/gs_seqcap.h): a GPU
 * batch's keys over its packed text (segments one after another with a
 * separator, as gpu.cu packs them) and a CPU segment's intervals, moved
 * together, finished and found again by (record, start, end) against the
 * residues cut from the records directly; intervals shared by several keys
 * kept once, and a miss is NULL. This is the host side of the GPU path,
 * tested without a GPU. */
#include <string.h>

#include "core/gs_seqcap.h"
#include "testlib.h"

enum { N_REC = 5, REC_LEN = 400, N_KEYS = 3000 };

static char rec[N_REC][REC_LEN];

static void check_batch(uint64_t *rs)
{
    /* segments [base, base + len) of the records, packed with separators */
    gs_run_seg segs[8];
    uint64_t seg_len[8];
    uint8_t text[8 * (REC_LEN + 1)];
    size_t n_seg = 0, len = 0;
    for (uint32_t r = 0; r < N_REC && n_seg < 8; r++) {
        uint64_t base = gs_test_below(rs, 100), l = 100 + gs_test_below(rs, REC_LEN - 200);
        if (n_seg)
            text[len++] = 'X';
        segs[n_seg] = (gs_run_seg){.base = base, .off = (uint32_t)len, .record = r};
        seg_len[n_seg] = l;
        memcpy(text + len, rec[r] + base, l);
        len += l;
        n_seg++;
    }
    const gs_key_layout lay = {.b_dist = 2, .b_len = 6, .b_pat = 4};
    uint64_t *keys = malloc(N_KEYS * sizeof *keys);
    for (size_t i = 0; i < N_KEYS; i++) {
        size_t s = gs_test_below(rs, n_seg);
        uint64_t l = 1 + gs_test_below(rs, 40), at = gs_test_below(rs, seg_len[s] - l + 1);
        uint32_t out = (uint32_t)gs_test_below(rs, 32);
        keys[i] = gs_hitkey_pack(lay, segs[s].off + at, out, l, (uint32_t)gs_test_below(rs, 4));
    }
    uint64_t *tmp = malloc(N_KEYS * sizeof *tmp);
    gs_radix_sort_u64(keys, tmp, N_KEYS, 64);
    free(tmp);
    gs_seqcap gpu = {0}, cpu = {0};
    CHECK(gs_seqcap_add_keys(&gpu, keys, N_KEYS, segs, n_seg, lay, text) == GS_OK);
    /* a CPU worker's intervals, some the same as the batch's */
    for (size_t i = 0; i < 200; i++) {
        uint32_t r = (uint32_t)gs_test_below(rs, N_REC);
        uint64_t l = 1 + gs_test_below(rs, 40), at = gs_test_below(rs, REC_LEN - l + 1);
        CHECK(gs_seqcap_add(&cpu, r, at, (const uint8_t *)rec[r] + at, (uint32_t)l) == GS_OK);
    }
    gs_error err = {0};
    CHECK(gs_seqcap_move(&gpu, &cpu, &err) == GS_OK);
    CHECK(cpu.n == 0);
    gs_seqcap_finish(&gpu);
    for (size_t i = 1; i < gpu.n; i++) /* sorted, each interval once */
        CHECK(gpu.v[i - 1].record < gpu.v[i].record ||
              (gpu.v[i - 1].record == gpu.v[i].record &&
               (gpu.v[i - 1].start < gpu.v[i].start ||
                (gpu.v[i - 1].start == gpu.v[i].start && gpu.v[i - 1].len < gpu.v[i].len))));
    for (size_t i = 0; i < N_KEYS; i++) {
        uint64_t pos = gs_hitkey_pos(lay, keys[i]), l = gs_hitkey_len(lay, keys[i]);
        size_t s = n_seg - 1;
        while (segs[s].off > pos)
            s--;
        uint64_t start = segs[s].base + (pos - segs[s].off);
        const uint8_t *t = gs_seqcap_find(&gpu, segs[s].record, start, start + l);
        CHECK(t != NULL && memcmp(t, rec[segs[s].record] + start, l) == 0);
    }
    CHECK(gs_seqcap_find(&gpu, N_REC, 0, 1) == NULL);
    CHECK(gs_seqcap_find(&gpu, 0, 0, REC_LEN + 1) == NULL);
    gs_seqcap_free(&gpu);
    free(keys);
}

int main(void)
{
    uint64_t rs = 2025;
    for (int r = 0; r < N_REC; r++)
        for (int i = 0; i < REC_LEN; i++)
            rec[r][i] = "ACGTacgtN"[gs_test_below(&rs, 9)];
    gs_seqcap empty = {0};
    gs_seqcap_finish(&empty);
    CHECK(gs_seqcap_find(&empty, 0, 0, 1) == NULL);
    for (int round = 0; round < 20; round++)
        check_batch(&rs);
    return gs_test_done("test_seqcap");
}
