/* parts.c - read plain FASTA and FASTQ files on several threads (parts.h):
 * the lanes, the order of their parts and what each gives. Where parts
 * start and how each is counted: parts_count.c.
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
 * records must be those counted; or, for a device that drops line ends
 * itself (gs_parts_next_raw), given as it lies in its file, its records
 * found while it is counted (parts_loose.h), where that walk can find them.
 */
#define _POSIX_C_SOURCE 200809L
#include "parts_internal.h"
#include "reader_part.h"
#include "seqformat.h"
#include "core/gs_clock.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
            const double t0 = gs_now();
            pthread_cond_wait(&ps->cv, &ps->mu);
            ln->t[GS_PT_WAIT] += gs_now() - t0;
            continue;
        }
        ps->parts[j].state = P_COUNTING;
        pthread_mutex_unlock(&ps->mu);
        gs_error e = {0};
        const double t0 = gs_now();
        gs_status cs = gs_parts_count_part(ln, j, j == k, &e);
        if (j != k) {
            ln->t[GS_PT_OTHERS] += gs_now() - t0;
            ln->t[GS_PT_OTHER_PARTS]++;
        }
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
    if (gs_parts_lane_file(ln, pt->file, err) != GS_OK)
        return err->code;
    ln->range.at = pt->begin;
    ln->range.stop = pt->end;
    ln->range.held = ln->held_part == k && ln->held_at == ln->range.buf
                         ? (size_t)(pt->end - pt->begin) : 0;
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

/* A loose part's reads kept as their lengths alone where their names are
 * dropped: 4 bytes a read, where a table's row and name are 25 bytes, most
 * of the time making it the first touch of fresh pages (the join lays the
 * rows, gs_layout_join). */
static gs_status keep_lengths(const lane *ln, part *w, gs_error *err)
{
    const gs_loose *lz = &ln->lz;
    if ((w->lens = gs_malloc((lz->n ? lz->n : 1) * sizeof *w->lens, err, "the record table")) ==
        NULL)
        return GS_ESYS;
    for (size_t i = 0; i < lz->n; i++)
        w->lens[i] = (uint32_t)lz->v[i].residues;
    return GS_OK;
}

/* Part k given loose (parts_loose.h) where it can be: its bytes read into
 * buf (counted there when the lane counts them) and its records found in
 * them; *loose 0 where the streaming reader must read it. room: what every
 * later call will offer at least (the part is read again into a fresh
 * batch from the record the batch starts with). */
static gs_status open_loose(lane *ln, size_t k, uint8_t *buf, size_t room, int *loose,
                            gs_error *err)
{
    gs_parts *ps = ln->ps;
    const part *pt = &ps->parts[k];
    *loose = 0;
    ln->hold = buf;
    ln->hold_cap = room;
    gs_status st = count_through(ln, k, err);
    ln->hold = ln->range.buf;
    ln->hold_cap = ln->range.cap;
    const uint64_t bytes = pt->end - pt->begin;
    if (st != GS_OK || bytes > room || pt->rec_id0 + pt->recs >= UINT32_MAX)
        return st;
    const int fastq = ps->files[pt->file].fastq;
    if (ln->lz_part != k) { /* another lane counted it */
        int mapped = 0;
        if (gs_parts_lane_file(ln, pt->file, err) != GS_OK ||
            (fastq && gs_parts_walk_mapped(ln, pt->begin, (size_t)bytes, buf, &mapped, err) !=
                          GS_OK))
            return err->code;
        if (!mapped) {
            gs_parts_unpack(ln); /* the last part's, where it is still packed */
            gs_loose_begin(&ln->lz, fastq, ps->o.block);
            if (gs_parts_read_at(ln, buf, (size_t)bytes, pt->begin, err) != GS_OK ||
                gs_parts_feed(ln, buf, (size_t)bytes, (size_t)bytes, err) != GS_OK)
                return err->code;
        }
        ln->held_part = ln->lz_part = k;
        ln->held_at = buf;
    }
    if (ln->lz.state != GS_LOOSE_DONE || ln->lz.n != pt->recs) {
        gs_parts_unpack(ln);
        return GS_OK;
    }
    part *w = &ps->parts[k];
    const double t0 = gs_now();
    const int unnamed = fastq && ps->o.drop_read_names;
    if ((unnamed && ps->o.block < UINT32_MAX
             ? keep_lengths(ln, w, err)
             : gs_parts_loose_layout(ln, buf, pt->file, unnamed, &w->lay, err)) != GS_OK)
        return err->code;
    ln->t[GS_PT_TABLES] += gs_now() - t0;
    ln->cur = k;
    ln->lz_on = *loose = 1;
    ln->lz_next = 0;
    ln->lz_at = ln->lz_end = buf;
    ln->lz_off = 0;
    return GS_OK;
}

