#!/usr/bin/python3
"""Write the tensor-reader test corpus into this directory.

Run with Debian's interpreter, which has torch 1.13 and numpy:

    /usr/bin/python3 tests/data/tensor/make_corpus.py

It writes small .pt and .npy files, good and broken, and expected.txt,
which tests/unit/test_tensor.c reads.  Every value in expected.txt comes
from torch or numpy, not from the reader under test.

expected.txt has one line per file, fields separated by spaces:

    NAME format=pt|npy dtype=NAME shape=2,3 stride=3,1 contiguous=0|1
         big=0|1 requires_grad=0|1 numel=N crc=HEX f64=HEX,... f32=HEX,...

shape and stride are empty for a 0-d tensor; stride is * when it does not
matter (no elements); crc is the zlib CRC-32 of the elements in row-major
order as little-endian bytes; f64 and f32 list the bit patterns of each
element as double and as float (what tensor_read_f64 and tensor_read_f32
must give), or are * for the larger files (which the test checks against
a naive reader of its own).  A file that must be refused has the line

    NAME error=TEXT

where TEXT (the rest of the line) must appear in the error message.

torch 1.13 cannot write the torch 2.x layout, big-endian archives,
_rebuild_tensor_v3 or ZIP64: those archives are assembled here by hand
(pickle opcodes and zip records), following what torch 2.x writes.
"""

import io
import os
import struct
import sys
import zipfile
import zlib

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
LINES = []
rng = np.random.RandomState(20240611)


def out(name):
    return os.path.join(HERE, name)


# ---------------------------------------------------------------- manifest

def f64_bits(values):
    return ",".join("%016x" % struct.unpack("<Q", struct.pack("<d", float(v)))[0] for v in values)


def f32_bits(values):
    return ",".join("%08x" % struct.unpack("<I", struct.pack("<f", v))[0]
                    for v in np.asarray(values, dtype=np.float32).ravel())


def expect(name, fmt, dtype, shape, stride, contiguous, big, requires_grad, raw_le, f64, f32, full=True):
    """One good file: raw_le are the row-major elements as little-endian bytes."""
    numel = int(np.prod(shape)) if len(shape) else 1
    stride_text = "*" if numel == 0 else ",".join(str(s) for s in stride)
    fields = [
        name, "format=" + fmt, "dtype=" + dtype,
        "shape=" + ",".join(str(s) for s in shape),
        "stride=" + stride_text,
        "contiguous=%d" % contiguous, "big=%d" % big, "requires_grad=%d" % requires_grad,
        "numel=%d" % numel, "crc=%08x" % (zlib.crc32(raw_le) & 0xFFFFFFFF),
        "f64=" + (f64_bits(f64) if full else "*"),
        "f32=" + (f32_bits(f32) if full else "*"),
    ]
    LINES.append(" ".join(fields))


def expect_error(name, text):
    LINES.append("%s error=%s" % (name, text))


TORCH_NAMES = {
    torch.float64: "float64", torch.float32: "float32", torch.float16: "float16",
    torch.bfloat16: "bfloat16", torch.int64: "int64", torch.int32: "int32",
    torch.int16: "int16", torch.int8: "int8", torch.uint8: "uint8", torch.bool: "bool",
    torch.complex64: "complex64", torch.complex128: "complex128",
}


def torch_values(t):
    """(row-major little-endian bytes, doubles, floats) of a tensor, computed by torch."""
    c = t.detach().contiguous()
    if c.dtype == torch.bfloat16:
        raw = c.view(torch.int16).numpy().astype("<i2").tobytes()
        return raw, c.double().flatten().tolist(), c.float().flatten().numpy()
    a = c.numpy()
    raw = a.astype(a.dtype.newbyteorder("<")).tobytes()
    with np.errstate(over="ignore"):  # float32 of a huge double is inf, as the reader gives
        if a.dtype.kind == "c":
            return raw, a.real.astype(np.float64).ravel().tolist(), a.real.astype(np.float32).ravel()
        return raw, a.astype(np.float64).ravel().tolist(), a.astype(np.float32).ravel()


def expect_torch(name, t, big=False, full=True, dtype=None):
    raw, f64, f32 = torch_values(t)
    expect(name, "pt", dtype or TORCH_NAMES[t.dtype], tuple(t.shape), t.stride(), t.is_contiguous(), big,
           t.requires_grad, raw, f64, f32, full)


def save_torch(name, t, **kw):
    """torch.save, checked by loading it back; the manifest line comes from the loaded tensor."""
    torch.save(t, out(name), **kw)
    back = torch.load(out(name))
    assert back.dtype == t.dtype and back.shape == t.shape and back.stride() == t.stride()
    assert torch.equal(back.detach().contiguous().view(-1).view(torch.uint8) if back.numel() else back,
                       t.detach().contiguous().view(-1).view(torch.uint8) if t.numel() else t)
    expect_torch(name, back)
    return back


def npy_strides(shape, fortran):
    strides, step = [0] * len(shape), 1
    order = range(len(shape)) if fortran else reversed(range(len(shape)))
    for d in order:
        strides[d] = step
        step *= max(shape[d], 1)
    return strides


