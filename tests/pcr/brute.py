#!/usr/bin/env python3
"""brute.py - the products of gscan pcr by definition, for tests/pcr/pcr.sh.

brute.py gen SEED DIR: write DIR/a.fa, DIR/b.fa (random records with primer
sites planted in all four orientations, 0-2 mismatches, records shorter than
a product, sites at record ends) and DIR/pairs.tsv (IUPAC primers, pairs
sharing a primer, windows of their own and not).
brute.py fasta TSV FASTA...: the product sequences of gscan pcr's TSV rows.
brute.py products PAIRS K MIN MAX CIRCULAR FASTA...: every product as the
TSV rows of gscan pcr (header included), each primer site found position by
position and every (forward site, reverse site, pair, kind) tried.
"""
import random
import os
import sys

IUPAC = {'A': 'A', 'C': 'C', 'G': 'G', 'T': 'T', 'U': 'T', 'R': 'AG', 'Y': 'CT', 'S': 'CG',
         'W': 'AT', 'K': 'GT', 'M': 'AC', 'B': 'CGT', 'D': 'AGT', 'H': 'ACT', 'V': 'ACG',
         'N': 'ACGT'}
COMP = str.maketrans('ACGTRYSWKMBDHVN', 'TGCAYRSWMKVHDBN')
KINDS = ['forward', 'revcomp', 'single_A', 'single_B']


def rc(s):
    return s.upper().translate(COMP)[::-1]


def concrete(p, rng):
    return ''.join(rng.choice(IUPAC[c]) for c in p)


def mutate(s, k, rng):
    s = list(s)
    for i in rng.sample(range(len(s)), k):
        s[i] = rng.choice([b for b in 'ACGT' if b != s[i]])
    return ''.join(s)


