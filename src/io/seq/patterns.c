/* patterns.c - read and validate a pattern file (FASTA or one pattern a line).
 *
 * The whole file is read into memory first (through the byte-stream reader,
 * so a gzipped pattern file works too): pattern files are small next to the corpus, and having every
 * line at hand keeps the two forms simple and lets every error name path:line.
 *
 * A UTF-8 byte order mark is skipped, as in corpus files (seqformat.h).
 * The form is chosen by the first line that is neither blank nor a comment:
 * '>' means FASTA, anything else the line form. Rules of the line form:
 *   - a line starting with '#' is a comment, a blank line is skipped;
 *   - "name<TAB>sequence" or just "sequence" (named p<N>, N = pattern number);
 *   - dna: "name<TAB>sequence<TAB>K[<TAB>exact_3p]" gives the pattern its own
 *     K and exact-3p for the approximate modes ("-": the run's value);
 *   - dna: a '#' after the sequence starts a comment, and spaces, tabs and '\r'
 *     around name and sequence are trimmed. A space inside the sequence is an
 *     invalid symbol, not dropped: "gag ACGT" (space instead of TAB) must not
 *     silently become the pattern GAGACGT;
 *   - bytes: only a trailing '\r' is trimmed, since spaces and '#' are bytes like
 *     any other; a pattern that starts with '#' writes it \x23.
 * In the FASTA form sequence lines are joined with '\r', spaces and tabs
 * dropped (as in the corpus), and lines starting with '#' are comments too.
 * Escapes (bytes alphabet) are decoded line by line, so an escape cannot be
 * split over two lines of a FASTA pattern; that keeps the line of a bad
 * escape exact.
 */
#define _POSIX_C_SOURCE 200809L
#include "patterns.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/stream/stream.h"
#include "seqformat.h"

/* IUPAC nucleotide codes (either case) -> uppercase with U as T; 0 = invalid. */
#define IUPAC(u, to) [u] = to, [u - 'A' + 'a'] = to
static const uint8_t iupac_upper[256] = {
    IUPAC('A', 'A'), IUPAC('C', 'C'), IUPAC('G', 'G'), IUPAC('T', 'T'),
    IUPAC('U', 'T'), IUPAC('R', 'R'), IUPAC('Y', 'Y'), IUPAC('S', 'S'),
    IUPAC('W', 'W'), IUPAC('K', 'K'), IUPAC('M', 'M'), IUPAC('B', 'B'),
    IUPAC('D', 'D'), IUPAC('H', 'H'), IUPAC('V', 'V'), IUPAC('N', 'N'),
};
#undef IUPAC

/* A symbol as it is quoted in messages: printable as is, else \xHH. */
static const char *quote_symbol(uint8_t c, char out[8])
{
    if (c >= 0x21 && c < 0x7f && c != '\'')
        snprintf(out, 8, "%c", c);
    else
        snprintf(out, 8, "\\x%02X", c);
    return out;
}

static int hexval(uint8_t c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* A growable byte string for the pattern being assembled. */
typedef struct bstr {
    uint8_t *p;
    size_t n, cap;
} bstr;

static gs_status bstr_reserve(bstr *b, size_t extra, gs_error *err)
{
    if (b->n + extra + 1 <= b->cap)
        return GS_OK;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->n + extra + 1)
        cap *= 2;
    uint8_t *p = gs_realloc(b->p, cap, err, "pattern text");
    if (p == NULL)
        return GS_ESYS;
    b->p = p;
    b->cap = cap;
    return GS_OK;
}

/* The pattern being assembled: text as written and the decoded bytes. */
typedef struct pending {
    bstr text, bytes;
    char *name; /* NULL: unnamed, becomes p<N> */
    uint32_t line;
    int open;
} pending;

typedef struct parser {
    const char *path;
    gs_alphabet alpha;
    gs_patset *ps;
    size_t cap;
    gs_error *err;
} parser;

/* Validate and convert one piece of sequence (one line's worth) of the pending
 * pattern, appending to its text and bytes. */