def expect_npy(name, a, big, fortran):
    shape = a.shape
    contiguous = not fortran or sum(1 for s in shape if s != 1) <= 1 or a.size == 0
    le = a.astype(a.dtype.newbyteorder("<"))
    raw = np.ascontiguousarray(le).tobytes()
    if a.dtype.kind == "c":
        f64, f32 = a.real.astype(np.float64).ravel().tolist(), a.real.astype(np.float32).ravel()
    else:
        f64, f32 = a.astype(np.float64).ravel().tolist(), a.astype(np.float32).ravel()
    names = {"f8": "float64", "f4": "float32", "f2": "float16", "i8": "int64", "i4": "int32", "i2": "int16",
             "i1": "int8", "u8": "uint64", "u4": "uint32", "u2": "uint16", "u1": "uint8", "b1": "bool",
             "c8": "complex64", "c16": "complex128"}
    expect(name, "npy", names[a.dtype.str[1:]], shape, npy_strides(shape, fortran), contiguous, big, False,
           raw, f64, f32)


# ---------------------------------------------------------------- hand-made pickles

def p_global(mod, name):
    return b"c" + mod.encode() + b"\n" + name.encode() + b"\n"


def p_str(s):
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def p_int(v):
    if 0 <= v < 256:
        return b"K" + bytes([v])
    if 0 <= v < 65536:
        return b"M" + struct.pack("<H", v)
    if -2**31 <= v < 2**31:
        return b"J" + struct.pack("<i", v)
    n = (v.bit_length() + 8) // 8
    return b"\x8a" + bytes([n]) + v.to_bytes(n, "little", signed=True)


def p_tuple(items):
    return b"(" + b"".join(items) + b"t"


def p_bool(v):
    return b"\x88" if v else b"\x89"


def p_ordered_dict():
    return p_global("collections", "OrderedDict") + b")R"


def p_tensor_args(storage_cls, key, numel, offset, size, stride, requires_grad, extra=()):
    pid = p_tuple([p_str("storage"), p_global(*storage_cls), p_str(key), p_str("cpu"), p_int(numel)]) + b"Q"
    return [pid, p_int(offset), p_tuple([p_int(s) for s in size]), p_tuple([p_int(s) for s in stride]),
            p_bool(requires_grad), p_ordered_dict()] + list(extra)


def p_rebuild_v2(storage_cls, key, numel, offset, size, stride, requires_grad=False, metadata=False):
    extra = [b"}"] if metadata else []
    return (p_global("torch._utils", "_rebuild_tensor_v2")
            + p_tuple(p_tensor_args(storage_cls, key, numel, offset, size, stride, requires_grad, extra)) + b"R")


def p_rebuild_v3(dtype, key, nbytes, offset, size, stride, requires_grad=False):
    args = p_tensor_args(("torch.storage", "UntypedStorage"), key, nbytes, offset, size, stride, requires_grad,
                         [p_global("torch", dtype)])
    return p_global("torch._utils", "_rebuild_tensor_v3") + p_tuple(args) + b"R"


def pickle_of(body):
    return b"\x80\x02" + body + b"."


# ---------------------------------------------------------------- hand-made zip archives

def zip_bytes(entries, align=64, zip64=False, deflate=(), size_override=None):
    """A zip archive as torch's writer lays it out: storages start on an `align` boundary,
    padded with an 'FB' extra field in the local header only.  entries: [(name, bytes)]."""
    blob, central = bytearray(), bytearray()
    for name, data in entries:
        nb = name.encode()
        method = 8 if name in deflate else 0
        if method:
            c = zlib.compressobj(9, zlib.DEFLATED, -15)
            stored = c.compress(data) + c.flush()
        else:
            stored = data
        crc = zlib.crc32(data) & 0xFFFFFFFF
        usize, csize = len(data), len(stored)
        if size_override and name in size_override:
            usize = size_override[name]
        offset = len(blob)
        extra = b""
        if zip64:
            extra += struct.pack("<HHQQ", 1, 16, usize, csize)
        if align:
            base = offset + 30 + len(nb) + len(extra) + 4
            pad = (-base) % align
            extra += b"FB" + struct.pack("<H", pad) + b"Z" * pad
        sz32 = 0xFFFFFFFF if zip64 else None
        blob += struct.pack("<IHHHHHIIIHH", 0x04034B50, 45 if zip64 else 20, 0x800, method, 0, 0x21, crc,
                            sz32 or csize, sz32 or usize, len(nb), len(extra)) + nb + extra + stored
        cextra = struct.pack("<HHQQQ", 1, 24, usize, csize, offset) if zip64 else b""
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45 if zip64 else 20, 45 if zip64 else 20, 0x800,
                               method, 0, 0x21, crc, sz32 or csize, sz32 or usize, len(nb), len(cextra), 0, 0, 0, 0,
                               0xFFFFFFFF if zip64 else offset) + nb + cextra
    cd_off = len(blob)
    blob += central
    n = len(entries)
    if zip64:
        end64 = len(blob)
        blob += struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, n, n, len(central), cd_off)
        blob += struct.pack("<IIQI", 0x07064B50, 0, end64, 1)
        blob += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    else:
        blob += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, len(central), cd_off, 0)
    return bytes(blob)


