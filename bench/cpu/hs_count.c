/* hs_count.c - count every occurrence of each pattern in a FASTA file with Hyperscan.
 *
 *   hs_count [-t THREADS] [-u] [-m K | -e K] [-o COUNTS] PATTERNS FASTA
 *
 * -m K / -e K: approximate, through hs_expr_ext with a Hamming or edit
 * distance of K (bench/cpu/approx-peers.sh); Hyperscan reports every end
 * offset within the distance, which is close to, not the same as, gscan's
 * one hit per end (the time is what is compared).
 *
 * The baseline of bench/cpu/hyperscan-vs-gscan.sh: the same work as
 * `gscan scan -d cpu --strand forward --report counts`, done the way a careful
 * Hyperscan user would do it, so the comparison measures the matchers and not
 * a handicapped harness.
 *
 * - Patterns: one a line (blank lines and '#' lines skipped; a
 *   "name<TAB>sequence" line uses the sequence). Only A C G T are accepted, so
 *   every pattern is a literal and needs no escaping. They are compiled
 *   together in block mode with HS_FLAG_CASELESS, because gscan's dna alphabet
 *   is case-insensitive (soft-masked lowercase bases match); no
 *   HS_FLAG_SINGLEMATCH, so Hyperscan reports every end offset of every
 *   pattern, overlapping occurrences included, which is gscan's definition of
 *   a count. Non-bases (N, IUPAC codes) need no care: no pattern byte matches
 *   them, as in gscan.
 * - Corpus: the file is read whole, the record boundaries found ('>' lines),
 *   and each record's sequence is joined (newlines, '\r', spaces and tabs
 *   dropped, as contract §1 says) into a per-thread buffer and scanned as one
 *   block, so no match spans two records and none is lost at a line break.
 * - Threads: T threads, each with its own scratch (hs_clone_scratch) and
 *   counts, take records from a shared queue ordered by decreasing size, so
 *   one long chromosome does not end up last on one thread. The join is done
 *   by the thread that scans the record, which parallelises it too.
 *
 * -u is the variant a user might try instead of HS_FLAG_CASELESS: the text is
 *   uppercased while it is joined and the patterns are compiled case-sensitive
 *   (same counts, since patterns are ACGT); it shows what caseless costs.
 *
 * Output: with -o, one count a line in pattern order. On stderr: records,
 * residues and the time of each phase (read, compile, scan), so the whole
 * process time measured by the script can be split.
 */
#define _POSIX_C_SOURCE 200809L
#include <hs/hs.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct span {
    size_t beg, end; /* bytes of the record's sequence lines in the file */
} span;

typedef struct worker {
    const hs_database_t *db;
    hs_scratch_t *scratch;
    const char *text;
    const span *recs;
    const size_t *order;
    size_t n_recs;
    atomic_size_t *next;
    unsigned long long *counts;
    int upcase;
    uint64_t residues;
    int failed;
} worker;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;
    if (!f)
        return NULL;
    for (;;) {
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : (size_t)1 << 24;
            char *nb = realloc(buf, ncap + 1);
            if (!nb)
                goto fail;
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f))
        goto fail;
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
fail:
    free(buf);
    fclose(f);
    return NULL;
}

/* Records as spans of sequence lines; NULL when the file is not FASTA. */
static span *find_records(const char *t, size_t n, size_t *n_recs)
{
    span *r = NULL;
    size_t nr = 0, cap = 0, i = 0;
    if (n == 0 || t[0] != '>')
        return NULL;
    while (i < n) {
        /* i is at a '>' line */
        const char *nl = memchr(t + i, '\n', n - i);
        size_t beg = nl ? (size_t)(nl - t) + 1 : n;
        size_t end = beg;
        while (end < n && t[end] != '>') {
            const char *h = memchr(t + end, '\n', n - end);
            end = h ? (size_t)(h - t) + 1 : n;
        }
        if (nr == cap) {
            cap = cap ? cap * 2 : 1024;
            span *nrp = realloc(r, cap * sizeof *r);
            if (!nrp) {
                free(r);
                return NULL;
            }
            r = nrp;
        }
        r[nr].beg = beg;
        r[nr].end = end;
        nr++;
        i = end;
    }
    *n_recs = nr;
    return r;
}

static const span *sort_recs;
static int by_size_desc(const void *a, const void *b)
{
    const span *x = &sort_recs[*(const size_t *)a], *y = &sort_recs[*(const size_t *)b];
    size_t lx = x->end - x->beg, ly = y->end - y->beg;
    return lx < ly ? 1 : lx > ly ? -1 : 0;
}

