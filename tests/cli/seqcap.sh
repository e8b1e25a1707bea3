#!/usr/bin/env bash
# seqcap.sh GSCAN [gpu] - the matched column of text hit rows (--seq,
# --aligned) comes from the scan itself, on every input: plain FASTA (the
# rows equal export --seq's, which reads the file back through its .fai),
# gzip (one member and several), BGZF, standard input, a FIFO, FASTQ,
# --index X.gsx and --circular, at 1-3 ranks, every CPU engine, exact,
# --max-mismatches and --max-edits; every matched column is also checked
# against a brute-force extraction of [start, end) from the records
# (reverse complement on -, case kept). With gpu, every run uses the GPU
# (exit 77 where none is visible).
set -euo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
device=${2:-cpu}
MPIEXEC=${MPIEXEC:-mpiexec}
quick=${GS_TEST_QUICK:-0}
fails=0 runs=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"

dev=(-d cpu)
engines="ac wm rk"
if [ "$device" = gpu ]; then
  printf '>p\nACGTACGT\n' > probe.fa
  if ! "$GSCAN" scan -q -d gpu -s ACG -o probe.h5 probe.fa 2>/dev/null; then
    echo "seqcap.sh: SKIPPED: no GPU"
    exit 77
  fi
  dev=(-d gpu)
fi
[ "$quick" = 1 ] && engines=ac

# Records in mixed case with N runs and IUPAC codes, lines of 60; patterns
# taken from the records (so hits exist) plus an IUPAC one.
python3 - <<'EOF'
import random
rnd = random.Random(25)
recs = []
for i in range(24):
    n = rnd.choice([0, 5, 40, 200, 900, 3000])
    s = ''.join(rnd.choice('ACGT') for _ in range(n))
    if i % 4 == 1 and n > 50:
        s = s[:20] + s[20:50].lower() + s[50:]
    if i % 4 == 2 and n > 50:
        s = s[:30] + 'NNNNRY' + s[36:]
    recs.append(s)
pats = set()
for s in recs:
    if len(s) > 100:
        for _ in range(2):
            k = rnd.randint(6, 12)
            a = rnd.randint(0, len(s) - k)
            if 'N' not in s[a:a + k]:
                pats.add(s[a:a + k].upper())
pats = sorted(pats)[:20] + ['ACNGT']
with open('c.fa', 'w') as f, open('c.fq', 'w') as q:
    for i, s in enumerate(recs):
        f.write('>r%d desc\n' % i)
        for j in range(0, len(s), 60):
            f.write(s[j:j + 60] + '\n')
        q.write('@r%d\n%s\n+\n%s\n' % (i, s, 'G' * len(s)))
with open('c.pat', 'w') as f:
    for i, p in enumerate(pats):
        f.write('p%d\t%s\n' % (i, p))
EOF
"$GSCAN" index c.fa
gzip -c c.fa > c.fa.gz
awk '/^>r1[2-9]/ && !cut { cut = 1 } { print > (cut ? "b.fa" : "a.fa") }' c.fa
{ gzip -c a.fa; gzip -c b.fa; } > multi.fa.gz
if command -v bgzip >/dev/null; then # BGZF: htslib's where it is installed, else gscan's own
  bgzip -c c.fa > c.fa.bgz
else
  "$GSCAN" index --bgzf -o c.fa.bgz c.fa >/dev/null || { echo "FAIL: gscan index --bgzf"; exit 1; }
  rm -f c.fa.bgz.fai c.fa.bgz.gzi # as bgzip leaves it: no index
fi
gzip -c c.fq > c.fq.gz
"$GSCAN" index --lz c.fa -o c.gsx >/dev/null

# The brute force: every row's matched column against the record's residues
# [start, end) (read past the end from the start again when circular),
# reverse-complemented on -, case kept.
check_rows() { # FILE CIRCULAR
  python3 - "$1" "$2" <<'EOF'
import sys
recs, name = {}, None
for line in open('c.fa'):
    line = line.rstrip('\n')
    if line.startswith('>'):
        name = line[1:].split()[0]; recs[name] = []
    else:
        recs[name].append(line)
recs = {k: ''.join(v) for k, v in recs.items()}
comp = str.maketrans('ACGTacgtNn', 'TGCAtgcaNn')
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1])]
head, bad = rows[0], 0
col = head.index('matched')
for r in rows[1:]:
    s, a, e = recs[r[0]], int(r[1]), int(r[2])
    t = (s + s)[a:e] if sys.argv[2] == '1' else s[a:e]
    if r[4] == '-':
        t = t.translate(comp)[::-1]
    if r[col] != t:
        bad += 1
        if bad < 4:
            print('row', r, 'want', t)
sys.exit(1 if bad or len(rows) < 2 else 0)
EOF
}

run() { # NAME EXPECTED-FILE GSCAN-ARGS...
  local name=$1 want=$2
  shift 2
  runs=$((runs + 1))
  if ! "$@" > got.tsv 2> err.txt; then
    fail "$name: exit status"; head -n 3 err.txt; return
  fi
  cmp -s got.tsv "$want" || { fail "$name: differs from the plain-file rows"; diff "$want" got.tsv | head -n 6; }
}

