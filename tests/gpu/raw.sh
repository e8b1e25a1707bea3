#!/usr/bin/env bash
# raw.sh - indexed FASTA parsed on the GPU (src/gpu/raw.cu): the readers send
# the files' own bytes, line ends included, and the device drops and checks
# them. Against the CPU path (the host's parser) on every line layout the
# index allows: 60 columns, one residue a line, 7 columns, CRLF, blanks
# before the line end; short and long records, lowercase and N runs; blocks
# from 16M down to 37 residues (segments that start and end at every
# column), 1 and 3 readers, both strands, hits and counts, --circular, 1 and
# 2 ranks; BGZF, whose blocks the readers inflate straight into the batch.
# Then stale indexes: a line end, a blank or a header where a
# residue should be, a line end missing, a file cut short; each must fail
# with exit 2 and the CPU path's message. Exits 77 where no GPU is visible.
set -uo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
MPIEXEC=${MPIEXEC:-mpiexec}
D=${GS_RAW_DEVICE:-gpu} # cpu: a dry run of the script where there is no GPU
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
printf '>r\nACGT\n' >probe.fa
printf 'ACG\n' >probe.txt
if ! "$GSCAN" scan -q -d $D -p probe.txt -o probe.h5 probe.fa 2>/dev/null; then
  echo "raw.sh: no GPU visible, skipped"
  exit 77
fi
fails=0 runs=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
# shellcheck source=../lib/same_h5.sh
source "$root/tests/lib/same_h5.sh"
# layout NAME: w.fa rewritten with that line layout into NAME.fa, indexed
layout() {
  case $1 in
    w60 | w1 | w7) "$GSCAN" gen -o "$1" -s "$seed" "${gen[@]}" --line-width "${1#w}" ;;
    crlf) sed 's/$/\r/' w60.fa >crlf.fa ;;
    bgzf) # the same text in BGZF blocks, read through its .gzi
      "$GSCAN" index --bgzf -o bgzf.fa w60.fa >/dev/null || fail "index --bgzf"
      return ;;
    blank) # two blanks before each line end: gscan index refuses them, samtools
      # faidx does not; its index written here (name, length, offset, line
      # residues, line bytes)
      awk '/^>/ { print; next } { print $0 "  " }' w60.fa >blank.fa
      awk 'function out() { if (name != "") printf "%s\t%d\t%d\t%d\t%d\n", name, len, off, lb, lw }
           /^>/ { out(); name = substr($1, 2); len = 0; lb = 0; at += length($0) + 1; off = at; next }
           { n = length($0) - 2; if (lb == 0) { lb = n; lw = length($0) + 1 }; len += n; at += length($0) + 1 }
           END { out() }' blank.fa >blank.fa.fai
      return ;;
  esac
  "$GSCAN" index "$1.fa" || fail "index $1"
}
for seed in 1 2; do
  case $seed in
    1) gen=(-n 200K -r 400 -k 500 --min-length 4 --max-length 24) ;; # ESTs
    2) gen=(-n 300K -r 3 -k 1000 --min-length 8 --max-length 12) ;; # chromosomes
  esac
  gen+=(--planted 0.6 --degenerate 0.1 --palindromes 0.1 --lowercase 0.1 --n-runs 20)
  for lay in w60 w1 w7 crlf blank bgzf; do
    layout $lay
    p=$lay.patterns
    [ -f "$p" ] || cp w60.patterns "$p"
    for strand in both forward; do
      "$GSCAN" scan -q -d cpu -t 2 --strand $strand --report hits -p "$p" -o ref.h5 $lay.fa ||
        fail "cpu $lay"
      for block in 16M 1000 37; do
        [ "$block" = 37 ] && [ "$seed" = 1 ] && continue # one launch a block: long records only
        for readers in 1 3; do
          "$GSCAN" scan -q -d $D --block-size $block --readers $readers --strand $strand \
            --report hits -p "$p" -o out.h5 $lay.fa || fail "gpu $lay"
          same ref.h5 out.h5 "seed=$seed $lay strand=$strand block=$block readers=$readers hits" /hits
        done
      done
      "$GSCAN" scan -q -d $D --strand $strand -p "$p" -o out.h5 $lay.fa || fail "gpu $lay counts"
      same ref.h5 out.h5 "seed=$seed $lay strand=$strand counts"
    done
    "$GSCAN" scan -q -d cpu -t 2 --report hits -p "$p" -o ref.h5 $lay.fa
    "$MPIEXEC" -n 2 "$GSCAN" scan -q -d $D --block-size 1000 --report hits -p "$p" -o out.h5 $lay.fa
    same ref.h5 out.h5 "seed=$seed $lay 2 ranks" /hits
    "$GSCAN" scan -q -d cpu -t 2 --circular --report hits -p "$p" -o ref.h5 $lay.fa
    "$GSCAN" scan -q -d $D --circular --block-size 1000 --report hits -p "$p" -o out.h5 $lay.fa
    same ref.h5 out.h5 "seed=$seed $lay circular" /hits
  done
