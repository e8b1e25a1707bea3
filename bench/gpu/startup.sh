#!/usr/bin/env bash
# startup.sh - where the seconds of a whole `gscan scan` go: MPI start-up,
# CUDA start-up, each /timing phase, and MPI_Finalize plus exit, for a tiny
# input (lambda phage) and 2^30 residues of real DNA, on the GPU machine.
#
#   bench/gpu/startup.sh BUILD_DIR WORK_DIR GENOME_SEQ
#
# GENOME_SEQ is a file of bare residues (scripts/device.sh's genomes.seq).
# Each row: median of 5 whole-process runs (wall), and the phases of that
# run (rank 0, from /timing), plus MPI_Finalize and exit from --debug time.
set -uo pipefail
b=$1 w=$2 seq=$3
G=$b/gscan
mkdir -p "$w"
now() { date +%s.%N; }
cc -O2 -o "$w/mkfasta" bench/gpu/mkfasta.c && cc -O2 -o "$w/kmers" bench/cpu/kmers.c || exit 1
[ -s "$w/one.fa" ] || "$w/mkfasta" "$seq" "$w/one.fa" 1073741824 4000000 || exit 1
"$w/kmers" -n 1000 -k 8 -s 42 "$w/one.fa" >"$w/k8.txt" || exit 1
zcat .devdata/lambda_virus.fa.gz >"$w/lambda.fa"
cat >"$w/mi.c" <<'C'
#include <mpi.h>
#include <stdio.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(int c, char **v) { double t = now(); int p; MPI_Init_thread(&c, &v, MPI_THREAD_FUNNELED, &p);
  double t1 = now(); MPI_Finalize(); printf("MPI_Init %.3f s, MPI_Finalize %.3f s\n", t1 - t, now() - t1); return 0; }
C
mpicc -O2 -o "$w/mi" "$w/mi.c" && for e in "X=1" "UCX_TLS=self" "HWLOC_COMPONENTS=-linuxio"; do
  echo "mpi probe ($e): $(env $e "$w/mi") / $(env $e "$w/mi")"; done
phases="init setup plan read transfer scan reduce write total"
# row NAME ENV... -- ARGS...: median-of-5 wall, that run's phases
row() {
  local name=$1; shift
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  : >"$w/rows"
  for i in 1 2 3 4 5; do
    local t0 t1
    t0=$(now)
    env "${envs[@]}" "$G" scan -q --debug time "$@" -o "$w/s$i.h5" 2>"$w/err$i" || { cat "$w/err$i"; return 1; }
    t1=$(now)
    local fin
    fin=$(grep -o 'MPI_Finalize [0-9.]*' "$w/err$i" | awk '{print $2}')
    echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}') $i $fin" >>"$w/rows"
  done
  set -- $(sort -n "$w/rows" | sed -n 3p)
  local line="| $name | $1 |" p
  for p in $phases; do
    line+=" $("$G" info "$w/s$2.h5" | awk -v p="$p" '$1 == p { print $2 }') |"
  done
  echo "$line $3 |"
}
echo
echo "| run | wall s | ${phases// / | } | finalize |"
echo "|---|---|$(for p in $phases; do printf -- '---|'; done)---|"
row "lambda, gpu" X=1 -- -d gpu -p data/patterns/demo.fa "$w/lambda.fa"
row "lambda, gpu, no warm-up" X=1 -- -d gpu --debug no-warmup -p data/patterns/demo.fa "$w/lambda.fa"
row "lambda, cpu" X=1 -- -d cpu -p data/patterns/demo.fa "$w/lambda.fa"
"$G" index "$w/one.fa"
for r in 4 8 14; do
  row "1 GiB indexed, gpu, readers $r" X=1 -- -d gpu --readers $r -e ac --strand both -p "$w/k8.txt" "$w/one.fa"
done
for b in 1M 16M; do
  row "1 GiB indexed, gpu, readers 8, block $b" X=1 -- -d gpu --readers 8 --block-size $b -e ac --strand both \
    -p "$w/k8.txt" "$w/one.fa"
done
row "1 GiB indexed, cpu -t 16" X=1 -- -d cpu -t 16 -e ac --strand both -p "$w/k8.txt" "$w/one.fa"