def torch2_entries(stem, pkl, storages, byteorder="little"):
    """The entries torch 2.x writes for one tensor (order as torch writes them)."""
    e = [(stem + "/data.pkl", pkl), (stem + "/.format_version", b"1"), (stem + "/.storage_alignment", b"64"),
         (stem + "/byteorder", byteorder.encode())]
    e += [(stem + "/data/" + k, v) for k, v in storages]
    e += [(stem + "/version", b"3\n"), (stem + "/.data/serialization_id", b"1234567890123456789012345678901234567890")]
    return e


def torch1_entries(stem, pkl, storages):
    return [(stem + "/data.pkl", pkl)] + [(stem + "/data/" + k, v) for k, v in storages] + [(stem + "/version", b"3\n")]


def write(name, data):
    with open(out(name), "wb") as f:
        f.write(data)


def le_bytes(a):
    return np.ascontiguousarray(a.astype(a.dtype.newbyteorder("<"))).tobytes()


# ---------------------------------------------------------------- good .pt files written by torch

def torch_files():
    f16 = torch.tensor([0.0, -0.0, 1.0, -2.5, 65504.0, 6.0e-8, 6.1e-5, float("inf"), float("-inf"), float("nan"),
                        0.333251953125, -1e-3], dtype=torch.float16).reshape(3, 4)
    bf16 = torch.tensor([0.0, -0.0, 1.0, 3.140625, -1e30, 1e-38, 9.2e-41, float("inf"), float("-inf"), float("nan")],
                        dtype=torch.bfloat16)
    save_torch("pt_float64.pt", torch.from_numpy(rng.standard_normal((2, 3))))
    save_torch("pt_float32.pt", torch.from_numpy(rng.standard_normal((3, 4)).astype(np.float32)))
    save_torch("pt_float16.pt", f16)
    save_torch("pt_bfloat16.pt", bf16)
    save_torch("pt_int64.pt", torch.tensor([0, -1, 2**53 + 1, -2**63, 2**63 - 1, 12345678901], dtype=torch.int64))
    save_torch("pt_int32.pt", torch.tensor([[0, -1, 2**31 - 1], [-2**31, 16777217, 7]], dtype=torch.int32))
    save_torch("pt_int16.pt", torch.tensor([0, -1, 32767, -32768, 300], dtype=torch.int16))
    save_torch("pt_int8.pt", torch.tensor([0, -1, 127, -128, 5], dtype=torch.int8))
    save_torch("pt_uint8.pt", torch.tensor([0, 1, 255, 128], dtype=torch.uint8))
    save_torch("pt_bool.pt", torch.tensor([True, False, True, True], dtype=torch.bool).reshape(2, 2))
    save_torch("pt_complex64.pt", torch.tensor([1 + 2j, -3.5 - 0.25j, 0j], dtype=torch.complex64))
    save_torch("pt_complex128.pt", torch.tensor([[1e300 + 1j, -2j], [3.25 + 0j, -0.0 + 5j]], dtype=torch.complex128))
    save_torch("pt_0d.pt", torch.tensor(3.5, dtype=torch.float32))
    save_torch("pt_empty.pt", torch.zeros(2, 0, 3, dtype=torch.float32))
    save_torch("pt_one.pt", torch.tensor([42.0], dtype=torch.float64))

    base = torch.arange(10, dtype=torch.float32) * 1.5
    save_torch("pt_offset.pt", base[2:])
    save_torch("pt_offset_scalar.pt", base[7])
    m = torch.arange(12, dtype=torch.float64).reshape(3, 4) - 5
    save_torch("pt_transpose.pt", m.t())
    g = torch.arange(24, dtype=torch.int32).reshape(4, 6)
    save_torch("pt_step2.pt", g[:, ::2])
    cube = torch.arange(2 * 3 * 4 * 5, dtype=torch.int16).reshape(2, 3, 4, 5)
    save_torch("pt_permute4d.pt", cube.permute(3, 1, 0, 2)[1:, :, :, ::3])
    save_torch("pt_expand.pt", torch.tensor([[1.0], [2.0]], dtype=torch.float32).expand(2, 3))
    save_torch("pt_bf16_transpose.pt", torch.arange(6, dtype=torch.bfloat16).reshape(2, 3).t())
    save_torch("pt_size1_strides.pt", torch.arange(8, dtype=torch.float32).reshape(4, 2)[1:2, :])

    p = torch.nn.Parameter(torch.from_numpy(rng.standard_normal((2, 2)).astype(np.float32)))
    save_torch("pt_parameter.pt", p)
    save_torch("pt_parameter_nograd.pt", torch.nn.Parameter(torch.ones(3, dtype=torch.float16), requires_grad=False))
    save_torch("pt_requires_grad.pt", torch.tensor([1.0, -1.0], dtype=torch.float64, requires_grad=True))
    save_torch("pt_protocol4.pt", torch.tensor([[1, -2], [3, -4]], dtype=torch.int16).t(), pickle_protocol=4)

    # larger views: the reader's chunked paths (more than 2048 elements), checked by the test's naive reader
    big = torch.from_numpy(rng.standard_normal((60, 70)).astype(np.float16))
    torch.save(big.t(), out("pt_large_f16_t.pt"))
    expect_torch("pt_large_f16_t.pt", big.t(), full=False)
    big32 = torch.from_numpy(rng.standard_normal((50, 90)).astype(np.float32))
    torch.save(big32[:, 1::2], out("pt_large_f32_step.pt"))
    expect_torch("pt_large_f32_step.pt", big32[:, 1::2], full=False)

    # the same files deflated: every entry compressed, as a user's rezip would do
    rezip("pt_float32.pt", "pt_deflated.pt")
    rezip("pt_step2.pt", "pt_deflated_view.pt")


