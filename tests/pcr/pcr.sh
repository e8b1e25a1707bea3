#!/usr/bin/env bash
# pcr.sh - gscan pcr against a brute force (brute.py: every primer site found
# position by position, every site combination tried): random records with
# primer sites planted in all four orientations and 0-3 mismatches, IUPAC
# primers, pairs that share a primer and a pair of one primer twice, windows
# per pair and from --product-size, records shorter than a product, sites
# at record ends, a product across a circular record's origin. K = 0..2,
# linear and --circular; one process with 1 and 4 threads and small blocks,
# 2 and 3 ranks (plain files read by ranges, a gzip file streamed), standard
# input; the TSV, the HDF5 /amplicons columns (and the same file at 3
# ranks), BED, FASTA (through the .fai), --tally record and its export.
#
# pcr.sh GSCAN [gpu]: with gpu, every run uses the GPU against the same
# brute force; exit 77 where no GPU is visible.
set -euo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
device=${2:-cpu}
BRUTE=$(cd "$(dirname "$0")" && pwd)/brute.py
MPIEXEC=${MPIEXEC:-mpiexec}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fails=0 runs=0
dev=(-d cpu)
if [ "$device" = gpu ]; then
  printf '>r\nACGT\n' > probe.fa
  if ! "$GSCAN" scan -q -d gpu --max-mismatches 1 -s ACG -o probe.h5 probe.fa 2>/dev/null; then
    echo "pcr.sh: no GPU visible, skipped"
    exit 77
  fi
  dev=(-d gpu)
fi
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
same() { # same WANT GOT WHAT
  runs=$((runs + 1))
  cmp -s "$1" "$2" || { fail "$3"; diff "$1" "$2" | head -5; }
}

python3 "$BRUTE" gen 25 .
gzip -c b.fa > b.fa.gz
pcr() { "$GSCAN" pcr -q "${dev[@]}" -p pairs.tsv "$@"; }

for K in 0 1 2; do
  for circ in 0 1; do
    c=(); [ "$circ" = 1 ] && c=(--circular)
    python3 "$BRUTE" products pairs.tsv "$K" 1 4000 "$circ" a.fa b.fa > want.tsv
    w="K=$K circular=$circ"
    pcr --max-mismatches "$K" "${c[@]}" -o - a.fa b.fa > got.tsv
    same want.tsv got.tsv "$w: one process"
    for t in 1 4; do
      pcr --max-mismatches "$K" "${c[@]}" -t $t --block-size 300 -o got.tsv a.fa b.fa
      same want.tsv got.tsv "$w: -t $t, blocks of 300"
    done
    for n in 2 3; do
      $MPIEXEC -n $n "$GSCAN" pcr -q "${dev[@]}" -p pairs.tsv --max-mismatches "$K" "${c[@]}" \
        --block-size 300 -o - a.fa b.fa > got.tsv
      same want.tsv got.tsv "$w: $n ranks"
      $MPIEXEC -n $n "$GSCAN" pcr -q "${dev[@]}" -p pairs.tsv --max-mismatches "$K" "${c[@]}" \
        -o - a.fa b.fa.gz > got.tsv
      same want.tsv got.tsv "$w: $n ranks, gzip streamed"
    done
    cat a.fa b.fa | pcr --max-mismatches "$K" "${c[@]}" -o - - > got.tsv
    # standard input is one file: the same records, the same products
    same want.tsv got.tsv "$w: standard input"
  done
done
grep -q $'a_wrap\t450\t560\tforward' want.tsv || fail "no product across the origin planted"

# --exact-3p: a site binds only where its primer's 3' end matches exactly
for e3 in 2 5; do
  PCR_E3=$e3 python3 "$BRUTE" products pairs.tsv 2 1 4000 1 a.fa b.fa > want.tsv
  pcr --max-mismatches 2 --exact-3p $e3 --circular -o - a.fa b.fa > got.tsv
  same want.tsv got.tsv "--exact-3p $e3, circular"
  $MPIEXEC -n 2 "$GSCAN" pcr -q "${dev[@]}" -p pairs.tsv --max-mismatches 2 --exact-3p $e3 \
    --block-size 300 -o - a.fa b.fa > got.tsv
  PCR_E3=$e3 python3 "$BRUTE" products pairs.tsv 2 1 4000 0 a.fa b.fa > want.tsv
  same want.tsv got.tsv "--exact-3p $e3, 2 ranks"
done
cmp -s want.tsv <(python3 "$BRUTE" products pairs.tsv 2 1 4000 0 a.fa b.fa) &&
  fail "--exact-3p 5 removed no product: the case tests nothing"

