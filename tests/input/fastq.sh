#!/usr/bin/env bash
# fastq.sh - FASTQ input against `seqkit locate` on real reads (bowtie2- and
# smalt-examples: Illumina-like reads, qualities full of 'G' and 'I') and on
# traps made here: qualities of 'G' and of the patterns' letters, '@' and
# '+' as a quality's first byte, empty sequences, a file of one read. Every
# hit (record, start, strand, pattern) must be seqkit's, so none can come
# from a quality line; plain, gzip and BGZF files, standard input and a
# FIFO, at 1, 2 and 3 ranks; CRLF reads as LF; a counts-only run gives the
# same counts and keeps no read names (docs/format.md).
set -euo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MPIEXEC=${MPIEXEC:-mpiexec}
root=$(cd "$(dirname "$0")/../.." && pwd)
if ! "$root/scripts/fetch-examples.sh" bowtie2-examples smalt-examples >/dev/null 2>&1; then
  echo "fastq.sh: SKIPPED: cannot unpack the example reads (apt-get download failed)"; exit 77
fi
for t in seqkit bgzip h5dump; do
  command -v $t >/dev/null || { echo "fastq.sh: SKIPPED: $t not installed (scripts/install-deps.sh tests)"; exit 77; }
done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
cache=$root/data/cache
fails=0 runs=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# Patterns: k-mers of the reads' bases and of quality letters ('G' runs).
printf '>g5\nGGGGG\n>acgta\nACGTA\n>gatc\nGATC\n>ccgg\nCCGG\n>a6\nAAAAAA\n>tel\nTTAGGG\n>tgca\nTGCA\n' > p.fa

# The traps: qualities of G and of pattern letters, '@' and '+' first,
# empty sequences; one file of a single read.
awk 'BEGIN {
  srand(7); b = "ACGT"; q = "GGGGACGT@+";
  for (r = 0; r < 400; r++) {
    n = r % 9 == 0 ? 0 : 20 + int(rand() * 120); s = ""; t = "";
    for (i = 0; i < n; i++) { s = s substr(b, 1 + int(rand() * 4), 1); t = t substr(q, 1 + int(rand() * 10), 1) }
    if (n > 0 && r % 3 == 0) t = (r % 2 ? "@" : "+") substr(t, 2);
    printf "@trap%d len=%d\n%s\n+%s\n%s\n", r, n, s, (r % 2 ? "" : "trap" r), t
  } }' > traps.fq
printf '@one\nGGGGGACGTAGATC\n+\nGGGGGGGGGGGGGG\n' > one.fq
zcat "$cache/root/usr/share/doc/bowtie2/examples/reads/reads_1.fq.gz" | awk 'NR <= 8000' > bt2.fq
zcat "$cache/root/usr/share/doc/smalt/test/data/hs37l100i300e05q_trunc_nonam_1.fq.gz" > smalt_g.fq
zcat "$cache/root/usr/share/doc/smalt/test/data/gen1l75i300e0_1.fq.gz" | awk 'NR <= 8000' > smalt_i.fq
inputs=(bt2.fq smalt_g.fq smalt_i.fq traps.fq one.fq)

# seqkit's hits, 0-based: record, start, strand, pattern. The reverse
# strand's are the forward hits of the reverse-complemented patterns:
# seqkit 2.3's own reverse-strand search (without -P) put hits into reads
# that hold none once a file has many records of different lengths.
seqkit seq -r -p -t dna p.fa > prc.fa 2>/dev/null
for f in "${inputs[@]}"; do
  { seqkit locate -i -d -P -f p.fa "$f" | awk -F'\t' -v OFS='\t' 'NR > 1 {print $1, $5 - 1, "+", $2}'
    seqkit locate -i -d -P -f prc.fa "$f" | awk -F'\t' -v OFS='\t' 'NR > 1 {print $1, $5 - 1, "-", $2}'
  } 2>/dev/null | sort > "$f.want"
done
[ -s bt2.fq.want ] && [ -s traps.fq.want ] || { echo "FAIL seqkit found no hits"; exit 1; }

# gscan's hits from a TSV on stdout, in the same columns
got() { awk -F'\t' -v OFS='\t' 'NR > 1 {print $1, $2, $5, $4}' | sort; }

check() { # name want-file got-file
  runs=$((runs + 1))
  cmp -s "$2" "$3" || { fail "$1: hits differ from seqkit"; diff "$2" "$3" | head -5 || true; }
}

ranks="1 2 3"
[ "${GS_TEST_QUICK:-0}" = 1 ] && ranks="1 3" # the sanitizer run
for f in "${inputs[@]}"; do
  gzip -c "$f" > "$f.gz"
  bgzip -c "$f" > "$f.bgz.gz"
  for n in $ranks; do
    run=("$MPIEXEC" -n $n "$GSCAN" scan -q -d cpu -t 1 --block-size 64 --report hits -p p.fa -O tsv)
    for form in plain gzip bgzf; do
      case $form in plain) in=$f ;; gzip) in=$f.gz ;; bgzf) in=$f.bgz.gz ;; esac
      "${run[@]}" -o - "$in" | got > got.tsv
      check "$f $form $n rank(s)" "$f.want" got.tsv
    done
  done
  # standard input and a FIFO
  "$GSCAN" scan -q -d cpu --report hits -p p.fa -O tsv -o - - < "$f.gz" | got > got.tsv
  check "$f stdin" "$f.want" got.tsv
  rm -f ff && mkfifo ff && { cat "$f" > ff & }
  "$MPIEXEC" -n 2 "$GSCAN" scan -q -d cpu --report hits -p p.fa -O tsv -o - ff | got > got.tsv
  wait
  check "$f FIFO 2 ranks" "$f.want" got.tsv
done

# CRLF reads as LF, at 1 and 3 ranks
sed 's/$/\r/' traps.fq > crlf.fq
for n in 1 3; do
  "$MPIEXEC" -n $n "$GSCAN" scan -q -d cpu --block-size 64 --report hits -p p.fa -O tsv -o - crlf.fq | got > got.tsv
  check "CRLF $n rank(s)" traps.fq.want got.tsv
done

# counts only: the same counts as seqkit's hits, read names not kept, the
# lengths kept, at 1 and 2 ranks
awk -F'\t' '{c[$4 "\t" $3]++} END {for (k in c) print k "\t" c[k]}' bt2.fq.want | sort > counts.want
len2=$(awk 'NR == 2 || NR == 6 {printf "%s%d", (NR == 6 ? ", " : ""), length($0)}' bt2.fq)
for n in 1 2; do
  "$MPIEXEC" -n $n "$GSCAN" scan -q -d cpu -p p.fa -O tsv --report counts -o counts.tsv bt2.fq
  awk -F'\t' 'NR > 1 {if ($4) print $1 "\t+\t" $4; if ($5) print $1 "\t-\t" $5}' counts.tsv | sort > counts.got
  runs=$((runs + 1))
  cmp -s counts.want counts.got || { fail "counts $n rank(s) differ from seqkit's hits"; diff counts.want counts.got | head -5 || true; }
  "$MPIEXEC" -n $n "$GSCAN" scan -q -d cpu -p p.fa -o c.h5 bt2.fq
  runs=$((runs + 1))
  if h5dump -d /records/name c.h5 | grep -q '"r1"'; then fail "counts $n rank(s): read names kept"; fi
  h5dump -d /records/length -c 2 c.h5 | grep -q "(0): $len2" || fail "counts $n rank(s): /records/length"
done
echo "fastq.sh: $((runs - fails)) passed, $fails failed"
[ $fails = 0 ]
