#!/usr/bin/env bash
# whole-job.sh - time the whole `gscan scan` process on every row of the
# whole-job table (docs/performance.md): tiny input, plain FASTA with and
# without .fai, the CPU path, EST-like records, gzip -1, BGZF, IUPAC primers
# with hits, many hits, and 1 -> 2 GPUs when two are visible.
#
#   bench/gpu/whole-job.sh BUILD_DIR WORK_DIR
#
# Run from the project root on the GPU machine (after `source
# .devdeps/env.sh` and a build, e.g. scripts/device.sh test). The corpora are
# built in WORK_DIR on the machine (about 4 GB of disk) from the real genomes
# that travel: .devdata/genomes.seq.xz (hs37chrXtrunc + genome_1, headers and
# newlines dropped, see scripts/prepare-devdata.sh), or, where data/cache
# holds them, the gzip'd genomes themselves; lambda from .devdata or
# data/cache. Every row is the whole process timed from the shell (start to
# exit), median of RUNS (3) runs, with rank 0's /timing phases of the median
# run (init, plan, read, transfer, scan, write, total; seconds). A phase is blank where
# the run does not have it. Logs go to $OUT (default WORK_DIR/out); the table is
# printed last and written to $OUT/whole-job.md.
#
# Environment: RUNS (3), GS_RESIDUES (2^30), GS_THREADS (16, the CPU rows'
# -t), SEED (42), GS_DEVICE (gpu; cpu for a dry run without a GPU), ROWS
# (a bash regex: only the rows whose name matches, e.g. 'EST|no .fai'), DEBUG
# (--debug for every scan, e.g. time: the steps of each run in the log). Exit status 0 when every run succeeded and the GPU and CPU
# counts agree, else 1.
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: $0 BUILD_DIR WORK_DIR" >&2; exit 1; }
root=$(cd "$(dirname "$0")/../.." && pwd)
G=$(cd "$1" && pwd)/gscan
w=$2
mkdir -p "$w" && w=$(cd "$w" && pwd)
out=${OUT:-$w/out}
mkdir -p "$out"
RUNS=${RUNS:-3} N=${GS_RESIDUES:-1073741824} T=${GS_THREADS:-16} SEED=${SEED:-42}
D=${GS_DEVICE:-gpu} # cpu: a dry run of the script on a machine without a GPU
log=$out/whole-job.log
: >"$log"
say() { printf '%s\n' "$*" | tee -a "$log" >&2; }
[ -x "$G" ] || { say "no gscan binary at $G"; exit 1; }
command -v h5dump >/dev/null || { say "h5dump not found (hdf5-tools; .devdeps/env.sh)"; exit 1; }
now() { date +%s.%N; }
status=0

# ---- corpora ---------------------------------------------------------------
cd "$w" || exit 1
cc -O2 -o mkfasta "$root/bench/gpu/mkfasta.c" && cc -O2 -o kmers "$root/bench/cpu/kmers.c" ||
  { say "cannot compile mkfasta/kmers"; exit 1; }
if [ ! -s genomes.seq ]; then
  if [ -f "$root/.devdata/genomes.seq.xz" ]; then
    xz -dc "$root/.devdata/genomes.seq.xz" >genomes.seq 2>/dev/null ||
      python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],"wb"))' \
        "$root/.devdata/genomes.seq.xz" genomes.seq
  else
    zcat "$root/data/cache/hs37chrXtrunc.fa.gz" "$root/data/cache/genome_1.fa.gz" |
      grep -v '^>' | tr -d '\n\r' | tr a-z A-Z >genomes.seq
  fi
fi
[ -s genomes.seq ] || { say "no genome sequence (.devdata/genomes.seq.xz or data/cache)"; exit 1; }
for d in "$root/.devdata" "$root/data/cache"; do
  [ -s lambda.fa ] || { [ -f "$d/lambda_virus.fa.gz" ] && zcat "$d/lambda_virus.fa.gz" >lambda.fa; }
done
[ -s lambda.fa ] || { say "no lambda_virus.fa.gz in .devdata or data/cache"; exit 1; }

t0=$(now)
want() { [[ "$1" =~ ${ROWS:-.} ]]; } # a corpus only the rows asked for read
# chromosome-like: 4 Mbp records of 60-column lines; EST-like: 500 bp records
[ -s chrom.fa ] || ./mkfasta genomes.seq chrom.fa "$N" 4194304 60 || exit 1
if want "EST-like 500 bp + .fai"; then
  [ -s est.fa ] || ./mkfasta genomes.seq est.fa "$N" 500 60 || exit 1
  [ -s est.fa.fai ] || "$G" index est.fa || exit 1
fi
# the same text without and with an index: two names, one file
ln -f chrom.fa noidx.fa
[ -s chrom.fa.fai ] || "$G" index chrom.fa || exit 1
rm -f noidx.fa.fai
if want "gzip -1 (one stream)" || want "BGZF + .fai/.gzi"; then
  [ -s chrom.fa.gz ] || gzip -1 -c chrom.fa >chrom.fa.gz || exit 1
fi
if want "BGZF + .fai/.gzi" && [ ! -s chrom.bgzf.gz.gzi ]; then
  t1=$(now)
  "$G" index --bgzf -l 1 -o chrom.bgzf.gz chrom.fa.gz || exit 1
  say "gscan index --bgzf -l 1 of chrom.fa.gz: $(awk -v a="$t1" -v b="$(now)" 'BEGIN{printf "%.2f", b-a}') s"
