#!/usr/bin/env bash
# circular.sh - `gscan scan --circular` against a brute force on rotated
# sequences: every record R doubled (R R, not circular) and scanned by the
# brute-force engine; its hits that start in the first turn (start < |R|)
# and span at most one turn are the circular hits of R. Random records
# (length 1, shorter than the patterns, N runs across the origin, sites
# planted across it), exact, --max-mismatches and --max-edits, both strands;
# engines ac, wm, rk, bv and bf; the default threads and 3; plain FASTA
# read by ranges (a .fai, 1-3 ranks, reading threads and tiny blocks that
# put range cuts next to a record's end), built in memory, BGZF through its
# .fai and .gzi, gzip and stdin (streamed, blocks of 1 to 7 residues);
# counts equal the hits' counts; text output and export --seq show the
# matched text across the origin. Without --circular nothing changes (the
# other suites).
set -euo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MPIEXEC=${MPIEXEC:-mpiexec}
# the sanitizer run: one engine a mode, one rank split and two range cuts
quick=${GS_TEST_QUICK:-0}
fails=0 runs=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"

# Records and patterns: sites taken from across each long record's origin,
# so every mode has wrapping hits; records of 1 to 5 residues, shorter than
# most patterns, whose doubled text holds them (no hit: one turn is less).
python3 - <<'EOF'
import random
rnd = random.Random(24)
recs = []
for i in range(40):
    kind = i % 8
    n = {0: 1, 1: 2, 2: 3, 3: 5}.get(kind, rnd.randint(20, 160))
    s = ''.join(rnd.choice('ACGT') for _ in range(n))
    if kind == 4:  # N runs across the origin
        s = 'NN' + s[2:-3] + 'NNN'
    if kind == 5:
        s = s.lower()[:n // 2] + s[n // 2:]
    recs.append(s)
pats = set()
for s in recs:
    if len(s) > 12 and 'N' not in s:
        k = rnd.randint(4, 9)
        cut = rnd.randint(1, k - 1)
        pats.add((s[-cut:] + s[:k - cut]).upper())  # across the origin
for s in recs[:4]:
    pats.add((s * 4)[:6].upper())                   # a short record, many turns
while len(pats) < 36:
    pats.add(''.join(rnd.choice('ACGT') for _ in range(rnd.randint(3, 8))))
pats = sorted(pats)
pats[0] = pats[0][:1] + 'N' + pats[0][2:]            # IUPAC
pats[1] = pats[1][:2] + 'R' + pats[1][3:]
with open('c.fa', 'w') as f, open('d.fa', 'w') as d, open('len.tsv', 'w') as l:
    for i, s in enumerate(recs):
        f.write('>r%d\n' % i)
        for j in range(0, len(s), 13):
            f.write(s[j:j + 13] + '\n')
        d.write('>r%d\n%s\n' % (i, s + s))
        l.write('r%d\t%d\n' % (i, len(s)))
with open('p.fa', 'w') as f:
    for i, p in enumerate(pats):
        f.write('>p%d\n%s\n' % (i, p))
EOF
cp c.fa ci.fa && "$GSCAN" index ci.fa   # read by ranges through its .fai
gzip -c c.fa > c.fa.gz
cp c.fa cb.fa && "$GSCAN" index --bgzf cb.fa >/dev/null   # BGZF ranges: cb.fa.gz, .fai, .gzi

# cut_back DOUBLED LENGTHS PATTERNS [MODE...]: into ref.tsv, the doubled
# records' hits by brute force that start in the first turn and span at
# most one
cut_back() {
  local doubled=$1 lengths=$2 patterns=$3
  shift 3
  "$GSCAN" scan -q -e bf -p "$patterns" -O tsv --report hits "$@" -o - "$doubled" |
    awk -F'\t' 'NR == FNR { len[$1] = $2; next } FNR == 1 || ($2 < len[$1] && $3 - $2 <= len[$1])' \
      "$lengths" - > ref.tsv
}
# reference [MODE...]: the reference hits and counts of c.fa
reference() {
  cut_back d.fa len.tsv p.fa "$@"
  # counts from those hits: pattern, forward, reverse
  awk -F'\t' 'FNR > 1 { c[$4 "\t" $5]++ }
              END { for (k in c) print k "\t" c[k] }' ref.tsv | sort > ref.counts
  grep -q . ref.counts || fail "reference $*: no hits"
  wraps=$(awk -F'\t' 'NR == FNR { len[$1] = $2; next } FNR > 1 && $3 > len[$1]' len.tsv ref.tsv | wc -l)
  [ "$wraps" -gt 0 ] || fail "reference $*: no hit across the origin"
}

# check LABEL WANT FILTER COMMAND...: the command succeeds and its output,
# through FILTER, is the file WANT
check() {
  local label=$1 want=$2 filter=$3
  shift 3
  runs=$((runs + 1))
  if ! "$@" > got.txt 2> err.txt; then
    fail "$label: exit status"; cat err.txt; return
  fi
  "$filter" < got.txt | cmp -s - "$want" ||
    { fail "$label: differs from $want"; "$filter" < got.txt | diff "$want" - | head -5 || true; }
}
# a counts TSV as the reference's pattern, strand, count lines
count_rows() {
  awk -F'\t' 'NR > 1 { if ($4 > 0) print $1 "\t+\t" $4; if ($5 != "." && $5 > 0) print $1 "\t-\t" $5 }' |
    sort
}
hits() { check "$1" ref.tsv cat "${@:2}"; }
counts() { check "$1" ref.counts count_rows "${@:2}"; }

modes=("" "--max-mismatches 1" "--max-edits 2")
for mode in "${modes[@]}"; do
  read -r -a m <<<"$mode"
  reference "${m[@]}"
  engines=(ac wm rk bf)
  [ -n "$mode" ] && engines=(bv bf)
  [ "$quick" = 1 ] && engines=("${engines[0]}")
  base=(-q --circular -p p.fa -O tsv --report hits "${m[@]}")
  for e in "${engines[@]}"; do
    hits "$mode -e $e plain" "$GSCAN" scan "${base[@]}" -e "$e" -o - c.fa
    hits "$mode -e $e .fai --readers 3 --block-size 5" \
      "$GSCAN" scan "${base[@]}" -e "$e" --readers 3 --block-size 5 -o - ci.fa
    counts "$mode -e $e counts" "$GSCAN" scan "${base[@]/hits/counts}" -e "$e" -o - ci.fa
  done
  for b in 1 7; do
    hits "$mode gzip --block-size $b" "$GSCAN" scan "${base[@]}" --block-size "$b" -o - c.fa.gz
  done
  hits "$mode stdin --block-size 2" "$GSCAN" scan "${base[@]}" --block-size 2 -o - - < c.fa
  hits "$mode -t 3" "$GSCAN" scan "${base[@]}" -t 3 --block-size 3 -o - ci.fa
  counts "$mode stdin counts" "$GSCAN" scan "${base[@]/hits/counts}" --block-size 3 -o - - < c.fa
  # ranks: ranges through the .fai (cuts at every few residues with
  # readers), the in-memory index and gzip dealt by rank 0
  hits "$mode n=3 .fai" "$MPIEXEC" -n 3 "$GSCAN" scan "${base[@]}" \
    --block-size 4 -o - ci.fa
  [ "$quick" = 1 ] && continue
  hits "$mode n=2 --readers 2 .fai" "$MPIEXEC" -n 2 "$GSCAN" scan "${base[@]}" \
    --readers 2 --block-size 4 -o - ci.fa
  hits "$mode n=3 in memory" "$MPIEXEC" -n 3 "$GSCAN" scan "${base[@]}" -o - c.fa
  hits "$mode n=2 gzip" "$MPIEXEC" -n 2 "$GSCAN" scan "${base[@]}" --block-size 6 -o - c.fa.gz
  hits "$mode n=2 BGZF" "$MPIEXEC" -n 2 "$GSCAN" scan "${base[@]}" --block-size 5 -o - cb.fa.gz
  counts "$mode n=3 counts" "$MPIEXEC" -n 3 "$GSCAN" scan "${base[@]/hits/counts}" \
    --block-size 4 -o - ci.fa
done

# --best-per-site forms its sites in unrolled coordinates ([start, end), end
# past the length for a wrapping hit): the same sites at any rank count,
# block size and read mode
base=(-q --circular -p p.fa -O tsv --report hits --max-edits 2 --best-per-site)
"$GSCAN" scan "${base[@]}" -o - c.fa > ref.tsv
hits "--best-per-site n=3 .fai" "$MPIEXEC" -n 3 "$GSCAN" scan "${base[@]}" --block-size 3 -o - ci.fa
hits "--best-per-site gzip" "$GSCAN" scan "${base[@]}" --block-size 1 -o - c.fa.gz

# records NAME: from sequences on stdin, one a line, NAME.fa (indexed),
# NAMEd.fa (each record written twice) and NAME.len
records() {
  awk -v f="$1" '{ n = f NR; print ">" n "\n" $0 > (f ".fa"); print ">" n "\n" $0 $0 > (f "d.fa")
                   print n "\t" length($0) > (f ".len") }'
  "$GSCAN" index "$1.fa"
}
# against LABEL NAME PATTERNS RANKS BLOCK MODE...: NAME.fa with --circular on
# RANKS ranks x 3 readers, in each mode, against the cut-back brute force
against() {
  local label=$1 f=$2 pat=$3 n=$4 b=$5 mode
  shift 5
  for mode in "$@"; do
    read -r -a m <<<"$mode"
    cut_back "${f}d.fa" "$f.len" "$pat" "${m[@]}"
    hits "$label $mode" "$MPIEXEC" -n "$n" "$GSCAN" scan -q --circular -p "$pat" -O tsv \
      --report hits "${m[@]}" --readers 3 --block-size "$b" -o - "$f.fa"
  done
}

