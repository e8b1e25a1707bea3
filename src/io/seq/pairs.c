/* pairs.c - the primer-pairs file of gscan pcr (see pairs.h). */
#define _POSIX_C_SOURCE 200809L
#include "pairs.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/gs_iupac.h"
#include "core/gs_lines.h"
#include "core/gs_types.h"

/* The pairs file whole: its lines are cut out in place. */
static gs_status read_all(const char *path, char **text, gs_error *err)
{
    size_t n;
    if (gs_text_read(path, "pairs file", text, &n, err) != GS_OK)
        return err->code;
    if (strlen(*text) != n) {
        free(*text);
        *text = NULL;
        return gs_fail(err, GS_EINPUT, "pairs file holds a NUL byte (%s)", path);
    }
    return GS_OK;
}

/* The id of primer seq (uppercased, U as T in place), added when new. */
static gs_status primer_id(gs_pcr_pairs *pp, size_t *cap, char *seq, uint32_t *id,
                           const char *path, unsigned line, gs_error *err)
{
    for (char *c = seq; *c; c++) {
        if (gs_iupac_mask((uint8_t)*c) == 0)
            return gs_fail(err, GS_EINPUT,
                           "primer '%s' has '%c', not an IUPAC nucleotide code (pairs file %s, "
                           "line %u)",
                           seq, isprint((unsigned char)*c) ? *c : '?', path, line);
        *c = (char)toupper((unsigned char)*c);
        if (*c == 'U')
            *c = 'T';
    }
    for (uint32_t i = 0; i < pp->n_primers; i++)
        if (!strcmp(pp->primers[i], seq)) {
            *id = i;
            return GS_OK;
        }
    if (gs_grow(&pp->primers, cap, pp->n_primers, sizeof *pp->primers, 16) != GS_OK)
        return gs_fail(err, GS_ESYS, "out of memory (pairs file %s)", path);
    *id = pp->n_primers;
    pp->primers[pp->n_primers++] = seq;
    return GS_OK;
}

/* A decimal size of at least 1, or 0 when s is none. */
static uint64_t size_of(const char *s)
{
    char *end;
    if (!isdigit((unsigned char)*s))
        return 0;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    return errno || *end ? 0 : (uint64_t)v;
}

/* One line, split at its tabs into f[0 .. n) (at most 6). */
static size_t split(char *p, char **f)
{
    size_t n = 0;
    for (char *tab; n < 6; p = tab + 1) {
        f[n++] = p;
        if ((tab = strchr(p, '\t')) == NULL)
            break;
        *tab = '\0';
    }
    return n;
}

static gs_status parse_line(gs_pcr_pairs *pp, size_t caps[3], char *p, uint64_t min,
                            uint64_t max, const char *path, unsigned line, gs_error *err)
{
    char *f[6];
    size_t nf = split(p, f);
    if ((nf != 3 && nf != 5) || !*f[0] || !*f[1] || !*f[2])
        return gs_fail(err, GS_EINPUT,
                       "expected 'name<TAB>A<TAB>B' or 'name<TAB>A<TAB>B<TAB>min<TAB>max' (pairs "
                       "file %s, line %u)",
                       path, line);
    if (nf == 5) {
        min = size_of(f[3]);
        max = size_of(f[4]);
        if (min == 0 || max < min)
            return gs_fail(err, GS_EINPUT,
                           "product sizes '%s' and '%s' are not 1 <= min <= max (pairs file %s, "
                           "line %u)",
                           f[3], f[4], path, line);
    }
    if (gs_grow(&pp->v, &caps[0], pp->n, sizeof *pp->v, 16) != GS_OK ||
        gs_grow(&pp->names, &caps[1], pp->n, sizeof *pp->names, 16) != GS_OK)
        return gs_fail(err, GS_ESYS, "out of memory (pairs file %s)", path);
    gs_pcr_pair *pr = &pp->v[pp->n];
    pr->min = min;
    pr->max = max;
    pp->names[pp->n] = f[0];
    if (primer_id(pp, &caps[2], f[1], &pr->a, path, line, err) != GS_OK ||
        primer_id(pp, &caps[2], f[2], &pr->b, path, line, err) != GS_OK)
        return err->code;
    pp->n++;
    return GS_OK;
}

gs_status gs_pcr_pairs_read(const char *path, uint64_t min, uint64_t max, gs_pcr_pairs *pp,
                            gs_error *err)
{
    memset(pp, 0, sizeof *pp);
    if (read_all(path, &pp->text, err) != GS_OK)
        return err->code;
    size_t caps[3] = {0};
    unsigned line = 0;
    size_t len;
    for (char *q = pp->text, *p; (p = gs_line_next(&q, &len)) != NULL;)
        if (line++, !gs_line_skip(p, len) &&
            parse_line(pp, caps, p, min, max, path, line, err) != GS_OK)
            return err->code;
    if (pp->n == 0)
        return gs_fail(err, GS_EINPUT, "no primer pair in pairs file (%s)", path);
    return GS_OK;
}

void gs_pcr_pairs_free(gs_pcr_pairs *pp)
{
    free(pp->v);
    free(pp->names);
    free(pp->primers);
    free(pp->text);
    memset(pp, 0, sizeof *pp);
}
