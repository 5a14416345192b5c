#!/usr/bin/env python3
"""Hostile tensor files for tests/cli/hostile/{pt,npy}.sh, built from nothing.

    mktensor.py DIR [npy]

writes DIR/good.pt and DIR/good.npy (a float32 4x4 tensor, elements 0..15) and, next
to them, one broken variant per case, named <case>.pt or <case>.npy.  The .pt files
are the zip archives torch.save writes (torch 1.x layout: <stem>/data.pkl,
<stem>/data/0, <stem>/version), with the pickle program written opcode by opcode
so that every field can be made wrong on its own.
"""
import os
import struct
import sys
import zipfile
import zlib
from ptpickle import pint, ptuple

out = sys.argv[1]
PT = sys.argv[2:] != ["npy"]   # "npy": the .npy files only (the zip bombs take seconds)
os.makedirs(out, exist_ok=True)
STEM = "archive"
DATA = struct.pack("<16f", *range(16))


def pkl(numel=16, offset=0, shape=(4, 4), stride=(4, 1), storage=b"FloatStorage"):
    """data.pkl of torch._utils._rebuild_tensor_v2 over persistent storage '0'."""
    return (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\nq\x00((X\x07\x00\x00\x00storageq\x01ctorch\n"
            + storage + b"\nq\x02X\x01\x00\x00\x000q\x03X\x03\x00\x00\x00cpuq\x04" + pint(numel)
            + b"tq\x05Q" + pint(offset) + ptuple(shape) + ptuple(stride)
            + b"\x89ccollections\nOrderedDict\nq\x08)Rq\ttq\nRq\x0b.")


def zipped(pickle, data=DATA, deflate_data=False):
    """The archive as bytes (ZIP_STORED, as torch writes it, unless deflate_data)."""
    path = os.path.join(out, ".tmp.zip")
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(STEM + "/data.pkl", pickle, zipfile.ZIP_STORED)
        z.writestr(STEM + "/data/0", data, zipfile.ZIP_DEFLATED if deflate_data else zipfile.ZIP_STORED)
        z.writestr(STEM + "/version", b"3\n", zipfile.ZIP_STORED)
    with open(path, "rb") as f:
        raw = f.read()
    os.remove(path)
    return raw


def put(name, raw):
    if not PT and name.endswith(".pt"):
        return
    with open(os.path.join(out, name), "wb") as f:
        f.write(raw)


def patch(raw, off, fmt, value):
    b = bytearray(raw)
    struct.pack_into(fmt, b, off, value)
    return bytes(b)


good = zipped(pkl())
put("good.pt", good)
eocd = good.rfind(b"PK\x05\x06")
cd = struct.unpack_from("<I", good, eocd + 16)[0]        # offset of the central directory
cd_data = good.find(b"PK\x01\x02", cd + 1)                # the directory entry of data/0
local_data = struct.unpack_from("<I", good, cd_data + 42)[0]

# -- the zip container
for n in (0, 1, 4, 30, 100, len(good) // 2, eocd, len(good) - 1):
    put("cut-%d.pt" % n, good[:n])
put("eocd-cd-offset-beyond.pt", patch(good, eocd + 16, "<I", 0x7FFFFFF0))
put("eocd-cd-size-huge.pt", patch(good, eocd + 12, "<I", 0xFFFFFFF0))
put("eocd-entries-lie.pt", patch(patch(good, eocd + 8, "<H", 900), eocd + 10, "<H", 900))
put("cd-bad-signature.pt", patch(good, cd, "<I", 0x12345678))
put("cd-name-length-huge.pt", patch(good, cd + 28, "<H", 0xFFFF))
put("entry-size-beyond-file.pt", patch(patch(good, cd_data + 20, "<I", 0x7FFFFFF0), cd_data + 24, "<I", 0x7FFFFFF0))
put("entry-offset-beyond-file.pt", patch(good, cd_data + 42, "<I", 0x7FFFFFF0))
put("local-header-mismatch.pt", patch(good, local_data, "<I", 0x04034b51))
put("entry-zip64-size.pt", patch(patch(good, cd_data + 20, "<I", 0xFFFFFFFF), cd_data + 24, "<I", 0xFFFFFFFF))
put("no-data-pkl.pt", good.replace(b"data.pkl", b"data.pkX"))
put("not-a-zip.pt", b"hello, I am not a zip archive at all\n")

# -- zip bombs: data/0 deflated
# (a) 1 GiB of zeros deflates to about 1 MB; the view needs 64 bytes
bomb = bytearray(zipped(pkl(), data=b"\0" * 64, deflate_data=True))
put("deflated-ok.pt", bytes(bomb))
path = os.path.join(out, ".tmp.zip")
if PT:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(STEM + "/data.pkl", pkl(), zipfile.ZIP_STORED)
        with z.open(STEM + "/data/0", "w", force_zip64=True) as w:
            chunk = b"\0" * (1 << 20)
            for _ in range(1024):
                w.write(chunk)
        z.writestr(STEM + "/version", b"3\n", zipfile.ZIP_STORED)
    os.replace(path, os.path.join(out, "bomb-1gib.pt"))
# (b) a few deflated bytes that claim 4 GiB - 1 uncompressed
small = zipped(pkl(), data=b"\0" * 64, deflate_data=True)
e2 = small.rfind(b"PK\x05\x06")
cd2 = small.find(b"PK\x01\x02", struct.unpack_from("<I", small, e2 + 16)[0] + 1)
put("bomb-claims-4gib.pt", patch(small, cd2 + 24, "<I", 0xFFFFFFFE))
# (c) the claim is honest and small, the stream inflates far beyond it
cdz = zlib.compressobj(9, zlib.DEFLATED, -15)
stream = cdz.compress(b"\0" * ((64 if PT else 1) << 20)) + cdz.flush()
liar = zipped(pkl(), data=b"\0" * 64, deflate_data=True)
# replace the deflate stream of data/0 with the long one, fixing sizes in both headers
e3 = liar.rfind(b"PK\x05\x06")
cd3 = liar.find(b"PK\x01\x02", struct.unpack_from("<I", liar, e3 + 16)[0] + 1)
lh = struct.unpack_from("<I", liar, cd3 + 42)[0]
nlen, xlen = struct.unpack_from("<HH", liar, lh + 26)
start = lh + 30 + nlen + xlen
old = struct.unpack_from("<I", liar, cd3 + 20)[0]
delta = len(stream) - old
b = bytearray(liar[:start] + stream + liar[start + old:])
struct.pack_into("<I", b, lh + 18, len(stream))
struct.pack_into("<I", b, lh + 14, zlib.crc32(b"\0" * 64))
cdn = cd3 + delta
struct.pack_into("<I", b, cdn + 20, len(stream))
# later local headers moved by delta: fix their offsets in the central directory, and its own offset
p = struct.unpack_from("<I", b, e3 + delta + 16)[0] + delta
struct.pack_into("<I", b, e3 + delta + 16, p)
while b[p:p + 4] == b"PK\x01\x02":
    n, x, c = struct.unpack_from("<HHH", b, p + 28)
    o = struct.unpack_from("<I", b, p + 42)[0]
    if o > lh:
        struct.pack_into("<I", b, p + 42, o + delta)
    p += 46 + n + x + c
put("bomb-stream-longer.pt", bytes(b))

# -- the pickle program
put("pickle-unknown-opcode.pt", zipped(pkl()[:2] + b"\xff" + pkl()[2:]))
put("pickle-no-stop.pt", zipped(pkl()[:-1]))
put("pickle-cut.pt", zipped(pkl()[:40]))
put("pickle-deep-marks.pt", zipped(b"\x80\x02" + b"(" * 100000 + b"t" * 100000 + b"."))
put("pickle-deep-tuples.pt", zipped(b"\x80\x02" + b")" + b"\x85" * 100000 + b"."))
put("pickle-deep-lists.pt", zipped(b"\x80\x02" + b"]" * 100000 + b"a" * 99999 + b"."))
put("pickle-memo-self.pt", zipped(b"\x80\x02]q\x00h\x00a."))
put("pickle-memo-unset.pt", zipped(b"\x80\x02h\x07."))
put("pickle-huge-string.pt", zipped(b"\x80\x02X\xff\xff\xff\x7fabc."))
put("pickle-huge-long.pt", zipped(b"\x80\x02\x8b\xff\xff\xff\x7f" + b"\x01" * 16 + b"."))
put("pickle-protocol-9.pt", zipped(b"\x80\x09."))
put("pickle-global-os-system.pt", zipped(b"\x80\x02cos\nsystem\nX\x04\x00\x00\x00trueq\x00\x85R."))
put("pickle-empty.pt", zipped(b""))

# -- storage and view
put("storage-short.pt", zipped(pkl(), data=DATA[:32]))            # 8 of the 16 elements
put("storage-numel-lies.pt", zipped(pkl(numel=64)))               # claims 64, holds 16
put("view-beyond-storage.pt", zipped(pkl(shape=(4, 5), stride=(5, 1))))
put("offset-beyond-storage.pt", zipped(pkl(offset=100)))
put("shape-negative.pt", zipped(pkl(shape=(-4, 4))))
put("stride-negative.pt", zipped(pkl(stride=(-4, 1))))
put("shape-overflow.pt", zipped(pkl(shape=(2**62, 2**62))))
put("shape-2-64.pt", zipped(pkl(shape=(2**64, 1), stride=(1, 1))))
put("stride-overflow.pt", zipped(pkl(shape=(4, 4), stride=(2**62, 1))))
put("offset-overflow.pt", zipped(pkl(offset=2**63 - 1)))
put("numel-overflow.pt", zipped(pkl(numel=2**63 - 1)))
put("shape-stride-count.pt", zipped(pkl(shape=(4, 4), stride=(4,))))
put("dims-65.pt", zipped(pkl(shape=(1,) * 65, stride=(1,) * 65)))
put("unknown-storage-class.pt", zipped(pkl(storage=b"EvilStorage")))

# -- .npy
def npy(header, data=DATA, magic=b"\x93NUMPY\x01\x00", hlen=None, align=64):
    h = header.encode("latin1")
    h = h + b" " * ((align - (10 + len(h) + 1) % align) % align) + b"\n"
    if align == 1 and (10 + len(h)) % 2 == 0:
        h = b" " + h   # the data at an odd offset
    return magic + struct.pack("<H", len(h) if hlen is None else hlen) + h + data


GOODH = "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 4), }"
put("good.npy", npy(GOODH))
put("npy-bad-magic.npy", npy(GOODH, magic=b"\x93NUMPX\x01\x00"))
put("npy-version-9.npy", npy(GOODH, magic=b"\x93NUMPY\x09\x00"))
put("npy-not-a-dict.npy", npy("['descr', '<f4']"))
put("npy-header-garbage.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 4), \xff\xfe"))
put("npy-object-dtype.npy", npy("{'descr': '|O', 'fortran_order': False, 'shape': (4, 4), }"))
put("npy-structured-dtype.npy", npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4, 4), }"))
put("npy-unknown-dtype.npy", npy("{'descr': '<q9', 'fortran_order': False, 'shape': (4, 4), }"))
put("npy-no-shape.npy", npy("{'descr': '<f4', 'fortran_order': False, }"))
put("npy-negative-shape.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-4, 4), }"))
put("npy-shape-overflow.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }"))
put("npy-shape-huge-digits.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (" + "9" * 10000 + ",), }"))
put("npy-header-len-beyond.npy", npy(GOODH, hlen=0xFFFF))
put("npy-header-len-short.npy", npy(GOODH, hlen=10))
put("npy-header-len-zero.npy", npy(GOODH, hlen=0))
put("npy-data-short.npy", npy(GOODH, data=DATA[:20]))
put("npy-data-long.npy", npy(GOODH, data=DATA + b"\0" * 8))
put("npy-cut-preamble.npy", npy(GOODH)[:9])
put("npy-unaligned.npy", npy(GOODH, align=1))   # valid; its floats at an odd address