static gs_status add_sequence(parser *P, pending *pd, const uint8_t *s, size_t n, uint32_t line)
{
    char q[8];
    const char *name = pd->name;
    char autoname[24];
    if (name == NULL) {
        snprintf(autoname, sizeof autoname, "p%u", P->ps->n + 1);
        name = autoname;
    }
    if (bstr_reserve(&pd->text, n, P->err) || bstr_reserve(&pd->bytes, n, P->err))
        return P->err->code;
    memcpy(pd->text.p + pd->text.n, s, n);
    pd->text.n += n;
    if (P->alpha == GS_ALPHA_DNA) {
        for (size_t i = 0; i < n; i++) {
            uint8_t up = iupac_upper[s[i]];
            if (up == 0)
                return gs_fail(P->err, GS_EINPUT, "invalid symbol '%s' in pattern %s (%s:%u)",
                               quote_symbol(s[i], q), name, P->path, line);
            pd->bytes.p[pd->bytes.n++] = up;
        }
        return GS_OK;
    }
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (c == '\\') {
            uint8_t e = i + 1 < n ? s[i + 1] : 0;
            int hi, lo;
            if (e == '\\' || e == 't' || e == 'n' || e == 'r') {
                c = e == '\\' ? '\\' : e == 't' ? '\t' : e == 'n' ? '\n' : '\r';
                i++;
            } else if (e == 'x' && i + 3 < n && (hi = hexval(s[i + 2])) >= 0 &&
                       (lo = hexval(s[i + 3])) >= 0) {
                c = (uint8_t)(hi << 4 | lo);
                i += 3;
            } else {
                char shown[16];
                size_t k = n - i < 4 ? n - i : 4;
                memcpy(shown, s + i, k);
                shown[k] = 0;
                for (size_t j = 0; j < k; j++)
                    if (shown[j] < 0x20 || shown[j] == 0x7f)
                        shown[j] = '?';
                return gs_fail(P->err, GS_EINPUT,
                               "bad escape '%s' in pattern %s: use \\xHH, \\\\, \\t, \\n or \\r "
                               "(%s:%u)",
                               shown, name, P->path, line);
            }
        }
        pd->bytes.p[pd->bytes.n++] = c;
    }
    return GS_OK;
}

/* Close the pending pattern: check it is not empty and append it to the set. */
static gs_status finish_pattern(parser *P, pending *pd)
{
    if (!pd->open)
        return GS_OK;
    gs_patset *ps = P->ps;
    char autoname[24];
    snprintf(autoname, sizeof autoname, "p%u", ps->n + 1);
    if (pd->bytes.n == 0)
        return gs_fail(P->err, GS_EINPUT, "empty pattern %s (%s:%u)",
                       pd->name ? pd->name : autoname, P->path, pd->line);
    if (ps->n == UINT32_MAX || pd->bytes.n > UINT32_MAX)
        return gs_fail(P->err, GS_EINPUT, "too many patterns or pattern too long (%s:%u)",
                       P->path, pd->line);
    if (ps->n == P->cap) {
        size_t cap = P->cap ? P->cap * 2 : 256;
        gs_pattern *v = gs_realloc(ps->v, cap * sizeof *v, P->err, "pattern set");
        if (v == NULL)
            return GS_ESYS;
        ps->v = v;
        P->cap = cap;
    }
    gs_pattern *pt = &ps->v[ps->n];
    memset(pt, 0, sizeof *pt);
    pt->name = pd->name ? pd->name : strdup(autoname);
    pd->name = NULL;
    pt->text = gs_malloc(pd->text.n + 1, P->err, "pattern text");
    pt->bytes = gs_malloc(pd->bytes.n, P->err, "pattern bytes");
    ps->n++; /* counted now so gs_patset_free releases whatever was allocated */
    if (pt->name == NULL || pt->text == NULL || pt->bytes == NULL)
        return gs_fail(P->err, GS_ESYS, "out of memory (%s)", P->path);
    memcpy(pt->text, pd->text.p, pd->text.n);
    pt->text[pd->text.n] = 0;
    memcpy(pt->bytes, pd->bytes.p, pd->bytes.n);
    pt->len = (uint32_t)pd->bytes.n;
    pt->line = pd->line;
    if (ps->n == 1 || pt->len < ps->min_len)
        ps->min_len = pt->len;
    if (pt->len > ps->max_len)
        ps->max_len = pt->len;
    pd->text.n = pd->bytes.n = 0;
    pd->open = 0;
    return GS_OK;
}

static int is_blank(uint8_t c) { return c == ' ' || c == '\t' || c == '\r'; }

static gs_status open_pattern(parser *P, pending *pd, const uint8_t *name, size_t name_len,
                              uint32_t line)
{
    pd->open = 1;
    pd->line = line;
    pd->text.n = pd->bytes.n = 0;
    free(pd->name);
    pd->name = NULL;
    if (name_len > 0) {
        pd->name = gs_malloc(name_len + 1, P->err, "pattern name");
        if (pd->name == NULL)
            return GS_ESYS;
        memcpy(pd->name, name, name_len);
        pd->name[name_len] = 0;
    }
    return GS_OK;
}

