/* parts.c - read plain FASTA and FASTQ files on several threads (parts.h).
 *
 * Cutting. A file's text is cut every part_bytes; a part starts at the
 * first record at or after its cut and ends where the next part starts, so
 * every record lies in one part. A record starts at
 *   - FASTA: a line opening with '>';
 *   - FASTQ: a line opening with '@' whose next-but-one line opens with
 *     '+', and whose next line (the sequence) is as long as the one after
 *     the '+' line (the quality), '\r' before the '\n' not counted. In a
 *     well-formed file no other line passes: a quality line opening with
 *     '@' is followed by a header and a sequence, not a '+' line; a '+'
 *     line does not open with '@'. In a file that is not (a sequence line
 *     opening with '@'), a part would start inside a record, and the part
 *     before it would end inside one: that part's reader reports the
 *     record cut short, so the run fails rather than reads wrong records.
 *
 * Numbering. Record ids, and line numbers for messages, run across parts:
 * a part's first are the counts of the parts before it. Each part is
 * counted once, records and line ends in one pass over its bytes, by the
 * first lane that needs it (its own lane, or one whose part comes later
 * and finds it not yet counted): no lane waits for another lane's parsing,
 * only for counts in progress. A lane counts its own part first and keeps
 * its bytes for the parse, so most bytes are read once. FASTA's records are
 * its lines opening with '>'; FASTQ's are a quarter of its lines, or,
 * where a blank line shows (between records, which the reader skips), the
 * records of a walk over the lines by the reader's rule.
 *
 * Each part is then parsed by a streaming reader of its own (fasta.c),
 * which checks what the part's reader would check in one pass, and whose
 * records must be those counted.
 */
#define _POSIX_C_SOURCE 200809L
#include "parts.h"
#include "reader_part.h"
#include "seqformat.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/stream/bgzf.h"

/* PART: default part_bytes. PEEK: bytes a lane looks at to find a part's
 * start (no more than a part's). MAX_FILES: a corpus of more files is streamed (each is sniffed at
 * open, on one thread). */
/* COUNT: bytes read and counted at a time, while they are in the core's cache. */
enum { PART = 8 << 20, PEEK = 64 << 10, MAX_FILES = 1024, COUNT = 256 << 10 };

typedef struct pfile {
    const char *path;
    int fastq;
    uint64_t start, size; /* the first record's byte (after a BOM, blank lines); bytes */
    uint64_t line0;       /* the number of start's line */
    size_t part0, n_parts;
} pfile;

typedef enum { P_NEW, P_COUNTING, P_COUNTED, P_FAILED } pstate;

typedef struct part {
    uint32_t file;
    pstate state;
    uint64_t cut;          /* where the file was cut: the part starts at or after it */
    uint64_t begin, end;   /* counted: its bytes */
    uint64_t recs, lines;  /* counted: its records and line ends */
    uint64_t rec_id0, rec_in_file, line0; /* set once the parts before it are counted */
    gs_layout lay;         /* its records, once parsed */
    char *warning;
    gs_error err;          /* P_FAILED */
} part;

typedef struct lane {
    gs_parts *ps;
    size_t cur;        /* the part being parsed (r) */
    gs_reader *r;
    gs_seq_range range;
    size_t held_part;  /* range.buf holds this part's bytes whole (SIZE_MAX: none) */
    uint32_t fd_file;  /* range.fd is open on this file (-1 fd: none) */
    uint8_t *pk;       /* a window on the file: pk[0, pk_n) are bytes pk_at on */
    uint8_t *scratch;  /* COUNT bytes: another lane's part passes through it */
    size_t pk_cap, pk_n;
    uint64_t pk_at, bytes;
} lane;

