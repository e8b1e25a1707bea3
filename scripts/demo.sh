#!/usr/bin/env bash
# demo.sh - set up gscan on a fresh Debian 12 machine and run the main job on
# the embedded default: E. coli K-12 and V. cholerae O395 (ragout-examples) and
# lambda phage (bowtie2-examples), scanned for data/patterns/demo.fa
# (restriction sites and 16S primers with IUPAC codes), then `gscan info`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh build
scripts/fetch-examples.sh bowtie2-examples ragout-examples
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target gscan >/dev/null
mkdir -p out
build/gscan scan -p data/patterns/demo.fa -o out/demo.h5 --report hits \
  data/cache/ecoli_mg1655.fa.gz data/cache/vcholerae_o395.fa.gz data/cache/lambda_virus.fa.gz
build/gscan info out/demo.h5
