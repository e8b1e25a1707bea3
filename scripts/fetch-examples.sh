#!/usr/bin/env bash
# fetch-examples.sh - unpack the real genomes gscan's demo, tests and benchmarks
# use, from Debian packages, into data/cache/ (git-ignored).
#
# The packages are fetched with `apt-get download` and unpacked with `dpkg -x`
# rather than installed: container images often exclude /usr/share/doc from
# installs, which is exactly where these packages keep their data.
# Usage: scripts/fetch-examples.sh [PACKAGE...]   (default: all below)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache="$root/data/cache"
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(bowtie2-examples ragout-examples smalt-examples)
mkdir -p "$cache/deb" "$cache/root"
cd "$cache/deb"
for p in "${pkgs[@]}"; do
  if [ ! -e "$cache/root/.$p" ]; then
    ls "$p"_*.deb >/dev/null 2>&1 || apt-get download "$p" >/dev/null 2>&1 || {
      apt-get update -qq >/dev/null 2>&1; apt-get download "$p" >/dev/null; }
    dpkg -x "$p"_*.deb "$cache/root"
    touch "$cache/root/.$p"
  fi
done
d="$cache/root/usr/share/doc"
# Stable names for what the project uses.
ln -sfn "$d/bowtie2/examples/reference/lambda_virus.fa.gz" "$cache/lambda_virus.fa.gz" 2>/dev/null || true
ln -sfn "$d/ragout/examples/E.Coli/references/MG1655-K12.fasta.gz" "$cache/ecoli_mg1655.fa.gz" 2>/dev/null || true
ln -sfn "$d/ragout/examples/V.Cholerae/references/O395.fasta.gz" "$cache/vcholerae_o395.fa.gz" 2>/dev/null || true
ln -sfn "$d/smalt/test/data/hs37chrXtrunc.fa.gz" "$cache/hs37chrXtrunc.fa.gz" 2>/dev/null || true
ln -sfn "$d/smalt/test/data/genome_1.fa.gz" "$cache/genome_1.fa.gz" 2>/dev/null || true
ln -sfn "$d/smalt/test/data/contigs.fa.gz" "$cache/contigs.fa.gz" 2>/dev/null || true