/* The loose part's next record past empty ones (in the layout, no segment). */
static void skip_empty(lane *ln)
{
    while (ln->lz_next < ln->lz.n && ln->lz.v[ln->lz_next].residues == 0)
        ln->lz_next++;
}

/* Where record x's text lies from lz_at (less lz_off): among the part's
 * sequences packed one after another while the part is packed, else among
 * its bytes as read. */
static uint64_t text_pos(const lane *ln, const gs_loose_rec *x)
{
    return ln->lz_src ? x->out : x->seq;
}

/* The next record of the loose part as a loose text, or *more 0 at its end. */
static gs_status give_loose(lane *ln, uint8_t *buf, gs_segment *seg, gs_raw_text *raw, int *more,
                            gs_error *err)
{
    const part *pt = &ln->ps->parts[ln->cur];
    const gs_loose *lz = &ln->lz;
    skip_empty(ln);
    *more = ln->lz_next < lz->n;
    if (!*more) {
        ln->lz_on = 0;
        gs_parts_unpack(ln);
        return GS_OK;
    }
    const gs_loose_rec *x = &lz->v[ln->lz_next];
    const uint64_t pos = text_pos(ln, x);
    if (buf != ln->lz_end) { /* a fresh batch: the rest of the part read into it */
        const gs_loose_rec *last = &lz->v[lz->n - 1];
        if (ln->lz_src ? gs_parts_pack_from(ln, ln->lz_next, buf, err) != GS_OK
                   : gs_parts_read_at(ln, buf, (size_t)(last->seq + last->span - x->seq),
                                      pt->begin + x->seq, err) != GS_OK)
            return err->code;
        ln->lz_at = buf;
        ln->lz_off = pos;
    }
    const uint8_t *text = ln->lz_at + (pos - ln->lz_off);
    *seg = (gs_segment){(uint32_t)(pt->rec_id0 + ln->lz_next), 0, text, (size_t)x->residues,
                        (size_t)x->residues, 0, pt->file};
    const size_t bytes = (size_t)gs_loose_bytes(x);
    *raw = (gs_raw_text){.bytes = (size_t)(text + bytes - buf), .span = bytes,
                         .codes = (int)x->codes, .path = ln->range.path};
    ln->lz_end = text + bytes;
    ln->lz_next++;
    return GS_OK;
}

gs_status gs_parts_next_run(void *ctx, uint8_t *buf, gs_laid_run *run, gs_error *err)
{
    (void)err;
    lane *ln = ctx;
    run->n = run->bytes = 0;
    run->residues = 0;
    run->full = 0;
    if (!ln->lz_on || buf != ln->lz_end) /* the streaming road, or a fresh batch */
        return GS_OK;
    const part *pt = &ln->ps->parts[ln->cur];
    const gs_loose_rec *v = ln->lz.v;
    const size_t end = ln->lz.n, max = run->max;
    skip_empty(ln);
    const size_t first = ln->lz_next;
    size_t i = first, n = 0;
    const uint8_t *last = buf;  /* where the last text laid ends */
    uint64_t out = run->out0, residues = 0;
    /* records one after another: an empty one ends the run (ids consecutive) */
    for (; i < end && n < max && v[i].residues > 0; i++, n++) {
        const gs_loose_rec *x = &v[i];
        if ((size_t)(last - buf) >= run->bytes_below)
            break;
        if (out + x->residues > run->out_cap) {
            run->full = 1;
            break;
        }
        const uint8_t *text = ln->lz_at + (text_pos(ln, x) - ln->lz_off);
        run->v[n] = (gs_laid){run->at0 + (uint32_t)(text - buf), (uint32_t)out,
                              (uint32_t)x->residues, x->codes ? 0 : (uint32_t)x->span};
        out += x->residues + 1;
        residues += x->residues;
        last = text + gs_loose_bytes(x);
    }
    ln->lz_next = first + n;
    ln->lz_end = last;
    run->n = n;
    run->record = (uint32_t)(pt->rec_id0 + first);
    run->file = pt->file;
    run->bytes = (size_t)(last - buf);
    run->residues = residues;
    return GS_OK;
}

/* A lane's next segment: the streaming road (raw NULL), or the loose road
 * where a part can take it (raw: how the segment's text lies). */
