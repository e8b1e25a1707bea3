#!/usr/bin/env bash
# engines.sh - every engine x strand mode x report mode x alphabet gives the
# same counts and hits as the brute-force engine (bf), end to end through
# `gscan gen` workloads: lengths 1..64, thousands of patterns, duplicates,
# palindromes, degenerate codes, planted and absent, N runs, lowercase, many
# records, and tiny block sizes so hits straddle block edges. Corpus sizes
# keep each workload near a million hits or fewer: the hits, not the
# residues, are what a run spends its time on.
set -euo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
quick=${GS_TEST_QUICK:-0}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fails=0 runs=0
check() { # name, then h5diff of /counts and /hits (when present) against ref.h5
  local name=$1 with_hits=$2
  runs=$((runs + 1))
  if ! h5diff -q ref.h5 out.h5 /counts /counts >/dev/null ||
     { [ "$with_hits" = 1 ] && ! h5diff -q ref.h5 out.h5 /hits /hits >/dev/null; }; then
    echo "FAIL $name"; fails=$((fails + 1))
  fi
}
seeds="1 2 3 4 5 6"
[ "$quick" = 1 ] && seeds="1 2"
for seed in $seeds; do
  case $seed in
    1) gen=(-n 12K -r 7 -k 2000 --min-length 1 --max-length 16) ;;  # ~1.3 M hits
    2) gen=(-n 100K -r 30 -k 500 --min-length 8 --max-length 64) ;;
    3) gen=(-n 300K -r 3 -k 4000 --min-length 8 --max-length 8) ;;
    4) gen=(-n 50K -r 200 -k 300 --min-length 1 --max-length 64) ;;
    5) gen=(-n 50K -r 1 -k 1000 --min-length 3 --max-length 12) ;;
    6) gen=(-n 80K -r 5 -k 3000 --min-length 20 --max-length 40) ;;
  esac
  "$GSCAN" gen -o w -s "$seed" "${gen[@]}" --planted 0.6 --degenerate 0.2 --duplicates 0.05 \
    --palindromes 0.1 --lowercase 0.1 --n-runs 20 --line-width 61
  for strand in both forward; do
    # the brute-force reference does not depend on the block size: once per strand
    "$GSCAN" scan -q -e bf -t 2 --strand $strand --report hits -p w.patterns -o ref.h5 w.fa
    for block in 16M 37; do
      for e in ac wm rk; do
        "$GSCAN" scan -q -e $e -t 2 --block-size $block --strand $strand --report hits \
          -p w.patterns -o out.h5 w.fa
        check "dna seed=$seed engine=$e strand=$strand block=$block hits" 1
        "$GSCAN" scan -q -e $e -t 1 --block-size $block --strand $strand --report counts \
          -p w.patterns -o out.h5 w.fa
        check "dna seed=$seed engine=$e strand=$strand block=$block counts" 0
      done
    done
  done
  # bytes: a small symbol range so random patterns hit too
  "$GSCAN" gen -o b -s "$seed" --alphabet bytes --bytes-range $((seed * 40 + 2)) \
    -n 100K -k 800 --min-length 1 --max-length 24 --planted 0.7 --duplicates 0.05
  "$GSCAN" scan -q -e bf --alphabet bytes --report hits -p b.patterns -o ref.h5 b.bin
  for e in ac wm rk; do
    for block in 16M 29; do
      "$GSCAN" scan -q -e $e --alphabet bytes --block-size $block --report hits -p b.patterns -o out.h5 b.bin
      check "bytes seed=$seed engine=$e block=$block hits" 1
      "$GSCAN" scan -q -e $e --alphabet bytes --block-size $block -p b.patterns -o out.h5 b.bin
      check "bytes seed=$seed engine=$e block=$block counts" 0
    done
  done
done
echo "engines.sh: $((runs - fails)) passed, $fails failed"
[ $fails = 0 ]
