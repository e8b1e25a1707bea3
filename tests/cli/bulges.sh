#!/usr/bin/env bash
# bulges.sh GSCAN [cpu|gpu] - --max-mismatches K --max-bulges B end to end.
#
# cpu: (1) guides with an exact NGG (--exact-3p 3) planted in random DNA
# with a residue deleted, one inserted, a mismatch beside a bulge, a bulge
# inside the PAM (no hit) and on the reverse strand, against a brute force
# of its own here (every alignment within the two budgets, from the
# definition); 1 and 2 ranks, small blocks, stdin. (2) Guides cut from a
# real genome (lambda phage), K 0..2 x B 1..2, against the reference engine
# (--verify) at 1 and 2 ranks; every --aligned row and -O cas row must say
# what its hit is: at most K mismatches (X) and B bulge residues (I, D),
# their sum the distance, the PAM's three columns matched.
# gpu: the same runs on the GPU (exit 77 without one) against the CPU's
# rows, with long keys (> 64 residues) and blocks down to 64 residues.
set -euo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
DEV=${2:-cpu}
MPIEXEC=${MPIEXEC:-mpiexec}
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -s "$root/data/cache/lambda_virus.fa.gz" ] &&
   ! "$root/scripts/fetch-examples.sh" bowtie2-examples >/dev/null 2>&1; then
  echo "bulges.sh: SKIPPED: cannot unpack the example genomes (apt-get download failed)"; exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
printf '>probe\nACGTACGTAC\n' > probe.fa
if [ "$DEV" = gpu ] && ! "$GSCAN" scan -q -d gpu -s ACGT -O tsv -o probe.tsv probe.fa 2>/dev/null; then
  echo "bulges.sh: SKIPPED: no GPU visible"; exit 77
fi
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
cols() { grep -v '^record' "$1" | cut -f1-6 | sort; }

# ---- (1) planted sites against the definition --------------------------
python3 - <<'EOF'
import random
rnd = random.Random(11)
comp = str.maketrans('ACGT', 'TGCA')
rc = lambda s: s.translate(comp)[::-1]
guides = [''.join(rnd.choice('ACGT') for _ in range(20)) for _ in range(3)]
parts = []
def add(site):
    parts.append(''.join(rnd.choice('ACGT') for _ in range(rnd.randint(30, 60))) + site)
for g in guides:
    add(g + 'AGG')                          # exact
    add(g[:7] + g[8:] + 'CGG')              # a guide residue the text lacks
    add(g[:12] + 'T' + g[12:] + 'TGG')      # a residue the guide lacks
    x = list(g); x[3] = 'A' if x[3] != 'A' else 'C'
    add(''.join(x[:15] + x[16:]) + 'GGG')   # a mismatch and a bulge
    add(g + 'GAG')                          # a bulge inside the PAM: no hit
    add(rc(g[:5] + g[6:] + 'TGG'))          # the reverse strand, a bulge
add('')
seq = ''.join(parts)
with open('planted.fa', 'w') as f:
    f.write('>planted\n' + '\n'.join(seq[i:i + 60] for i in range(0, len(seq), 60)) + '\n')
with open('g.pat', 'w') as f:
    f.write(''.join('g%d\t%sNGG\n' % (i, g) for i, g in enumerate(guides)))
