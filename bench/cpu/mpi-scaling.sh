#!/usr/bin/env bash
# mpi-scaling.sh - CPU strong scaling of `gscan scan` over MPI ranks on one machine.
#
# Workload: 103.6 MB of real DNA in 19 records (human chrX truncated,
# P. falciparum, E. coli, V. cholerae, lambda), as plain FASTA indexed with
# `gscan index` (each rank seeks to and reads its own range) and as its gzip
# (not seekable: rank 0 decompresses and sends the ranges), 1000 distinct
# random 8-mers cut from it, forward strand, counts, -t 1 per rank, the
# engine given by ENGINE (auto picks rk for k-mers). Ranks 1..4: on a 2-core
# machine 3 and 4 are oversubscribed, which shows what an idle-spinning MPI
# rank that shares a core costs.
#
# Each configuration runs RUNS times (interleaved); the run with the median
# total is reported with its phases, each phase the max over ranks of
# /timing/<phase> (the slowest rank sets the pace). Phases overlap: `read` is
# the time the reading thread spent getting segments, `scan` the wall time of
# the whole read + match pipeline, `total` the rank's time from start to the
# file written. speedup = total(1 rank, same input) / total; efficiency =
# speedup / ranks. wall is the mpiexec process as timed from the shell
# (MPI start-up included), median of the runs. The counts of every run must
# equal those of 1 rank on the plain file.
#
# Usage: bench/cpu/mpi-scaling.sh
# Environment (all optional): GS_BUILD (build-bench), GS_BENCH_DIR
#   (/tmp/gscan-bench), RUNS (3), RANKS ("1 2 3 4"), ENGINE (auto), SEED (42)
# Output: the table on stdout; GS_BENCH_DIR/mpi-scaling.tsv (table) and
# mpi-scaling.runs.tsv (every run, every phase).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GS_BUILD:-$root/build-bench}
work=${GS_BENCH_DIR:-/tmp/gscan-bench}
runs=${RUNS:-3}
ranks=${RANKS:-"1 2 3 4"}
engine=${ENGINE:-auto}
seed=${SEED:-42}
mkdir -p "$work"
log() { printf '%s\n' "$*" >&2; }

log "== building gscan (Release, CPU only) and the k-mer sampler"
{ [ -f "$build/CMakeCache.txt" ] ||
    cmake -S "$root" -B "$build" -DGS_CUDA=OFF -DCMAKE_BUILD_TYPE=Release
  cmake --build "$build" --target gscan -j2; } > "$work/build.log" 2>&1 ||
  { cat "$work/build.log" >&2; exit 3; }
gscan=$build/gscan
cc -O2 -std=c11 -Wall -Wextra -o "$work/kmers" "$here/kmers.c"

"$root/scripts/fetch-examples.sh" >/dev/null
cache=$root/data/cache
corpus=$work/corpus100.fa
if [ ! -s "$corpus" ] || [ ! -s "$corpus.gz" ]; then
  log "== building $corpus and $corpus.gz"
  # sed '$a\' ends each file with a newline (V. cholerae's lacks one).
  for f in hs37chrXtrunc genome_1 ecoli_mg1655 vcholerae_o395 lambda_virus; do
    zcat "$cache/$f.fa.gz" | sed '$a\'
  done > "$corpus.tmp.$$"
  mv "$corpus.tmp.$$" "$corpus"
  gzip -6 -c "$corpus" > "$corpus.gz.tmp.$$"
  mv "$corpus.gz.tmp.$$" "$corpus.gz"
fi
[ "$corpus.fai" -nt "$corpus" ] || "$gscan" index "$corpus"
patterns=$work/kmers100-1000x8-s$seed.txt
"$work/kmers" -n 1000 -k 8 -s "$seed" "$corpus" > "$patterns"
cat "$corpus" "$corpus.gz" > /dev/null # page cache

