#!/usr/bin/env bash
# parts.sh - plain FASTA and FASTQ read in parts on several threads
# (io/seq/parts.c) against one stream (--readers 1): the same hits, counts,
# records (ids, names, lengths, files), tallies, matched text, warnings and
# error messages, with parts cut every 37 bytes to 64 KiB so that part starts
# fall on every kind of line: ESTs (lowercase, N runs), a file with a BOM,
# blank lines, CRLF, empty records, a record longer than a part's buffer and
# a '>' inside a sequence line; FASTQ with '@' and '+' opening qualities,
# blank lines between records, empty reads, CRLF and no final line end;
# FASTA and FASTQ files in one corpus, a gzip file among them (which makes
# the whole corpus one stream), --circular, --tally record and file (from
# hits, and counted as the scan goes), --seq,
# and faults in the middle of a file (a short quality, a NUL in a header).
# GS_PARTS_DEVICE=gpu scans the parts on the GPU (gpu_parts), FASTQ reads also
# coded by the portable coder and sent as bytes, and batches also sent a
# segment at a time; exits 77 there
# where no GPU is visible.
# shellcheck source=../lib/suite.sh
source "$(dirname "$0")/../lib/suite.sh" "$1"
D=${GS_PARTS_DEVICE:-cpu}
gs_need_device $D parts.sh

"$GSCAN" gen -o est -s 11 -n 300K -r 600 -k 60 --min-length 5 --max-length 14 --planted 0.5 \
  --lowercase 0.1 --n-runs 10 >/dev/null || exit 1
# odd.fa: BOM, blank lines first, CRLF lines, blank lines in records, empty
# records, a description, a record longer than a part's buffer, a joined '>'
awk 'BEGIN { srand(3); b = "ACGTacgtN"
  printf "\xef\xbb\xbf\n\n"
  for (r = 0; r < 300; r++) {
    n = r % 50 == 7 ? 20000 : r % 11 == 0 ? 0 : 1 + int(rand() * 300)
    printf ">r%d%s%s\n", r % 97, r % 5 ? " some description" : "", r % 3 ? "" : "\r"
    s = ""
    for (i = 0; i < n; i++) { s = s substr(b, 1 + int(rand() * 9), 1)
      if (length(s) == 70 || i == n - 1) { printf "%s%s\n", s, r % 3 ? "" : "\r"; s = "" } }
    if (r % 13 == 0) printf "\n"
    if (r == 150) printf "ACGTACGT>joined\n"
  } }' >odd.fa
# q.fq: reads from est.fa with qualities that open with '@' and '+', blank
# lines between records, empty reads; no line end after the last quality
awk 'BEGIN { srand(5) } /^>/ { next }
  { s = $0; q = ""; for (i = 1; i <= length(s); i++) { x = rand(); q = q (x < 0.2 ? "@" : x < 0.4 ? "+" : "I") }
    n++; printf "@r%d x\n%s\n+%s\n%s\n", n, s, n % 2 ? "" : "r" n, q
    if (n % 7 == 0) printf "\n"
    if (n % 13 == 0) printf "@e%d\n\n+\n\n", n }' est.fa >q0.fq
head -c -1 q0.fq >q.fq
sed 's/$/\r/' q.fq >crlf.fq
cp est.patterns p.txt
gzip -c odd.fa >odd.fa.gz