open('seq.txt', 'w').write(seq)
open('guides.txt', 'w').write('\n'.join(g + 'NGG' for g in guides))
EOF
brute() { # K B: every hit, from the definition (zone NGG: 3 matched columns at the 3' end)
  python3 - "$1" "$2" <<'EOF'
import sys
K, B = int(sys.argv[1]), int(sys.argv[2])
s = open('seq.txt').read()
guides = open('guides.txt').read().split()
comp = str.maketrans('ACGTN', 'TGCAN')
def ok(p, c):
    return p == 'N' or p == c
rows = []
for gi, g in enumerate(guides):
    m, z = len(g), 3
    for strand in ('+', '-'):
        key = g if strand == '+' else g.translate(comp)[::-1]
        best = {}
        for st in range(len(s)):
            # the zone: the key's last 3 (+) or first 3 (-) residues as matched columns
            if strand == '-' and not all(ok(key[i], s[st + i]) for i in range(z) if st + i < len(s)):
                continue
            # D[(i, l, b)] = fewest mismatches of key[:i] against s[st:st+l] with b bulge residues
            D = {(0, 0, 0): 0}
            for i in range(m + 1):
                zi = (i - 1 >= m - z) if strand == '+' else (i - 1 < z)  # key[i-1] in the zone
                for l in range(m + B + 1):
                    if st + l > len(s):
                        break
                    for b in range(B + 1):
                        if i == 0 and l == 0:
                            continue
                        v = []
                        if i and l and (i - 1, l - 1, b) in D:
                            x = 0 if ok(key[i - 1], s[st + l - 1]) else 1
                            if not (zi and x):
                                v.append(D[(i - 1, l - 1, b)] + x)
                        if i and b and not zi and (i - 1, l, b - 1) in D:
                            v.append(D[(i - 1, l, b - 1)])
                        gap = (i <= m - z) if strand == '+' else (i >= z)
                        if l and b and gap and (i, l - 1, b - 1) in D:
                            v.append(D[(i, l - 1, b - 1)])
                        if v and min(v) <= K:
                            D[(i, l, b)] = min(v)
            for l in range(m + B + 1):
                for b in range(B + 1):
                    if (m, l, b) in D:
                        e, d = st + l, D[(m, l, b)] + b
                        if e not in best or d < best[e][0]:
                            best[e] = (d, st)
        for e, (d, st) in best.items():
            rows.append('planted\t%d\t%d\tg%d\t%s\t%d' % (st, e, gi, strand, d))
print('\n'.join(sorted(rows)))
EOF
}
for kb in "0 1" "1 1" "1 2"; do
  set -- $kb
  brute "$1" "$2" > want.txt
  [ -s want.txt ] || fail "K=$1 B=$2: the brute force found nothing"
  opts=(-q -d "$DEV" --max-mismatches "$1" --max-bulges "$2" --exact-3p 3 -p g.pat -O tsv)
  "$GSCAN" scan "${opts[@]}" -o a.tsv planted.fa
  cols a.tsv | cmp -s - want.txt || { fail "planted K=$1 B=$2"; diff <(cols a.tsv) want.txt | head -5; }
  echo "planted K=$1 B=$2: $(wc -l < want.txt) hits"
  "$MPIEXEC" -n 2 "$GSCAN" scan "${opts[@]}" --block-size 100 -o - - < planted.fa > b.tsv
  cols b.tsv | cmp -s - want.txt || fail "planted K=$1 B=$2, 2 ranks, stdin, blocks of 100"
done

# ---- (2) a real genome: the reference engine, and what each row says ---
zcat "$root/data/cache/lambda_virus.fa.gz" > lambda.fa
"$GSCAN" index lambda.fa # gscan export reads the hits' residues through it
python3 - <<'EOF'
import random
s = ''.join(l.strip() for l in open('lambda.fa') if not l.startswith('>')).upper()
rnd = random.Random(5)
out = []
while len(out) < 8:
    a = rnd.randint(0, len(s) - 30)
    w = s[a:a + 23]
    if w.endswith('GG') and 'N' not in w:
        g = list(w[:20])
        if len(out) % 2:  # a residue deleted or doubled: the genome's site is a bulge hit
            j = rnd.randint(1, 18)
            g = g[:j] + g[j + 1:] + [rnd.choice('ACGT')] if len(out) % 4 == 1 else g[:j] + [g[j]] + g[j:-1]
        out.append(''.join(g) + 'NGG')
