#!/usr/bin/env bash
# mkbgzf.sh OUT - a small BGZF FASTA of several blocks for the gzi target
# (made with bgzip when present, else from Python's zlib in BGZF framing).
set -euo pipefail
out=$1
python3 - "$out" <<'PY'
import struct, sys, zlib
recs = b"".join(b">r%d\n" % i + (b"ACGTTGCAAN" * 7 + b"\n") * 300 for i in range(4))
def block(data):
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    z = c.compress(data) + c.flush()
    hdr = struct.pack("<BBBBIBBHBBHH", 31, 139, 8, 4, 0, 0, 255, 6, 66, 67, 2, len(z) + 25)
    return hdr + z + struct.pack("<II", zlib.crc32(data), len(data))
out = b"".join(block(recs[i:i + 20000]) for i in range(0, len(recs), 20000)) + block(b"")
open(sys.argv[1], "wb").write(out)
PY
