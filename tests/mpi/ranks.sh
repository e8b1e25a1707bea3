#!/usr/bin/env bash
# ranks.sh - `mpiexec -n N gscan scan` gives the same result file for N = 1,
# 2, 3, 4, 7 (oversubscribing this machine's cores): /counts, /hits, /patterns,
# /records and /files compared with h5diff, on random workloads and a real
# genome, plain (ranges read through .fai) and gzip (streamed by rank 0) input,
# counts and hits, both strands, with small blocks so ranks stream many blocks.
set -euo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MPIEXEC=${MPIEXEC:-mpiexec}
root=$(cd "$(dirname "$0")/../.." && pwd)
ranks="2 3 4 7"
[ "${GS_TEST_QUICK:-0}" = 1 ] && ranks="2 3"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fails=0 runs=0
same() { # a.h5 b.h5 label
  local d
  runs=$((runs + 1))
  for d in /counts /patterns /records /files $4; do
    if ! h5diff -q "$1" "$2" "$d" "$d" >/dev/null 2>&1; then
      echo "FAIL $3: $d differs"; fails=$((fails + 1)); return
    fi
  done
}
"$GSCAN" gen -o w -s 11 -n 300K -r 9 -k 1500 --min-length 2 --max-length 40 --planted 0.6 \
  --degenerate 0.1 --palindromes 0.1 --n-runs 10
gzip -c w.fa > w.fa.gz
cp w.fa wi.fa && "$GSCAN" index wi.fa # with a .fai on disk; w.fa gets one built by rank 0
inputs=(w.fa wi.fa w.fa.gz)
if "$root/scripts/fetch-examples.sh" bowtie2-examples ragout-examples >/dev/null 2>&1; then
  zcat "$root/data/cache/vcholerae_o395.fa.gz" > vc.fa
  inputs+=(vc.fa "$root/data/cache/vcholerae_o395.fa.gz")
fi
for input in "${inputs[@]}"; do
  pat=w.patterns
  case $input in *vc* | *vcholerae*) pat=$root/data/patterns/demo.fa ;; esac
  for report in hits counts; do
    hd=; [ $report = hits ] && hd=/hits
    for strand in both forward; do
      [ $strand = forward ] && [ $report = counts ] && continue
      opts=(-q --report $report --strand $strand --block-size 50K -p "$pat")
      "$MPIEXEC" -n 1 "$GSCAN" scan "${opts[@]}" -o one.h5 "$input"
      for n in $ranks; do
        "$MPIEXEC" -n "$n" "$GSCAN" scan "${opts[@]}" -o many.h5 "$input"
        same one.h5 many.h5 "$(basename "$input") $report $strand n=$n" "$hd"
        runs=$((runs + 1))
        if [ "$(h5dump -a /n_ranks many.h5 | grep -c "(0): $n")" != 1 ]; then
          echo "FAIL n_ranks attribute is not $n"; fails=$((fails + 1))
        fi
      done
    done
  done
done
echo "ranks.sh: $((runs - fails)) passed, $fails failed"
[ $fails = 0 ]
