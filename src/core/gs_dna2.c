/* gs_dna2.c - reads' residues as 2-bit codes (gs_dna2.h). */
#include "gs_dna2.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define DNA2_AVX2 1
#endif

static int code_portable(const uint8_t *src, size_t n, uint8_t *dst)
{
    unsigned acc = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned c = src[i], k = c >> 1 & 3;
        if ((GS_DNA2_BASES >> 8 * k & 0xFF) != c)
            return 0;
        acc |= k << 2 * (i % 4);
        if (i % 4 == 3 || i + 1 == n) {
            dst[i / 4] = (uint8_t)acc;
            acc = 0;
        }
    }
    return 1;
}

#ifdef DNA2_AVX2
/* 32 bytes' codes, and whether all were bases, folded into *ok: a dword a
 * four residues (their byte in its low 8 bits). */
__attribute__((target("avx2"))) static inline __m256i code32(__m256i v, __m256i keep,
                                                              __m256i *ok)
{
    const __m256i bases = _mm256_set1_epi32((int)GS_DNA2_BASES), three = _mm256_set1_epi8(3);
    const __m256i c = _mm256_and_si256(_mm256_and_si256(_mm256_srli_epi16(v, 1), three), keep);
    const __m256i same = _mm256_cmpeq_epi8(_mm256_shuffle_epi8(bases, c), v);
    *ok = _mm256_and_si256(*ok, _mm256_or_si256(same, _mm256_andnot_si256(keep, _mm256_set1_epi8(-1))));
    /* c0 + 4 c1 in each word, then (c0 + 4 c1) + 16 (c2 + 4 c3) in each dword */
    const __m256i w = _mm256_maddubs_epi16(c, _mm256_set1_epi16(0x0401));
    return _mm256_madd_epi16(w, _mm256_set1_epi32(0x00100001));
}

/* The 8 code bytes of a code32, in order. */
__attribute__((target("avx2"))) static inline uint64_t bytes8(__m256i p)
{
    const __m256i low = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                         -1, 0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                         -1, -1);
    const __m256i x = _mm256_shuffle_epi8(p, low);
    return (uint32_t)_mm_cvtsi128_si32(_mm256_castsi256_si128(x)) |
           (uint64_t)(uint32_t)_mm_cvtsi128_si32(_mm256_extracti128_si256(x, 1)) << 32;
}

__attribute__((target("avx2"))) static int code_avx2(const uint8_t *src, size_t n,
                                                     size_t readable, uint8_t *dst)
{
    const __m256i all = _mm256_set1_epi8(-1);
    __m256i ok = all;
    /* dwords of the packs' results in order: each 128-bit lane interleaves */
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    size_t i = 0;
    for (; i + 128 <= n; i += 128, dst += 32) {
        const __m256i *s = (const __m256i *)(src + i);
        const __m256i p0 = code32(_mm256_loadu_si256(s), all, &ok),
                      p1 = code32(_mm256_loadu_si256(s + 1), all, &ok),
                      p2 = code32(_mm256_loadu_si256(s + 2), all, &ok),
                      p3 = code32(_mm256_loadu_si256(s + 3), all, &ok);
        const __m256i b = _mm256_packus_epi16(_mm256_packs_epi32(p0, p1),
                                              _mm256_packs_epi32(p2, p3));
        _mm256_storeu_si256((__m256i *)dst, _mm256_permutevar8x32_epi32(b, order));
    }
    const __m256i iota = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                          17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30,
                                          31);
    for (; i < n; i += 32, dst += 8) { /* the rest 32 at a time, past n masked */
        uint8_t pad[32];
        const uint8_t *s = src + i;
        const size_t k = n - i < 32 ? n - i : 32;
        if (readable - i < 32) { /* nothing may be read past src + readable */
            memcpy(pad, s, k);
            s = pad;
        }
        const __m256i keep = _mm256_cmpgt_epi8(_mm256_set1_epi8((char)k), iota);
        const uint64_t b = bytes8(code32(_mm256_loadu_si256((const __m256i *)s), keep, &ok));
        memcpy(dst, &b, gs_dna2_bytes(k));
    }
    return _mm256_movemask_epi8(ok) == -1;
}
#endif

int gs_dna2_on(int how)
{
    if (how == GS_DNA2_PORTABLE)
        return 1;
#ifdef DNA2_AVX2
    if (how == GS_DNA2_AUTO)
        return __builtin_cpu_supports("avx2");
#endif
    return 0;
}

int gs_dna2_code(const uint8_t *src, size_t n, size_t readable, uint8_t *dst, int how)
{
#ifdef DNA2_AVX2
    if (how == GS_DNA2_AUTO && __builtin_cpu_supports("avx2"))
        return code_avx2(src, n, readable, dst);
#else
    (void)readable;
#endif
    (void)how;
    return code_portable(src, n, dst);
}