static int on_match(unsigned int id, unsigned long long from, unsigned long long to,
                    unsigned int flags, void *ctx)
{
    (void)from;
    (void)to;
    (void)flags;
    ((unsigned long long *)ctx)[id]++;
    return 0;
}

static void *scan_records(void *arg)
{
    worker *w = arg;
    char *seq = NULL;
    size_t cap = 0;
    for (;;) {
        size_t k = atomic_fetch_add(w->next, 1);
        if (k >= w->n_recs)
            break;
        const span *r = &w->recs[w->order[k]];
        size_t need = r->end - r->beg;
        if (need > cap) {
            char *ns = realloc(seq, need);
            if (!ns) {
                w->failed = 1;
                break;
            }
            seq = ns;
            cap = need;
        }
        size_t m = 0;
        for (const char *p = w->text + r->beg, *e = w->text + r->end; p < e;) {
            const char *nl = memchr(p, '\n', (size_t)(e - p));
            const char *le = nl ? nl : e;
            if (w->upcase) {
                for (; p < le; p++)
                    if (*p != '\r' && *p != ' ' && *p != '\t')
                        seq[m++] = (char)((*p >= 'a' && *p <= 'z') ? *p - 32 : *p);
            } else {
                for (; p < le; p++)
                    if (*p != '\r' && *p != ' ' && *p != '\t')
                        seq[m++] = *p;
            }
            p = nl ? nl + 1 : e;
        }
        w->residues += m;
        if (m > 0xffffffffu ||
            hs_scan(w->db, seq, (unsigned int)m, 0, w->scratch, on_match, w->counts) != HS_SUCCESS) {
            w->failed = 1;
            break;
        }
    }
    free(seq);
    return NULL;
}

/* Patterns, one a line; returns the count or -1. */
static long read_patterns(const char *path, char ***out)
{
    size_t len;
    char *buf = slurp(path, &len);
    char **pats = NULL;
    long n = 0, cap = 0, line = 0;
    if (!buf) {
        perror(path);
        return -1;
    }
    for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        line++;
        size_t ll = strlen(l);
        while (ll && (l[ll - 1] == '\r' || l[ll - 1] == ' '))
            l[--ll] = '\0';
        if (ll == 0 || l[0] == '#')
            continue;
        char *tab = strchr(l, '\t');
        char *s = tab ? tab + 1 : l;
        if (*s == '\0' || s[strspn(s, "ACGTacgt")] != '\0') {
            fprintf(stderr, "hs_count: %s:%ld: only A C G T patterns are supported\n", path, line);
            goto fail;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 1024;
            char **np = realloc(pats, (size_t)cap * sizeof *pats);
            if (!np)
                goto fail;
            pats = np;
        }
        if (!(pats[n] = strdup(s)))
            goto fail;
        n++;
    }
    free(buf);
    *out = pats;
    return n;
fail:
    for (long i = 0; i < n; i++)
        free(pats[i]);
    free(pats);
    free(buf);
    return -1;
}

