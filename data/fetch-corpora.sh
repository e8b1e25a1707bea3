#!/usr/bin/env bash
# fetch-corpora.sh - download real corpora for gscan, verify them, make them seekable.
#
# Usage: data/fetch-corpora.sh [--dry-run] [--dest DIR] [--seekable plain|bgzip|none]
#                              [--threads N] [--list] NAME...
# Names: est hg38 ecoli yeast worm fly arabidopsis, or refseq (the five RefSeq
# genomes) or all.
#
# Each corpus is checked against the checksum list its publisher keeps next to
# it (UCSC: md5sum.txt, NCBI: md5checksums.txt), fetched fresh each time, so a
# truncated or stale download never reaches a scan. The sha256 of every file
# that passed is appended to DIR/SHA256SUMS, for citing the exact input of a
# result later.
#
# Seekable: contract §4 lets every rank read its own range of a corpus only where
# the input is seekable; a plain gzip file is decompressed once, by rank 0.
#   plain  (default) decompress to plain FASTA and write the .fai with
#          `gscan index` (or `samtools faidx` when gscan is not on PATH)
#   bgzip  recompress with bgzip and index with samtools faidx (.fai + .gzi):
#          a third of the disk; needs htslib's bgzip and samtools
#   none   keep the download as it is
# Downloads resume (curl -C -) and finished steps are skipped, so the script can
# be rerun after an interruption. --dry-run prints every command and runs none.
# Environment: GS_GSCAN (the gscan binary for `gscan index`).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest="$root/data/cache/corpora"
seekable=plain
dry=0
threads=$(nproc 2>/dev/null || echo 2)

UCSC=https://hgdownload.soe.ucsc.edu/goldenPath/hg38/bigZips
NCBI=https://ftp.ncbi.nlm.nih.gov/genomes/all/GCF

# name | directory URL | file | checksum list | approximate download size | what
catalog() {
  cat <<EOF
est|$UCSC|est.fa.gz|md5sum.txt|~1.5 GB (grows weekly)|UCSC human ESTs from GenBank (the seed paper's EST set, several million records)
hg38|$UCSC|hg38.fa.gz|md5sum.txt|~0.98 GB (3.1 Gbp)|UCSC hg38 (GRCh38) human genome, 455 sequences
ecoli|$NCBI/000/005/845/GCF_000005845.2_ASM584v2|GCF_000005845.2_ASM584v2_genomic.fna.gz|md5checksums.txt|~1.4 MB (4.6 Mbp)|RefSeq E. coli K-12 MG1655
yeast|$NCBI/000/146/045/GCF_000146045.2_R64|GCF_000146045.2_R64_genomic.fna.gz|md5checksums.txt|~3.8 MB (12.2 Mbp)|RefSeq S. cerevisiae S288C (R64)
worm|$NCBI/000/002/985/GCF_000002985.6_WBcel235|GCF_000002985.6_WBcel235_genomic.fna.gz|md5checksums.txt|~30 MB (100 Mbp)|RefSeq C. elegans (WBcel235)
fly|$NCBI/000/001/215/GCF_000001215.4_Release_6_plus_ISO1_MT|GCF_000001215.4_Release_6_plus_ISO1_MT_genomic.fna.gz|md5checksums.txt|~43 MB (144 Mbp)|RefSeq D. melanogaster (Release 6)
arabidopsis|$NCBI/000/001/735/GCF_000001735.4_TAIR10.1|GCF_000001735.4_TAIR10.1_genomic.fna.gz|md5checksums.txt|~36 MB (120 Mbp)|RefSeq A. thaliana (TAIR10.1)
EOF
}

say() { printf 'fetch-corpora: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; }

# run CMD...: run it, or under --dry-run print it (shell-quoted) instead.
run() {
  if [ "$dry" = 1 ]; then
    printf '%q ' "$@"; printf '\n'
  else
    "$@"
  fi
}
# run_sh 'PIPELINE': the same for a pipeline or redirection, given as one string.
run_sh() {
  if [ "$dry" = 1 ]; then printf '%s\n' "$1"; else bash -o pipefail -c "$1"; fi
}

names=()
while [ $# -gt 0 ]; do
  case $1 in
    --dry-run)   dry=1; shift ;;
    --dest)      [ $# -ge 2 ] || die "--dest needs a directory"; dest=$2; shift 2 ;;
    --seekable)  [ $# -ge 2 ] || die "--seekable needs plain, bgzip or none"; seekable=$2; shift 2 ;;
    --threads)   [ $# -ge 2 ] || die "--threads needs a number"; threads=$2; shift 2 ;;
    --list)      catalog | awk -F'|' '{ printf "%-12s %-26s %s\n", $1, $5, $6 }'; exit 0 ;;
    -h|--help)   usage; exit 0 ;;
    -*)          die "unknown option '$1' (see --help)" ;;
    *)           names+=("$1"); shift ;;
  esac
