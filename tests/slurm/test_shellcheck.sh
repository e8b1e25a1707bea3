#!/usr/bin/env bash
# test_shellcheck.sh - shellcheck over the job scripts, the data scripts and
# these tests (exit 77 without shellcheck; Debian: shellcheck).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
command -v shellcheck >/dev/null || { echo "SKIP: shellcheck not found (Debian: shellcheck)"; exit 77; }
cd "$root" || exit 1
shopt -s nullglob
files=(jobs/slurm/*.sh jobs/slurm/*.sbatch data/*.sh tests/slurm/*.sh tests/workflows/*.sh)
[ ${#files[@]} -gt 0 ] || { echo "FAIL: no scripts found"; exit 1; }
shellcheck -x -s bash "${files[@]}" || exit 1
echo "ok: shellcheck clean: ${files[*]}"