static gs_status lane_next(lane *ln, uint8_t *buf, size_t room, gs_segment *seg,
                           gs_raw_text *raw, int *more, gs_error *err)
{
    const gs_reader_opts *o = &ln->ps->o;
    *more = 0;
    for (;;) {
        if (ln->lz_on) {
            if (give_loose(ln, buf, seg, raw, more, err) != GS_OK || *more)
                return err->code;
        } else if (ln->r) {
            if (gs_reader_next(ln->r, buf, seg, more, err) != GS_OK)
                return err->code;
            if (*more) {
                if (raw)
                    *raw = (gs_raw_text){.bytes = seg->len};
                return GS_OK;
            }
            if (close_part(ln, err) != GS_OK)
                return err->code;
        }
        /* the first part no lane has taken: the parts before it are taken,
         * each counted first by its lane, so none is read twice */
        size_t k = atomic_fetch_add(&ln->ps->next, 1);
        if (k >= ln->ps->n_parts) { /* the lane's map goes now, on its own thread */
            gs_parts_unmap(ln);
            return GS_OK;
        }
        /* every later call offers block + overlap bytes at least */
        const size_t least = o->block + o->overlap < room ? o->block + o->overlap : room;
        int loose = 0;
        if ((raw && !o->circular && open_loose(ln, k, buf, least, &loose, err) != GS_OK) ||
            (!loose && open_part(ln, k, err) != GS_OK))
            return err->code;
    }
}

gs_status gs_parts_next(void *ctx, uint8_t *buf, gs_segment *seg, int *more, gs_error *err)
{
    return lane_next(ctx, buf, 0, seg, NULL, more, err);
}

gs_status gs_parts_next_raw(void *ctx, uint8_t *buf, size_t room, gs_segment *seg,
                            gs_raw_text *raw, int *more, gs_error *err)
{
    return lane_next(ctx, buf, room, seg, raw, more, err);
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
    gs_status s = fd < 0 ? gs_fail_open(err, "corpus file", path)
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
        *ln = (lane){.ps = ps, .held_part = SIZE_MAX, .lz_part = SIZE_MAX};
        ln->range.fd = -1;
        ln->range.cap = (size_t)(part_bytes + part_bytes / 2);
        if ((ln->range.buf = gs_malloc(ln->range.cap, err, "part buffer")) == NULL ||
            (ln->scratch = gs_malloc(COUNT, err, "part buffer")) == NULL)
            return GS_ESYS;
        ln->hold = ln->range.buf;
        ln->hold_cap = ln->range.cap;
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
    const size_t n = ps->n_parts ? ps->n_parts : 1;
    gs_layout *lay = gs_malloc(n * sizeof *lay, err, "part layouts");
    uint32_t **lens = lay ? gs_malloc(n * sizeof *lens, err, "part layouts") : NULL;
    uint32_t *file = lens ? gs_malloc(n * sizeof *file, err, "part layouts") : NULL;
    if (file == NULL) {
        free(lay);
        free(lens);
        return GS_ESYS;
    }
    for (size_t k = 0; k < ps->n_parts; k++) { /* moved: the join frees them */
        part *pt = &ps->parts[k];
        lay[k] = pt->lens ? (gs_layout){.n_rec = pt->recs, .names_len = pt->recs} : pt->lay;
        lens[k] = pt->lens;
        file[k] = pt->file;
        pt->lay = (gs_layout){0};
        pt->lens = NULL;
    }
    gs_status st = gs_layout_join(ps->layout, lay, ps->n_parts, file, lens, ps->n_lanes, err);
    for (size_t k = 0; k < ps->n_parts; k++)
        free(lens[k]); /* where the join failed before it */
    free(lay);
    free(lens);
    free(file);
    return st;
}

uint64_t gs_parts_bytes_in(const gs_parts *ps)
{
    uint64_t n = 0;
    for (int i = 0; ps->lanes && i < ps->n_lanes; i++)
        n += ps->lanes[i].bytes + ps->lanes[i].range.bytes;
    return n;
}

void gs_parts_times(const gs_parts *ps, double t[GS_PARTS_TIMES])
{
    for (int k = 0; k < GS_PARTS_TIMES; k++)
        t[k] = 0;
    for (int i = 0; ps->lanes && i < ps->n_lanes; i++)
        for (int k = 0; k < GS_PARTS_TIMES; k++)
            t[k] += ps->lanes[i].t[k];
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
        gs_parts_unmap(&ps->lanes[i]);
        if (ps->lanes[i].range.fd >= 0)
            close(ps->lanes[i].range.fd);
        free(ps->lanes[i].range.buf);
        free(ps->lanes[i].scratch);
        free(ps->lanes[i].pk);
        gs_loose_free(&ps->lanes[i].lz);
    }
    for (size_t k = 0; k < ps->n_parts; k++) {
        gs_layout_free(&ps->parts[k].lay);
        free(ps->parts[k].lens);
        free(ps->parts[k].warning);
    }
    pthread_mutex_destroy(&ps->mu);
    pthread_cond_destroy(&ps->cv);
    free(ps->lanes);
    free(ps->parts);
    free(ps->files);
    free(ps);
}