struct gs_parts {
    gs_reader_opts o;
    gs_layout *layout;
    pfile *files;
    size_t n_files;
    part *parts;
    size_t n_parts;
    size_t prefix;     /* parts [0, prefix) are counted: ids known through part prefix */
    size_t failed;     /* the first part whose count failed (n_parts: none) */
    atomic_size_t next; /* the first part no lane has taken */
    size_t peek;       /* bytes a lane reads to look at a file (PEEK or a part) */
    lane *lanes;
    int n_lanes;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

static gs_status read_at(lane *ln, uint8_t *out, size_t n, uint64_t at, gs_error *err)
{
    if (gs_seq_pread_exact(ln->range.fd, ln->range.path, out, n, at, err) != GS_OK)
        return err->code;
    ln->bytes += n;
    return GS_OK;
}

/* ln's fd on file f. */
static gs_status lane_file(lane *ln, uint32_t f, gs_error *err)
{
    if (ln->range.fd >= 0 && ln->fd_file == f)
        return GS_OK;
    if (ln->range.fd >= 0)
        close(ln->range.fd);
    ln->pk_n = 0;
    ln->fd_file = f;
    ln->range.path = ln->ps->files[f].path;
    ln->range.fd = open(ln->range.path, O_RDONLY);
    if (ln->range.fd < 0)
        return gs_fail(err, GS_EINPUT, "cannot open corpus file: %s (%s)", strerror(errno),
                       ln->range.path);
    return GS_OK;
}

/* *p: the bytes of the lane's file from at on, *got of them (at least n, or
 * all to the end of the file), in the window. */
static gs_status peek(lane *ln, uint64_t at, size_t n, const uint8_t **p, size_t *got,
                      gs_error *err)
{
    const uint64_t size = ln->ps->files[ln->fd_file].size;
    if (at >= size) {
        *p = ln->pk;
        *got = 0;
        return GS_OK;
    }
    const size_t want = size - at < n ? (size_t)(size - at) : n;
    if (at < ln->pk_at || at + want > ln->pk_at + ln->pk_n) {
        size_t cap = want > ln->ps->peek ? want : ln->ps->peek;
        if (cap > ln->pk_cap) {
            uint8_t *b = gs_realloc(ln->pk, cap, err, "part start buffer");
            if (b == NULL)
                return GS_ESYS;
            ln->pk = b;
            ln->pk_cap = cap;
        }
        size_t fill = size - at < ln->pk_cap ? (size_t)(size - at) : ln->pk_cap;
        ln->pk_at = at;
        ln->pk_n = 0;
        if (read_at(ln, ln->pk, fill, at, err) != GS_OK)
            return err->code;
        ln->pk_n = fill;
    }
    *p = ln->pk + (at - ln->pk_at);
    *got = (size_t)(ln->pk_at + ln->pk_n - at);
    return GS_OK;
}

/* *eol: the first '\n' at or after at, or the file's size. */
static gs_status line_end(lane *ln, uint64_t at, uint64_t *eol, gs_error *err)
{
    for (;;) {
        const uint8_t *p;
        size_t got;
        /* what the window holds from at on (a byte at least): asking for a
         * whole window would reload it at every line */
        if (peek(ln, at, 1, &p, &got, err) != GS_OK)
            return err->code;
        const uint8_t *nl = got ? memchr(p, '\n', got) : NULL;
        if (nl || got == 0) {
            *eol = nl ? at + (uint64_t)(nl - p) : at;
            return GS_OK;
        }
        at += got;
    }
}

static gs_status byte_at(lane *ln, uint64_t at, int *c, gs_error *err)
{
    const uint8_t *p;
    size_t got;
    if (peek(ln, at, 1, &p, &got, err) != GS_OK)
        return err->code;
    *c = got ? p[0] : -1;
    return GS_OK;
}

/* The length of line [at, eol) without a '\r' before its '\n'. */
static gs_status line_len(lane *ln, uint64_t at, uint64_t eol, uint64_t *len, gs_error *err)
{
    int c = 0;
    if (eol > at && byte_at(ln, eol - 1, &c, err) != GS_OK)
        return err->code;
    *len = eol - at - (eol > at && c == '\r');
    return GS_OK;
}

/* *yes: the line at `at` (a line start) opens a FASTQ record (the rule above). */
static gs_status fastq_start(lane *ln, uint64_t at, int *yes, gs_error *err)
{
    uint64_t e[4], p[4] = {at}, seq = 0, qual = 0;
    int c = 0;
    *yes = 0;
    if (byte_at(ln, at, &c, err) != GS_OK || c != '@')
        return err->code;
    for (int i = 0; i < 4; i++) {
        if (i > 0)
            p[i] = e[i - 1] + 1;
        if (line_end(ln, p[i], &e[i], err) != GS_OK)
            return err->code;
        if (i == 2 && (byte_at(ln, p[2], &c, err) != GS_OK || c != '+'))
            return err->code;
    }
    if (line_len(ln, p[1], e[1], &seq, err) != GS_OK || line_len(ln, p[3], e[3], &qual, err) != GS_OK)
        return err->code;
    *yes = seq == qual;
    return GS_OK;
}

/* *start: the first record at or after at in the lane's file (its size if none). */
static gs_status part_start(lane *ln, const pfile *f, uint64_t at, uint64_t *start, gs_error *err)
{
    int c = '\n';
    if (at > f->start && byte_at(ln, at - 1, &c, err) != GS_OK)
        return err->code;
    if (c != '\n' && line_end(ln, at, &at, err) == GS_OK)
        at++;
    while (err->code == GS_OK && at < f->size) {
        int yes;
        if (f->fastq ? fastq_start(ln, at, &yes, err) : byte_at(ln, at, &yes, err))
            return err->code;
        if (f->fastq ? yes : yes == '>') {
            *start = at;
            return GS_OK;
        }
        if (line_end(ln, at, &at, err) != GS_OK)
            return err->code;
        at++;
    }
    *start = f->size;
    return err->code;
}

/* Counts over a part's bytes, a piece at a time. */
typedef struct counter {
    uint64_t lines, headers; /* line ends; lines opening with '>' */
    int blank;               /* a line opens with a blank byte (or is empty) */
    uint8_t last;            /* the byte before the piece */
} counter;

static void count_piece(counter *k, const uint8_t *b, size_t n)
{
    if (n == 0)
        return;
    uint64_t lines = 0, headers = k->last == '\n' && b[0] == '>';
    int blank = k->last == '\n' && b[0] <= ' ';
    for (size_t i = 0; i + 1 < n;) {
        /* runs of 240 bytes counted in byte lanes, a loop the compiler
         * vectorises without widening the sums */
        const size_t m = n - 1 - i < 240 ? n - 1 - i : 240;
        uint8_t nl = 0, hd = 0, bl = 0;
        for (size_t j = i; j < i + m; j++) {
            uint8_t e = b[j] == '\n';
            nl += e;
            hd += e & (b[j + 1] == '>');
            bl |= e & (b[j + 1] <= ' ');
        }
        lines += nl;
        headers += hd;
        blank |= bl;
        i += m;
    }
    k->lines += lines + (b[n - 1] == '\n');
    k->headers += headers;
    k->blank |= blank;
    k->last = b[n - 1];
}

/* The FASTQ records of [begin, end) by the reader's rule: blank lines
 * between records skipped, four lines a record. */
static gs_status walk_fastq(lane *ln, uint64_t begin, uint64_t end, uint64_t *recs, gs_error *err)
{
    *recs = 0;
    for (uint64_t at = begin, eol; at < end;) {
        if (line_end(ln, at, &eol, err) != GS_OK)
            return err->code;
        int blank = 1;
        for (uint64_t i = at; blank && i < eol; i++) {
            int c = 0;
            if (byte_at(ln, i, &c, err) != GS_OK)
                return err->code;
            blank = c == ' ' || c == '\t' || c == '\r';
        }
        at = eol + 1;
        if (blank)
            continue;
        ++*recs;
        for (int l = 1; l < 4 && at < end; l++) {
            if (line_end(ln, at, &eol, err) != GS_OK)
                return err->code;
            at = eol + 1;
        }
    }
    return GS_OK;
}

/* Find part k's bytes and count them; with hold (the lane's own part) its
 * bytes stay in the lane's buffer when they fit, else they pass through a
 * piece of scratch, leaving what the buffer holds. */
static gs_status count_part(lane *ln, size_t k, int hold, gs_error *err)
{
    gs_parts *ps = ln->ps;
    part *pt = &ps->parts[k];
    const pfile *f = &ps->files[pt->file];
    const size_t last = f->part0 + f->n_parts - 1;
    uint64_t begin = f->start, end = f->size;
    if (hold)
        ln->held_part = SIZE_MAX;
    if (lane_file(ln, pt->file, err) != GS_OK ||
        (k > f->part0 && part_start(ln, f, pt->cut, &begin, err) != GS_OK) ||
        (k < last && part_start(ln, f, ps->parts[k + 1].cut, &end, err) != GS_OK))
        return err->code;
    end = end < begin ? begin : end;
    counter c = {.last = '\n'};
    uint8_t last_byte = '\n';
    for (uint64_t at = begin; at < end;) {
        size_t n = end - at < ln->range.cap ? (size_t)(end - at) : ln->range.cap;
        for (size_t o = 0; o < n; o += COUNT) {
            size_t m = n - o < COUNT ? n - o : COUNT;
            uint8_t *to = hold ? ln->range.buf + o : ln->scratch;
            if (read_at(ln, to, m, at + o, err) != GS_OK)
                return err->code;
            count_piece(&c, to, m);
            last_byte = to[m - 1];
        }
        at += n;
        if (hold && at == end && n == end - begin)
            ln->held_part = k;
    }
    pt->begin = begin;
    pt->end = end;
    pt->lines = c.lines;
    if (!f->fastq) {
        pt->recs = c.headers;
        return GS_OK;
    }
    uint64_t lines = c.lines + (end > begin && last_byte != '\n');
    pt->recs = lines / 4;
    if (c.blank || lines % 4)
        return walk_fastq(ln, begin, end, &pt->recs, err);
    return GS_OK;
}

/* Under mu: the ids of the parts after the counted prefix. */
static void advance(gs_parts *ps)
{
    for (; ps->prefix < ps->n_parts && ps->parts[ps->prefix].state == P_COUNTED; ps->prefix++) {
        const part *p = &ps->parts[ps->prefix];
        if (ps->prefix + 1 == ps->n_parts)
            continue;
        part *q = &ps->parts[ps->prefix + 1];
        q->rec_id0 = p->rec_id0 + p->recs;
        int same = q->file == p->file;
        q->rec_in_file = same ? p->rec_in_file + p->recs : 0;
        q->line0 = same ? p->line0 + p->lines : ps->files[q->file].line0;
    }
}

/* Count what part k needs (itself and every part before it): part k
 * first, where no lane has counted it, its bytes kept for the parse; then
 * the parts before it no lane has begun to count, smallest first (their
 * owners read them again; since lanes take parts in order and count their
 * own at once, that is only a part taken a moment ago). */
static gs_status count_through(lane *ln, size_t k, gs_error *err)
{
    gs_parts *ps = ln->ps;
    gs_status st = GS_OK;
    pthread_mutex_lock(&ps->mu);
    while (ps->prefix <= k && ps->failed > k) {
        size_t j = ps->parts[k].state == P_NEW ? k : ps->prefix;
        while (j <= k && ps->parts[j].state != P_NEW)
            j++;
        if (j > k) {
            pthread_cond_wait(&ps->cv, &ps->mu);
            continue;
        }
        ps->parts[j].state = P_COUNTING;
        pthread_mutex_unlock(&ps->mu);
        gs_error e = {0};
        gs_status cs = count_part(ln, j, j == k, &e);
        pthread_mutex_lock(&ps->mu);
        ps->parts[j].state = cs == GS_OK ? P_COUNTED : P_FAILED;
        if (cs != GS_OK) {
            ps->parts[j].err = e;
            ps->failed = j < ps->failed ? j : ps->failed;
        }
        advance(ps);
        pthread_cond_broadcast(&ps->cv);
    }
    if (ps->failed <= k) {
        *err = ps->parts[ps->failed].err;
        st = err->code;
    }
    pthread_mutex_unlock(&ps->mu);
    return st;
}

static gs_status open_part(lane *ln, size_t k, gs_error *err)
{
    gs_parts *ps = ln->ps;
    if (count_through(ln, k, err) != GS_OK)
        return err->code;
    part *pt = &ps->parts[k];
    if (lane_file(ln, pt->file, err) != GS_OK)
        return err->code;
    ln->range.at = pt->begin;
    ln->range.stop = pt->end;
    ln->range.held = ln->held_part == k ? (size_t)(pt->end - pt->begin) : 0;
    gs_reader_part rp = {.range = &ln->range, .file = pt->file, .fastq = ps->files[pt->file].fastq,
                         .rec_id0 = pt->rec_id0, .rec_in_file = pt->rec_in_file, .line0 = pt->line0};
    ln->cur = k;
    return gs_reader_open_part(&ps->o, &rp, &pt->lay, &ln->r, err);
}

/* The part's reader has ended: keep its records and warning. */
static gs_status close_part(lane *ln, gs_error *err)
{
    part *pt = &ln->ps->parts[ln->cur];
    const char *w = gs_reader_warning(ln->r); /* the reader's own: kept before it closes */
    int lost = w && (pt->warning = strdup(w)) == NULL;
    gs_reader_close(ln->r);
    ln->r = NULL;
    if (lost)
        return gs_fail(err, GS_ESYS, "out of memory (a warning)");
    if (pt->lay.n_rec != pt->recs) /* the count's rule and the reader's disagree */
        return gs_fail(err, GS_EINPUT,
                       "%" PRIu64 " records counted in bytes %" PRIu64 "-%" PRIu64
                       " but %zu read; --readers 1 reads the file as one stream (%s)",
                       pt->recs, pt->begin, pt->end, pt->lay.n_rec, ln->range.path);
    return GS_OK;
}

gs_status gs_parts_next(void *ctx, uint8_t *buf, gs_segment *seg, int *more, gs_error *err)
{
    lane *ln = ctx;
    *more = 0;
    for (;;) {
        if (ln->r) {
            if (gs_reader_next(ln->r, buf, seg, more, err) != GS_OK)
                return err->code;
            if (*more)
                return GS_OK;
            if (close_part(ln, err) != GS_OK)
                return err->code;
        }
        /* the first part no lane has taken: the parts before it are taken,
         * each counted first by its lane, so none is read twice */
        size_t k = atomic_fetch_add(&ln->ps->next, 1);
        if (k >= ln->ps->n_parts)
            return GS_OK;
        if (open_part(ln, k, err) != GS_OK)
            return err->code;
    }
}

/* f's facts, or f->path NULL where it cannot be read in parts. */
static gs_status sniff_file(const char *path, gs_input_format want, pfile *f, gs_error *err)
{
    gs_seq_head h;
    struct stat st;
    *f = (pfile){0};
    if (!gs_input_seekable(path) || stat(path, &st) != 0 ||
        gs_seq_detect_path(path, GS_SEQ_SNIFF, &h, err) != GS_OK) {
        *err = (gs_error){0}; /* the stream reports it */
        return GS_OK;
    }
    int fastq = h.format == GS_SEQ_FASTQ;
    if (h.comp != GS_COMP_NONE || !(fastq || h.format == GS_SEQ_FASTA) ||
        (want == GS_INPUT_FASTA && fastq) || (want == GS_INPUT_FASTQ && !fastq))
        return GS_OK;
    *f = (pfile){.path = path, .fastq = fastq, .start = h.start, .size = (uint64_t)st.st_size,
                 .line0 = 1};
    if (h.start == 0)
        return GS_OK;
    int fd = open(path, O_RDONLY), ended = 0;
    uint8_t *b = gs_malloc(h.start, err, "file start");
    gs_status s = fd < 0 ? gs_fail(err, GS_EINPUT, "cannot open corpus file: %s (%s)",
                                   strerror(errno), path)
                  : b == NULL ? GS_ESYS
                              : gs_pread_full(fd, b, h.start, 0, path, &ended, err);
    for (size_t i = 0; s == GS_OK && i < h.start; i++)
        f->line0 += b[i] == '\n';
    free(b);
    if (fd >= 0)
        close(fd);
    return s;
}

static gs_status cut_files(gs_parts *ps, uint64_t part_bytes, gs_error *err)
{
    for (size_t i = 0; i < ps->n_files; i++) {
        pfile *f = &ps->files[i];
        f->part0 = ps->n_parts;
        f->n_parts = f->size > f->start ? (size_t)((f->size - f->start - 1) / part_bytes + 1) : 1;
        ps->n_parts += f->n_parts;
    }
    ps->parts = gs_calloc(ps->n_parts, sizeof *ps->parts, err, "file parts");
    if (ps->parts == NULL)
        return GS_ESYS;
    for (size_t i = 0; i < ps->n_files; i++)
        for (size_t j = 0; j < ps->files[i].n_parts; j++)
            ps->parts[ps->files[i].part0 + j] =
                (part){.file = (uint32_t)i, .cut = ps->files[i].start + j * part_bytes,
                       .line0 = ps->files[i].line0};
    ps->failed = ps->n_parts;
    return GS_OK;
}

static gs_status open_lanes(gs_parts *ps, uint64_t part_bytes, gs_error *err)
{
    ps->lanes = gs_calloc((size_t)ps->n_lanes, sizeof *ps->lanes, err, "reading lanes");
    if (ps->lanes == NULL)
        return GS_ESYS;
    for (int i = 0; i < ps->n_lanes; i++) {
        lane *ln = &ps->lanes[i];
        *ln = (lane){.ps = ps, .held_part = SIZE_MAX};
        ln->range.fd = -1;
        ln->range.cap = (size_t)(part_bytes + part_bytes / 2);
        if ((ln->range.buf = gs_malloc(ln->range.cap, err, "part buffer")) == NULL ||
            (ln->scratch = gs_malloc(COUNT, err, "part buffer")) == NULL)
            return GS_ESYS;
    }
    return GS_OK;
}

gs_status gs_parts_open(const char *const *files, size_t n_files, const gs_reader_opts *o,
                        uint64_t part_bytes, int n_lanes, gs_layout *layout, gs_parts **out,
                        gs_error *err)
{
    *out = NULL;
    part_bytes = part_bytes ? part_bytes : PART;
    if (n_lanes < 2 || n_files == 0 || n_files > MAX_FILES || o->format == GS_INPUT_RAW)
        return GS_OK;
    pfile *pf = gs_calloc(n_files, sizeof *pf, err, "corpus files");
    gs_parts *ps = pf ? gs_calloc(1, sizeof *ps, err, "parts reader") : NULL;
    if (ps == NULL) {
        free(pf);
        return GS_ESYS;
    }
    *ps = (gs_parts){.o = *o, .layout = layout, .files = pf, .n_files = n_files,
                     .n_lanes = n_lanes, .peek = part_bytes < PEEK ? (size_t)part_bytes : PEEK};
    for (size_t i = 0; i < n_files; i++)
        if (sniff_file(files[i], o->format, &ps->files[i], err) != GS_OK ||
            ps->files[i].path == NULL)
            goto none;
    if (cut_files(ps, part_bytes, err) != GS_OK || ps->n_parts < 2)
        goto none;
    if (gs_layout_set_files(layout, files, n_files, err) != GS_OK)
        goto none;
    for (size_t i = 0; i < n_files; i++) /* the layout's copies outlive the caller's */
        ps->files[i].path = layout->files[i];
    atomic_init(&ps->next, 0);
    pthread_mutex_init(&ps->mu, NULL);
    pthread_cond_init(&ps->cv, NULL);
    *out = ps;
    if (open_lanes(ps, part_bytes, err) != GS_OK)
        return err->code;
    return GS_OK;
none:
    free(ps->parts);
    free(ps->files);
    free(ps);
    return err->code;
}

size_t gs_parts_count(const gs_parts *ps)
{
    return ps->n_parts;
}

void *gs_parts_lane(gs_parts *ps, int i)
{
    return &ps->lanes[i];
}

gs_status gs_parts_finish(gs_parts *ps, gs_error *err)
{
    gs_layout *lay = gs_malloc((ps->n_parts ? ps->n_parts : 1) * sizeof *lay, err, "part layouts");
    if (lay == NULL)
        return GS_ESYS;
    for (size_t k = 0; k < ps->n_parts; k++) { /* moved: the join frees them */
        lay[k] = ps->parts[k].lay;
        ps->parts[k].lay = (gs_layout){0};
    }
    gs_status st = gs_layout_join(ps->layout, lay, ps->n_parts, NULL, ps->n_lanes, err);
    free(lay);
    return st;
}

uint64_t gs_parts_bytes_in(const gs_parts *ps)
{
    uint64_t n = 0;
    for (int i = 0; ps->lanes && i < ps->n_lanes; i++)
        n += ps->lanes[i].bytes + ps->lanes[i].range.bytes;
    return n;
}

const char *gs_parts_warning(const gs_parts *ps)
{
    for (size_t k = 0; k < ps->n_parts; k++)
        if (ps->parts[k].warning)
            return ps->parts[k].warning;
    return NULL;
}

void gs_parts_close(gs_parts *ps)
{
    if (ps == NULL)
        return;
    for (int i = 0; ps->lanes && i < ps->n_lanes; i++) {
        gs_reader_close(ps->lanes[i].r);
        if (ps->lanes[i].range.fd >= 0)
            close(ps->lanes[i].range.fd);
        free(ps->lanes[i].range.buf);
        free(ps->lanes[i].scratch);
        free(ps->lanes[i].pk);
    }
    for (size_t k = 0; k < ps->n_parts; k++) {
        gs_layout_free(&ps->parts[k].lay);
        free(ps->parts[k].warning);
    }
    pthread_mutex_destroy(&ps->mu);
    pthread_cond_destroy(&ps->cv);
    free(ps->lanes);
    free(ps->parts);
    free(ps->files);
    free(ps);
}
