#!/usr/bin/env bash
# ranks.sh - `mpiexec -n N gscan scan` gives the same result file for N = 1,
# 2, 3, 4, 7 (oversubscribing this machine's cores), and with 2 or 3 reading
# threads per rank (--readers): /counts, /hits, /patterns, /records and /files
# compared with h5diff, on random workloads and a real genome, plain (ranges
# read through .fai), BGZF with .fai and .gzi (ranges read through the .gzi,
# blocks inflated by either library),
# a corpus mixing both, and gzip (streamed by rank 0) input, counts and hits,
# both strands, with small blocks so ranks stream many blocks; a pipe and
# FIFOs, read once by rank 0. BGZF gives the
# same counts and hits as its plain text, and each rank reads only about its
# share of the compressed bytes. Approximate matching (--max-edits,
# --max-mismatches, --best-per-site, --exact-3p, patterns with their own K
# and exact_3p) gives the same file at every rank count and block size.
set -euo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MPIEXEC=${MPIEXEC:-mpiexec}
root=$(cd "$(dirname "$0")/../.." && pwd)
# Every rank count, forward strand and reader split run on the first input;
# the other inputs run hits and counts at 1 and 3 ranks and one reader split
# (the input kinds differ in how ranks read, not in how many there are).
# 7 ranks (more than the cores, an odd count) run on the first input's hits
# with both strands only: on a 2-core machine each 7-rank run spends ~20 s
# in MPI busy-polling inside the collective write, whatever the input.
# Patterns start at 4 residues: with 2- and 3-mers the workload made 1.8 M
# hits, and a 4-rank run spent 18 of its 20 s in that write (busy-polling
# ranks oversubscribing 2 cores); 4-mers and up make 180 k.
ranks="2 3 4" odd=7 quick=0
# the quick form (the README's test command, the sanitizer run): the odd
# count only, counts on the first input only, three approximate modes
[ "${GS_TEST_QUICK:-0}" = 1 ] && ranks="3" odd= quick=1
first_input=1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fails=0 runs=0
# shellcheck source=../lib/same_h5.sh
source "$root/tests/lib/same_h5.sh"
"$GSCAN" gen -o w -s 11 -n 300K -r 9 -k 1500 --min-length 4 --max-length 40 --planted 0.6 \
  --degenerate 0.1 --palindromes 0.1 --n-runs 10
gzip -c w.fa > w.fa.gz
cp w.fa wi.fa && "$GSCAN" index wi.fa # with a .fai on disk; w.fa gets one built by rank 0
inputs=(w.fa wi.fa w.fa.gz)
have_bgzip=0
if command -v bgzip >/dev/null; then
  have_bgzip=1
  bgzip -c w.fa > wb.fa.gz && "$GSCAN" index wb.fa.gz # wb.fa.gz.fai and wb.fa.gz.gzi
  "$GSCAN" gen -o v -s 12 -n 120K -r 5 -k 10
  bgzip -c v.fa > vb.fa.gz && "$GSCAN" index vb.fa.gz
  inputs+=(wb.fa.gz "wi.fa vb.fa.gz")  # BGZF alone, and mixed with plain FASTA
else
  echo "note: bgzip (tabix package) not installed: BGZF inputs skipped"
fi
if "$root/scripts/fetch-examples.sh" bowtie2-examples ragout-examples >/dev/null 2>&1; then
  zcat "$root/data/cache/vcholerae_o395.fa.gz" > vc.fa
  inputs+=(vc.fa "$root/data/cache/vcholerae_o395.fa.gz")
fi
for input in "${inputs[@]}"; do
  pat=w.patterns
  case $input in *vc* | *vcholerae*) pat=$root/data/patterns/demo.fa ;; esac
  read -r -a files <<<"$input"
  for report in hits counts; do
    hd=; [ $report = hits ] && hd=/hits
    for strand in both forward; do
      [ $strand = forward ] && { [ $report = counts ] || [ $first_input = 0 ]; } && continue
      [ $quick = 1 ] && [ $report = counts ] && [ $first_input = 0 ] && continue
      opts=(-q --report $report --strand $strand --block-size 50K -p "$pat")
      "$MPIEXEC" -n 1 "$GSCAN" scan "${opts[@]}" -o one.h5 "${files[@]}"
      # every rank count on the first input; 3 ranks (an uneven split) on the rest
      counts=3
      [ $first_input = 1 ] && counts=$ranks
      [ $first_input = 1 ] && [ $report = hits ] && [ $strand = both ] && counts="$counts $odd"
      for n in $counts; do
        "$MPIEXEC" -n "$n" "$GSCAN" scan "${opts[@]}" -o many.h5 "${files[@]}"
        same one.h5 many.h5 "$(basename "$input") $report $strand n=$n" "$hd"
        runs=$((runs + 1))
        if [ "$(h5dump -a /n_ranks many.h5 | grep -c "(0): $n")" != 1 ]; then
          echo "FAIL n_ranks attribute is not $n"; fails=$((fails + 1))
        fi
      done
      # several reading threads per rank (indexed input; gzip is streamed and
      # ignores it, so it is not run again there)
      streamed=0
      case $input in w.fa.gz | *vcholerae_o395.fa.gz) streamed=1 ;; esac
      readers=("2 2")
      [ $first_input = 1 ] && readers=("1 3" "2 2")
      [ $streamed = 1 ] || for nr in "${readers[@]}"; do
        read -r n r <<<"$nr"
        "$MPIEXEC" -n "$n" "$GSCAN" scan "${opts[@]}" --readers "$r" -o many.h5 "${files[@]}"
        same one.h5 many.h5 "$(basename "$input") $report $strand n=$n --readers $r" "$hd"
      done
    done
  done
  first_input=0
