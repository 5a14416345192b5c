#!/usr/bin/env python3
"""exportcheck.py: an independent check of probe-export's files.

Pure Python (struct, zipfile, pickle; no numpy, no torch), written from the
formats (ATB's .bin header, torch.save's zip of data.pkl and storages,
numpy's .npy), not from probe's readers or writers.

  exportcheck.py RECORDS   each record of probe-export (one per line) names
                           a written "file" and the tensor it came "from":
                           both are read here, and the file must hold the
                           source's shape and every element (bitwise in the
                           same type; a bfloat16 source as float32 exactly in
                           a .npy), in the type the record says.  One line
                           per file; a violation is "FAIL: ..." and exit 1.
"""
import ast
import json
import math
import pickle
import struct
import sys
import zipfile

failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL: " + msg)


# (struct format or None, element size) per numpy-style name
TYPES = {"float64": ("d", 8), "float32": ("f", 4), "float16": ("e", 2), "bfloat16": (None, 2),
         "int64": ("q", 8), "int32": ("i", 4), "int16": ("h", 2), "int8": ("b", 1), "uint8": ("B", 1),
         "bool": ("?", 1), "uint16": ("H", 2), "uint32": ("I", 4), "uint64": ("Q", 8),
         "float8_e4m3fn": (None, 1), "float8_e5m2": (None, 1), "complex64": (None, 8), "complex128": (None, 16)}
ATB_CODES = {0: "float32", 1: "float16", 2: "int8", 3: "int32", 9: "int64", 12: "bool", 27: "bfloat16"}
STORAGES = {"DoubleStorage": "float64", "FloatStorage": "float32", "HalfStorage": "float16",
            "BFloat16Storage": "bfloat16", "LongStorage": "int64", "IntStorage": "int32", "ShortStorage": "int16",
            "CharStorage": "int8", "ByteStorage": "uint8", "BoolStorage": "bool",
            "ComplexFloatStorage": "complex64", "ComplexDoubleStorage": "complex128"}
NPY = {"<f8": "float64", "<f4": "float32", "<f2": "float16", "<i8": "int64", "<i4": "int32", "<i2": "int16",
       "|i1": "int8", "|u1": "uint8", "|b1": "bool", "<u2": "uint16", "<u4": "uint32", "<u8": "uint64",
       "<c8": "complex64", "<c16": "complex128"}


def float8(v, kind):
    """One float8 byte's value (OCP's e4m3fn: no infinities, S.1111.111 NaN; e5m2: IEEE-like)."""
    sign = -1.0 if v & 0x80 else 1.0
    if kind == "float8_e4m3fn":
        e, m = (v >> 3) & 15, v & 7
        if (e, m) == (15, 7):
            return math.nan
        return sign * (m / 8 * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7))
    e, m = (v >> 2) & 31, v & 3
    if e == 31:
        return sign * math.inf if m == 0 else math.nan
    return sign * (m / 4 * 2.0 ** -14 if e == 0 else (1 + m / 4) * 2.0 ** (e - 15))


def same_values(a, b):
    return len(a) == len(b) and all(x == y or (math.isnan(x) and math.isnan(y)) for x, y in zip(a, b))


def widened(raw):
    """bfloat16 elements as the float32 elements of the same value: the 16 bits above 16 zero bits."""
    return b"".join(b"\0\0" + raw[i:i + 2] for i in range(0, len(raw), 2))


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def read_bin(path):
    data = open(path, "rb").read()
    head, pos = {}, 0
    while True:
        end = data.index(b"\n", pos)
        key, _, value = data[pos:end].decode().partition("=")
        head[key] = value
        pos = end + 1
        if key == "$End":
            break
    if "data" in head:
        raise ValueError("%s is an alias of %s" % (path, head["data"]))
    dtype = ATB_CODES[int(head["dtype"])]
    shape = [int(d) for d in head["dims"].split(",")] if head["dims"] else []
    return dtype, shape, data[pos:pos + numel(shape) * TYPES[dtype][1]]


class _Rebuilt:
    """torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks[, metadata])"""
    def __init__(self, storage, offset, size, stride, requires_grad=False, *rest):
        self.storage, self.offset, self.size, self.stride = storage, offset, list(size), list(stride)
        self.requires_grad = requires_grad


class _RebuiltV3(_Rebuilt):
    """_rebuild_tensor_v3(untyped storage, offset, size, stride, requires_grad, hooks, dtype[, metadata])"""
    def __init__(self, storage, offset, size, stride, requires_grad, hooks, dtype, *rest):
        super().__init__((dtype,) + storage[1:], offset, size, stride, requires_grad)