def rezip(src_name, name):
    """Copy a torch archive with every entry deflated (fixed timestamps: the corpus is reproducible)."""
    src = zipfile.ZipFile(out(src_name))
    with zipfile.ZipFile(out(name), "w") as z:
        for info in src.infolist():
            zi = zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0))
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, src.read(info.filename))
    expect_torch(name, torch.load(out(name)))


# ---------------------------------------------------------------- good .pt files assembled by hand

def crafted_files():
    # torch 2.x layout: byteorder and .data/serialization_id entries, a stem unlike the file name
    t = torch.from_numpy(rng.standard_normal((2, 5)).astype(np.float32))
    pkl = pickle_of(p_rebuild_v2(("torch", "FloatStorage"), "0", 10, 0, (2, 5), (5, 1)))
    write("pt2_layout.pt", zip_bytes(torch2_entries("archive", pkl, [("0", le_bytes(t.numpy()))])))
    assert torch.equal(torch.load(out("pt2_layout.pt")), t)
    expect_torch("pt2_layout.pt", t)

    # torch 2.x: _rebuild_tensor_v2 with the optional metadata dict
    pkl = pickle_of(p_rebuild_v2(("torch", "FloatStorage"), "0", 10, 1, (2, 2), (1, 3), metadata=True))
    write("pt2_metadata.pt", zip_bytes(torch2_entries("x", pkl, [("0", le_bytes(t.numpy()))])))
    view = t.flatten().as_strided((2, 2), (1, 3), 1)
    expect_torch("pt2_metadata.pt", view)

    # big-endian storages (byteorder "big"), a non-contiguous view of them
    a = (np.arange(12, dtype=np.float32) * 0.75 - 3).reshape(3, 4)
    pkl = pickle_of(p_rebuild_v2(("torch", "FloatStorage"), "0", 12, 1, (4, 2), (1, 4)))
    write("pt2_big_f32.pt", zip_bytes(torch2_entries("archive", pkl, [("0", a.astype(">f4").tobytes())], "big")))
    expect_torch("pt2_big_f32.pt", torch.from_numpy(a).flatten().as_strided((4, 2), (1, 4), 1), big=True)
    c = np.array([1 + 2j, -3 - 4j, 0.5 + 0.25j], dtype=np.complex128)
    pkl = pickle_of(p_rebuild_v2(("torch", "ComplexDoubleStorage"), "0", 3, 0, (3,), (1,)))
    write("pt2_big_c128.pt", zip_bytes(torch2_entries("archive", pkl, [("0", c.astype(">c16").tobytes())], "big")))
    expect_torch("pt2_big_c128.pt", torch.from_numpy(c), big=True)
    i = np.array([1, -2, 300, -32768], dtype=np.int16)
    pkl = pickle_of(p_rebuild_v2(("torch", "ShortStorage"), "0", 4, 0, (4,), (1,)))
    write("pt2_big_i16.pt", zip_bytes(torch2_entries("archive", pkl, [("0", i.astype(">i2").tobytes())], "big")))
    expect_torch("pt2_big_i16.pt", torch.from_numpy(i), big=True)

    # _rebuild_tensor_v3: an untyped storage (numel counts bytes) and the dtype as a global
    u = np.array([0, 1, 4294967295, 123456789], dtype=np.uint32)
    pkl = pickle_of(p_rebuild_v3("uint32", "0", 16, 0, (2, 2), (2, 1)))
    write("pt2_v3_uint32.pt", zip_bytes(torch2_entries("archive", pkl, [("0", le_bytes(u))])))
    expect("pt2_v3_uint32.pt", "pt", "uint32", (2, 2), (2, 1), True, False, False, le_bytes(u),
           u.astype(np.float64).tolist(), u.astype(np.float32))
    f8 = bytes([0x00, 0x38, 0xB8, 0x7E, 0x01, 0x7F])  # 0, 1, -1, 448, 2^-9, NaN in float8_e4m3fn
    f8_values = [0.0, 1.0, -1.0, 448.0, 2.0**-9, float("nan")]
    pkl = pickle_of(p_rebuild_v3("float8_e4m3fn", "0", 6, 0, (6,), (1,)))
    write("pt2_v3_f8e4m3.pt", zip_bytes(torch2_entries("archive", pkl, [("0", f8)])))
    expect("pt2_v3_f8e4m3.pt", "pt", "float8_e4m3fn", (6,), (1,), True, False, False, f8, f8_values,
           np.array(f8_values, dtype=np.float32))

    # _rebuild_parameter_with_state and _rebuild_from_type_v2 (torch 2.x, tensors with Python attributes)
    b = np.array([1.5, -2.0, 0.0], dtype=np.float64)
    inner = p_rebuild_v2(("torch", "DoubleStorage"), "0", 3, 0, (3,), (1,), requires_grad=False)
    state = b"}" + p_str("tag") + p_str("weight") + b"s"
    pkl = pickle_of(p_global("torch._utils", "_rebuild_parameter_with_state")
                    + p_tuple([inner, p_bool(True), p_ordered_dict(), state]) + b"R")
    write("pt2_param_state.pt", zip_bytes(torch2_entries("archive", pkl, [("0", le_bytes(b))])))
    expect("pt2_param_state.pt", "pt", "float64", (3,), (1,), True, False, True, le_bytes(b), b.tolist(),
           b.astype(np.float32))
    args = p_tuple(p_tensor_args(("torch", "DoubleStorage"), "0", 3, 1, (2,), (1,), False))
    pkl = pickle_of(p_global("torch._tensor", "_rebuild_from_type_v2")
                    + p_tuple([p_global("torch._utils", "_rebuild_tensor_v2"), p_global("torch._tensor", "Tensor"),
                               args, b"}" + p_str("foo") + p_str("bar") + b"s"]) + b"R")
    write("pt2_from_type.pt", zip_bytes(torch2_entries("archive", pkl, [("0", le_bytes(b))])))
    expect("pt2_from_type.pt", "pt", "float64", (2,), (1,), True, False, False, le_bytes(b[1:]), b[1:].tolist(),
           b[1:].astype(np.float32))

    # ZIP64 records throughout: zip64 extra fields, end record and locator (what a >4 GiB file has)
    z = np.arange(6, dtype=np.int64) * -7
    pkl = pickle_of(p_rebuild_v2(("torch", "LongStorage"), "0", 6, 0, (3, 2), (2, 1)))
    write("pt_zip64.pt", zip_bytes(torch1_entries("zip64", pkl, [("0", le_bytes(z))]), zip64=True))
    assert zipfile.ZipFile(out("pt_zip64.pt")).testzip() is None
    assert torch.equal(torch.load(out("pt_zip64.pt")), torch.from_numpy(z).reshape(3, 2))
    expect_torch("pt_zip64.pt", torch.from_numpy(z).reshape(3, 2))

    # torch 2.x archive with only the storage deflated
    pkl = pickle_of(p_rebuild_v2(("torch", "FloatStorage"), "0", 10, 0, (10,), (1,)))
    write("pt2_deflated_storage.pt", zip_bytes(torch2_entries("archive", pkl, [("0", le_bytes(t.numpy()))]),
                                               deflate={"archive/data/0"}))
    expect_torch("pt2_deflated_storage.pt", t.flatten())


