# shellcheck shell=bash
# suite.sh - sourced first by a shell suite run as `SUITE.sh GSCAN`: GSCAN
# (absolute), root (the project), a scratch directory made current and
# removed at exit, the runs and fails counters, fail MESSAGE, same
# (same_h5.sh) and gs_need_device.
set -uo pipefail
GSCAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fails=0 runs=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
# shellcheck source=same_h5.sh
source "$root/tests/lib/same_h5.sh"

# gs_need_device DEVICE NAME: a four-residue scan on DEVICE; exits 77,
# saying so, where it fails (no GPU visible).
gs_need_device() {
  printf '>r\nACGT\n' >probe.fa && printf 'ACG\n' >probe.txt
  if ! "$GSCAN" scan -q -d "$1" -p probe.txt -o probe.h5 probe.fa 2>/dev/null; then
    echo "$2: no GPU visible, skipped"
    exit 77
  fi
}
