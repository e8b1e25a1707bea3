#!/usr/bin/env bash
# test_fetch_dryrun.sh - data/fetch-corpora.sh --dry-run: right URLs, checksum
# lists, seekable steps, nothing written; unknown names and options refused.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
script=$root/data/fetch-corpora.sh
tmp=$(mktemp -d /tmp/gs-fetch.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
has() { grep -qF -- "$2" "$1" || fail "$3: no '$2' in the dry run"; }

GS_GSCAN=/opt/gscan/bin/gscan "$script" --dry-run --dest "$tmp/c" all >"$tmp/all.out" 2>"$tmp/all.err" ||
  fail "--dry-run all exited $?"
[ ! -e "$tmp/c" ] || fail "--dry-run created $tmp/c"
u=https://hgdownload.soe.ucsc.edu/goldenPath/hg38/bigZips
has "$tmp/all.out" "$u/est.fa.gz" "est"
has "$tmp/all.out" "$u/hg38.fa.gz" "hg38"
has "$tmp/all.out" "$u/md5sum.txt" "UCSC checksums"
has "$tmp/all.out" "GCF_000005845.2_ASM584v2/GCF_000005845.2_ASM584v2_genomic.fna.gz" "ecoli"
has "$tmp/all.out" "GCF_000005845.2_ASM584v2/md5checksums.txt" "NCBI checksums"
has "$tmp/all.out" "/opt/gscan/bin/gscan index $tmp/c/hg38.fa" "gscan index"
has "$tmp/all.out" "gzip -dc $tmp/c/est.fa.gz > $tmp/c/est.fa.part" "decompress"
has "$tmp/all.out" "# verify: md5sum $tmp/c/hg38.fa.gz.part" "md5 check"
n=$(grep -c '^curl .*_genomic.fna.gz ' "$tmp/all.out")
[ "$n" -eq 5 ] || fail "all: $n RefSeq downloads, not 5"

"$script" --dry-run --dest "$tmp/c" --seekable bgzip hg38 >"$tmp/bgz.out" 2>/dev/null ||
  fail "--seekable bgzip exited $?"
has "$tmp/bgz.out" "bgzip -@" "bgzip"
has "$tmp/bgz.out" "samtools faidx $tmp/c/hg38.fa.bgz" "bgzip index"

"$script" --dry-run nosuchgenome >/dev/null 2>"$tmp/bad.err" && fail "unknown corpus accepted"
grep -q "unknown corpus 'nosuchgenome'" "$tmp/bad.err" || fail "unknown corpus: no clear message"
"$script" --dry-run --seekable zip hg38 >/dev/null 2>&1 && fail "--seekable zip accepted"
"$script" --bogus hg38 >/dev/null 2>&1 && fail "unknown option accepted"
"$script" --list | grep -q '^arabidopsis' || fail "--list lacks arabidopsis"
[ "$failed" -eq 0 ] || { cat "$tmp/all.out" "$tmp/all.err"; exit 1; }
echo "ok: fetch-corpora dry run"