int main(int argc, char **argv)
{
    int threads = 1, upcase = 0, hamming = -1, edits = -1;
    const char *out = NULL, *pat_path = NULL, *fa_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-u"))
            upcase = 1;
        else if (!strcmp(argv[i], "-m") && i + 1 < argc)
            hamming = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-e") && i + 1 < argc)
            edits = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (argv[i][0] != '-' && !pat_path)
            pat_path = argv[i];
        else if (argv[i][0] != '-' && !fa_path)
            fa_path = argv[i];
        else
            pat_path = fa_path = NULL, i = argc;
    }
    if (!pat_path || !fa_path || threads < 1 || threads > 256) {
        fprintf(stderr, "usage: hs_count [-t THREADS] [-u] [-m K | -e K] [-o COUNTS] PATTERNS FASTA\n");
        return 1;
    }

    double t0 = now();
    char **pats;
    long n_pat = read_patterns(pat_path, &pats);
    if (n_pat <= 0) {
        if (n_pat == 0)
            fprintf(stderr, "hs_count: %s: no patterns\n", pat_path);
        return 2;
    }
    unsigned *flags = malloc((size_t)n_pat * sizeof *flags);
    unsigned *ids = malloc((size_t)n_pat * sizeof *ids);
    for (long i = 0; i < n_pat; i++) {
        flags[i] = upcase ? 0 : HS_FLAG_CASELESS;
        ids[i] = (unsigned)i;
    }
    hs_database_t *db = NULL;
    hs_compile_error_t *cerr = NULL;
    hs_expr_ext_t ext = {0};
    const hs_expr_ext_t **exts = calloc((size_t)n_pat, sizeof *exts);
    if (hamming >= 0 || edits >= 0) {
        ext.flags = hamming >= 0 ? HS_EXT_FLAG_HAMMING_DISTANCE : HS_EXT_FLAG_EDIT_DISTANCE;
        if (hamming >= 0)
            ext.hamming_distance = (unsigned)hamming;
        else
            ext.edit_distance = (unsigned)edits;
        for (long i = 0; i < n_pat; i++)
            exts[i] = &ext;
    }
    if (hs_compile_ext_multi((const char *const *)pats, flags, ids, exts, (unsigned)n_pat,
                             HS_MODE_BLOCK, NULL, &db, &cerr) != HS_SUCCESS) {
        fprintf(stderr, "hs_count: %s: pattern %d: %s\n", pat_path, cerr->expression, cerr->message);
        return 2;
    }
    hs_scratch_t *proto = NULL;
    if (hs_alloc_scratch(db, &proto) != HS_SUCCESS) {
        fprintf(stderr, "hs_count: hs_alloc_scratch failed\n");
        return 3;
    }
    double t1 = now();

    size_t len, n_recs = 0;
    char *text = slurp(fa_path, &len);
    if (!text) {
        perror(fa_path);
        return 3;
    }
    span *recs = find_records(text, len, &n_recs);
    if (!recs) {
        fprintf(stderr, "hs_count: %s: not a FASTA file\n", fa_path);
        return 2;
    }
    size_t *order = malloc(n_recs * sizeof *order);
    for (size_t i = 0; i < n_recs; i++)
        order[i] = i;
    sort_recs = recs;
    qsort(order, n_recs, sizeof *order, by_size_desc);
    double t2 = now();

    atomic_size_t next = 0;
    worker *w = calloc((size_t)threads, sizeof *w);
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    for (int t = 0; t < threads; t++) {
        w[t] = (worker){.db = db, .text = text, .recs = recs, .order = order,
                        .n_recs = n_recs, .next = &next, .upcase = upcase};
        w[t].counts = calloc((size_t)n_pat, sizeof *w[t].counts);
        if (!w[t].counts || hs_clone_scratch(proto, &w[t].scratch) != HS_SUCCESS) {
            fprintf(stderr, "hs_count: out of memory\n");
            return 3;
        }
        if (pthread_create(&tid[t], NULL, scan_records, &w[t])) {
            fprintf(stderr, "hs_count: pthread_create failed\n");
            return 3;
        }
    }
    uint64_t residues = 0;
    int failed = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(tid[t], NULL);
        residues += w[t].residues;
        failed |= w[t].failed;
        if (t > 0)
            for (long i = 0; i < n_pat; i++)
                w[0].counts[i] += w[t].counts[i];
    }
    double t3 = now();
    if (failed) {
        fprintf(stderr, "hs_count: scan failed\n");
        return 3;
    }

    unsigned long long total = 0;
    for (long i = 0; i < n_pat; i++)
        total += w[0].counts[i];
    if (out) {
        FILE *f = fopen(out, "w");
        if (!f) {
            perror(out);
            return 3;
        }
        for (long i = 0; i < n_pat; i++)
            fprintf(f, "%llu\n", w[0].counts[i]);
        if (fclose(f)) {
            perror(out);
            return 3;
        }
    }
    fprintf(stderr,
            "hs_count: %ld patterns, %zu records, %llu residues, %llu matches; "
            "compile %.3f s, read %.3f s, scan %.3f s (%.3f GB/s, %d threads)\n",
            n_pat, n_recs, (unsigned long long)residues, total, t1 - t0, t2 - t1, t3 - t2,
            (double)residues / (t3 - t2) * 1e-9, threads);

    for (int t = 0; t < threads; t++) {
        free(w[t].counts);
        hs_free_scratch(w[t].scratch);
    }
    for (long i = 0; i < n_pat; i++)
        free(pats[i]);
    free(pats);
    free(flags);
    free(ids);
    free(w);
    free(tid);
    free(order);
    free(recs);
    free(text);
    hs_free_scratch(proto);
    hs_free_database(db);
    return 0;
}