# --product-size for the pairs without a window of their own
python3 "$BRUTE" products pairs.tsv 2 100 800 0 a.fa b.fa > want.tsv
pcr --max-mismatches 2 --product-size 100-800 -o - a.fa b.fa > got.tsv
same want.tsv got.tsv "--product-size 100-800"

# HDF5: /amplicons's columns are the TSV's (pair and kind as indexes)
python3 "$BRUTE" products pairs.tsv 2 1 4000 1 a.fa b.fa > want.tsv
pcr --max-mismatches 2 --circular --tally record -o out.h5 a.fa b.fa
# one dataset's values, one a line (h5dump -y -w 0 writes them on one line)
dump() { h5dump -y -w 0 -d "$1" out.h5 | awk '/^ *DATA {/{d=1;next} d&&/}/{d=0} d' |
         sed 's/\\000//g' | tr -d ' "' | tr ',' '\n' | grep -v '^$' || true; }
col() { dump "/amplicons/$1"; }
grep -h '^>' a.fa b.fa | sed 's/^>//; s/ .*//' > rec.txt
col pair_name > names.txt
paste <(col pair) <(col record) <(col start) <(col end) <(col kind) <(col mismatches_5) \
      <(col mismatches_3) > cols.txt
awk -F'\t' 'BEGIN { split("forward revcomp single_A single_B", k, " ")
                    print "pair\trecord\tstart\tend\tkind\tmismatches_5\tmismatches_3\tsize" }
    FILENAME == "names.txt" { pair[FNR - 1] = $0; next }
    FILENAME == "rec.txt" { rec[FNR - 1] = $0; next }
    { print pair[$1] "\t" rec[$2] "\t" $3 "\t" $4 "\t" k[$5 + 1] "\t" $6 "\t" $7 "\t" $4 - $3 }' \
    names.txt rec.txt cols.txt > got.tsv
same want.tsv got.tsv "HDF5 /amplicons"
h5dump -a /amplicons/kinds out.h5 | grep -q 'forward,revcomp,single_A,single_B' ||
  fail "/amplicons kinds attribute"
# --tally record: products per (record, pair)
paste <(dump /tally/unit) <(dump /tally/pattern) <(dump /tally/count) | sort > got.txt
awk -F'\t' 'FILENAME == "rec.txt" { id[$0] = FNR - 1; next }
  FILENAME == "names.txt" { pid[$0] = FNR - 1; next }
  FNR > 1 { n[id[$2] "\t" pid[$1]]++ } END { for (k in n) print k "\t" n[k] }' \
  rec.txt names.txt want.tsv | sort > want.txt
same want.txt got.txt "--tally record"
# gscan export --matrix names the pairs, with the same counts
"$GSCAN" export out.h5 --matrix record > matrix.tsv
[ "$(head -1 matrix.tsv)" = "unit	$(paste -sd '\t' names.txt)" ] || fail "export --matrix header"
awk -F'\t' 'NR > 1 { for (i = 2; i <= NF; i++) if ($i > 0) print NR - 2 "\t" i - 2 "\t" $i }' \
  matrix.tsv | sort > got.txt
same want.txt got.txt "export --matrix of products"
# the same file at 3 ranks: /amplicons, /tally and /counts
$MPIEXEC -n 3 "$GSCAN" pcr -q "${dev[@]}" -p pairs.tsv --max-mismatches 2 --circular \
  --tally record --block-size 300 -o three.h5 a.fa b.fa
runs=$((runs + 1))
for g in /amplicons /tally /counts; do
  h5diff out.h5 three.h5 $g $g >/dev/null || fail "HDF5 $g at 3 ranks"
done

# BED6 and FASTA from the same products
awk -F'\t' 'NR > 1 { print $2 "\t" $3 "\t" $4 "\t" $1 ":" $5 "\t" $6 + $7 "\t+" }' want.tsv > want.bed
pcr --max-mismatches 2 --circular -o got.bed a.fa b.fa
same want.bed got.bed "BED"
"$GSCAN" index a.fa b.fa >/dev/null
python3 "$BRUTE" fasta want.tsv a.fa b.fa > want.fa
pcr --max-mismatches 2 --circular -o got.fa a.fa b.fa
same want.fa got.fa "FASTA"
set +e
pcr -o x.fa b.fa.gz 2>err.txt
rc=$?
set -e
[ "$rc" = 2 ] && grep -q "run gscan index" err.txt || fail "FASTA of a gzip file: exit $rc"

echo "pcr.sh: $runs comparisons, $fails failed"
[ "$fails" = 0 ]