def gen(seed, d):
    rng = random.Random(seed)
    primers = {'A1': 'AGAGTTTGATCMTGGCTCAG', 'B1': 'GGTTACCTTGTTACGACTT',
               'A2': 'GTGCCAGCMGCCGCGGTAA', 'B2': 'GGACTACHVGGGTWTCTAAT',
               'C3': 'ACGTTGCAAGGCTTACNA'}
    pairs = [('p16S', 'A1', 'B1', None), ('v4', 'A2', 'B2', (60, 500)),
             ('mix', 'A1', 'B2', (40, 900)), ('self', 'C3', 'C3', (30, 300))]
    with open(d + '/pairs.tsv', 'w') as f:
        f.write('# name\tA\tB\tmin\tmax\n\n')
        for name, a, b, w in pairs:
            f.write('\t'.join([name, primers[a].lower() if name == 'mix' else primers[a],
                               primers[b]] + ([str(w[0]), str(w[1])] if w else [])) + '\n')
    names = list(primers)
    for fname, n_rec in (('a.fa', 4), ('b.fa', 3)):
        with open(d + '/' + fname, 'w') as f:
            for r in range(n_rec):
                L = rng.choice([35, 60, 400, 1500, 3000])
                s = [rng.choice('ACGT') for _ in range(L)]
                for _ in range(L // 40):
                    p = primers[rng.choice(names)]
                    site = mutate(concrete(p, rng), rng.choice([0, 0, 1, 2, 3]), rng)
                    if rng.random() < 0.5:
                        site = rc(site)
                    if len(site) > L:
                        continue
                    pos = rng.choice([0, L - len(site), rng.randrange(L - len(site) + 1)])
                    s[pos:pos + len(site)] = site
                write_rec(f, '%s_r%d some description' % (fname[0], r), ''.join(s))
            # a v4 product across the origin when the record is circular
            s = [rng.choice('ACGT') for _ in range(500)]
            s[450:469] = primers['A2'].replace('M', 'A')
            s[40:60] = rc(primers['B2'].replace('H', 'A').replace('V', 'C').replace('W', 'T'))
            write_rec(f, fname[0] + '_wrap', ''.join(s))


def write_rec(f, header, seq):
    f.write('>' + header + '\n')
    for i in range(0, len(seq), 70):
        f.write(seq[i:i + 70] + '\n')


def read_fasta(paths):
    recs = []
    for p in paths:
        name, seq = None, []
        for line in open(p):
            line = line.rstrip('\n')
            if line.startswith('>'):
                if name is not None:
                    recs.append((name, ''.join(seq).upper()))
                name, seq = line[1:].split()[0], []
            else:
                seq.append(line)
        if name is not None:
            recs.append((name, ''.join(seq).upper()))
    return recs


def dist(p, t):
    return sum(1 for a, b in zip(p, t) if b not in IUPAC[a])


def sites(text, L, p, K, circular, reverse):
    q = rc(p) if reverse else p
    m = len(q)
    # --exact-3p: the primer's 3'-most E3 positions match exactly; on the
    # reverse strand they are the site's leftmost on the forward text
    e3 = min(int(os.environ.get('PCR_E3', '0')), m)
    zone = slice(0, e3) if reverse else slice(m - e3, m)
    out = []
    last = L if circular else L - m + 1
    if m > L:
        return out
    ext = text + text if circular else text
    for s in range(max(last, 0)):
        d = dist(q, ext[s:s + m])
        if d <= K and (e3 == 0 or dist(q[zone], ext[s:s + m][zone]) == 0):
            out.append((s, s + m, d))
    return out


def products(pairs_path, K, dmin, dmax, circular, fastas):
    pairs = []
    for line in open(pairs_path):
        line = line.rstrip('\r\n')
        if not line.strip(' \t') or line.startswith('#'):
            continue
        f = line.split('\t')
        w = (int(f[3]), int(f[4])) if len(f) == 5 else (dmin, dmax)
        pairs.append((f[0], f[1].upper(), f[2].upper(), w))
    rows = []
    for ri, (rname, text) in enumerate(read_fasta(fastas)):
        L = len(text)
        fw, rv = {}, {}
        for pr in {p for _, a, b, _ in pairs for p in (a, b)}:
            fw[pr] = sites(text, L, pr, K, circular, False)
            rv[pr] = sites(text, L, pr, K, circular, True)
        for pi, (pname, a, b, (lo, hi)) in enumerate(pairs):
            for k, (x, y) in enumerate(((a, b), (b, a), (a, a), (b, b))):
                for s, _, d5 in fw[x]:
                    for t, e, d3 in rv[y]:
                        for shift in ((0, L) if circular else (0,)):
                            tt, ee = t + shift, e + shift
                            size = ee - s
                            if tt < s or size < lo or size > hi or (circular and size > L):
                                continue
                            rows.append((ri, s, ee, pi, k, pname, rname, d5, d3))
    rows.sort()
    print('pair\trecord\tstart\tend\tkind\tmismatches_5\tmismatches_3\tsize')
    for ri, s, e, pi, k, pname, rname, d5, d3 in rows:
        print('%s\t%s\t%d\t%d\t%s\t%d\t%d\t%d' % (pname, rname, s, e, KINDS[k], d5, d3, e - s))


def fasta(tsv, fastas):
    """The product sequences of gscan pcr's TSV rows, as -o X.fa writes them."""
    recs = dict(read_fasta(fastas))
    for line in open(tsv):
        f = line.rstrip('\n').split('\t')
        if f[0] == 'pair':
            continue
        text, s, e = recs[f[1]], int(f[2]), int(f[3])
        seq = (text + text)[s:e]
        print('>%s:%s %s:%d-%d' % (f[0], f[4], f[1], s, e))
        for i in range(0, len(seq), 60):
            print(seq[i:i + 60])


if __name__ == '__main__':
    if sys.argv[1] == 'gen':
        gen(int(sys.argv[2]), sys.argv[3])
    elif sys.argv[1] == 'fasta':
        fasta(sys.argv[2], sys.argv[3:])
    else:
        products(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]),
                 sys.argv[6] == '1', sys.argv[7:])