# ---------------------------------------------------------------- .npy files

def npy_with_header(header_text, data, version=(1, 0)):
    """An .npy file with a header of our own text (padded like numpy pads it)."""
    h = header_text.encode("utf-8" if version == (3, 0) else "latin1")
    pre = 10 if version == (1, 0) else 12
    pad = (-(pre + len(h) + 1)) % 64
    h += b" " * pad + b"\n"
    size = struct.pack("<H", len(h)) if version == (1, 0) else struct.pack("<I", len(h))
    return b"\x93NUMPY" + bytes(version) + size + h + data


def npy_files():
    a = rng.standard_normal((3, 4)).astype(np.float32)
    np.save(out("npy_f32.npy"), a)
    expect_npy("npy_f32.npy", a, False, False)
    f = np.asfortranarray(rng.standard_normal((3, 2, 4)))
    np.save(out("npy_f64_fortran.npy"), f)
    assert np.load(out("npy_f64_fortran.npy")).flags.f_contiguous
    expect_npy("npy_f64_fortran.npy", f, False, True)
    b = (np.arange(6, dtype=np.float32) - 2.5).reshape(2, 3).astype(">f4")
    np.save(out("npy_be_f4.npy"), b)
    expect_npy("npy_be_f4.npy", b, True, False)
    i = np.array([1, -2, 2**40, -2**63], dtype=">i8")
    np.save(out("npy_be_i8.npy"), i)
    expect_npy("npy_be_i8.npy", i, True, False)
    c = np.array([[1 + 2j, -3 - 4j], [5e-300 + 0j, -0.0 - 1j]], dtype=">c16")
    np.save(out("npy_be_c16.npy"), c)
    expect_npy("npy_be_c16.npy", c, True, False)
    cf = np.asfortranarray(np.array([[1, 2, 3], [4, 5, 6]], dtype=">i2"))
    np.save(out("npy_be_i2_fortran.npy"), cf)
    expect_npy("npy_be_i2_fortran.npy", cf, True, True)
    for dt in ["<f2", "<u2", "<u4", "<u8", "|u1", "|i1", "<i4", "|b1", "<c8"]:
        v = (rng.standard_normal(5) * 100).astype(dt) if dt != "|b1" else np.array([1, 0, 0, 1, 1], dtype="?")
        name = "npy_%s.npy" % dt[1:]
        np.save(out(name), v)
        expect_npy(name, v, False, False)
    z = np.array(2.25, dtype=np.float64)
    np.save(out("npy_0d.npy"), z)
    expect_npy("npy_0d.npy", z, False, False)
    e = np.zeros((3, 0), dtype=np.float32)
    np.save(out("npy_empty.npy"), e)
    expect_npy("npy_empty.npy", e, False, False)

    v2 = np.arange(5, dtype=np.int32)
    with open(out("npy_v2.npy"), "wb") as fh:
        np.lib.format.write_array(fh, v2, version=(2, 0))
    assert np.array_equal(np.load(out("npy_v2.npy")), v2)
    expect_npy("npy_v2.npy", v2, False, False)
    v3 = np.arange(4, dtype="<f8").reshape(2, 2) / 3
    with open(out("npy_v3.npy"), "wb") as fh:
        np.lib.format.write_array(fh, v3, version=(3, 0))
    assert np.array_equal(np.load(out("npy_v3.npy")), v3)
    expect_npy("npy_v3.npy", v3, False, False)

    # keys in another order, double quotes, a one-element tuple without spaces
    k = np.array([7, 8, 9], dtype="<i2")
    write("npy_key_order.npy", npy_with_header("{\"shape\":(3,),'fortran_order':False, 'descr':'<i2'}", k.tobytes()))
    assert np.array_equal(np.load(out("npy_key_order.npy")), k)
    expect_npy("npy_key_order.npy", k, False, False)