fi
# patterns: 16000 and 1000 distinct 8-mers cut from the text; 258 primers of
# 20 bases cut from the text with two positions made IUPAC codes
./kmers -n 16000 -k 8 -s "$SEED" chrom.fa >k16000.txt &&
  ./kmers -n 1000 -k 8 -s "$SEED" chrom.fa >k1000.txt &&
  ./kmers -n 258 -k 20 -s "$SEED" chrom.fa |
  awk -v s="$SEED" 'BEGIN { srand(s); iu = "RYSWKMBDHVN" }
       { for (j = 0; j < 2; j++) { p = int(rand() * 20) + 1
           $0 = substr($0, 1, p - 1) substr(iu, int(rand() * 11) + 1, 1) substr($0, p + 1) }
         print }' >primers.txt || { say "cannot draw the patterns"; exit 1; }
say "corpora ready in $(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}') s: $(ls -l chrom.fa est.fa chrom.fa.gz chrom.bgzf.gz 2>/dev/null | awk '{printf "%s %d MB; ", $NF, $5/1e6}')"

# ---- timing ----------------------------------------------------------------
# rank 0's value of /timing/$2 in file $1 (blank when absent)
phase() {
  h5dump -y -d "/timing/$2" "$1" 2>/dev/null | awk '/DATA \{/ { getline; sub(",", "", $1); print $1; exit }'
}
table=$out/whole-job.md
{
  echo "| run | wall s (median of $RUNS) | init | plan | read | transfer | scan | write | total | exit |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
} >"$table"
# the result file kept for a row
res() { printf 'r_%s.h5' "$(printf '%s' "$1" | tr -c 'A-Za-z0-9' '_')"; }
# row NAME LAUNCH ARGS...: RUNS runs of "LAUNCH gscan scan -q ARGS -o r.h5";
# the run with the median wall time gives the phases; r_NAME.h5 is kept
row() {
  local name=$1 launch=$2 i t s rc=0
  shift 2
  [[ "$name" =~ ${ROWS:-.} ]] || return 0
  : >times.txt
  for ((i = 0; i < RUNS; i++)); do
    t=$(now)
    # shellcheck disable=SC2086
    timeout 600 $launch "$G" scan -q ${DEBUG:+--debug "$DEBUG"} "$@" -o r.h5 >>"$log" 2>&1 || rc=$?
    s=$(awk -v a="$t" -v b="$(now)" 'BEGIN{printf "%.3f", b-a}')
    [ $rc = 0 ] || break
    echo "$s $(for p in init plan read transfer scan write total; do v=$(phase r.h5 $p); printf '%s ' "${v:--}"; done)" >>times.txt
  done
  [ $rc = 0 ] && cp r.h5 "$(res "$name")"
  if [ $rc != 0 ]; then
    say "FAIL $name: exit $rc"
    status=1
    echo "| $name | | | | | | | | | $rc |" >>"$table"
    return
  fi
  sort -n times.txt | sed -n "$((RUNS / 2 + 1))p" |
    awk -v n="$name" '{ printf "| %s | %.3f |", n, $1
                        for (i = 2; i <= 8; i++) printf($i == "-" ? " |" : " %.3f |", $i)
                        print " 0 |" }' >>"$table"
  say "$(tail -1 "$table")"
}
k=k16000.txt
row "tiny input (lambda), -d $D" "" -d $D -p $k lambda.fa
row "plain FASTA, no .fai" "" -d $D -p $k noidx.fa
row "plain FASTA + .fai" "" -d $D -p $k chrom.fa
row "same, -d cpu -t $T" "" -d cpu -t "$T" -p $k chrom.fa
row "plain FASTA + .fai, --readers 8" "" -d $D --readers 8 -p $k chrom.fa
row "plain FASTA + .fai, --readers 16" "" -d $D --readers 16 -p $k chrom.fa
row "EST-like 500 bp + .fai" "" -d $D -p $k est.fa
row "EST-like 500 bp + .fai, --readers 8" "" -d $D --readers 8 -p $k est.fa
row "gzip -1 (one stream)" "" -d $D -p $k chrom.fa.gz
row "gzip -1, one inflate thread (-t 3)" "" -d $D -t 3 -p $k chrom.fa.gz
row "BGZF + .fai/.gzi" "" -d $D -p $k chrom.bgzf.gz
row "BGZF + .fai/.gzi, --readers 8" "" -d $D --readers 8 -p $k chrom.bgzf.gz
row "BGZF + .fai/.gzi, --readers 16" "" -d $D --readers 16 -p $k chrom.bgzf.gz
row "258 IUPAC primers, --report hits" "" -d $D --report hits -p primers.txt chrom.fa
row "1000 8-mers, --report hits" "" -d $D --report hits -p k1000.txt chrom.fa
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [ "${gpus:-0}" -ge 2 ]; then
  row "1 GPU (scaling base)" "mpiexec -n 1" -d $D -p $k chrom.fa
  row "2 GPUs, mpiexec -n 2" "mpiexec -n 2" -d $D -p $k chrom.fa
fi

# the same answer everywhere: GPU and CPU, indexed and not, every encoding
for f in "plain FASTA, no .fai" "same, -d cpu -t $T" "gzip -1 (one stream)" \
         "gzip -1, one inflate thread (-t 3)" "BGZF + .fai/.gzi" \
         "BGZF + .fai/.gzi, --readers 16" "plain FASTA + .fai, --readers 8"; do
  a=$(res "plain FASTA + .fai") b=$(res "$f")
  if [ -f "$a" ] && [ -f "$b" ] && ! h5diff -q "$a" "$b" /counts /counts >>"$log" 2>&1; then
    say "FAIL counts of '$f' differ from 'plain FASTA + .fai'"
    status=1
  fi
done
{
  echo
  echo "$(date -u +%F) $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)," \
       "$(nproc) host cores; $N residues; phases: rank 0's /timing of the median run"
} >>"$table"
cat "$table"
exit $status