# check LABEL ARGS... -- CORPUS...: one stream against 2 and 3 readers with
# parts of 37 bytes to 64 KiB; stderr (warnings) must be the stream's
check() {
  local label=$1 args=() part readers
  shift
  while [ "$1" != -- ]; do args+=("$1"); shift; done
  shift
  "$GSCAN" scan -q -d cpu --readers 1 "${args[@]}" -p p.txt -o ref.h5 "$@" 2>ref.err ||
    { fail "$label: stream"; return; }
  local extra=() d # the hits and the tally where the run has them
  for d in hits tally; do h5ls ref.h5 | grep -q "^$d " && extra+=(/$d); done
  for part in 37 700 4K 64K; do
    for readers in 2 3; do
      "$GSCAN" scan -q -d $D -t 2 --readers $readers --tune io.part=$part --debug time \
        "${args[@]}" -p p.txt -o out.h5 "$@" 2>out.all || { fail "$label: parts $part x $readers"; continue; }
      # read in parts, unless a file is compressed
      grep "^gscan: warning" out.all >out.err || true
      if grep -q "in [0-9]* parts on $readers threads" out.all; then [[ "$*" != *.gz* ]]
      else [[ "$*" == *.gz* ]]; fi || fail "$label part=$part readers=$readers: $(grep parts out.all)"
      same ref.h5 out.h5 "$label part=$part readers=$readers" "${extra[@]}"
      cmp -s ref.err out.err ||
        fail "$label part=$part readers=$readers: stderr '$(cat out.err)' not '$(cat ref.err)'; the run said: $(grep -v 'h5 direct' out.all)"
    done
  done
}
check "ESTs hits" --report hits -- est.fa
check "ESTs counts, tally record" --tally record -- est.fa
check "odd FASTA hits" --report hits -- odd.fa
check "odd FASTA circular" --report hits --circular -- odd.fa
check "FASTQ hits" --report hits -- q.fq
check "FASTQ counts" -- q.fq
check "FASTQ CRLF, tally record" --report hits --tally record -- crlf.fq
if [ "$D" = gpu ]; then # reads sent as 2-bit codes by the portable coder, and as bytes;
  # a reader's batch a segment at a time rather than as its table
  check "FASTQ hits, portable coder" --report hits --tune io.fastq.codes=1 -- q.fq
  check "FASTQ CRLF, reads as bytes" --report hits --tune io.fastq.codes=-1 -- crlf.fq
  check "FASTQ and FASTA, a segment at a time" --report hits --tally file --tune gpu.laid=-1 \
    -- est.fa q.fq
fi
check "three files, tally file" --report hits --tally file -- est.fa odd.fa q.fq
check "three files, counts, tally file" --tally file -- est.fa odd.fa q.fq
check "with a gzip file" --report hits -- est.fa odd.fa.gz q.fq
# --seq: the matched text, from the scan's own copy of each part
"$GSCAN" scan -q -d cpu --readers 1 --report hits --seq -O tsv -p p.txt -o ref.tsv est.fa odd.fa q.fq 2>/dev/null
"$GSCAN" scan -q -d $D --readers 3 --tune io.part=1K --report hits --seq -O tsv -p p.txt -o out.tsv \
  est.fa odd.fa q.fq 2>/dev/null
runs=$((runs + 1))
cmp -s ref.tsv out.tsv || fail "--seq text differs"

# Faults in the middle of a file: the stream's message, exit 2, no result.
fault() { # label file
  local a b rc_a rc_b
  a=$("$GSCAN" scan -q -d cpu --readers 1 -p p.txt -o x.h5 "$2" 2>&1); rc_a=$?
  b=$("$GSCAN" scan -q -d $D --readers 3 --tune io.part=2K -p p.txt -o x.h5 "$2" 2>&1); rc_b=$?
  runs=$((runs + 1))
  if [ $rc_a != 2 ] || [ $rc_b != 2 ] || [ "$a" != "$b" ] || [ -e x.h5 ]; then
    fail "$1: stream $rc_a '$a', parts $rc_b '$b'"
  fi
  rm -f x.h5
}
mid=$(($(wc -l <q0.fq) / 2))
awk -v L=$mid 'NR > L && /^\+/ { getline q; print; print substr(q, 2); L = 1e18; next } { print }' q0.fq >short.fq
fault "FASTQ quality short" short.fq
awk -v L=$mid 'NR > L && /^@r/ && !done { print "+" substr($0, 2); done = 1; next } { print }' q0.fq >noat.fq
fault "FASTQ header without @" noat.fq
{ head -n 4000 est.fa; printf '>nul\0x\nACGT\n'; tail -n +4001 est.fa; } >nul.fa
fault "FASTA NUL in a header" nul.fa
echo "parts.sh: $((runs - fails)) passed, $fails failed"
[ $fails = 0 ]