done
if [ $have_bgzip = 1 ]; then
  # BGZF read by ranges finds what its plain text does
  opts=(-q --report hits --block-size 50K -p w.patterns)
  "$MPIEXEC" -n 1 "$GSCAN" scan "${opts[@]}" -o one.h5 w.fa
  # the blocks inflated by ISA-L (the default), by libdeflate
  for how in 0 1; do
    "$MPIEXEC" -n 3 "$GSCAN" scan "${opts[@]}" --tune io.bgzf.inflate=$how -o many.h5 wb.fa.gz
    runs=$((runs + 1))
    for d in /counts /patterns /records /hits; do
      if ! h5diff -q one.h5 many.h5 "$d" "$d" >/dev/null 2>&1; then
        echo "FAIL wb.fa.gz n=3 io.bgzf.inflate=$how against w.fa: $d differs"; fails=$((fails + 1)); break
      fi
    done
  done
  # each of 4 ranks reads about a quarter of the compressed bytes (plus the
  # blocks its range starts and ends in), so the file is not streamed
  "$GSCAN" gen -o big -s 13 -n 4M -r 6 -k 20
  bgzip -c big.fa > big.fa.gz && "$GSCAN" index big.fa.gz
  runs=$((runs + 1))
  size=$(stat -c %s big.fa.gz)
  out=$("$MPIEXEC" -n 4 "$GSCAN" scan -q --debug io --block-size 200K -p big.patterns -o r.h5 big.fa.gz 2>&1)
  if ! awk -v size="$size" '/read [0-9]+ bytes/ { n++; b = $5; sum += b; if (b > size / 4 * 1.05 + 3 * 65536) bad = 1 }
       END { exit !(n == 4 && !bad && sum <= size * 1.1 && sum > size * 0.9) }' <<<"$out"; then
    echo "FAIL BGZF bytes read per rank (file $size bytes):"; echo "$out"; fails=$((fails + 1))
  fi
fi
# approximate matching: hits are gathered to rank 0 and --best-per-site runs
# there, so sites crossing block and rank boundaries come out the same;
# tiny blocks put many hits across them
"$GSCAN" gen -o a -s 21 -n 60K -r 5 -k 30 --min-length 12 --max-length 30 --planted 0.8 \
  --mutations 2 --degenerate 0.1 --n-runs 5 --lowercase 0.1
gzip -c a.fa > a.fa.gz
awk -F'\t' '{ print $1 "\t" $2 "\t" (NR % 3 ? NR % 4 : "-") "\t" (NR % 2 ? NR % 6 : "-") }' \
  a.patterns >ak.patterns # every third pattern with the run's K, every other its exact_3p
for input in a.fa a.fa.gz; do
  modes=("--max-edits 3" "--max-mismatches 2" "--max-edits 3 --best-per-site"
    "--max-edits 2 --exact-3p 3" "--max-mismatches 3 --exact-3p 2 --best-per-site"
    "--max-edits 1 -p ak.patterns" "--max-mismatches 1 --exact-3p 1 -p ak.patterns")
  [ $quick = 1 ] && modes=("--max-edits 3 --best-per-site" "--max-mismatches 3 --exact-3p 2 --best-per-site"
    "--max-edits 1 -p ak.patterns")
  [ $input = a.fa.gz ] && modes=("--max-edits 3 --best-per-site") # streamed: one mode
  for mode in "${modes[@]}"; do
    read -r -a m <<<"$mode"
    opts=(-q --report hits --block-size 1K -p a.patterns "${m[@]}")
    "$MPIEXEC" -n 1 "$GSCAN" scan "${opts[@]}" -o one.h5 "$input"
    for n in 1 $ranks; do
      "$MPIEXEC" -n "$n" "$GSCAN" scan "${opts[@]}" --block-size 512 -o many.h5 "$input"
      same one.h5 many.h5 "$input $mode n=$n" /hits
    done
  done
done
# a pipe (process substitution), gzip through a FIFO and a plain FIFO: rank 0
# reads it once and deals blocks; the same records, counts and hits as the
# file at one rank. (Not stdin: MPICH's mpiexec forwards it through its
# process manager, which gives up on a process that does not read it at once.)
opts=(-q --report hits --block-size 50K -p w.patterns)
"$MPIEXEC" -n 1 "$GSCAN" scan "${opts[@]}" -o one.h5 w.fa
rm -f ff && mkfifo ff
for n in 1 3; do
  "$MPIEXEC" -n $n "$GSCAN" scan "${opts[@]}" -o p1.h5 <(cat w.fa)
  gzip -c w.fa > ff &
  "$MPIEXEC" -n $n "$GSCAN" scan "${opts[@]}" -o p2.h5 ff
  wait
  cat w.fa > ff &
  "$MPIEXEC" -n $n "$GSCAN" scan "${opts[@]}" -o p3.h5 ff
  wait
  for p in p1 p2 p3; do
    runs=$((runs + 1))
    for d in /counts /patterns /records /hits; do
      if ! h5diff -q one.h5 $p.h5 "$d" "$d" >/dev/null 2>&1; then
        echo "FAIL stream $p n=$n against w.fa: $d differs"; fails=$((fails + 1)); break
      fi
    done
  done
done
echo "ranks.sh: $((runs - fails)) passed, $fails failed"
[ $fails = 0 ]
