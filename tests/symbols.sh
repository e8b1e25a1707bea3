#!/usr/bin/env bash
# symbols.sh - every symbol the gscan libraries export starts with gs_ (one
# prefix, so the code can live inside other programs). Checked with nm on the
# C stage libraries; CUDA objects also carry the toolkit's own registration
# symbols, so for gs_gpu only the C-linkage (unmangled) names are checked.
set -euo pipefail
dir=$1
bad=0
for lib in gs_core gs_stream gs_seq gs_results gs_comm gs_match gs_scan gs_lz gs_mpi gs_gpu; do
  f=$dir/lib$lib.a
  [ -f "$f" ] || { echo "FAIL: $f missing"; exit 1; }
  # defined, global (upper-case type letter) symbols
  names=$(nm -g --defined-only "$f" 2>/dev/null | awk 'NF == 3 {print $3}')
  for s in $names; do
    case $s in
      gs_* | __odr_asan.gs_* | __asan_*) ;;  # sanitizer builds add their own twins
      _Z* | __cuda* | __nv* | __fatbinwrap* | __device_stub* | DW.ref.*) [ $lib = gs_gpu ] || { echo "FAIL $lib: $s"; bad=1; } ;;
      *) echo "FAIL $lib exports $s"; bad=1 ;;
    esac
  done
done
[ $bad = 0 ] && echo "symbols.sh: 1 passed, 0 failed"
exit $bad
