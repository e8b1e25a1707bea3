"""craft.py BASE.h5 OUTDIR - write damaged copies of a gscan result file, one
per way a crafted or corrupt file can differ from what h5read.c expects:
attributes and datasets of another shape, type class, string kind or length,
and sizes taken from the file that no file of its size could hold."""
import shutil
import struct
import sys
import zlib

import h5py
import numpy as np

base, out = sys.argv[1], sys.argv[2]


def case(name, edit):
    """Only gscan info reads the attributes and /timing, only the hit rows of
    export read /hits; everything else is checked by every command."""
    reads = ("info" if name.startswith(("attr_", "timing_")) else
             "hits" if name.startswith("hit_") else
             "tally" if name.startswith("tally_") else "all")
    path = f"{out}/bad_{reads}_{name}.h5"
    shutil.copy(base, path)
    with h5py.File(path, "r+") as f:
        edit(f)


def replace(f, name, data=None, **kw):
    del f[name]
    f.create_dataset(name, data=data, **kw)


def fixed(n, width):
    return np.array([b"x" * width] * n, dtype=f"S{width}")


with h5py.File(base, "r") as f0:
    n_pat = len(f0["/patterns/name"])
    n_rec = len(f0["/records/name"])
    n_hits = len(f0["/hits/start"])
    n_t = len(f0["/tally/unit"])
    t_units = f0["/tally/unit"][:]

# attributes: arrays where one value belongs, another class
case("attr_int_array", lambda f: f.attrs.__setitem__("n_ranks", np.arange(100, dtype=np.int32)))
case("attr_int_string", lambda f: f.attrs.__setitem__("n_gpus", np.bytes_(b"two")))
case("attr_str_array", lambda f: f.attrs.__setitem__("engine", fixed(50, 300)))
case("attr_vlen_array", lambda f: f.attrs.create("device", ["a" * 100] * 20,
                                                   dtype=h5py.string_dtype()))
case("attr_str_int", lambda f: f.attrs.__setitem__("created", np.int64(5)))
# datasets of another shape
case("rec_length_2d", lambda f: replace(f, "/records/length",
                                        np.zeros((n_rec, 5), dtype=np.uint64)))
case("pat_length_2d", lambda f: replace(f, "/patterns/length",
                                        np.zeros((n_pat, 7), dtype=np.uint32)))
case("counts_3col", lambda f: replace(f, "/counts", np.zeros((n_pat, 3), dtype=np.uint64)))
case("counts_1d", lambda f: replace(f, "/counts", np.zeros(n_pat, dtype=np.uint64)))
case("names_2d", lambda f: replace(f, "/patterns/name", fixed(n_pat * 4, 8).reshape(n_pat, 4)))
case("timing_2d", lambda f: replace(f, "/timing/scan", np.zeros((1, 9))))
case("scalar_files", lambda f: replace(f, "/files", np.bytes_(b"a.fa")))
# another type class or string kind
case("start_float", lambda f: replace(f, "/hits/start", np.zeros(n_hits, dtype=np.float64)))
case("start_string", lambda f: replace(f, "/hits/start", fixed(n_hits, 9)))
case("names_int", lambda f: replace(f, "/records/name", np.zeros(n_rec, dtype=np.int32)))
case("names_vlen", lambda f: replace(f, "/records/name", ["r"] * n_rec,
                                     dtype=h5py.string_dtype()))
case("timing_string", lambda f: replace(f, "/timing/total", fixed(1, 4)))
# lengths that disagree
case("hits_short", lambda f: replace(f, "/hits/strand", np.ones(max(n_hits - 1, 0), np.int8)))
case("seq_short", lambda f: replace(f, "/patterns/sequence", fixed(n_pat + 3, 4)))
case("rec_length_long", lambda f: replace(f, "/records/length",
                                          np.zeros(n_rec + 9, dtype=np.uint64)))
case("seq_missing", lambda f: f.__delitem__("/patterns/sequence"))
# sizes no file of this size could hold (never written: read as fill value)
case("huge_names", lambda f: replace(f, "/records/name", shape=(1 << 40,), dtype="S200",
                                     chunks=(1 << 16,)))
