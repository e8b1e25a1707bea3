/* deflate_chunk_loop.h - the Huffman decoding loop of one deflate block,
 * included twice by deflate_chunk.c: once writing bytes (OUT_T uint8_t)
 * and once writing 16-bit symbols whose values above 255 are window
 * markers (OUT_T uint16_t, WIDE 1), as libdeflate instantiates its
 * decompress_template.h. One loop for both keeps them the same decoder.
 *
 * Each turn refills the bit buffer to at least 56 bits, enough for a
 * literal/length code (15), its extra bits (5), a distance code (15) and
 * its extra bits (13). The caller leaves 258 + 16 entries of room, so a
 * copy may write whole 8-byte words past its end.
 */
static int LOOP_NAME(bitin *bp, const tables *t, OUT_T *out, size_t *po, size_t cap, size_t lo,
                     size_t *last_marker)
{
    bitin b = *bp;
    size_t o = *po;
    int rc;
    (void)last_marker;
    for (;;) {
        if (cap - o < 258 + 16) {
            rc = R_ROOM;
            break;
        }
        if (b.over > 8) { /* the zero bytes past the input's end were decoded */
            rc = R_EOF;
            break;
        }
        refill(&b);
        uint32_t e = t->lit[b.buf & MASK(LIT_BITS)];
        if (KIND(e) == K_SUB)
            e = t->lit[VAL(e) + ((b.buf >> LIT_BITS) & MASK(XBITS(e)))];
        b.buf >>= CLEN(e);
        b.n -= CLEN(e);
        if (KIND(e) == K_LIT) {
            out[o++] = (OUT_T)VAL(e);
            continue;
        }
        if (KIND(e) != K_LEN) {
            rc = KIND(e) == K_EOB ? R_EOB : R_BADLIT;
            break;
        }
        size_t len = VAL(e) + (b.buf & MASK(XBITS(e)));
        b.buf >>= XBITS(e);
        b.n -= XBITS(e);
        uint32_t f = t->dist[b.buf & MASK(DIST_BITS)];
        if (KIND(f) == K_SUB)
            f = t->dist[VAL(f) + ((b.buf >> DIST_BITS) & MASK(XBITS(f)))];
        b.buf >>= CLEN(f);
        b.n -= CLEN(f);
        if (KIND(f) != K_DIST) {
            rc = R_BADDIST;
            break;
        }
        size_t dist = VAL(f) + (b.buf & MASK(XBITS(f)));
        b.buf >>= XBITS(f);
        b.n -= XBITS(f);
        if (dist > o - lo) {
            rc = R_FAR;
            break;
        }
        OUT_T *d = out + o;
        const OUT_T *s = d - dist;
        o += len;
#if WIDE
        unsigned acc = 0;
        for (size_t i = 0; i < len; i++) {
            OUT_T v = s[i];
            d[i] = v;
            acc |= v;
        }
        if (acc >> 8)
            *last_marker = o;
#else
        if (dist >= 8) {
            OUT_T *end = out + o;
            do {
                memcpy(d, s, 8);
                d += 8;
                s += 8;
            } while (d < end);
        } else if (dist == 1) {
            memset(d, s[0], len);
        } else {
            for (size_t i = 0; i < len; i++)
                d[i] = s[i];
        }
#endif
    }
    *bp = b;
    *po = o;
    return rc;
}
