#!/usr/bin/python3
"""test_report.py - scripts/gscan-report against hand-computed speedups.

Writes small result files with chosen per-rank timings and record lengths,
runs the report, and checks its TSV against numbers worked out here from the
definitions (max over ranks; strong T0/T; weak T0/T as efficiency), plus the
PNG signature of both plots. Exit 77 without h5py/matplotlib.
"""
import csv, os, subprocess, sys, tempfile
try:
    import h5py, numpy as np, matplotlib  # noqa: F401
except ImportError as e:
    print("SKIP: %s (Debian: python3-h5py python3-numpy python3-matplotlib)" % e)
    sys.exit(77)

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
report = os.path.join(root, "scripts", "gscan-report")
tmp = tempfile.mkdtemp(prefix="gs-report.")

def result(path, totals, lengths, nodes_attr=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with h5py.File(path, "w") as h:
        h.attrs["n_ranks"] = np.uint32(len(totals))
        h.attrs["n_gpus"] = np.uint32(len(totals))
        h.attrs["engine"] = "ac"
        h.attrs["device"] = "gpu"
        if nodes_attr is not None:
            h.attrs["n_nodes"] = nodes_attr
        h["records/length"] = np.array(lengths, dtype=np.uint64)
        for ph in ("read", "transfer", "scan", "reduce", "write"):
            h["timing/" + ph] = np.array(totals, dtype=np.float64) / 5
        h["timing/total"] = np.array(totals, dtype=np.float64)
        h["timing/extra_phase"] = np.ones(len(totals))

s, w = os.path.join(tmp, "st", "strong"), os.path.join(tmp, "st", "weak")
result(s + "/scan_N1_R1_G1.h5", [10.0], [100, 200])
result(s + "/scan_N1_R2_G2.h5", [4.0, 6.0], [100, 200])
result(s + "/scan_N2_R4_G4.h5", [2.0, 2.5, 3.0, 2.0], [100, 200])
result(w + "/scan_N1_R1_G1.h5", [5.0], [1000])
result(w + "/scan_N1_R2_G2.h5", [6.25, 1.0], [1000, 1000])
# The attribute wins over the name unless --nodes-from-name.
result(w + "/scan_N3_R8_G8.h5", [10.0] * 8, [1000] * 8, nodes_attr=np.uint32(2))
open(os.path.join(s, "scan_N9_R9_G9.tmp.h5"), "w").write("partial")  # ignored

fails = 0
def check(what, got, want):
    global fails
    ok = got == want if isinstance(want, str) else abs(float(got) - want) < 0.006
    if not ok:
        print("FAIL %s: got %s, want %s" % (what, got, want))
        fails += 1

def run(*extra):
    out = os.path.join(tmp, "rep" + str(len(extra)))
    p = subprocess.run([sys.executable, report, "--out-dir", out, *extra,
                        os.path.join(tmp, "st")], capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stdout, p.stderr)
        sys.exit(1)
    rows = list(csv.DictReader(open(os.path.join(out, "scaling.tsv")), delimiter="\t"))
    return out, {(r["study"].split("/")[0], int(r["ranks"])): r for r in rows}, p.stdout

out, t, md = run()
check("rows", str(len(t)), "6")
check("strong R2 total", t["strong", 2]["total_s"], 6.0)
check("strong R2 speedup", t["strong", 2]["speedup"], 10 / 6)
check("strong R2 efficiency", t["strong", 2]["efficiency"], 10 / 6 / 2)
check("strong R4 speedup", t["strong", 4]["speedup"], 10 / 3)
check("strong R4 efficiency", t["strong", 4]["efficiency"], 10 / 3 / 4)
check("strong R4 nodes", t["strong", 4]["nodes"], "2")
check("strong R4 residues", t["strong", 4]["residues"], "300")
check("strong R2 read", t["strong", 2]["read_s"], 6.0 / 5)
check("weak R2 efficiency", t["weak", 2]["efficiency"], 0.8)
check("weak R2 speedup", t["weak", 2]["speedup"], 1.6)
check("weak R8 efficiency", t["weak", 8]["efficiency"], 0.5)
check("weak R8 nodes (attribute)", t["weak", 8]["nodes"], "2")
check("weak R8 residues", t["weak", 8]["residues"], "8000")
check("extra phase column", t["weak", 8]["extra_phase_s"], 1.0)
check("markdown", str("| strong |" in md and "efficiency" in md), "True")
for m in ("strong", "weak"):
    png = os.path.join(out, "scaling_%s.png" % m)
    sig = open(png, "rb").read(8) if os.path.exists(png) else b""
    check(m + " png", str(sig == b"\x89PNG\r\n\x1a\n"), "True")
_, t, _ = run("--nodes-from-name")
check("weak R8 nodes (--nodes-from-name)", t["weak", 8]["nodes"], "3")
_, t, _ = run("--mode", "weak")
check("forced weak: strong dir R2 mode", t["strong", 2]["mode"], "weak")
check("forced weak: strong dir R2 efficiency", t["strong", 2]["efficiency"], 10 / 6)
if fails:
    sys.exit(1)
print("ok: report tables and plots")
if not os.environ.get("GS_KEEP"): subprocess.run(["rm", "-rf", tmp])
