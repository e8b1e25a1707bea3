#!/usr/bin/env bash
# hyperscan-vs-gscan.sh - whole-process throughput of gscan's CPU engines against Hyperscan.
#
# Workload: ~245 M residues of real DNA in 13097 records (the genomes of
# smalt-examples and ragout-examples, decompressed and concatenated into one
# FASTA file), 1000 distinct random 8-mers cut from it (seeded), forward
# strand, counts only. Each tool runs as a whole process, timed from the shell
# (start-up, reading, compiling the patterns, scanning, writing), because that
# is what a user waits for; each configuration runs RUNS times, the runs of
# all configurations interleaved so that load from other work on the machine
# spreads over all of them, and the median is reported.
#
# Hyperscan runs through hs_count.c (compiled here with the system
# libhyperscan): HS_FLAG_CASELESS literals in block mode, one block per
# record, T threads over the records. The "hyperscan -u" rows compile the
# patterns case-sensitive and uppercase the text instead, to show what
# caseless matching costs Hyperscan. Every gscan run's /counts must equal
# Hyperscan's counts pattern by pattern; the script says so per row and exits
# 4 when any differ (after printing the table).
#
# Usage: bench/cpu/hyperscan-vs-gscan.sh
# Environment (all optional):
#   GS_BUILD     gscan build dir (default build-bench; configured Release,
#                GS_CUDA=OFF, and rebuilt before measuring)
#   GS_BENCH_DIR work dir for the corpus, patterns and results (default
#                /tmp/gscan-bench; nothing is written into the source tree)
#   RUNS (5)  THREADS ("1 2")  ENGINES ("ac wm rk auto")  SEED (42)
# Output: the table on stdout; GS_BENCH_DIR/hyperscan-vs-gscan.tsv (medians)
# and hyperscan-vs-gscan.runs.tsv (every run).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${GS_BUILD:-$root/build-bench}
work=${GS_BENCH_DIR:-/tmp/gscan-bench}
runs=${RUNS:-5}
threads=${THREADS:-"1 2"}
engines=${ENGINES:-"ac wm rk auto"}
seed=${SEED:-42}
mkdir -p "$work"
log() { printf '%s\n' "$*" >&2; }

# ---- tools ---------------------------------------------------------------
log "== building gscan (Release, CPU only) and the harnesses"
{ [ -f "$build/CMakeCache.txt" ] ||
    cmake -S "$root" -B "$build" -DGS_CUDA=OFF -DCMAKE_BUILD_TYPE=Release
  cmake --build "$build" --target gscan -j2; } > "$work/build.log" 2>&1 ||
  { cat "$work/build.log" >&2; exit 3; }
gscan=$build/gscan
cc -O2 -std=c11 -Wall -Wextra -o "$work/hs_count" "$here/hs_count.c" -lhs -lpthread
cc -O2 -std=c11 -Wall -Wextra -o "$work/kmers" "$here/kmers.c"

# ---- data ----------------------------------------------------------------
"$root/scripts/fetch-examples.sh" >/dev/null
cache=$root/data/cache
doc=$cache/root/usr/share/doc
sources=(
  "$cache/contigs.fa.gz"        # smalt: 119 Mb in 11239 contigs
  "$cache/hs37chrXtrunc.fa.gz"  # smalt: human chrX, truncated, 71 Mb
  "$doc/smalt/test/data/cigar_ref.fa.gz"  # smalt: P. knowlesi, 26 Mb, lowercase
  "$cache/genome_1.fa.gz"       # smalt: P. falciparum, 24 Mb in 14 chromosomes
  "$cache/ecoli_mg1655.fa.gz"   # ragout: E. coli K-12, 4.6 Mb
  "$cache/vcholerae_o395.fa.gz" # ragout: V. cholerae O395, 4.1 Mb in 2
)
corpus=$work/corpus240.fa
if [ ! -s "$corpus" ]; then
  log "== building $corpus"
  # sed '$a\' ends each file with a newline: some lack one, and the next
  # header would otherwise join their last sequence line.
  for f in "${sources[@]}"; do zcat "$f" | sed '$a\'; done > "$corpus.tmp.$$"
  mv "$corpus.tmp.$$" "$corpus"
