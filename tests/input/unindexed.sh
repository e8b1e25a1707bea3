#!/usr/bin/env bash
# unindexed.sh - a plain FASTA file with no .fai, indexed in memory on the
# job's threads, gives the same result file as the streamed read (one
# process, one thread) and as the .fai path (gscan index first), at 1 to 4
# ranks and 1 to 8 threads, with ranges forced down to a few bytes
# (--tune io.fai.split) so that headers and line ends fall on range edges:
# /counts, /hits, /records, /files and /patterns compared with h5diff.
# Inputs: real genomes (E. coli, V. cholerae, genome_1 with several records),
# `gscan gen` corpora of many short and empty records, lowercase and N runs,
# and edits of them: CRLF line ends, a last line without a newline, a UTF-8
# BOM and blank lines before the first header, odd line widths. Files whose
# lines .fai cannot describe (varying widths, a blank line inside a record)
# and text that is not FASTA ('>' with no name, a NUL byte, residues before
# the first header) keep today's reading: the check is that the job says
# which reading it took (--debug io) and that the result is still the same.
set -euo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MPIEXEC=${MPIEXEC:-mpiexec}
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fails=0 runs=0
# shellcheck source=../lib/same_h5.sh
source "$root/tests/lib/same_h5.sh"
reading() { # expected-reading label command... (with --debug io): run it, check rank 0's reading
  local want=$1 label=$2 out
  shift 2
  out=$("$@" 2>&1) || { echo "FAIL $label: exit status"; echo "$out"; fails=$((fails + 1)); return; }
  if ! grep -q "rank 0 read [0-9]* bytes ($want)" <<<"$out"; then
    echo "FAIL $label: expected $want reading:"; echo "$out"; fails=$((fails + 1))
  fi
}

# inputs: NAME:READING: how one process with several threads reads it
# (ranges: indexed in memory; local: streamed, because it cannot be indexed
# or, like short.fa, has many short records, for which one stream is faster);
# several ranks read by ranges whatever can be indexed
inputs=()
"$GSCAN" gen -o many -s 31 -n 200K -r 3000 -k 300 --min-length 4 --max-length 12 --planted 0.7 \
  --lowercase 0.2 --n-runs 40 --line-width 61
# empty records between short ones
awk '/^>/ && NR % 7 == 1 { print $0 "_empty" } { print }' many.fa > short.fa
inputs+=(short.fa:local)
"$GSCAN" gen -o w -s 32 -n 150K -r 7 -k 400 --min-length 3 --max-length 25 --planted 0.6 \
  --degenerate 0.1 --palindromes 0.1 --line-width 70
inputs+=(w.fa:ranges)
sed 's/$/\r/' w.fa > crlf.fa && inputs+=(crlf.fa:ranges)
head -c -1 w.fa > nonl.fa && inputs+=(nonl.fa:ranges)                 # no newline at the end
{ printf '\xef\xbb\xbf\n\r\n'; cat w.fa; } > bom.fa && inputs+=(bom.fa:ranges)
awk '!/^>/ && NR % 50 == 3 { print substr($0, 1, 30); print substr($0, 31); next } { print }' \
  w.fa > widths.fa && inputs+=(widths.fa:local)                       # varying line widths
awk '{ print } NR == 20 { print "" }' w.fa > blank.fa && inputs+=(blank.fa:local)
# not quite FASTA: today's reading, today's result
{ printf '>\n'; head -c 3000 w.fa | tail -n +2; } > noname.fa && inputs+=(noname.fa:ranges)
sed '30s/[ACGT]/\x00/' w.fa > nul.fa && inputs+=(nul.fa:ranges)
{ printf 'ACGTACGT\n'; cat w.fa; } > lead.fa && inputs+=(lead.fa:local)  # read raw
if "$root/scripts/fetch-examples.sh" bowtie2-examples ragout-examples >/dev/null 2>&1; then
  for g in ecoli_mg1655 vcholerae_o395 genome_1; do
    [ -e "$root/data/cache/$g.fa.gz" ] && zcat "$root/data/cache/$g.fa.gz" > $g.fa && inputs+=($g.fa:ranges)
  done
fi

for item in "${inputs[@]}"; do
  input=${item%%:*} want=${item#*:}
  pat=w.patterns
  case $input in short.fa) pat=many.patterns ;; ecoli* | vcholerae* | genome_1*) pat=$root/data/patterns/demo.fa ;; esac
  opts=(-q -d cpu --report hits --block-size 20K --debug io -p "$pat")
  # the reference: one process, one thread, streamed
  reading local "$input -t 1" "$GSCAN" scan "${opts[@]}" -t 1 -o ref.h5 "$input"
  # w.fa and short.fa run every split, rank count and .fai run; the variants
  # of w.fa and the genomes, whose point is their bytes, a few of each
  full=0
  case $input in w.fa | short.fa) full=1 ;; esac
  splits=("2 0" "3 4096" "8 61" "2 7" "5 1")
  [ $full = 0 ] && splits=("3 4096" "2 7")
  for tsplit in "${splits[@]}"; do
    read -r t split <<<"$tsplit"
    [ "$split" = 1 ] && [ "$(stat -c %s "$input")" -gt 400000 ] && continue # byte ranges: small files
    reading "$want" "$input -t $t split $split" \
      "$GSCAN" scan "${opts[@]}" --tune io.fai.split="$split" -t "$t" -o got.h5 "$input"
    same ref.h5 got.h5 "$input -t $t split $split" /hits
  done
  mwant=$want; [ "$want" = local ] && mwant=streamed
  [ "$input" = short.fa ] && mwant=ranges
  ranks="2 1 7|4 2 997"
  [ "$input" = w.fa ] && ranks="2 1 7|3 2 0|4 2 997"
  [ $full = 0 ] && ranks="2 1 7"
  IFS='|' read -r -a rank_runs <<<"$ranks"
  for nts in "${rank_runs[@]}"; do
    read -r n t split <<<"$nts"
    reading "$mwant" "$input n=$n -t $t split $split" \
      "$MPIEXEC" -n "$n" "$GSCAN" scan "${opts[@]}" --tune io.fai.split="$split" -t "$t" -o got.h5 "$input"
    same ref.h5 got.h5 "$input n=$n -t $t split $split" /hits
  done
  # the .fai path, where gscan index takes the file
  if [ "$want" = ranges ] && "$GSCAN" index "$input" 2>/dev/null; then
    for n in 1 2; do
      [ $full = 0 ] && [ $n = 2 ] && continue
      reading ranges "$input .fai n=$n" "$MPIEXEC" -n $n "$GSCAN" scan "${opts[@]}" -t 2 -o got.h5 "$input"
      same ref.h5 got.h5 "$input .fai n=$n" /hits
    done
    rm -f "$input.fai"
  fi
done
echo "unindexed.sh: $((runs - fails)) passed, $fails failed"
[ $fails = 0 ]
