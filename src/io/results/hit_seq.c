/* hit_seq.c - matched sequences through the corpus' .fai, or from the
 * scan's captured residues (see hit_seq.h). */
#define _POSIX_C_SOURCE 200809L
#include "hit_seq.h"

#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/seq/fai.h"
#include "io/stream/bgzf.h"

struct gs_hit_seq {
    size_t n_files, n_rec;
    gs_fai *fai;          /* [n_files] */
    gs_seqfile *files;    /* [n_files] */
    gs_fai_entry **entry; /* [n_rec]: the index entry of each record */
    uint32_t *file;       /* [n_rec] */
    const gs_seqcap *cap; /* the scan's residues (then no file is read), or NULL */
    int dna;
};

gs_status gs_hit_seq_captured(const gs_seqcap *cap, int dna, gs_hit_seq **out, gs_error *err)
{
    gs_hit_seq *s = gs_calloc(1, sizeof *s, err, "--seq");
    *out = s;
    if (s == NULL)
        return err->code;
    s->cap = cap;
    s->dna = dna;
    return GS_OK;
}

/* out[0 .. n) reverse-complemented in place (case kept, other bytes as they
 * are). */
static void reverse_complement(char *out, size_t n)
{
    static const char comp[] = "ACGTacgtNnTGCAtgcaNn";
    for (size_t i = 0; i < n / 2 + n % 2; i++) {
        char a = out[i], b = out[n - 1 - i];
        const char *pa = strchr(comp, a), *pb = strchr(comp, b);
        out[i] = pb && b ? comp[(pb - comp + 10) % 20] : b;
        out[n - 1 - i] = pa && a ? comp[(pa - comp + 10) % 20] : a;
    }
}

/* Residues [start, end) of record from the captured table into out. */
static gs_status captured_get(const gs_hit_seq *s, uint32_t record, uint64_t start, uint64_t end,
                              char *out, gs_error *err)
{
    const uint8_t *t = gs_seqcap_find(s->cap, record, start, end);
    if (t == NULL)
        return gs_fail(err, GS_ESYS, "no residues were captured for hit (record %u, %llu-%llu)",
                       (unsigned)record, (unsigned long long)start, (unsigned long long)end);
    memcpy(out, t, (size_t)(end - start));
    return GS_OK;
}

/* Why a corpus file has no index to read back through: a stream or plain
 * gzip never will (the scan itself can capture the text), another file
 * only lacks gscan index. */
static gs_status no_index(const char *path, gs_error *err)
{
    struct stat st;
    uint8_t head[32];
    ssize_t n = 0;
    int fd = strcmp(path, "-") ? open(path, O_RDONLY) : -1;
    int streamed = fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode);
    if (!streamed)
        n = read(fd, head, sizeof head);
    if (fd >= 0)
        close(fd);
    if (streamed || (n > 0 && gs_bgzf_sniff(head, (size_t)n) == GS_COMP_GZIP))
        return gs_fail(err, GS_EINPUT,
                       "--seq reads the corpus back through a .fai, which gzip, standard input "
                       "and pipes cannot have: gscan scan ... --seq -o OUT.tsv prints the "
                       "matched text from the scan itself (%s)", path);
    return gs_fail(err, GS_EINPUT, "--seq reads the corpus through its index: run gscan index (%s)",
                   path);
}

gs_status gs_hit_seq_open(char *const *corpus, size_t n_files, const char *names, size_t stride,
                          const uint32_t *file, const uint64_t *length, size_t n_rec, int dna,
                          gs_hit_seq **out, gs_error *err)
{
    gs_hit_seq *s = gs_calloc(1, sizeof *s, err, "--seq");
    size_t *next = gs_calloc(n_files + 1, sizeof *next, err, "--seq");
    *out = NULL;
    if (s == NULL || next == NULL)
        goto fail;
    s->n_files = n_files;
    s->n_rec = n_rec;
    s->dna = dna;
    s->fai = gs_calloc(n_files + 1, sizeof *s->fai, err, "--seq");
    s->files = gs_calloc(n_files + 1, sizeof *s->files, err, "--seq");
    s->entry = gs_calloc(n_rec + 1, sizeof *s->entry, err, "--seq");
    s->file = gs_calloc(n_rec + 1, sizeof *s->file, err, "--seq");
    if (!s->fai || !s->files || !s->entry || !s->file)
        goto fail;
    for (size_t f = 0; f < n_files; f++) {
        s->files[f] = (gs_seqfile){.path = corpus[f], .fd = -1};
        if (gs_fai_load(corpus[f], NULL, &s->fai[f], err) != GS_OK)
            goto fail;
        if (s->fai[f].n == 0) {
            no_index(corpus[f], err);
            goto fail;
        }
        if (gs_seqfile_open(corpus[f], &s->files[f], err) != GS_OK)
            goto fail;
    }
    for (size_t r = 0; r < n_rec; r++) {
        uint32_t f = file[r];
        const char *name = names + r * stride;
        if (f >= n_files || next[f] >= s->fai[f].n || strcmp(s->fai[f].v[next[f]].name, name) != 0
            || s->fai[f].v[next[f]].length != length[r]) {
            gs_fail(err, GS_EINPUT,
                    "the corpus does not hold the scanned record %s of length %llu at its place: "
                    "give the files of the scan, in order (%s)",
                    name, (unsigned long long)length[r], f < n_files ? corpus[f] : "--corpus");
            goto fail;
        }
        s->entry[r] = &s->fai[f].v[next[f]++];
        s->file[r] = f;
    }
    free(next);
    *out = s;
    return GS_OK;
fail:
    free(next);
    gs_hit_seq_close(s);
    return err->code;
}

gs_status gs_hit_seq_get(gs_hit_seq *s, uint32_t record, uint64_t start, uint64_t end, int strand,
                         char *out, gs_error *err)
{
    uint64_t bytes = 0;
    if (s->cap) {
        if (captured_get(s, record, start, end, out, err) != GS_OK)
            return err->code;
    } else {
        const uint64_t length = record < s->n_rec ? s->entry[record]->length : 0;
        if (record >= s->n_rec || end < start || end - start > length ||
            (end > length && start >= length))
            return gs_fail(err, GS_EINPUT, "hit outside its record (record %u, %llu-%llu)",
                           (unsigned)record, (unsigned long long)start, (unsigned long long)end);
        /* a hit of a circular record may end past its length, in its start */
        if (gs_fai_read_circular(&s->files[s->file[record]], s->entry[record], start, end,
                                 (uint8_t *)out, &bytes, err) != GS_OK)
            return err->code;
    }
    size_t n = (size_t)(end - start);
    out[n] = '\0';
    if (strand < 0 && s->dna)
        reverse_complement(out, n);
    return GS_OK;
}

void gs_hit_seq_close(gs_hit_seq *s)
{
    if (s == NULL)
        return;
    for (size_t f = 0; s->files && f < s->n_files; f++)
        gs_seqfile_close(&s->files[f]);
    for (size_t f = 0; s->fai && f < s->n_files; f++)
        gs_fai_free(&s->fai[f]);
    free(s->fai);
    free(s->files);
    free(s->entry);
    free(s->file);
    free(s);
}
