#!/usr/bin/env bash
# install-deps.sh - install what gscan builds and tests with, from Debian
# packages (Debian 12). Skips packages already installed; needs root for the
# rest (or prints the apt-get line to run).
#   build:   cmake, gcc, MPICH, parallel HDF5 (MPICH flavour), zlib, libdeflate
#            (BGZF blocks), ISA-L (gzip streams), libdivsufsort (suffix arrays
#            of the LZ77 index)
#   tests:   hdf5-tools (h5diff, h5dump), seqkit (real-data fixtures), tabix (bgzip)
#            and samtools (BGZF and .fai made by htslib itself), shellcheck,
#            slurm-wlm + munge (a Slurm cluster of one), python3-h5py,
#            python3-matplotlib, python3-numpy (scaling report), clang-14 and
#            libclang-rt-14-dev (libFuzzer harnesses, tests/fuzz), snakemake
#            (the example workflow, workflows/tally), exonerate (ipcress, the
#            peer of gscan pcr)
#   bench:   libhyperscan-dev (the CPU peer of the benchmarks)
set -euo pipefail
pkgs=(build-essential cmake pkg-config mpich libmpich-dev libhdf5-mpich-dev hdf5-tools
      zlib1g-dev libdeflate-dev libisal-dev libdivsufsort-dev)
case "${1:-all}" in
  build) ;;
  all) pkgs+=(seqkit tabix samtools shellcheck slurm-wlm munge python3-h5py python3-matplotlib python3-numpy
              libhyperscan-dev clang-14 libclang-rt-14-dev snakemake exonerate) ;;
  *) echo "usage: $0 [build|all]" >&2; exit 1 ;;
esac
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "gscan: missing packages; run as root: apt-get install ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
