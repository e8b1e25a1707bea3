#!/usr/bin/env bash
# lz-strains.sh - the LZ77 hybrid index on a strain set: V mutated copies of
# a real bacterial genome (gscan gen --base --variants, 0.1% SNPs, 0.01%
# short indels), 1000 primers of 20-25 nt (half cut from the genome).
# Prints: collection and index sizes (plain, gzip -6, xz -9, index), index
# build time and peak memory, and scan times (counts, hits; both strands)
# by index against gscan's own plain scan of the same FASTA, with the
# result files compared (h5diff: records, counts, hits).
# Each scan's /timing phases (its last run; plan = loading the index).
# Then the load and locate alone (--debug time) on 1 thread and on THREADS,
# for the primers and for a dense set (DENSE).
# Environment: VARIANTS (99: 100 genomes), BASE (E. coli MG1655), THREADS
# (all cores), M (64), XZ (1: also xz -9, minutes on big sets), DEVICES
# ("cpu"; "cpu gpu" on the GPU machine: each scan on each device), REPS
# (runs per scan, median printed; 1), GZIP_SIZE (1: gzip -6 too),
# DENSE (1: locate also on 1000 10-mers cut from the text, millions of hits),
# GS_BUILD (a CUDA build for gpu).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GS_BUILD:-$root/build-bench}
if [ ! -x "$build/gscan" ]; then
  cmake -S "$root" -B "$build" -DGS_CUDA=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j2 --target gscan >/dev/null
G=$build/gscan
V=${VARIANTS:-99} M=${M:-64} T=${THREADS:-$(nproc)}
BASE=${BASE:-$root/data/cache/ecoli_mg1655.fa.gz}
dir=${GS_BENCH_DIR:-/tmp/gscan-bench}/lz-$V
mkdir -p "$dir" && cd "$dir"
if [ ! -s strains.fa ]; then
  "$G" gen -o strains --base "$BASE" --variants "$V" -k 1000 --min-length 20 --max-length 25 \
    --snp-rate 0.001 --indel-rate 0.0001 -s 11
fi
timed() { # label, command...: prints label, median seconds of REPS runs, peak MB
  local label=$1 r secs=() sec kb; shift
  for ((r = 0; r < ${REPS:-1}; r++)); do
    /usr/bin/time -f "%e %M" -o time.txt "$@" >/dev/null
    read -r sec kb < time.txt
    secs+=("$sec")
  done
  sec=$(printf '%s\n' "${secs[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  printf '%-28s %8.2f s %8.0f MB\n' "$label" "$sec" "$((kb / 1024))"
}
size() { stat -c %s "$1"; }
phases() { # label, result file: its /timing phases (plan = loading the index)
  local p out=""
  for p in init plan read scan write total; do
    out+=" $p $(h5dump -d /timing/$p "$2" | awk '/\(0\)/ {printf "%.3f", $2}')"
  done
  printf '  %-26s%s s\n' "$1" "$out"
}
echo "collection: $((V + 1)) genomes, $(grep -c '>' strains.fa) records, $(size strains.fa) bytes (FASTA)"
timed "index --lz -m $M -t $T" "$G" index --lz -m "$M" -t "$T" -o strains.gsx strains.fa
echo "index:    $(size strains.gsx) bytes ($(awk -v a="$(size strains.gsx)" -v b="$(size strains.fa)" 'BEGIN{printf "%.2f", 100*a/b}')% of the FASTA)"
"$G" info strains.gsx | sed -n '/^records/,$p'
"$G" index strains.fa # .fai: the plain scan reads indexed ranges
for d in ${DEVICES:-cpu}; do
  for rep in counts hits; do
    timed "plain scan, $d, $rep" "$G" scan -q -d "$d" -t "$T" -p strains.patterns --report $rep -o plain_$rep.h5 strains.fa
    timed "index scan, $d, $rep" "$G" scan -q -d "$d" -t "$T" -p strains.patterns --report $rep -o lz_$rep.h5 --index strains.gsx
    phases "phases, plain" plain_$rep.h5
    phases "phases, index" lz_$rep.h5
    for o in /records /counts $([ $rep = hits ] && echo /hits); do
      h5diff -q "plain_$rep.h5" "lz_$rep.h5" "$o" "$o" || { echo "DIFFERENT: $o ($rep, $d)"; exit 1; }
    done
  done
done
for t in 1 "$T"; do # locate alone: its share of the index scan, 1 thread against all
  "$G" scan -q --debug time -d cpu -t "$t" -p strains.patterns --report hits -o lz_t.h5 \
    --index strains.gsx 2>&1 | grep -oE '(index load|locate):.*'
done
if [ "${DENSE:-1}" = 1 ]; then # locate with many copies to find: 1000 10-mers cut from the text
  [ -x kmers ] || cc -O2 -o kmers "$root/bench/cpu/kmers.c"
  [ -s k10.txt ] || ./kmers -n 1000 -k 10 -s 7 strains.fa >k10.txt
  for t in 1 "$T"; do
    "$G" scan -q --debug time -d cpu -t "$t" -p k10.txt --report hits -o lz_t.h5 \
      --index strains.gsx 2>&1 | grep -oE 'locate:.*'
  done
fi
echo "hits: $(h5ls lz_hits.h5/hits/start | grep -o '{[0-9]*' | tr -d '{')"
echo "index and plain scans: identical records, counts and hits"
# the general-purpose compressors last: on a loaded machine they take longest
if [ "${GZIP_SIZE:-1}" = 1 ]; then
  gzip -6 -c strains.fa > strains.fa.gz.tmp && mv strains.fa.gz.tmp strains.fa.gz
  echo "gzip -6:  $(size strains.fa.gz) bytes"
fi
if [ "${XZ:-1}" = 1 ]; then
  xz -9 -T"$T" -c strains.fa > strains.fa.xz.tmp && mv strains.fa.xz.tmp strains.fa.xz
  echo "xz -9:    $(size strains.fa.xz) bytes"
fi