/* A FASTA sequence line: drop '\r', spaces and tabs, as the corpus reader does. */
static gs_status fasta_sequence_line(parser *P, pending *pd, const uint8_t *s, size_t n,
                                     uint32_t line)
{
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && !is_blank(s[j]))
            j++;
        if (j > i && add_sequence(P, pd, s + i, j - i, line))
            return P->err->code;
        i = j + 1;
    }
    return GS_OK;
}

/* The columns after a dna sequence, s[0 .. n) (from K on): K, then
 * exact_3p, each a number or "-" (the run's value). */
static gs_status pattern_columns(parser *P, const uint8_t *s, size_t n, uint32_t line,
                                 gs_pattern *pt)
{
    static const char *const what[2] = {"K", "exact_3p"};
    static const uint32_t most[2] = {GS_PATTERN_MAX_K, GS_PATTERN_MAX_EXACT3P};
    size_t i = 0;
    for (int c = 0;; c++) {
        const uint8_t *tab = memchr(s + i, '\t', n - i);
        size_t a = i, b = tab ? (size_t)(tab - s) : n;
        if (c == 2)
            return gs_fail(P->err, GS_EINPUT,
                           "too many columns: name<TAB>sequence<TAB>K<TAB>exact_3p (%s:%u)",
                           P->path, line);
        while (a < b && is_blank(s[a]))
            a++;
        while (b > a && is_blank(s[b - 1]))
            b--;
        uint64_t v = 0;
        size_t d = a;
        while (d < b && d - a < 10 && s[d] >= '0' && s[d] <= '9')
            v = v * 10 + (uint64_t)(s[d++] - '0');
        int dash = b - a == 1 && s[a] == '-';
        if (!dash && (d == a || d < b || v > most[c]))
            return gs_fail(P->err, GS_EINPUT,
                           "the %s column of pattern %s must be a number from 0 to %u or -, "
                           "not '%.*s' (%s:%u)",
                           what[c], pt->name, most[c], (int)(b - a > 20 ? 20 : b - a),
                           (const char *)s + a, P->path, line);
        if (!dash && c == 0) {
            pt->has_max_dist = 1;
            pt->max_dist = (uint32_t)v;
        } else if (!dash) {
            pt->has_exact3p = 1;
            pt->exact3p = (uint32_t)v;
        }
        if (tab == NULL)
            return GS_OK;
        i = (size_t)(tab - s) + 1;
    }
}

/* One line of the line form (without its '\n'); comment lines never get here. */
static gs_status text_line(parser *P, pending *pd, const uint8_t *s, size_t n, uint32_t line)
{
    if (P->alpha == GS_ALPHA_DNA) {
        const uint8_t *hash = memchr(s, '#', n);
        if (hash)
            n = (size_t)(hash - s);
        size_t i = 0;
        while (i < n && is_blank(s[i]))
            i++;
        if (i == n)
            return GS_OK; /* blank (or only a trailing comment) */
    } else if (n > 0 && s[n - 1] == '\r') {
        n--;
    }
    if (n == 0)
        return GS_OK;
    const uint8_t *tab = memchr(s, '\t', n), *cols = NULL;
    const uint8_t *name = NULL, *seq = s;
    size_t name_len = 0, seq_len = n, cols_len = 0;
    if (tab) {
        name = s;
        name_len = (size_t)(tab - s);
        seq = tab + 1;
        seq_len = n - name_len - 1;
    }
    if (tab && P->alpha == GS_ALPHA_DNA && (cols = memchr(seq, '\t', seq_len)) != NULL) {
        cols_len = seq_len - (size_t)(cols - seq) - 1;
        seq_len = (size_t)(cols - seq);
        cols++;
    }
    if (P->alpha == GS_ALPHA_DNA) {
        while (name_len > 0 && is_blank(name[0]))
            name++, name_len--;
        while (name_len > 0 && is_blank(name[name_len - 1]))
            name_len--;
        while (seq_len > 0 && is_blank(seq[0]))
            seq++, seq_len--;
        while (seq_len > 0 && is_blank(seq[seq_len - 1]))
            seq_len--;
    }
    if (open_pattern(P, pd, name, name_len, line) || add_sequence(P, pd, seq, seq_len, line) ||
        finish_pattern(P, pd) ||
        (cols && pattern_columns(P, cols, cols_len, line, &P->ps->v[P->ps->n - 1])))
        return P->err->code;
    return GS_OK;
}

/* Read all of path into *data (a NUL is appended), through the byte-stream
 * reader, so a gzipped pattern file works too. */