open('lg.pat', 'w').write(''.join('l%d\t%s\n' % (i, g) for i, g in enumerate(out)))
# long keys: 80 residues with an NGG end
a = s.find('GG', 30000)
open('long.pat', 'w').write('long\t%sNGG\n' % s[a - 80:a - 3])
EOF
check_rows() { # TSV K B: the aligned and cigar columns against the row
  python3 - "$@" <<'EOF'
import re, sys
path, K, B = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
bad = 0
n = 0
for line in open(path):
    if line.startswith('record'):
        continue
    f = line.rstrip('\n').split('\t')
    d, aligned, cigar = int(f[5]), f[7], f[8]
    ops = re.findall(r'(\d+)([=XID])', cigar)
    cnt = {o: 0 for o in '=XID'}
    for k, o in ops:
        cnt[o] += int(k)
    seq = ''.join(o * int(k) for k, o in ops)
    n += 1
    if cnt['X'] > K or cnt['I'] + cnt['D'] > B or cnt['X'] + cnt['I'] + cnt['D'] != d \
       or not seq.endswith('==='):
        bad += 1
        if bad < 4:
            print('bad row:', line.strip())
sys.exit(1 if bad or n == 0 else 0)
EOF
}
for kb in "0 1" "1 1" "2 2"; do
  set -- $kb
  opts=(-q --max-mismatches "$1" --max-bulges "$2" --exact-3p 3 -p lg.pat)
  "$GSCAN" scan "${opts[@]}" -d cpu --verify -O tsv -o ref.tsv lambda.fa 2> verify.txt ||
    fail "lambda K=$1 B=$2 --verify"
  if [ "$DEV" = cpu ]; then
    grep -q "agree on every count and hit" verify.txt || fail "lambda K=$1 B=$2: --verify said $(cat verify.txt)"
    "$MPIEXEC" -n 2 "$GSCAN" scan "${opts[@]}" -d cpu --verify --block-size 4000 -O tsv -o two.tsv lambda.fa 2> verify.txt ||
      fail "lambda K=$1 B=$2 --verify, 2 ranks"
    cmp -s <(cols ref.tsv) <(cols two.tsv) || fail "lambda K=$1 B=$2: 2 ranks"
  else
    for n in 1 2; do
      "$MPIEXEC" -n $n "$GSCAN" scan "${opts[@]}" -d gpu --block-size 64 -O tsv -o gpu.tsv lambda.fa ||
        fail "lambda K=$1 B=$2 GPU, $n ranks"
      cmp -s <(cols ref.tsv) <(cols gpu.tsv) || { fail "lambda K=$1 B=$2: GPU at $n ranks"; diff <(cols ref.tsv) <(cols gpu.tsv) | head -5; }
    done
    "$GSCAN" scan -q --max-mismatches "$1" --max-bulges "$2" --exact-3p 3 -p long.pat -d cpu -O tsv -o lref.tsv lambda.fa
    "$GSCAN" scan -q --max-mismatches "$1" --max-bulges "$2" --exact-3p 3 -p long.pat -d gpu -O tsv -o lgpu.tsv lambda.fa
    [ -s lref.tsv ] && cmp -s <(cols lref.tsv) <(cols lgpu.tsv) || fail "long key K=$1 B=$2: GPU"
  fi
  "$GSCAN" scan "${opts[@]}" -d "$DEV" --aligned -O tsv -o al.tsv lambda.fa
  check_rows al.tsv "$1" "$2" || fail "lambda K=$1 B=$2: --aligned rows"
  echo "lambda K=$1 B=$2: $(grep -vc ^record al.tsv) hits"
  "$GSCAN" scan "${opts[@]}" -d "$DEV" -O cas -o cas.txt lambda.fa
  # cas: seven columns, mismatches then bulges, a row for each hit
  [ "$(wc -l < cas.txt)" = "$(grep -vc ^record al.tsv)" ] || fail "lambda K=$1 B=$2: -O cas rows counted"
  awk -F'\t' -v B="$2" -v K="$1" 'NF != 7 || $6 > K || $7 > B { bad++ } END { exit bad > 0 || NR == 0 }' cas.txt ||
    fail "lambda K=$1 B=$2: -O cas rows"
  # the result file says the budgets, and its export draws the same rows
  "$GSCAN" scan "${opts[@]}" -d "$DEV" --report hits -o r.h5 lambda.fa
  "$GSCAN" info r.h5 > info.txt
  grep -q "mismatches, K = $1, bulges B = $2" info.txt || fail "lambda K=$1 B=$2: gscan info"
  "$GSCAN" export r.h5 -O cas -o - | sort | cmp -s - <(sort cas.txt) || fail "lambda K=$1 B=$2: export -O cas"
done
# patterns with their own K (and one its own exact_3p): a pattern's K is its
# mismatch budget, B the run's
awk -F'\t' '{ printf "%s\t%s\t%d\t%s\n", $1, $2, NR % 3, NR == 2 ? 0 : "-" }' lg.pat > own.pat
own0=(-q --max-mismatches 1 --max-bulges 1 --exact-3p 3 -p own.pat)
own=("${own0[@]}" -O tsv)
"$GSCAN" scan "${own[@]}" -d cpu --verify -o own_ref.tsv lambda.fa 2> verify.txt || fail "own K --verify"
grep -q "agree on every count and hit" verify.txt || fail "own K: --verify said $(cat verify.txt)"
# each pattern's zone is in the result file: export draws as the scan did
"$GSCAN" scan "${own0[@]}" -d "$DEV" -O cas -o own_cas.txt lambda.fa
"$GSCAN" scan "${own0[@]}" -d "$DEV" --report hits -o own.h5 lambda.fa
"$GSCAN" export own.h5 -O cas -o - | sort | cmp -s - <(sort own_cas.txt) || fail "own K: export -O cas"
if [ "$DEV" = gpu ]; then
  "$GSCAN" scan "${own[@]}" -d gpu --block-size 64 -o own_gpu.tsv lambda.fa
  cmp -s <(cols own_ref.tsv) <(cols own_gpu.tsv) || fail "own K: GPU"
fi
echo "own K: $(grep -vc ^record own_ref.tsv) hits"
echo "bulges.sh ($DEV): $fails failures"
[ $fails = 0 ]
