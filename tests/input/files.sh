#!/usr/bin/env bash
# files.sh - a corpus of several files that cannot be read in parts (gzip,
# BGZF without its indexes, raw text) read side by side, a whole file a
# reader (io/seq/files.c), against one stream (--readers 1): the same
# counts, records (names, lengths, files, in corpus order), files and
# warnings, on 2 to 4 readers; FASTA, raw and empty files among gzip ones,
# CRLF, a '>' inside a sequence line in two files (the first file's warning
# is the one shown), more readers than files. Scans that keep hits (--report
# hits, approximate matching) stay one stream. A corrupt gzip file in the
# middle gives the stream's message, exit 2 and no result.
# GS_FILES_DEVICE=gpu scans on the GPU (gpu_files); exits 77 there where no
# GPU is visible.
# shellcheck source=../lib/suite.sh
source "$(dirname "$0")/../lib/suite.sh" "$1"
D=${GS_FILES_DEVICE:-cpu}
gs_need_device $D files.sh

"$GSCAN" gen -o est -s 7 -n 400K -r 800 -k 60 --min-length 6 --max-length 14 --planted 0.5 \
  --lowercase 0.1 --n-runs 10 >/dev/null || exit 1
# five FASTA files of whole records; one CRLF, two with a joined '>'
awk '/^>/ { n++ } { print > ("f" int((n - 1) % 5) ".fa") }' est.fa
sed 's/$/\r/' f2.fa >f2crlf.fa
for f in f1 f3; do
  awk -v f=$f 'NR == 40 { print "ACGTAC>joined_" f } { print }' $f.fa >$f.j.fa
done
grep -v '^>' f4.fa | head -n 300 >raw.txt # no '>': one raw record
: >empty.fa
for f in f0 f1.j f3.j f4; do gzip -c $f.fa >$f.fa.gz; done
"$GSCAN" index --bgzf -l 1 -o f2.bgzf.gz f2crlf.fa >/dev/null 2>&1 && rm -f f2.bgzf.gz.fai f2.bgzf.gz.gzi
[ -s f2.bgzf.gz ] || cp f2crlf.fa f2.bgzf.gz # (a plain file then)
cp est.patterns p.txt

# check LABEL ARGS... -- CORPUS...: one stream against 2, 3 and 4 readers
check() {
  local label=$1 args=() readers want=side
  shift
  while [ "$1" != -- ]; do args+=("$1"); shift; done
  shift
  [[ " ${args[*]} " == *" --report hits "* || " ${args[*]} " == *" --max-"* ]] && want=stream
  "$GSCAN" scan -q -d cpu --readers 1 "${args[@]}" -p p.txt -o ref.h5 "$@" 2>ref.err ||
    { fail "$label: stream"; return; }
  local extra=()
  h5ls ref.h5 | grep -q "^hits " && extra+=(/hits)
  for readers in 2 3 4; do
    "$GSCAN" scan -q -d $D -t 4 --readers $readers --debug time "${args[@]}" -p p.txt -o out.h5 \
      "$@" 2>out.all || { fail "$label: $readers readers"; continue; }
    grep "^gscan: warning" out.all >out.err || true
    local got=stream
    grep -q "side by side" out.all && got=side
    [ $got = $want ] || fail "$label readers=$readers: read as $got, not $want"
    same ref.h5 out.h5 "$label readers=$readers" "${extra[@]}"
    cmp -s ref.err out.err || fail "$label readers=$readers: stderr '$(cat out.err)' not '$(cat ref.err)'"
  done
}
check "gzip files" -- f0.fa.gz f1.j.fa.gz f3.j.fa.gz f4.fa.gz
check "gzip, BGZF, raw, empty and plain" -- f0.fa.gz f2.bgzf.gz raw.txt empty.fa f1.j.fa f3.j.fa.gz f4.fa
check "two files, forward strand" --strand forward -- f4.fa.gz f0.fa.gz
check "circular" --circular -- f0.fa.gz f1.j.fa.gz f3.j.fa.gz
check "hits stay one stream" --report hits -- f0.fa.gz f1.j.fa.gz f4.fa.gz
check "approximate stays one stream" --max-mismatches 1 -- f0.fa.gz f4.fa.gz

# a corrupt gzip file in the middle: the stream's message, exit 2, no result
head -c 20000 f3.j.fa.gz >cut.fa.gz
a=$("$GSCAN" scan -q -d cpu --readers 1 -p p.txt -o x.h5 f0.fa.gz cut.fa.gz f4.fa.gz 2>&1); rc_a=$?
b=$("$GSCAN" scan -q -d $D --readers 3 -p p.txt -o x.h5 f0.fa.gz cut.fa.gz f4.fa.gz 2>&1); rc_b=$?
runs=$((runs + 1))
if [ $rc_a != 2 ] || [ $rc_b != 2 ] || [ "$a" != "$b" ] || [ -e x.h5 ]; then
  fail "corrupt gzip: stream $rc_a '$a', side by side $rc_b '$b'"
fi
echo "files.sh: $((runs - fails)) passed, $fails failed"
[ $fails = 0 ]
