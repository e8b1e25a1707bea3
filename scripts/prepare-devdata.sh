#!/usr/bin/env bash
# prepare-devdata.sh - fill .devdata/ (git-ignored) with what the GPU machine
# needs, since it has no network: the genome text of the GPU benchmarks and
# the genomes of the end-to-end checks, and libdivsufsort's packages into
# .devdeps/ beside MPICH and HDF5. Run here, from the project root, then
# carry ".devdeps" and ".devdata" in each device call (scripts/device.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/fetch-examples.sh >/dev/null
mkdir -p .devdata
grep -qx '/.devdata/' .git/info/exclude 2>/dev/null || echo '/.devdata/' >> .git/info/exclude
if [ ! -s .devdata/genomes.seq.xz ]; then
  # hs37chrXtrunc + genome_1: headers and newlines dropped, uppercased
  for f in data/cache/hs37chrXtrunc.fa.gz data/cache/genome_1.fa.gz; do
    zcat "$f" | grep -v '^>' | tr -d '\n\r' | tr '[:lower:]' '[:upper:]'
  done | xz -9 > .devdata/genomes.seq.xz
fi
cp -L data/cache/lambda_virus.fa.gz data/cache/ecoli_mg1655.fa.gz \
  data/cache/vcholerae_o395.fa.gz .devdata/
# the LZ77 index's suffix arrays: a build dependency beside MPICH and HDF5
if [ -d .devdeps ] && ! ls .devdeps/libdivsufsort-dev_*.deb >/dev/null 2>&1; then
  (cd .devdeps && apt-get download libdivsufsort3 libdivsufsort-dev >/dev/null)
fi
du -sh .devdata