static gs_status slurp(const char *path, uint8_t **data, size_t *len, gs_error *err)
{
    struct stat st;
    gs_stream *in = NULL;
    uint8_t *buf = NULL;
    size_t n = 0, cap = 1 << 16, got = 1;
    if (stat(path, &st) != 0)
        return gs_fail_open(err, "pattern file", path);
    if (S_ISDIR(st.st_mode))
        return gs_fail(err, GS_EINPUT, "pattern file is a directory (%s)", path);
    /* a file named "-" is that file, not standard input */
    gs_stream_opts so = {.what = "pattern file"};
    if (gs_stream_open(strcmp(path, "-") ? path : "./-", &so, &in, err) != GS_OK ||
        (buf = gs_malloc(cap, err, "pattern file")) == NULL)
        goto fail;
    while (got > 0) {
        if (cap - n < (1 << 16)) {
            uint8_t *b = gs_realloc(buf, cap * 2, err, "pattern file");
            if (b == NULL)
                goto fail;
            buf = b;
            cap *= 2;
        }
        if (gs_stream_read(in, buf + n, cap - n - 1, &got, err) != GS_OK)
            goto fail;
        n += got;
    }
    gs_stream_close(in);
    buf[n] = 0;
    *data = buf;
    *len = n;
    return GS_OK;
fail:
    gs_stream_close(in);
    free(buf);
    return err->code;
}

gs_status gs_patset_read(const char *path, gs_alphabet alpha, gs_patset *ps, gs_error *err)
{
    uint8_t *data = NULL;
    size_t len = 0;
    pending pd = {0};
    parser P = {path, alpha, ps, 0, err};
    memset(ps, 0, sizeof *ps);
    ps->path = strdup(path);
    if (ps->path == NULL) {
        gs_fail(err, GS_ESYS, "out of memory (%s)", path);
        goto fail;
    }
    if (slurp(path, &data, &len, err) != GS_OK)
        goto fail;

    int fasta = -1; /* decided by the first line that is neither blank nor a comment */
    uint32_t line = 0;
    for (size_t pos = gs_seq_bom(data, len); pos < len;) {
        const uint8_t *s = data + pos;
        const uint8_t *nl = memchr(s, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - s) : len - pos;
        pos += n + 1;
        line++;
        if (n > 0 && s[0] == '#')
            continue;
        if (fasta < 0) {
            size_t i = 0;
            while (i < n && (is_blank(s[i]) && (alpha == GS_ALPHA_DNA || s[i] == '\r')))
                i++;
            if (i == n)
                continue;
            fasta = s[0] == '>';
        }
        if (!fasta) {
            if (text_line(&P, &pd, s, n, line))
                goto fail;
        } else if (n > 0 && s[0] == '>') {
            if (finish_pattern(&P, &pd))
                goto fail;
            size_t name_len, b = 1 + gs_header_name(s + 1, n - 1, &name_len);
            if (open_pattern(&P, &pd, s + b, name_len, line))
                goto fail;
        } else if (fasta_sequence_line(&P, &pd, s, n, line)) {
            goto fail;
        }
    }
    if (finish_pattern(&P, &pd))
        goto fail;
    if (ps->n == 0) {
        gs_fail(err, GS_EINPUT, "no patterns (%s)", path);
        goto fail;
    }
    free(pd.name);
    free(pd.text.p);
    free(pd.bytes.p);
    free(data);
    return GS_OK;
fail:
    free(pd.name);
    free(pd.text.p);
    free(pd.bytes.p);
    free(data);
    gs_patset_free(ps);
    return err->code ? err->code : GS_ESYS;
}

gs_status gs_patset_load(const char *path, char *const *seqs, size_t n_seqs, gs_alphabet alpha,
                         gs_patset *ps, gs_error *err)
{
    if (path && gs_patset_read(path, alpha, ps, err) != GS_OK)
        return err->code;
    if (path == NULL) {
        memset(ps, 0, sizeof *ps);
        if ((ps->path = strdup("--pattern")) == NULL)
            return gs_fail(err, GS_ESYS, "out of memory (--pattern)");
    }
    pending pd = {0};
    parser P = {"--pattern", alpha, ps, ps->n, err};
    for (size_t i = 0; i < n_seqs; i++) {
        const uint8_t *seq = (const uint8_t *)seqs[i];
        size_t n = strlen(seqs[i]);
        /* the sequence is its own name, as in seqkit locate -p */
        if (open_pattern(&P, &pd, seq, n, (uint32_t)(i + 1)) || add_sequence(&P, &pd, seq, n, (uint32_t)(i + 1))
            || finish_pattern(&P, &pd))
            break;
    }
    free(pd.name);
    free(pd.text.p);
    free(pd.bytes.p);
    if (err->code == GS_OK && ps->n == 0)
        gs_fail(err, GS_EINPUT, "no patterns (--pattern)");
    if (err->code != GS_OK)
        gs_patset_free(ps);
    return err->code;
}