h5vals() { # h5vals FILE DATASET: the values, one a line
  local t=$work/h5vals.txt
  h5dump -d "$2" -y -w 1 -o "$t" "$1" >/dev/null
  tr -d ' ,' < "$t" | grep -v '^$'
}
phases="read transfer scan reduce write total"
raw=$work/mpi-scaling.runs.tsv
printf 'ranks\tinput\trun\twall\t%s\n' "${phases// /$'\t'}" > "$raw"
agree=$work/mpi-agree.tsv
: > "$agree"
ref=
log "== $runs runs of ranks $ranks x (plain, gzip), engine $engine"
for r in $(seq 1 "$runs"); do
  for kind in plain gzip; do
    for n in $ranks; do
      in=$corpus
      [ "$kind" = plain ] || in=$corpus.gz
      out=$work/mpi-n$n-$kind.h5
      s=$(date +%s%N)
      mpiexec -n "$n" "$gscan" scan -q -d cpu -e "$engine" -t 1 --strand forward \
        --report counts -p "$patterns" -o "$out" "$in"
      e=$(date +%s%N)
      line="$n\t$kind\t$r\t$(awk -v a="$s" -v b="$e" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')"
      for ph in $phases; do
        line="$line\t$(h5vals "$out" "/timing/$ph" | sort -g | tail -1)"
      done
      printf "$line\n" >> "$raw"
      h5vals "$out" /counts > "$work/mpi-n$n-$kind.counts"
      [ -n "$ref" ] || { ref=$work/mpi-ref.counts; cp "$work/mpi-n$n-$kind.counts" "$ref"; }
      if cmp -s "$ref" "$work/mpi-n$n-$kind.counts"; then
        printf '%s\t%s\tsame\n' "$n" "$kind" >> "$agree"
      else
        printf '%s\t%s\tDIFFER\n' "$n" "$kind" >> "$agree"
      fi
    done
  done
  log "   run $r/$runs done"
done

summary=$work/mpi-scaling.tsv
awk -F'\t' -v agree="$agree" '
  BEGIN { while ((getline l < agree) > 0) { split(l, f, "\t"); k = f[1] SUBSEP f[2]
            if (!(k in ok) || f[3] == "DIFFER") ok[k] = f[3] } }
  NR == 1 { next }
  { k = $1 SUBSEP $2; if (!(k in n)) order[++nk] = k
    n[k]++; for (i = 4; i <= 10; i++) v[k, n[k], i] = $i }
  END {
    printf "ranks\tinput\tread_s\ttransfer_s\tscan_s\treduce_s\twrite_s\ttotal_s\twall_s\tspeedup\tefficiency\tcounts\n"
    for (o = 1; o <= nk; o++) {
      k = order[o]; m = n[k]
      # the run whose total is the median, and the median wall
      for (a = 1; a <= m; a++) { idx[a] = a; w[a] = v[k, a, 4] }
      for (a = 2; a <= m; a++) for (b = a; b > 1 && v[k, idx[b - 1], 10] > v[k, idx[b], 10]; b--) { t = idx[b]; idx[b] = idx[b - 1]; idx[b - 1] = t }
      for (a = 2; a <= m; a++) for (b = a; b > 1 && w[b - 1] > w[b]; b--) { t = w[b]; w[b] = w[b - 1]; w[b - 1] = t }
      md = idx[int((m + 1) / 2)]; wall = w[int((m + 1) / 2)]
      split(k, f, SUBSEP)
      tot[k] = v[k, md, 10]
      if (f[1] == 1) base[f[2]] = tot[k]
      sp = (f[2] in base) ? base[f[2]] / tot[k] : 0
      printf "%s\t%s\t%.3f\t%.3f\t%.3f\t%.4f\t%.3f\t%.3f\t%.3f\t%.2f\t%.2f\t%s\n", f[1], f[2],
        v[k, md, 5], v[k, md, 6], v[k, md, 7], v[k, md, 8], v[k, md, 9], v[k, md, 10], wall,
        sp, sp / f[1], ok[k]
    }
  }' "$raw" > "$summary"

echo
echo "corpus: $corpus ($(stat -c %s "$corpus") bytes, $(awk '{ s += $2 } END { print s }' "$corpus.fai")" \
  "residues, $(wc -l < "$corpus.fai") records; gzip $(stat -c %s "$corpus.gz") bytes);" \
  "1000 8-mers (seed $seed), engine $engine, -t 1 per rank, $(nproc) cores"
echo "phases: max over ranks of /timing/<phase>, run with the median total of $runs;" \
  "speedup = total(1 rank) / total, efficiency = speedup / ranks"
echo
column -t -s $'\t' "$summary"
echo "numbers: $summary, every run: $raw"
if grep -q DIFFER "$agree"; then
  log "!! counts differ between rank counts or inputs"
  exit 4
fi