# ---------------------------------------------------------------- files that must be refused

def bad_files():
    good = np.arange(4, dtype=np.float32)
    storage = [("0", le_bytes(good))]

    def bad_pkl(name, body, text, raw=False):
        write(name, zip_bytes(torch1_entries("bad", body if raw else pickle_of(body), storage)))
        expect_error(name, text)

    ok = p_rebuild_v2(("torch", "FloatStorage"), "0", 4, 0, (4,), (1,))
    bad_pkl("bad_opcode.pt", b"\x80\x02" + b"\x99" + ok + b".", "data.pkl byte 2: unknown pickle opcode 0x99", raw=True)
    bad_pkl("bad_global.pt", p_global("os", "system") + p_tuple([p_str("true")]) + b"R",
            "data.pkl byte 2: unknown global os.system")
    bad_pkl("bad_memo_get.pt", b"h\x05", "data.pkl byte 2: memo index 5 was never set")
    bad_pkl("bad_memo_put.pt", b"N" + b"r" + struct.pack("<I", 0xFFFFFFF0), "memo index 4294967280 out of range")
    bad_pkl("bad_underflow.pt", b"R", "data.pkl byte 2: stack underflow")
    bad_pkl("bad_mark_underflow.pt", b"N(R", "stack underflow")
    bad_pkl("bad_marks.pt", b"(" * 300, "more than 256 nested MARKs")
    bad_pkl("bad_stack.pt", b"N" * 2000, "the stack grows beyond 1024 objects")
    bad_pkl("bad_no_stop.pt", b"\x80\x02" + ok, "the pickle ends without STOP", raw=True)
    bad_pkl("bad_truncated_op.pt", b"\x80\x02X\xff\xff\x00\x00ab", "runs past the end of data.pkl", raw=True)
    bad_pkl("bad_two.pt", p_tuple([ok, ok]), "the pickle holds a tuple, not a tensor")
    bad_pkl("bad_leftover.pt", b"N" + ok, "STOP with 2 objects on the stack")
    bad_pkl("bad_not_tensor.pt", p_int(5), "the pickle holds an int, not a tensor")
    bad_pkl("bad_arity.pt", p_global("torch._utils", "_rebuild_tensor_v2") + p_tuple([p_int(1)]) + b"R",
            "_rebuild_tensor_v2 takes 6 or 7 arguments, not 1")
    bad_pkl("bad_protocol.pt", b"\x80\x09" + ok + b".", "pickle protocol 9 is not supported", raw=True)
    bad_pkl("bad_storage_class.pt", p_rebuild_v2(("torch", "QInt8Storage"), "0", 4, 0, (4,), (1,)),
            "unknown global torch.QInt8Storage")
    bad_pkl("bad_long.pt", b"\x8a\x09" + b"\x01" * 9, "an integer of 9 bytes is too large")
    bad_pkl("bad_view.pt", p_rebuild_v2(("torch", "FloatStorage"), "0", 4, 0, (10,), (1,)),
            "the view reaches element 9 of a storage of 4 elements")
    bad_pkl("bad_view_offset.pt", p_rebuild_v2(("torch", "FloatStorage"), "0", 4, 3, (2,), (1,)),
            "the view reaches element 4 of a storage of 4 elements")
    bad_pkl("bad_negative_size.pt", p_rebuild_v2(("torch", "FloatStorage"), "0", 4, 0, (-1,), (1,)),
            "tensor size holds a negative number: -1")
    bad_pkl("bad_negative_stride.pt", p_rebuild_v2(("torch", "FloatStorage"), "0", 4, 3, (4,), (-1,)),
            "tensor stride holds a negative number: -1")
    bad_pkl("bad_negative_offset.pt", p_rebuild_v2(("torch", "FloatStorage"), "0", 4, -1, (1,), (1,)),
            "the storage offset is not a non-negative integer")
    bad_pkl("bad_shape_overflow.pt",
            p_rebuild_v2(("torch", "FloatStorage"), "0", 4, 0, (2**62, 2**62), (1, 1)),
            "the shape holds more than 2^63 elements")
    bad_pkl("bad_stride_overflow.pt",
            p_rebuild_v2(("torch", "FloatStorage"), "0", 4, 0, (3,), (2**62,)),
            "overflows 64 bits")
    bad_pkl("bad_storage_numel.pt", p_rebuild_v2(("torch", "FloatStorage"), "0", 2**62, 0, (4,), (1,)),
            "a storage of 4611686018427387904 elements overflows 64 bits")
    bad_pkl("bad_storage_short.pt", p_rebuild_v2(("torch", "FloatStorage"), "0", 100, 0, (4,), (1,)),
            "entry bad/data/0 holds 16 bytes but its storage is 100 float32 elements (400 bytes)")
    bad_pkl("bad_missing_storage.pt", p_rebuild_v2(("torch", "FloatStorage"), "7", 4, 0, (4,), (1,)),
            "no entry bad/data/7 for the tensor's storage")
    bad_pkl("bad_dims.pt", p_rebuild_v2(("torch", "FloatStorage"), "0", 4, 0, (1,) * 65, (1,) * 65),
            "tensor size has 65 dimensions; at most 64 are supported")
    bad_pkl("bad_v2_untyped.pt", p_rebuild_v2(("torch.storage", "UntypedStorage"), "0", 16, 0, (4,), (1,)),
            "_rebuild_tensor_v2 of an untyped storage")

    # zip damage
    base = zip_bytes(torch1_entries("bad", pickle_of(ok), storage))
    end = base.rindex(b"PK\x05\x06")
    cd_off = struct.unpack_from("<I", base, end + 16)[0]
    b = bytearray(base)
    struct.pack_into("<I", b, end + 16, 0x7FFFFFF0)
    write("bad_cd_offset.pt", bytes(b))
    expect_error("bad_cd_offset.pt", "the zip central directory (")
    b = bytearray(base)
    second = base.index(b"PK\x01\x02", cd_off + 4)  # the storage's central directory entry
    struct.pack_into("<II", b, second + 20, 0x10000000, 0x10000000)
    write("bad_entry_size.pt", bytes(b))
    expect_error("bad_entry_size.pt", "run past the end of the file")
    b = bytearray(base)
    struct.pack_into("<I", b, cd_off + 42, len(base) - 10)
    write("bad_local_offset.pt", bytes(b))
    expect_error("bad_local_offset.pt", "lies outside the file")
    write("bad_no_end.pt", base[:end])
    expect_error("bad_no_end.pt", "no end of central directory record")
    write("bad_no_pickle.pt", zip_bytes([("bad/data/0", le_bytes(good)), ("bad/version", b"3\n")]))
    expect_error("bad_no_pickle.pt", "no data.pkl in the zip archive")
    b = bytearray(zip_bytes(torch1_entries("bad", pickle_of(ok), storage)))
    pkl_at = b.index(b"\x80\x02")
    b[pkl_at + 5] ^= 0x20
    write("bad_crc.pt", bytes(b))
    expect_error("bad_crc.pt", "data.pkl fails its CRC check")
    write("bad_byteorder.pt", zip_bytes(torch2_entries("archive", pickle_of(ok), storage, "middle")))
    expect_error("bad_byteorder.pt", "the byteorder entry says \"middle\"")

    # deflate bombs: a stream far longer than its entry declares, and a declared size no stream can reach
    ones = np.ones(4, dtype=np.float32)
    bomb = zlib.compressobj(9, zlib.DEFLATED, -15)
    stream = bomb.compress(le_bytes(ones) + b"\0" * (8 << 20)) + bomb.flush()
    # the storage entry holds an 8 MiB stream but declares 16 bytes
    write("bad_bomb.pt", bomb_zip("bad", pickle_of(ok), stream, 16))
    expect_error("bad_bomb.pt", "inflates to more than the 16 bytes its directory entry declares")
    huge = pickle_of(p_rebuild_v2(("torch", "FloatStorage"), "0", 2**40, 0, (2**40,), (1,)))
    write("bad_bomb_claim.pt", bomb_zip("bad", huge, stream[:1000], 2**42))
    expect_error("bad_bomb_claim.pt", "compressed bytes cannot inflate to 4398046511104 bytes")
    write("bad_deflate_short.pt", bomb_zip("bad", pickle_of(ok), stream[:3], 16))
    expect_error("bad_deflate_short.pt", "truncated deflate stream")

    # .npy damage
    a = np.arange(120, dtype=np.float32)
    whole = open(out("npy_f32.npy"), "rb").read()
    np.save(out("bad_short_data.npy"), a)
    data = open(out("bad_short_data.npy"), "rb").read()
    write("bad_short_data.npy", data[:-(480 - 96)])
    expect_error("bad_short_data.npy", "the header says 120 elements but the file holds 96 bytes of data")
    b = bytearray(whole)
    struct.pack_into("<H", b, 8, 60000)
    write("bad_hlen.npy", bytes(b))
    expect_error("bad_hlen.npy", "the .npy header claims 60000 bytes")
    np.save(out("bad_object.npy"), np.array([1, "x", None], dtype=object), allow_pickle=True)
    expect_error("bad_object.npy", "object arrays are not supported (descr '|O')")
    np.save(out("bad_unicode.npy"), np.array(["ab", "c"]))
    expect_error("bad_unicode.npy", "string arrays are not supported (descr '<U2')")
    np.save(out("bad_structured.npy"), np.zeros(2, dtype=[("x", "<f4"), ("y", "<i4")]))
    expect_error("bad_structured.npy", "structured arrays are not supported")
    np.save(out("bad_datetime.npy"), np.array(["2024-01-01"], dtype="datetime64[D]"))
    expect_error("bad_datetime.npy", "datetime arrays are not supported (descr '<M8[D]')")
    b = bytearray(whole)
    b[6] = 4
    write("bad_version.npy", bytes(b))
    expect_error("bad_version.npy", ".npy format version 4.0 is not supported")
    write("bad_keys.npy", npy_with_header("{'descr': '<f4', 'shape': (2,), 'extra': 1}", b"\0" * 8))
    expect_error("bad_keys.npy", "unexpected or repeated key 'extra'")
    write("bad_missing_key.npy", npy_with_header("{'descr': '<f4', 'shape': (2,)}", b"\0" * 8))
    expect_error("bad_missing_key.npy", "it lacks 'fortran_order'")
    write("bad_shape_text.npy", npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1)}", b""))
    expect_error("bad_shape_text.npy", "the shape holds something other than non-negative integers")
    write("bad_npy_overflow.npy",
          npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}", b""))
    expect_error("bad_npy_overflow.npy", "the shape holds more than 2^63 elements")
    write("bad_npy_bytes_overflow.npy",
          npy_with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,)}", b""))
    expect_error("bad_npy_bytes_overflow.npy", "the array's size in bytes overflows 64 bits")
    # the legacy format starts with pickles of a magic number and a protocol version (the rest
    # names storages by memory address, so torch's own output would differ from run to run)
    write("bad_legacy.pt", pickle_of(p_int(0x1950A86A20F9469CFC6C)) + pickle_of(p_int(1001)))
    expect_error("bad_legacy.pt", "torch.save's legacy format is not supported")
    write("bad_empty.pt", b"")
    expect_error("bad_empty.pt", "empty file")
    write("bad_text.pt", b"hello, world\n")
    expect_error("bad_text.pt", "neither a torch .pt (zip), a .npy nor an ATB .bin file")