fi
patterns=$work/kmers-1000x8-s$seed.txt
"$work/kmers" -n 1000 -k 8 -s "$seed" "$corpus" > "$patterns"
cat "$corpus" > /dev/null # into the page cache: measure matching, not the disk

# ---- runs ----------------------------------------------------------------
raw=$work/hyperscan-vs-gscan.runs.tsv
printf 'tool\tengine\tthreads\trun\twall_s\tcpu_s\tscan_s\n' > "$raw"
# h5vals FILE DATASET: the values, one a line
h5vals() {
  local t=$work/h5vals.txt
  h5dump -d "$2" -y -w 1 -o "$t" "$1" >/dev/null
  tr -d ' ,' < "$t" | grep -v '^$'
}
# timed ERRFILE CMD...: run CMD (its stderr to ERRFILE) and print
# "wall cpu" in seconds, cpu = user + system of the process and its threads.
# CPU time is the steadier number when other work shares the cores.
timed() {
  local errf=$1 tf=$work/time.txt TIMEFORMAT='%3R %3U %3S'
  shift
  { time "$@" 2> "$errf"; } 2> "$tf" || { cat "$errf" >&2; exit 3; }
  awk '{ printf "%s\t%.3f", $1, $2 + $3 }' "$tf"
}

residues=
run_hs() { # run_hs T VARIANT(''|-u) RUN
  local t=$1 v=$2 r=$3 err=$work/hs.err tm scan
  tm=$(timed "$err" "$work/hs_count" -t "$t" $v -o "$work/hs-t$t$v.counts" "$patterns" "$corpus")
  residues=$(sed -n 's/.* records, \([0-9]*\) residues.*/\1/p' "$err")
  scan=$(sed -n 's/.* scan \([0-9.]*\) s .*/\1/p' "$err")
  printf 'hyperscan\t%s\t%s\t%s\t%s\t%s\n' "${v:-caseless}" "$t" "$r" "$tm" "$scan" >> "$raw"
}
run_gscan() { # run_gscan ENGINE T RUN
  local eng=$1 t=$2 r=$3 out=$work/gscan-$1-t$2.h5 tm
  tm=$(timed "$work/gscan.err" "$gscan" scan -q -d cpu -e "$eng" -t "$t" --strand forward \
    --report counts -p "$patterns" -o "$out" "$corpus")
  printf 'gscan\t%s\t%s\t%s\t%s\t%s\n' "$eng" "$t" "$r" "$tm" \
    "$(h5vals "$out" /timing/scan | sort -g | tail -1)" >> "$raw"
}

log "== $runs runs of: hyperscan (caseless, -u) and gscan ($engines), threads: $threads"
for r in $(seq 1 "$runs"); do
  for t in $threads; do
    run_hs "$t" "" "$r"
    run_hs "$t" -u "$r"
    for eng in $engines; do run_gscan "$eng" "$t" "$r"; done
  done
  log "   run $r/$runs done"
done

# ---- agreement -----------------------------------------------------------
# Reference: Hyperscan, caseless, the first thread count. Every other
# configuration's counts (last run) are compared with it pattern by pattern.
t0=${threads%% *}
ref=$work/hs-t$t0.counts
agree_file=$work/agree.tsv
: > "$agree_file"
bad=0
check() { # check LABEL COUNTS_FILE
  local a
  a=$(paste "$ref" "$2" | awk '$1 == $2 { ok++ } END { printf "%d/%d", ok, NR }')
  printf '%s\t%s\n' "$1" "$a" >> "$agree_file"
  case $a in "$(wc -l < "$ref")/$(wc -l < "$ref")") ;; *)
    bad=1
    log "!! $1: counts differ from Hyperscan's; first differences (pattern, hyperscan, $1):"
    paste "$patterns" "$ref" "$2" | awk '$2 != $3' | head -5 >&2 ;;
  esac
}
for t in $threads; do
  check "hyperscan caseless $t" "$work/hs-t$t.counts"
  check "hyperscan -u $t" "$work/hs-t$t-u.counts"
  for eng in $engines; do
    h5vals "$work/gscan-$eng-t$t.h5" /counts > "$work/gscan-$eng-t$t.counts"
    check "gscan $eng $t" "$work/gscan-$eng-t$t.counts"
  done
