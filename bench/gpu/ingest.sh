#!/usr/bin/env bash
# ingest.sh - the whole job at 16 GiB (and more) on one GPU: how fast the
# host feeds the GPU. GIB GiB of real DNA as FILES FASTA files (4 Mbp records,
# 60-column lines) with their .fai, the same files without it, EST-like 500 bp
# records, 150 bp FASTQ reads (read in parts, and as one stream: --readers
# 1), BGZF and gzip -1; 16000 distinct 8-mers cut
# from the text, both strands, counts; GPU rows, the CPU path (-t T) and the
# phases of each (rank 0's /timing of the median run), with the host CPU
# seconds (user + sys) per GiB of residues.
#
#   bench/gpu/ingest.sh BUILD_DIR WORK_DIR GENOME_SEQ
#
# GENOME_SEQ is a bare sequence file (no headers or newlines; see
# scripts/device.sh, genome_seq). A corpus is made on the machine only when a
# row asks for it (ROWS, a bash regex over the row names), and removed after
# its rows (KEEP=1 keeps it), so the rows fit a 64 GiB disk one encoding at a
# time (with KEEP=1 the plain, EST-like and FASTQ corpora at 16 GiB are ~68
# GB together: keep only what the next run reads). Every row's /counts must
# equal those of the first row on the same text.
#
# Environment: GIB (16), FILES (16), RUNS (3), SLOW_RUNS (RUNS: runs of the
# CPU and Hyperscan rows, minutes each at 64 GiB), T (16), ROWS (.), ARGS (more
# options for every scan, e.g. "--readers 8"), HS (an hs_count binary: adds
# Hyperscan's row).
set -uo pipefail
[ $# -eq 3 ] || { echo "usage: $0 BUILD_DIR WORK_DIR GENOME_SEQ" >&2; exit 1; }
root=$(cd "$(dirname "$0")/../.." && pwd)
G=$(cd "$1" && pwd)/gscan w=$2 seq=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
GIB=${GIB:-16} FILES=${FILES:-16} RUNS=${RUNS:-3} T=${T:-16}
SLOW_RUNS=${SLOW_RUNS:-$RUNS}
mkdir -p "$w" && cd "$w" || exit 1
now() { date +%s.%N; }
cc -O2 -o mkfasta "$root/bench/gpu/mkfasta.c" && cc -O2 -o kmers "$root/bench/cpu/kmers.c" || exit 1
per=$((GIB * 1073741824 / FILES)) # residues a file
status=0 first=
want() { local n; for n; do [[ "$n" =~ ${ROWS:-.} ]] && return 0; done; return 1; } # any of these rows
# corpus DIR RECLEN EXT: FILES files of per residues in DIR (plain FASTA or FASTQ)
corpus() {
  local d=$1 len=$2 ext=$3 i t0; t0=$(now)
  mkdir -p "$d"
  for ((i = 0; i < FILES; i++)); do
    [ -s "$d/$i.$ext" ] || ./mkfasta "$seq" "$d/$i.$ext" "$per" "$len" 60 &
  done
  wait
  sync # files just written are still being flushed: not while timing
  echo "corpus $d: $(du -sh "$d" | cut -f1) in $(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}') s" >&2
}
files() { local i; for ((i = 0; i < FILES; i++)); do printf '%s ' "$1/$i.$2"; done; }
phase() {
  h5dump -y -d "/timing/$2" "$1" 2>/dev/null | awk '/DATA \{/ { getline; sub(",", "", $1); print $1; exit }'
}
echo "| run | wall s | host CPU s per GiB | init | plan | read | transfer | scan | write | total |"
echo "|---|---|---|---|---|---|---|---|---|---|"
# row NAME ARGS...: RUNS runs of gscan scan -q ARGS -o r.h5 (SLOW_RUNS for
# the CPU rows), the median's phases
row() {
  local name=$1 i rc=0 t runs=$RUNS; shift
  [[ $name == CPU* ]] && runs=$SLOW_RUNS
  : >times.txt
  for ((i = 0; i < runs; i++)); do
    t=$( { TIMEFORMAT='%R %U %S'; time timeout 600 "$G" scan -q $ARGS "$@" -o r.h5 >run.log 2>&1; } 2>&1 ) || rc=$?
    [ $rc = 0 ] || { echo "FAIL $name: exit $rc: $(tail -3 run.log)" >&2; status=1; return; }
    echo "$t $(for p in init plan read transfer scan write total; do v=$(phase r.h5 $p); printf '%s ' "${v:--}"; done)" >>times.txt
  done
  sort -n times.txt | sed -n "$((runs / 2 + 1))p" |
    awk -v n="$name" -v g="$GIB" '{ printf "| %s | %.3f | %.2f |", n, $1, ($2 + $3) / g
                                    for (i = 4; i <= 10; i++) printf($i == "-" ? " |" : " %.3f |", $i)
                                    print "" }'
  if [ -z "$first" ]; then first=$w/first.h5; cp r.h5 "$first"
  elif ! h5diff -q "$first" r.h5 /counts /counts >/dev/null 2>&1; then
    echo "FAIL $name: /counts differ from the first row's" >&2; status=1
  fi
}
ARGS=${ARGS:-}
corpus plain 4194304 fa
./kmers -n 16000 -k 8 -s 42 plain/0.fa >k.txt || exit 1
if want "GPU, plain + .fai" "CPU -t $T, plain + .fai"; then
  for f in $(files plain fa); do [ -s "$f.fai" ] || "$G" index "$f" & done
  wait
  for f in $(files plain fa); do [ -s "$f.fai" ] || exit 1; done
  want "GPU, plain + .fai" && row "GPU, plain + .fai" -d gpu -p k.txt $(files plain fa)
  want "CPU -t $T, plain + .fai" && row "CPU -t $T, plain + .fai" -d cpu -t "$T" -p k.txt $(files plain fa)
