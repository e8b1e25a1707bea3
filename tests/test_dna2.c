/* test_dna2.c - reads as 2-bit codes (core/gs_dna2.h): the vector and the
 * portable coder against the rule itself on random reads of every length
 * to 700, with a byte that is no base (N, lowercase, IUPAC, a line end) at
 * a random place or none; what may be read past a read (nothing, or
 * bytes that are not bases) never changes the answer; no byte is written
 * past the codes, and the last byte's unused bits are 0. */
#include <string.h>

#include "core/gs_dna2.h"
#include "testlib.h"

enum { MAX = 700, GUARD = 40 };

static void check(uint64_t *rs, int how)
{
    uint8_t src[MAX + GUARD], dst[MAX / 4 + 1 + GUARD];
    const size_t n = gs_test_below(rs, MAX + 1), past = gs_test_below(rs, GUARD);
    for (size_t i = 0; i < n + past; i++)
        src[i] = (uint8_t)"ACGT"[gs_test_below(rs, 4)];
    for (size_t i = n; i < n + past; i++) /* what follows a read in its file */
        if (gs_test_below(rs, 2))
            src[i] = (uint8_t)"N\n+!@acgt\r"[gs_test_below(rs, 10)];
    int want = 1;
    if (n && gs_test_below(rs, 3) == 0) {
        src[gs_test_below(rs, n)] = (uint8_t)"NacgtRY\n\r\0"[gs_test_below(rs, 10)];
        want = 0;
    }
    memset(dst, 0xA5, sizeof dst);
    const size_t bytes = gs_dna2_bytes(n);
    CHECK_EQ_U64(gs_dna2_code(src, n, n + past, dst, how), want);
    if (!want)
        return;
    for (size_t i = 0; i < n; i++)
        CHECK_EQ_U64("ACTG"[dst[i / 4] >> 2 * (i % 4) & 3], src[i]);
    CHECK(n % 4 == 0 || dst[n / 4] >> 2 * (n % 4) == 0);
    for (size_t i = bytes; i < sizeof dst; i++)
        CHECK(dst[i] == 0xA5);
}

int main(void)
{
    uint64_t rs = 41;
    CHECK(gs_dna2_on(GS_DNA2_PORTABLE));
    CHECK(!gs_dna2_on(GS_DNA2_OFF));
    for (int how = GS_DNA2_AUTO; how <= GS_DNA2_PORTABLE; how++)
        for (int t = 0; t < 200000; t++)
            check(&rs, how);
    /* every byte value at every place of a short read */
    for (int how = GS_DNA2_AUTO; how <= GS_DNA2_PORTABLE; how++)
        for (size_t at = 0; at < 40; at++)
            for (int c = 0; c < 256; c++) {
                uint8_t src[40], dst[16];
                memset(src, 'G', sizeof src);
                src[at] = (uint8_t)c;
                const int base = c == 'A' || c == 'C' || c == 'G' || c == 'T';
                CHECK_EQ_U64(gs_dna2_code(src, sizeof src, sizeof src, dst, how), base);
            }
    return gs_test_done("test_dna2");
}