done

# Circular records shorter than a pattern go to the CPU between the raw
# runs of a batch: many of them make many runs (and fences) a batch.
awk 'BEGIN { srand(9); for (r = 0; r < 3000; r++) { n = r % 2 ? 3 + r % 5 : 200 + r % 97
       s = ""; for (i = 0; i < n; i++) s = s substr("ACGT", int(rand() * 4) + 1, 1)
       printf ">c%d\n%s\n", r, s } }' >tiny.fa
"$GSCAN" index tiny.fa
printf 'ACGTAC\nGATTACA\nCCCGGGTT\nTTTT\n' >tiny.txt
"$GSCAN" scan -q -d cpu -t 2 --circular --report hits -p tiny.txt -o ref.h5 tiny.fa
"$GSCAN" scan -q -d $D --circular --block-size 4096 --report hits -p tiny.txt -o out.h5 tiny.fa
same ref.h5 out.h5 "circular, short records between raw runs" /hits

# Stale indexes: the file changed after `gscan index`, its size kept where
# it can be. Each fault must be exit 2 with the CPU path's message.
stale() { # name file
  local c g rc_c rc_g
  c=$("$GSCAN" scan -q -d cpu -p w60.patterns -o x.h5 "$2" 2>&1); rc_c=$?
  g=$("$GSCAN" scan -q -d $D -p w60.patterns -o x.h5 "$2" 2>&1); rc_g=$?
  runs=$((runs + 1))
  if [ $rc_c != 2 ] || [ $rc_g != 2 ] || [ "$c" != "$g" ] || [ -e x.h5 ]; then
    fail "stale $1: cpu $rc_c '$c', gpu $rc_g '$g'"
  fi
  rm -f x.h5
}
"$GSCAN" gen -o s -s 5 -n 100K -r 5 -k 50 --line-width 60 >/dev/null
mk() { cp s.fa "$1.fa"; cp s.fa.fai "$1.fa.fai"; }
"$GSCAN" index s.fa
# byte offsets well inside the sequence lines of the third record
line=$(awk '/^>/ { n++ } n == 3 && !/^>/ { c++; if (c == 20) { print NR; exit } }' s.fa)
off=$(head -n $((line - 1)) s.fa | wc -c)
mk nl && printf '\n' | dd of=nl.fa bs=1 seek=$((off + 17)) conv=notrunc status=none
stale "line end in a line" nl.fa
mk blank && printf ' ' | dd of=blank.fa bs=1 seek=$((off + 30)) conv=notrunc status=none
stale "blank in a line" blank.fa
mk hdr && printf '>' | dd of=hdr.fa bs=1 seek=$((off + 61)) conv=notrunc status=none
stale "header at column 0" hdr.fa
mk noend && printf 'A' | dd of=noend.fa bs=1 seek=$((off + 60)) conv=notrunc status=none
stale "no line end" noend.fa
mk cut && truncate -s -500 cut.fa
stale "cut short" cut.fa
echo "raw.sh: $((runs - fails)) passed, $fails failed"
[ $fails = 0 ]