def bomb_zip(stem, pkl, stream, declared):
    """A torch 1.x archive whose storage entry is the deflate stream `stream`, declaring `declared` bytes."""
    blob, central = bytearray(), bytearray()
    entries = [(stem + "/data.pkl", pkl, 0, pkl, len(pkl)), (stem + "/data/0", stream, 8, b"", declared),
               (stem + "/version", b"3\n", 0, b"3\n", 2)]
    zip64 = declared >= 0xFFFFFFFF
    for name, stored, method, plain, usize in entries:
        nb = name.encode()
        crc = zlib.crc32(plain) & 0xFFFFFFFF
        offset = len(blob)
        blob += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0x21, crc, len(stored),
                            min(usize, 0xFFFFFFFF), len(nb), 0) + nb + stored
        big = zip64 and usize >= 0xFFFFFFFF
        cextra = struct.pack("<HHQ", 1, 8, usize) if big else b""
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, method, 0, 0x21, crc, len(stored),
                               0xFFFFFFFF if big else usize, len(nb), len(cextra), 0, 0, 0, 0, offset) + nb + cextra
    cd_off = len(blob)
    blob += central
    blob += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 3, 3, len(central), cd_off, 0)
    return bytes(blob)


def main():
    for name in os.listdir(HERE):
        if name.endswith((".pt", ".npy")):
            os.remove(out(name))
    torch_files()
    crafted_files()
    npy_files()
    bad_files()
    with open(out("expected.txt"), "w") as f:
        f.write("# written by make_corpus.py; see its docstring for the format\n")
        f.write("\n".join(LINES) + "\n")
    total = sum(os.path.getsize(out(n)) for n in os.listdir(HERE))
    print("%d files, %d bytes" % (len(LINES), total), file=sys.stderr)


if __name__ == "__main__":
    main()