for match in exact "--max-mismatches 2" "--max-edits 1"; do
  m=($match)
  [ "$match" = exact ] && m=()
  tag=${match// /}
  # the reference: the plain file read back through its .fai (export --seq)
  "$GSCAN" scan -q "${dev[@]}" "${m[@]}" --report hits -p c.pat -o ref.h5 c.fa
  "$GSCAN" export ref.h5 --seq > "want_$tag.tsv"

  check_rows "want_$tag.tsv" 0 || fail "$tag: export --seq against the brute force"
  es=$engines
  [ "$match" != exact ] && es=bv
  for e in $es; do
    S=("$GSCAN" scan -q "${dev[@]}" -e $e "${m[@]}" -p c.pat --seq -o -)
    run "$tag $e plain" "want_$tag.tsv" "${S[@]}" c.fa
    check_rows got.tsv 0 || fail "$tag $e plain: brute force"
    run "$tag $e gzip" "want_$tag.tsv" "${S[@]}" c.fa.gz
    run "$tag $e gzip members" "want_$tag.tsv" "${S[@]}" multi.fa.gz
    run "$tag $e bgzf" "want_$tag.tsv" "${S[@]}" c.fa.bgz
    run "$tag $e stdin" "want_$tag.tsv" sh -c '"$@" < c.fa.gz' sh "${S[@]}" -
    rm -f fifo && mkfifo fifo
    (timeout 60 sh -c 'cat c.fa > fifo' &)
    run "$tag $e fifo" "want_$tag.tsv" "${S[@]}" fifo
    run "$tag $e fastq" "want_$tag.tsv" "${S[@]}" c.fq
    run "$tag $e fastq gzip" "want_$tag.tsv" "${S[@]}" c.fq.gz
    run "$tag $e small blocks" "want_$tag.tsv" "${S[@]}" --block-size 97 -t 3 c.fa.gz
    [ "$match" = exact ] && run "$tag $e index" "want_$tag.tsv" "${S[@]}" --index c.gsx
    for n in 2 3; do
      [ "$quick" = 1 ] && [ $n = 3 ] && continue
      run "$tag $e $n ranks plain" "want_$tag.tsv" "$MPIEXEC" -n $n "${S[@]}" --block-size 500 c.fa
      run "$tag $e $n ranks gzip" "want_$tag.tsv" "$MPIEXEC" -n $n "${S[@]}" --block-size 500 c.fa.gz
      run "$tag $e $n ranks stdin" "want_$tag.tsv" sh -c '"$@" < c.fa' sh "$MPIEXEC" -n $n "${S[@]}" --block-size 500 -
      [ "$match" = exact ] && run "$tag $e $n ranks index" "want_$tag.tsv" "$MPIEXEC" -n $n "${S[@]}" --index c.gsx
    done
  done
  # --aligned (which implies --seq) on gzip and at 2 ranks as on the plain file
  A=("$GSCAN" scan -q "${dev[@]}" "${m[@]}" -p c.pat --aligned -o -)
  if [ "$match" != exact ]; then
    "${A[@]}" c.fa > "wanta_$tag.tsv"
    check_rows "wanta_$tag.tsv" 0 || fail "$tag --aligned: brute force"
    run "$tag aligned gzip" "wanta_$tag.tsv" "${A[@]}" c.fa.gz
    run "$tag aligned 2 ranks stdin" "wanta_$tag.tsv" sh -c '"$@" < c.fa.gz' sh "$MPIEXEC" -n 2 "${A[@]}" -
  fi
  # --circular: hits across the origin carry the text of both ends
  "$GSCAN" scan -q "${dev[@]}" "${m[@]}" --circular --report hits -p c.pat -o refc.h5 c.fa
  "$GSCAN" export refc.h5 --seq > "wantc_$tag.tsv"
  check_rows "wantc_$tag.tsv" 1 || fail "$tag circular: export --seq against the brute force"
  C=("$GSCAN" scan -q "${dev[@]}" "${m[@]}" --circular -p c.pat --seq -o -)
  run "$tag circular plain" "wantc_$tag.tsv" "${C[@]}" c.fa
  run "$tag circular gzip" "wantc_$tag.tsv" "${C[@]}" c.fa.gz
  run "$tag circular 3 ranks stdin" "wantc_$tag.tsv" sh -c '"$@" < c.fa' sh "$MPIEXEC" -n 3 "${C[@]}" --block-size 300 -
done

# A site planted across the origin: its text is the record's end, then its start.
printf '>o\nGATTACAAAAAAAACCG\n' > o.fa
printf 'x\tCCGGA\n' > op.pat
gzip -c o.fa > o.fa.gz
runs=$((runs + 1))
"$GSCAN" scan -q "${dev[@]}" --circular -p op.pat --seq -o - - < o.fa.gz | tail -n 1 |
  cmp -s - <(printf 'o\t14\t19\tx\t+\tCCGGA\n') || fail "stdin circular: across the origin"

# export --seq has no text of a streamed corpus to read: it says so.
runs=$((runs + 1))
"$GSCAN" scan -q --report hits -p c.pat -o g.h5 c.fa.gz
if "$GSCAN" export g.h5 --seq > /dev/null 2> err.txt; then
  fail "export --seq of a gzip corpus: exit 0"
else
  rc=$?
  { [ $rc = 2 ] && grep -q 'c.fa.gz' err.txt && grep -q 'gscan scan' err.txt; } ||
    { fail "export --seq of a gzip corpus: exit $rc"; cat err.txt; }
fi

echo "seqcap.sh: $runs runs, $fails failures"
[ $fails = 0 ]