fi
# Hyperscan (HS: bench/cpu/hs_count.c built against libhs; forward strand,
# as it matches raw literals) on the first file only, GIB/FILES GiB: its time
# grows with the text, so its row gives seconds per GiB beside the whole runs
if [ -n "${HS:-}" ] && want "Hyperscan -t $T, forward, first file"; then
  : >hs.txt
  for ((i = 0; i < SLOW_RUNS; i++)); do
    { TIMEFORMAT='%R %U %S'; time "$HS" -t "$T" k.txt plain/0.fa >/dev/null 2>hs.log; } 2>>hs.txt ||
      { echo "FAIL Hyperscan: $(tail -3 hs.log)" >&2; status=1; }
  done
  sort -n hs.txt | sed -n "$((SLOW_RUNS / 2 + 1))p" |
    awk -v n="Hyperscan -t $T, forward, first file" -v f="$FILES" -v g="$GIB" \
      '{ printf "| %s | %.3f (%.2f a GiB) | %.2f | | | | | | | |\n", n, $1, $1 * f / g, ($2 + $3) * f / g }'
fi
if want "GPU, plain, no .fai" "CPU -t $T, plain, no .fai"; then
  rm -f plain/*.fai
  want "GPU, plain, no .fai" && row "GPU, plain, no .fai" -d gpu -p k.txt $(files plain fa)
  want "CPU -t $T, plain, no .fai" && row "CPU -t $T, plain, no .fai" -d cpu -t "$T" -p k.txt $(files plain fa)
fi
if want "GPU, gzip -1" "GPU, BGZF + .fai/.gzi" "CPU -t $T, gzip -1" "CPU -t $T, BGZF + .fai/.gzi"; then
  mkdir -p z
  for ((i = 0; i < FILES; i++)); do
    [ -s z/$i.fa.gz ] || gzip -1 -c plain/$i.fa >z/$i.fa.gz &
  done
  wait
  want "GPU, gzip -1" && row "GPU, gzip -1" -d gpu -p k.txt $(files z fa.gz)
  want "CPU -t $T, gzip -1" && row "CPU -t $T, gzip -1" -d cpu -t "$T" -p k.txt $(files z fa.gz)
  if want "GPU, BGZF + .fai/.gzi" "CPU -t $T, BGZF + .fai/.gzi"; then
    for ((i = 0; i < FILES; i++)); do
      [ -s z/$i.bgzf.gz.gzi ] || "$G" index --bgzf -l 1 -o z/$i.bgzf.gz z/$i.fa.gz &
    done
    wait
    want "GPU, BGZF + .fai/.gzi" && row "GPU, BGZF + .fai/.gzi" -d gpu -p k.txt $(files z bgzf.gz)
    want "CPU -t $T, BGZF + .fai/.gzi" && row "CPU -t $T, BGZF + .fai/.gzi" -d cpu -t "$T" -p k.txt $(files z bgzf.gz)
  fi
  [ "${KEEP:-0}" = 1 ] || rm -rf z
fi
[ "${KEEP:-0}" = 1 ] || rm -rf plain
if want "GPU, EST-like 500 bp + .fai" "GPU, EST-like 500 bp, no .fai" "CPU -t $T, EST-like 500 bp, no .fai" \
  "GPU, EST-like 500 bp, no .fai, one stream"; then
  corpus est 500 fa
  first= # another text: its hits at record ends differ from the plain rows'
  if want "GPU, EST-like 500 bp + .fai"; then
    for f in $(files est fa); do [ -s "$f.fai" ] || "$G" index "$f" & done
    wait
    row "GPU, EST-like 500 bp + .fai" -d gpu -p k.txt $(files est fa)
  fi
  rm -f est/*.fai
  want "GPU, EST-like 500 bp, no .fai" && row "GPU, EST-like 500 bp, no .fai" -d gpu -p k.txt $(files est fa)
  want "CPU -t $T, EST-like 500 bp, no .fai" &&
    row "CPU -t $T, EST-like 500 bp, no .fai" -d cpu -t "$T" -p k.txt $(files est fa)
  want "GPU, EST-like 500 bp, no .fai, one stream" &&
    row "GPU, EST-like 500 bp, no .fai, one stream" -d gpu --readers 1 -p k.txt $(files est fa)
  [ "${KEEP:-0}" = 1 ] || rm -rf est
fi
if want "GPU, FASTQ 150 bp" "CPU -t $T, FASTQ 150 bp" "GPU, FASTQ 150 bp, one stream"; then
  corpus fq 150 fq
  first=
  want "GPU, FASTQ 150 bp" && row "GPU, FASTQ 150 bp" -d gpu -p k.txt $(files fq fq)
  want "CPU -t $T, FASTQ 150 bp" && row "CPU -t $T, FASTQ 150 bp" -d cpu -t "$T" -p k.txt $(files fq fq)
  want "GPU, FASTQ 150 bp, one stream" &&
    row "GPU, FASTQ 150 bp, one stream" -d gpu --readers 1 -p k.txt $(files fq fq)
  [ "${KEEP:-0}" = 1 ] || rm -rf fq
fi
echo
echo "$(date -u +%F) $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), $(nproc) host cores; $GIB GiB in $FILES files; median of $RUNS (CPU and Hyperscan rows: of $SLOW_RUNS)"
exit $status
