#!/usr/bin/env bash
# approx.sh - approximate matching on the GPU (engine bv), two tables:
#  (a) the seeds' workload, kernel alone (bench_bv): 2^22 and 2^30 random
#      characters over 2 letters, one pattern of |X| = 32 .. 1024, the
#      minimum edit distance at every end; ms (median of 5) and cell
#      updates/s, the 2^22 profiles checked against a CPU DP;
#  (b) a primer screen, whole process: 1000 primers of 18-30 nt drawn from
#      the FASTA (every 4th with one IUPAC code), --max-edits 3, both strands,
#      --report hits, `gscan scan -d gpu` against `-d cpu -t 16`, median of 3
#      runs (the CPU runs 1 time when its first run takes over 60 s), and
#      that both wrote the same hits; also the GPU with its seed filter off
#      (--tune match.seed.filter=-1, every key scanned in full) and that it wrote the
#      same hits as the filter.
#
#   bench/gpu/approx.sh BUILD_DIR FASTA [WORK_DIR]
#
# BUILD_DIR holds gscan and tests/bench_bv (a CUDA build); FASTA is ~1 GiB of
# real DNA (plain or gzip). About 2-3 minutes of GPU time. Environment: RUNS
# (3), CPU_RUNS (RUNS; 0 skips the CPU row), GS_THREADS (16), SEED (42),
# LOG2N ("22 30"; "" skips table a),
# RUN_TIMEOUT (600 s a gscan run). Prints the tables and
# writes them to WORK_DIR/approx.md (WORK_DIR default /tmp/gs_approx).
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BUILD_DIR FASTA [WORK_DIR]" >&2; exit 1; }
B=$(cd "$1" && pwd)
G=$B/gscan
FA=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
W=${3:-/tmp/gs_approx}
mkdir -p "$W" && cd "$W" || exit 1
RUNS=${RUNS:-3} CPU_RUNS=${CPU_RUNS:-${RUNS:-3}} T=${GS_THREADS:-16} SEED=${SEED:-42} LOG2N=${LOG2N-"22 30"}
md=$W/approx.md
status=0

echo "## (a) seeds' workload, kernel only ($(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1))" | tee "$md"
echo '```' >>"$md"
[ -z "$LOG2N" ] || "$B/tests/bench_bv" $LOG2N | tee -a "$md" || status=1
echo '```' >>"$md"

# 1000 primers from the first ~64 Mbp of the FASTA, seeded
cat_fa() { case $1 in *.gz) zcat "$1" ;; *) cat "$1" ;; esac; }
cat_fa "$FA" | head -c 70000000 | awk -v seed="$SEED" -v want=1000 "$(cat <<'AWK'
  # sequence lines kept as they are (joining 70 MB in awk is quadratic);
  # a primer is cut from two adjacent lines of one record
  /^>/ { rec++; next } { line[++n] = $0; r[n] = rec }
  END { srand(seed); k = 0
    while (k < want) { i = 1 + int(rand() * (n - 1)); if (r[i] != r[i + 1]) continue
      s = line[i] line[i + 1]; len = 18 + int(rand() * 13); if (length(s) < len) continue
      at = 1 + int(rand() * (length(s) - len + 1)); p = toupper(substr(s, at, len))
      if (p ~ /[^ACGT]/) continue
      if (k % 4 == 0) { j = 3 + int(rand() * (len - 6)); p = substr(p, 1, j - 1) "N" substr(p, j + 1) }
      printf "primer%d\t%s\n", k, p; k++ } }
AWK
)">primers.txt

now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
timed() { # label out.h5 args...: the whole process, RUNS times (fewer for slow CPU runs)
  local label=$1 out=$2 r t0 t1 runs=$RUNS
  [ "$label" = cpu ] && runs=$CPU_RUNS
  shift 2
  : >"$label.times"
  for ((r = 0; r < runs; r++)); do
    t0=$(now)
    timeout "${RUN_TIMEOUT:-600}" "$G" scan -q "$@" -o "$out" "$FA" ||
      { echo "$label: gscan failed or ran past RUN_TIMEOUT" >&2; status=1; return; }
    t1=$(now)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' >>"$label.times"
    if [ "$label" = cpu ] && awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a > 60) }'; then runs=1; fi
  done
  median <"$label.times"
}
args=(--max-edits 3 --strand both --report hits -p primers.txt)
"$G" scan -q -d gpu "${args[@]}" -o warm.h5 "$FA" >/dev/null 2>&1 # page cache and driver
tg=$(timed gpu gpu.h5 -d gpu "${args[@]}")
tn=$(timed gpu-nofilter gpu-nofilter.h5 -d gpu --tune match.seed.filter=-1 "${args[@]}")
tc=""
[ "$CPU_RUNS" = 0 ] || tc=$(timed cpu cpu.h5 -d cpu -t "$T" "${args[@]}")
sameh() { # a.h5 b.h5: yes when hits and counts are equal
  h5diff -q "$1" "$2" /hits /hits >/dev/null && h5diff -q "$1" "$2" /counts /counts >/dev/null &&
    echo yes || echo no
}
same=skipped samen=$(sameh gpu.h5 gpu-nofilter.h5)
[ "$CPU_RUNS" = 0 ] || same=$(sameh gpu.h5 cpu.h5)
[ $same != no ] && [ $samen = yes ] || status=1
nh=$(h5ls gpu.h5/hits/start 2>/dev/null | sed -n 's/.*{\([0-9]*\).*/\1/p')
{
  echo
  echo "## (b) primer screen: 1000 primers 18-30 nt, --max-edits 3, both strands, hits ($(basename "$FA"))"
  echo
  echo "| run | seconds (median) | runs | hits | same hits |"
  echo "|---|---|---|---|---|"
  echo "| gscan scan -d gpu | $tg | $(wc -l <gpu.times) | $nh | $same (vs CPU) |"
  echo "| gscan scan -d gpu --tune match.seed.filter=-1 | $tn | $(wc -l <gpu-nofilter.times) | | $samen (vs filter) |"
  [ -z "$tc" ] || echo "| gscan scan -d cpu -t $T | $tc | $(wc -l <cpu.times) | | |"
  [ -n "$tg" ] && [ -n "$tc" ] && echo "| speed-up | $(awk -v c="$tc" -v g="$tg" 'BEGIN { printf "%.1f", c / g }') | | | |"
} | tee -a "$md"
exit $status
