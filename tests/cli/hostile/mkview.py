#!/usr/bin/env python3
"""One tensor file, built from nothing, for the hostile tests of views and declared shapes.

    mkview.py pt FILE DTYPE SHAPE STRIDE STORAGE_NUMEL [OFFSET]
    mkview.py npy FILE DESCR SHAPE

pt: a torch.save archive (torch 1.x layout) of _rebuild_tensor_v2 over a storage of
STORAGE_NUMEL elements of DTYPE (float32, float16, float64, int64, bfloat16), element i
holding the value i; SHAPE and STRIDE are comma-separated ("4,4", "" for a 0-d tensor).
npy: a .npy of numpy descr DESCR ("<f4", "<f8"), elements 0, 1, 2, ...
"""
import struct
import sys
import zipfile
import io
from ptpickle import pint, ptuple

STORAGES = {"float32": (b"FloatStorage", "<f", 4), "float16": (b"HalfStorage", "<e", 2),
            "float64": (b"DoubleStorage", "<d", 8), "int64": (b"LongStorage", "<q", 8),
            "bfloat16": (b"BFloat16Storage", None, 2)}


def dims(text):
    return tuple(int(x) for x in text.split(",") if x != "")


def elements(dtype, n):
    cls, fmt, size = STORAGES[dtype]
    if fmt is None:  # bfloat16: the upper half of float32
        return b"".join(struct.pack("<f", float(i))[2:] for i in range(n))
    return b"".join(struct.pack(fmt, i if fmt == "<q" else float(i)) for i in range(n))


def pt(path, dtype, shape, stride, numel, offset=0):
    cls = STORAGES[dtype][0]
    pkl = (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\nq\x00((X\x07\x00\x00\x00storageq\x01ctorch\n"
           + cls + b"\nq\x02X\x01\x00\x00\x000q\x03X\x03\x00\x00\x00cpuq\x04" + pint(numel)
           + b"tq\x05Q" + pint(offset) + ptuple(shape) + ptuple(stride)
           + b"\x89ccollections\nOrderedDict\nq\x08)Rq\ttq\nRq\x0b.")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/data.pkl", pkl, zipfile.ZIP_STORED)
        z.writestr("archive/data/0", elements(dtype, numel), zipfile.ZIP_STORED)
        z.writestr("archive/version", b"3\n", zipfile.ZIP_STORED)
    with open(path, "wb") as f:
        f.write(buf.getvalue())


def npy(path, descr, shape):
    n = 1
    for d in shape:
        n *= d
    fmt = {"<f4": "<f", "<f8": "<d", "<f2": "<e", "<i8": "<q"}[descr]
    shape_text = "(" + "".join("%d, " % d for d in shape)[:-2] + ("," if len(shape) == 1 else "") + ")"
    h = ("{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_text)).encode()
    h += b" " * ((64 - (10 + len(h) + 1) % 64) % 64) + b"\n"
    data = b"".join(struct.pack(fmt, i if fmt == "<q" else float(i)) for i in range(n))
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h + data)


if sys.argv[1] == "pt":
    pt(sys.argv[2], sys.argv[3], dims(sys.argv[4]), dims(sys.argv[5]), int(sys.argv[6]),
       int(sys.argv[7]) if len(sys.argv) > 7 else 0)
else:
    npy(sys.argv[2], sys.argv[3], dims(sys.argv[4]))