done
g_res=$(h5vals "$work/gscan-${engines%% *}-t$t0.h5" /records/length | awk '{ s += $1 } END { print s }')
[ "$g_res" = "$residues" ] ||
  log "!! residues: hs_count joined $residues, gscan's /records/length sums to $g_res"

# ---- table ---------------------------------------------------------------
summary=$work/hyperscan-vs-gscan.tsv
awk -F'\t' -v res="$residues" -v agree="$agree_file" '
  BEGIN { while ((getline l < agree) > 0) { split(l, f, "\t"); ok[f[1]] = f[2] } }
  function med(v, n,   i, j, x) { # sort v[1..n] in place, return the median
    for (i = 2; i <= n; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  NR > 1 {
    k = $1 SUBSEP $2 SUBSEP $3
    if (!(k in n)) order[++nk] = k
    n[k]++; w[k, n[k]] = $5; c[k, n[k]] = $6; s[k, n[k]] = $7
  }
  END {
    for (i = 1; i <= nk; i++) {
      k = order[i]; split(k, f, SUBSEP)
      delete a; delete b; delete d
      for (j = 1; j <= n[k]; j++) { a[j] = w[k, j]; b[j] = s[k, j]; d[j] = c[k, j] }
      mw[k] = med(a, n[k]); lo[k] = a[1]; hi[k] = a[n[k]]; ms[k] = med(b, n[k]); mc[k] = med(d, n[k])
      if (f[1] == "hyperscan" && f[2] == "caseless") { base[f[3]] = mw[k]; basec[f[3]] = mc[k] }
    }
    printf "tool\tengine\tthreads\truns\twall_median_s\twall_min_s\twall_max_s\tGB_per_s\tx_hyperscan\tcpu_s\tGB_per_cpu_s\tx_hs_cpu\tscan_phase_s\tcounts_agree\n"
    for (i = 1; i <= nk; i++) {
      k = order[i]; split(k, f, SUBSEP)
      printf "%s\t%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\t%.3f\t%.3f\t%.2f\t%.3f\t%s\n", f[1], f[2], f[3], n[k],
        mw[k], lo[k], hi[k], res / mw[k] / 1e9, base[f[3]] / mw[k],
        mc[k], res / mc[k] / 1e9, basec[f[3]] / mc[k], ms[k], ok[f[1] " " f[2] " " f[3]]
    }
  }' "$raw" > "$summary"

echo
echo "corpus: $corpus ($(stat -c %s "$corpus") bytes, $residues residues," \
  "$(grep -c '^>' "$corpus") records); patterns: 1000 distinct 8-mers (seed $seed)"
echo "whole-process times, median of $runs runs; GB_per_s = residues / median wall;"
echo "x_hyperscan = Hyperscan caseless median wall / this one, same thread count;"
echo "cpu_s = user + system seconds (GB_per_cpu_s, x_hs_cpu: the same on CPU time);"
echo "scan_phase_s = the tool's own scan timer (gscan: max of /timing/scan)"
echo
column -t -s $'\t' "$summary"
echo
awk -F'\t' 'NR > 1 && $1 == "gscan" && $8 > best[$3] { best[$3] = $8; eng[$3] = $2; x[$3] = $9; xc[$3] = $12 }
  NR > 1 && $1 == "hyperscan" && $2 == "caseless" { hs[$3] = $8 }
  END { for (t in best) printf "threads %s: best gscan engine %s %.3f GB/s vs Hyperscan %.3f GB/s = %.2fx wall, %.2fx CPU time (target >= 5x)\n", t, eng[t], best[t], hs[t], x[t], xc[t] }' \
  "$summary" | sort
echo "numbers: $summary, every run: $raw"
if [ "$bad" -ne 0 ]; then
  log "!! some counts disagree with Hyperscan (see above)"
  exit 4
fi
