/* seqformat.c - what a sequence file is and where its first record starts,
 * and the name rule (seqformat.h). */
#include "seqformat.h"

#include <string.h>

size_t gs_seq_bom(const uint8_t *text, size_t n)
{
    return n >= 3 && !memcmp(text, "\xef\xbb\xbf", 3) ? 3 : 0;
}

void gs_seq_sniff(gs_compression comp, const uint8_t *text, size_t n, int at_end,
                  gs_seq_head *h)
{
    size_t p = gs_seq_bom(text, n);
    while (p < n && (text[p] == ' ' || text[p] == '\t' || text[p] == '\r' || text[p] == '\n'))
        p++;
    h->comp = comp;
    h->start = p;
    if (p == n)
        h->format = at_end ? GS_SEQ_EMPTY : GS_SEQ_UNDECIDED;
    else
        h->format = text[p] == '>' ? GS_SEQ_FASTA : text[p] == '@' ? GS_SEQ_FASTQ : GS_SEQ_RAW;
}

gs_status gs_seq_detect(gs_stream *s, size_t want, gs_seq_head *h, gs_error *err)
{
    const uint8_t *p;
    size_t n;
    if (gs_stream_peek(s, want, &p, &n, err) != GS_OK)
        return err->code;
    gs_seq_sniff(gs_stream_compression(s), p, n, n < want, h);
    return GS_OK;
}

gs_status gs_seq_detect_path(const char *path, size_t want, gs_seq_head *h, gs_error *err)
{
    gs_stream *s;
    if (gs_stream_open(path, NULL, &s, err) != GS_OK)
        return err->code;
    gs_status st = gs_seq_detect(s, want, h, err);
    gs_stream_close(s);
    return st;
}

const char *gs_header_fault(const uint8_t *s, size_t n, int cr_before)
{
    if (memchr(s, 0, n))
        return "a NUL byte in a header";
    const uint8_t *cr = memchr(s, '\r', n);
    if ((cr_before && n > 0) || (cr && cr != s + n - 1))
        return "a carriage return inside a header: old Mac (CR-only) line ends? convert them "
               "with tr '\\r' '\\n'";
    return NULL;
}

size_t gs_header_name(const uint8_t *s, size_t n, size_t *len)
{
    size_t i = 0, j;
    while (i < n && gs_name_blank(s[i]))
        i++;
    for (j = i; j < n && !gs_name_blank(s[j]);)
        j++;
    *len = j - i;
    return i;
}
