#!/usr/bin/env bash
# test_slurm_job.sh - the job scripts on a real Slurm cluster of one node.
#
# Usage: tests/slurm/test_slurm_job.sh GSCAN
#
# Starts munged, slurmctld and slurmd (tests/slurm/cluster.sh), then:
#  1. sbatch jobs/slurm/gscan-scan.sbatch with 2 tasks (srun --mpi=pmi2) on the
#     lambda phage genome: the job's output, named scan_N1_R2_G0.h5 (no GPU in
#     this cluster, so the CPU fallback), must hold the same /counts and /hits
#     as a direct single-process `gscan scan` of the same input, and say
#     n_ranks = 2;
#  2. the same through GS_LAUNCHER=mpiexec;
#  3. one job builds the genome's LZ77 index (gscan index --lz), a second
#     scans it with gscan-scan.sbatch --index on 2 tasks: the same /records,
#     /counts and /hits as the direct scan;
#  4. gscan-scaling.sh submits a 1- and 2-rank strong and weak sweep and its
#     dependent report job; the report must list the four runs, the weak 2-rank
#     corpus must hold twice the residues of the 1-rank one, and both plots
#     must be PNG files.
# Exit 77 (skipped) when Slurm, munge, h5diff or the report's Python packages
# are missing, the genome cannot be unpacked, or the daemons cannot start.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
gscan=${1:-}
py=/usr/bin/python3
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; failed=1; }
failed=0

{ [ -n "$gscan" ] && [ -x "$gscan" ]; } || skip "no gscan binary at '$gscan' (build the gscan target)"
gscan=$(cd "$(dirname "$gscan")" && pwd)/$(basename "$gscan")
command -v h5diff >/dev/null || skip "h5diff not found (Debian: hdf5-tools)"
$py -c 'import h5py, numpy, matplotlib' 2>/dev/null ||
  skip "$py lacks h5py/numpy/matplotlib (Debian: python3-h5py python3-numpy python3-matplotlib)"
{ "$root/scripts/fetch-examples.sh" bowtie2-examples >/dev/null 2>&1 &&
  [ -r "$root/data/cache/lambda_virus.fa.gz" ]; } ||
  skip "cannot unpack data/cache/lambda_virus.fa.gz (scripts/fetch-examples.sh)"
genome=$(readlink -f "$root/data/cache/lambda_virus.fa.gz")

# shellcheck source=tests/slurm/cluster.sh
. "$root/tests/slurm/cluster.sh"
trap gs_cluster_stop EXIT
gs_cluster_start || exit 77

work=$gs_cluster_dir/jobs
cd "$work" || exit 1
printf '%s\n' '# a few phage motifs, 6 to 12 residues' GGATCC GAATTC AAGCTT \
  CTGCAG GCGGCCGC ACGTACGT TTTTTT GCTGGCGCAGTT >pats.txt
export GS_GSCAN=$gscan

run_job() { # NAME [ENV=VALUE...]: submit a 2-task scan of the genome
  local name=$1
  shift
  submit "$name" env "$@" sbatch --parsable --ntasks=2 --job-name="$name" --output="$name.log" \
    "$root/jobs/slurm/gscan-scan.sbatch" -p pats.txt --report hits -o "$name/scan.h5" "$genome"
}

submit() { # NAME COMMAND...: run an sbatch command, wait for its job, check it completed
  local name=$1 id state
  shift
  id=$("$@") || { fail "sbatch $name"; return 1; }
  gs_cluster_wait "$id" || { fail "$name: job $id did not finish"; return 1; }
  state=$(gs_cluster_job_state "$id")
  if [ "$state" != COMPLETED ]; then
    fail "$name: job $id ended $state"; cat "$name.log"; return 1
  fi
}

# The direct run: one process, no launcher, same input and options.
"$gscan" scan -p pats.txt --report hits --device cpu -o direct.h5 "$genome" ||
  fail "direct gscan scan"

same_as_direct() { # FILE
  local f=$1 ds
  [ -r "$f" ] || { fail "no job output $f"; ls -R "$work" >&2; return; }
  h5diff "$f" direct.h5 /counts /counts || fail "$f: /counts differ from the direct run"
  if h5ls direct.h5/hits >/dev/null 2>&1; then
    for ds in pattern record start strand; do
      h5diff "$f" direct.h5 "/hits/$ds" "/hits/$ds" ||
        fail "$f: /hits/$ds differs from the direct run"
    done
  fi
  $py - "$f" <<'EOF' || fail "$f: attributes or counts wrong"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as h:
    n = int(np.asarray(h.attrs["n_ranks"]).reshape(-1)[0])
    assert n == 2, "n_ranks %d, not 2" % n
    assert h["timing/total"].shape == (2,), "timing/total not [2]"
    assert int(h["counts"][()].sum()) > 0, "no hit at all"
EOF
}

if run_job srun; then same_as_direct srun/scan_N1_R2_G0.h5; fi
if run_job mpiexec GS_LAUNCHER=mpiexec; then same_as_direct mpiexec/scan_N1_R2_G0.h5; fi

# A collection's LZ77 index built by one job, scanned by another (2 ranks,
# no corpus file): the same result as the plain scan.
if submit lzbuild sbatch --parsable --ntasks=1 --job-name=lzbuild --output=lzbuild.log \
     --wrap "'$gscan' index --lz -t 1 -o '$work/lambda.gsx' '$genome'" &&
   submit lzscan sbatch --parsable --ntasks=2 --job-name=lzscan --output=lzscan.log \
     "$root/jobs/slurm/gscan-scan.sbatch" -p pats.txt --report hits -o lz/scan.h5 \
     --index "$work/lambda.gsx"; then
  same_as_direct lz/scan_N1_R2_G0.h5
  h5diff lz/scan_N1_R2_G0.h5 direct.h5 /records /records || fail "lz: /records differ"
fi

# The scaling sweep and its dependent report.
"$root/jobs/slurm/gscan-scaling.sh" --ranks "1 2" --ranks-per-node 2 --gpus-per-node 0 \
  --no-exclusive --corpus "$genome" --out-dir sweep -- -p pats.txt >sweep.out 2>&1 ||
  { fail "gscan-scaling.sh"; cat sweep.out; }
gs_cluster_wait || fail "sweep did not finish"
for m in strong weak; do
  for r in 1 2; do
    [ -r "sweep/$m/scan_N1_R${r}_G0.h5" ] || fail "sweep: no $m output at $r ranks"
  done
  png=sweep/report/scaling_$m.png
  if [ "$(head -c 8 "$png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" != 89504e470d0a1a0a ]; then
    fail "sweep: $png is not a PNG"
  fi
done
$py - sweep/report/scaling.tsv <<'EOF' || fail "sweep: report table wrong"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
assert len(rows) == 4, "%d rows, not 4" % len(rows)
res = {(r["mode"], r["ranks"]): int(r["residues"]) for r in rows}
assert res["weak", "2"] == 2 * res["weak", "1"] == 2 * res["strong", "2"], res
assert all(r["nodes"] == "1" and r["gpus"] == "0" for r in rows), rows
EOF
if [ "$failed" -ne 0 ]; then
  echo "--- job logs"; tail -n 20 ./*.log sweep/logs/*.log 2>/dev/null
  echo "--- slurmctld"; tail -n 20 "$gs_cluster_dir/log/slurmctld.log"
  exit 1
fi
echo "ok: sbatch, srun/mpiexec launch, an LZ index built and scanned by jobs, scaling sweep and report"