done
case $seekable in plain|bgzip|none) ;; *) die "--seekable must be plain, bgzip or none, not '$seekable'" ;; esac
[ ${#names[@]} -gt 0 ] || { usage; exit 1; }

# Expand groups and check every name before downloading anything.
wanted=()
for n in "${names[@]}"; do
  case $n in
    all)    mapfile -t -O "${#wanted[@]}" wanted < <(catalog | cut -d'|' -f1) ;;
    refseq) wanted+=(ecoli yeast worm fly arabidopsis) ;;
    *)      catalog | cut -d'|' -f1 | grep -qx -- "$n" ||
              die "unknown corpus '$n' (known: $(catalog | cut -d'|' -f1 | tr '\n' ' ')all refseq)"
            wanted+=("$n") ;;
  esac
done

if [ "$dry" = 0 ]; then
  if command -v curl >/dev/null 2>&1; then
    fetch() { curl -fL --retry 3 -C - -o "$2" "$1"; }
  elif command -v wget >/dev/null 2>&1; then
    fetch() { wget -c -O "$2" "$1"; }
  else
    die "need curl or wget"
  fi
  command -v md5sum >/dev/null 2>&1 || die "need md5sum (coreutils)"
  if [ "$seekable" = bgzip ]; then
    for t in bgzip samtools; do
      command -v "$t" >/dev/null 2>&1 || die "--seekable bgzip needs bgzip and samtools (Debian: tabix samtools)"
    done
  fi
else
  fetch() { run curl -fL --retry 3 -C - -o "$2" "$1"; }
fi
gscan=${GS_GSCAN:-$(command -v gscan || true)}
indexer() { # FILE: write FILE.fai
  if [ -n "$gscan" ]; then run "$gscan" index "$1"
  elif command -v samtools >/dev/null 2>&1 || [ "$dry" = 1 ]; then run samtools faidx "$1"
  else say "warning: neither gscan nor samtools found: $1 has no .fai (run gscan index $1)"
  fi
}

run mkdir -p "$dest"
for n in "${wanted[@]}"; do
  IFS='|' read -r _ dir file sums size what < <(catalog | awk -F'|' -v n="$n" '$1 == n')
  say "$n: $what, $size"
  gz="$dest/$file"
  if [ -e "$gz" ] && [ -e "$gz.ok" ]; then
    say "$n: $file already downloaded and verified"
  else
    fetch "$dir/$file" "$gz.part"
    # The checksum list is fetched fresh: it changes with the data (weekly for est).
    fetch "$dir/$sums" "$dest/$n.$sums"
    if [ "$dry" = 1 ]; then
      printf '# verify: md5sum %q must equal the line for %s in %q\n' "$gz.part" "$file" "$dest/$n.$sums"
    else
      want=$(awk -v f="$file" '{ sub(/^\.\//, "", $2) } $2 == f { print $1 }' "$dest/$n.$sums")
      [ -n "$want" ] || die "$n: $file is not listed in $dir/$sums"
      got=$(md5sum <"$gz.part" | cut -d' ' -f1)
      [ "$got" = "$want" ] ||
        die "$n: md5 of $gz.part is $got, $sums says $want (partial or stale download: delete it and rerun)"
      say "$n: md5 $got matches $sums"
    fi
    run mv "$gz.part" "$gz"
    run_sh "(cd $(printf '%q' "$dest") && sha256sum $(printf '%q' "$file")) >> $(printf '%q' "$dest/SHA256SUMS")"
    run touch "$gz.ok"
  fi
  plain="$dest/${file%.gz}"
  case $seekable in
    plain)
      if [ -e "$plain" ] && [ -e "$plain.fai" ]; then
        say "$n: ${plain##*/} and its .fai exist"
      else
        run_sh "gzip -dc $(printf '%q' "$gz") > $(printf '%q' "$plain.part") && mv $(printf '%q' "$plain.part") $(printf '%q' "$plain")"
        indexer "$plain"
      fi
      say "$n: seekable corpus: $plain"
      ;;
    bgzip)
      bgz="$plain.bgz"
      if [ -e "$bgz.fai" ] && [ -e "$bgz.gzi" ]; then
        say "$n: ${bgz##*/} and its index exist"
      else
        run_sh "gzip -dc $(printf '%q' "$gz") | bgzip -@ $threads -c > $(printf '%q' "$bgz.part") && mv $(printf '%q' "$bgz.part") $(printf '%q' "$bgz")"
        run samtools faidx "$bgz"
      fi
      say "$n: BGZF corpus: $bgz"
      ;;
    none) say "$n: corpus: $gz" ;;
  esac
done