def read_pt(path):
    z = zipfile.ZipFile(path)
    pkl = [n for n in z.namelist() if n.endswith("/data.pkl")]
    stem = pkl[0][:-len("/data.pkl")]

    class Loader(pickle.Unpickler):
        def find_class(self, module, name):
            if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
                return _Rebuilt
            if (module, name) == ("torch._utils", "_rebuild_tensor_v3"):
                return _RebuiltV3
            if (module, name) == ("torch._utils", "_rebuild_parameter"):
                return lambda t, requires_grad, hooks: t
            if (module, name) == ("collections", "OrderedDict"):
                return dict
            if module == "torch" and name in STORAGES:
                return STORAGES[name]
            if module == "torch" and (name in TYPES or name == "UntypedStorage"):
                return name  # a dtype of _rebuild_tensor_v3; the untyped storage's bytes
            raise ValueError("unexpected global %s.%s" % (module, name))

        def persistent_load(self, pid):
            kind, dtype, key, _location, count = pid
            assert kind == "storage"
            return (dtype, z.read("%s/data/%s" % (stem, key)), count)

    t = Loader(__import__("io").BytesIO(z.read(pkl[0]))).load()
    dtype, raw, _count = t.storage
    size = TYPES[dtype][1]
    # the elements of the view, row-major, whatever its strides
    out, idx = [], [0] * len(t.size)
    for _ in range(numel(t.size)):
        at = t.offset + sum(i * s for i, s in zip(idx, t.stride))
        out.append(raw[at * size:(at + 1) * size])
        for d in reversed(range(len(idx))):
            idx[d] += 1
            if idx[d] < t.size[d]:
                break
            idx[d] = 0
    expect, step = [], 1
    for d in reversed(t.size):
        expect.insert(0, step)
        step *= max(d, 1)
    contiguous = t.offset == 0 and (numel(t.size) <= 1 or t.stride == expect)
    return dtype, t.size, b"".join(out), contiguous


def read_npy(path):
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY", path + ": no npy magic"
    major = data[6]
    if major == 1:
        hlen, start = struct.unpack("<H", data[8:10])[0], 10
    else:
        hlen, start = struct.unpack("<I", data[8:12])[0], 12
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    assert not header["fortran_order"], path + ": Fortran order"
    dtype = NPY[header["descr"]]
    shape = list(header["shape"])
    body = data[start + hlen:]
    return dtype, shape, body[:numel(shape) * TYPES[dtype][1]]


def read_any(path):
    """(dtype, shape, raw bytes row-major)"""
    with open(path, "rb") as f:
        magic = f.read(6)
    if magic[:2] == b"PK":
        return read_pt(path)[:3]
    if magic == b"\x93NUMPY":
        return read_npy(path)
    return read_bin(path)


def check(rec):
    src_dtype, src_shape, src_raw = read_any(rec["from"])
    out_dtype, out_shape, out_raw = read_any(rec["file"])
    name = rec["file"]
    if name.endswith(".pt") and not read_pt(name)[3]:
        fail("%s: not a contiguous row-major tensor at offset 0" % name)
    if out_shape != src_shape or rec["shape"] != src_shape:
        fail("%s: shape %s, source %s, record %s" % (name, out_shape, src_shape, rec["shape"]))
    if out_dtype != rec["dtype"]:
        fail("%s: holds %s, the record says %s" % (name, out_dtype, rec["dtype"]))
    if rec.get("from_dtype", rec["dtype"]) != src_dtype:
        fail("%s: the source is %s, the record says %s" % (name, src_dtype, rec.get("from_dtype")))
    if out_dtype == src_dtype:
        if out_raw != src_raw:
            fail("%s: elements differ from %s" % (name, rec["from"]))
    elif out_dtype != "float32" or src_dtype not in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        fail("%s: %s written as %s" % (name, src_dtype, out_dtype))
    elif src_dtype == "bfloat16" and out_raw != widened(src_raw):
        fail("%s: float32 values differ from the bfloat16 ones of %s" % (name, rec["from"]))
    elif src_dtype != "bfloat16" and not same_values(struct.unpack("<%df" % (len(out_raw) // 4), out_raw),
                                                     [float8(v, src_dtype) for v in src_raw]):
        fail("%s: float32 values differ from the %s ones of %s" % (name, src_dtype, rec["from"]))
    print("ok %s %s %s%s" % (name, out_dtype, out_shape, " from " + src_dtype if src_dtype != out_dtype else ""))


for line in open(sys.argv[1]):
    if line.strip():
        check(json.loads(line))
sys.exit(1 if failures else 0)