case("huge_width", lambda f: replace(f, "/patterns/name", shape=(n_pat,), dtype="S1000000000",
                                     chunks=(1,)))
case("huge_hits", lambda f: [replace(f, f"/hits/{c}", shape=(1 << 42,), dtype=t,
                                     chunks=(1 << 18,))
                             for c, t in (("pattern", "u4"), ("record", "u4"),
                                          ("start", "u8"), ("strand", "i1"))])
case("huge_counts", lambda f: replace(f, "/counts", shape=(1 << 40, 2), dtype="u8",
                                      chunks=(1 << 16, 2)))
# ids pointing outside the tables
case("hit_ids", lambda f: replace(f, "/hits/record", np.full(n_hits, 1 << 30, np.uint32)))
case("hit_strand", lambda f: replace(f, "/hits/strand", np.full(n_hits, 3, np.int8)))
# the tally (--tally record): ids outside the tables, rows out of order,
# columns that disagree, another type, sizes no file could hold (the unit
# count is /tally/unit_name's length; the n_units attribute is not read)
case("tally_unit_range", lambda f: replace(f, "/tally/unit", np.full(n_t, 1 << 30, np.uint32)))
case("tally_pattern_range", lambda f: replace(f, "/tally/pattern",
                                              np.full(n_t, 1 << 30, np.uint32)))
case("tally_strand", lambda f: replace(f, "/tally/strand", np.full(n_t, 5, np.int8)))
case("tally_unsorted", lambda f: replace(f, "/tally/unit", t_units[::-1].copy()))
case("tally_short", lambda f: replace(f, "/tally/count", np.ones(max(n_t - 1, 0), np.uint64)))
case("tally_count_float", lambda f: replace(f, "/tally/count", np.zeros(n_t, np.float64)))
case("tally_huge", lambda f: [replace(f, f"/tally/{c}", shape=(1 << 40,), dtype=t,
                                      chunks=(1 << 16,))
                              for c, t in (("unit", "u4"), ("pattern", "u4"),
                                           ("strand", "i1"), ("count", "u8"))])


# bytes of the metadata itself: HDF5 checks a version 2 object header's
# checksum before it decodes a message, and gscan refuses a header of the
# old, unchecksummed format before HDF5 parses it
def header_at(name):
    with h5py.File(base, "r") as f:
        return h5py.h5o.get_info(f[name].id).addr


def raw_case(name, at, data, reads="all", more=()):
    path = f"{out}/bad_{reads}_{name}.h5"
    shutil.copy(base, path)
    with open(path, "r+b") as fp:
        for a, d in ((at, data),) + tuple(more):
            fp.seek(a)
            fp.write(d)


# the chunk index (a version 1 B-tree, not checksummed): HDF5 trusts the
# stored size of a chunk, and copies a whole chunk out of what it inflates
def chunk_key(f, name):
    """Offset in the file of the B-tree key (size, filter mask, chunk offset)
    that points at the dataset's first chunk, and that chunk's location."""
    info = f[name].id.get_chunk_info(0)
    raw = open(base, "rb").read()
    key = struct.pack("<IIQQQ", info.size, info.filter_mask, 0, 0, info.byte_offset)
    at = raw.find(key)
    assert at > 0 and raw.find(key, at + 1) < 0, name
    return at, info.byte_offset


with h5py.File(base, "r") as f:
    key_at, chunk_at = chunk_key(f, "/hits/start")
raw_case("hit_chunk_huge", key_at, struct.pack("<I", 0x7FFFFFF0), reads="hits")
short = zlib.compress(b"\0" * 8)  # 8 bytes where a chunk of 8-byte starts is due
raw_case("hit_chunk_short", key_at, struct.pack("<I", len(short)), reads="hits",
         more=((chunk_at, short),))

root = header_at("/")
raw_case("root_attr_flip", root + 40, bytes(b ^ 0x5A for b in open(base, "rb").read()[root + 40:root + 48]))
raw_case("dset_header_mangled", header_at("/records/length"), b"\x01\x00\x01\x00")
raw_case("superblock_v0", 8, b"\x00")