# range cuts at each distance from a record's end: two records whose split
# among 2 ranks x 3 readers lands 0 to 9 residues before the first one's end
cuts="0 1 2 3 5 9"
[ "$quick" = 1 ] && cuts="0 3"
for d in $cuts; do
  python3 - "$d" <<'EOF' | records e
import random, sys
d = int(sys.argv[1]); rnd = random.Random(d)
a = 61
b = 6 * (a - d) - a           # the first cut of 6 parts at a - d
s = [''.join(rnd.choice('ACGT') for _ in range(n)) for n in (a, b)]
print(s[0]); print(s[1])
with open('ep.fa', 'w') as f:
    for i, k in enumerate(range(3, 10)):
        f.write('>q%d\n%s\n' % (i, s[0][-k // 2:] + s[0][:k - k // 2]))
EOF
  against "cut $d before the end" e ep.fa 2 2 "" "--max-edits 1"
done

# records of 1 to 6 residues only, shorter than most patterns, split
# between 3 ranks x 3 readers: a record's pieces read round it as far as
# one turn allows
python3 -c 'import random
r = random.Random(7)
for i in range(24): print("".join(r.choice("ACGT") for _ in range(1 + i % 6)))' | records t
against "short records" t p.fa 3 1 "" "--max-mismatches 1"

# the matched text runs across the origin: text output, export --seq, BED
printf '>o\nGATTACAGGCC\n>s\nAC\n' > o.fa && "$GSCAN" index o.fa
printf '>x\nCCGAT\n>y\nACA\n' > op.fa
runs=$((runs + 1))
"$GSCAN" scan -q --circular -p op.fa -O tsv --seq -o - o.fa > seq.tsv
printf 'record\tstart\tend\tpattern\tstrand\tmatched\no\t4\t7\ty\t+\tACA\no\t9\t14\tx\t+\tCCGAT\n' |
  cmp -s - seq.tsv ||
  { fail "--seq across the origin"; cat seq.tsv; }
runs=$((runs + 1))
"$GSCAN" scan -q --circular -p op.fa --report hits -o o.h5 o.fa
"$GSCAN" export o.h5 --seq -o - | tail -n 1 | cmp -s - <(printf 'o\t9\t14\tx\t+\tCCGAT\n') ||
  fail "export --seq across the origin"
"$GSCAN" export o.h5 --format bed -o - | cmp -s - <(printf 'o\t4\t7\ty\t0\t+\no\t9\t14\tx\t0\t+\n') ||
  fail "export --format bed across the origin"
"$GSCAN" scan -q -p op.fa --report hits -o lin.h5 o.fa
# (s, 2 residues, holds ACA only read round it: no hit in either run)
"$GSCAN" export lin.h5 -o - | cmp -s - <(printf 'record\tstart\tend\tpattern\tstrand\no\t4\t7\ty\t+\n') ||
  fail "without --circular: a hit across the origin"

# --index cannot serve --circular: a usage error
runs=$((runs + 1))
"$GSCAN" index --lz -o o.gsx o.fa >/dev/null 2>&1 || true
set +e
"$GSCAN" scan -q --circular --index o.gsx -p op.fa -o x.h5 2> err.txt
st=$?
set -e
[ $st = 1 ] && grep -q -- "--circular" err.txt || fail "--circular --index: exit $st, $(cat err.txt)"

echo "$runs runs, $fails failures"
[ "$fails" = 0 ]
