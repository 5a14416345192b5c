#!/usr/bin/env python3
"""atbcheck.py: an independent check of ATB dumps (probe-gendump --framework atb).

Pure Python (struct, json; no numpy), written from msprobe-atb.md and the
reference dumps, not from the generator: it reads what was written and says
what it found, one line per finding; any violation is printed as "FAIL: ..."
and makes the exit status 1.

  atbcheck.py files OUT...         every exec folder of both sides: the csv
                                   header and rows, the row order (an op's
                                   inputs, its children's rows, its outputs),
                                   each row's file (header lines, dtype, dims
                                   against Shape, payload length, aliases
                                   naming an earlier full file), no stray
                                   files, op_param.json and info/ files
  atbcheck.py stats S T            S and T written with the same options but
                                   --mode (statistics, tensor): the same rows,
                                   and S's Max/Min/Mean/Norm those recomputed
                                   from T's payloads
  atbcheck.py filter F0 F1         --filter-level 0 and 1: every row of F1
                                   holds, through its alias, F0's bytes
  atbcheck.py fault OUT NAME|none  per exec count: the first row whose tensor
                                   (statistics in statistics mode) differs
                                   between golden and target is NAME (none:
                                   no row differs), every earlier file
                                   byte-identical
  atbcheck.py fixture OUT FIX      OUT's structure against a reference dump
                                   (../shared/fixtures/atb/dumps/<case>):
                                   files, csv columns but the values, Tensor
                                   Path tails, JSON files byte for byte, and
                                   the data names of msprobe's compare result
                                   when FIX's expected CSV is given (--names)
"""
import json
import math
import os
import re
import struct
import sys

HEADER = ("Device and PID,Execution Count,Op Name,Op Type,Op Id,Input/Output,Index,Dtype,"
          "Format,Shape,Max,Min,Mean,Norm,Tensor Path")
# Dtype text -> (ATB dtype code, element size, struct format or None)
DTYPES = {"float": (0, 4, "f"), "float16": (1, 2, "e"), "int8": (2, 1, "b"), "int32": (3, 4, "i"),
          "int64": (9, 8, "q"), "bool": (12, 1, None), "bf16": (27, 2, None)}
CODE_NAME = {v[0]: k for k, v in DTYPES.items()}
failures = 0


def fail(msg):
    global failures
    failures += 1
    if failures <= 20:
        print("FAIL: " + msg)


# ---- reading ---------------------------------------------------------------

def sides(out):
    """(side, device_pid folder path, device_pid) of both sides of a dump root."""
    res = []
    for side in ("golden", "target"):
        data = os.path.join(out, side, "atb_dump_data", "data")
        if not os.path.isdir(data):
            fail("%s: no atb_dump_data/data" % os.path.join(out, side))
            continue
        dps = sorted(os.listdir(data))
        if len(dps) != 1 or not re.fullmatch(r"\d+_\d+", dps[0]):
            fail("%s: expected one <device>_<pid> folder, found %s" % (data, dps))
            continue
        res.append((side, os.path.join(data, dps[0]), dps[0]))
    return res


def exec_dirs(dp_dir):
    names = sorted(os.listdir(dp_dir), key=lambda s: (not s.isdigit(), int(s) if s.isdigit() else 0, s))
    for n in names:
        if not n.isdigit():
            fail("%s: %s is not an execution count" % (dp_dir, n))
    return [(int(n), os.path.join(dp_dir, n)) for n in names if n.isdigit()]


def read_csv(path):
    with open(path, encoding="ascii", newline="") as f:
        text = f.read()
    if not text.endswith("\n"):
        fail("%s: does not end with a newline" % path)
    lines = text.split("\n")[:-1]
    if not lines or lines[0] != HEADER:
        fail("%s: header %r" % (path, lines[0] if lines else ""))
        return []
    rows = []
    for k, line in enumerate(lines[1:], 2):
        f = line.split(",")
        if len(f) != 15:
            fail("%s:%d: %d fields" % (path, k, len(f)))
            continue
        rows.append(dict(zip(["dp", "exec", "name", "type", "id", "io", "index", "dtype", "format", "shape",
                              "max", "min", "mean", "norm", "path"], f), line=k, text=line))
    return rows


def data_name(r):
    names, ids = r["name"].split("/"), r["id"].split("_")
    return "/".join("%s_%s" % (i, n) for i, n in zip(ids, names)) + "/%s.%s" % (r["io"], r["index"])


def msprobe_path(exec_dir, tensor_path):
    """msprobe's rule: the text after the last atb_dump_data, split on '/', parts [4:] under the exec folder."""
    k = tensor_path.rfind("atb_dump_data")
    if k < 0:
        return None
    parts = tensor_path[k + len("atb_dump_data"):].split("/")
    if len(parts) < 5:
        return None
    return os.path.join(exec_dir, *parts[4:])


def read_bin(path):
    """(header dict, header line list, payload bytes) of a .bin file."""
    with open(path, "rb") as f:
        b = f.read()
    end = b.find(b"$End=1\n")
    if end < 0:
        raise ValueError("no $End=1 line")
    head = b[:end + 7].decode("ascii")
    lines = head.split("\n")[:-1]
    h = {}
    for line in lines:
        k, sep, v = line.partition("=")
        if not sep:
            raise ValueError("header line %r has no '='" % line)
        h[k] = v
    return h, lines, b[end + 7:]


def values(dtype, payload):
    code, size, fmt = DTYPES[dtype]
    n = len(payload) // size
    if dtype == "bf16":
        return [struct.unpack("<f", struct.pack("<I", h << 16))[0] for h in struct.unpack("<%dH" % n, payload)]
    if dtype == "bool":
        return [1 if x else 0 for x in payload]
    return list(struct.unpack("<%d%s" % (n, fmt), payload))


def stats_text(dtype, vals):
    """statistic.csv's Max, Min, Mean, Norm of the values, by msprobe-atb.md's rules."""
    if dtype == "bool" or not vals:
        return ["N/A"] * 4
    mx, mn, s, sq = max(vals), min(vals), 0.0, 0.0
    for x in vals:
        s += float(x)
        sq += float(x) * float(x)
    if dtype in ("int64", "int32", "int8"):
        head = ["%d" % mx, "%d" % mn]
    else:
        head = ["%f" % mx, "%f" % mn]
    return head + ["%f" % (s / len(vals)), "%f" % math.sqrt(sq)]


class Exec:
    """One exec folder: its rows, and for each row the file holding its data (aliases followed)."""

    def __init__(self, side, dp, n, path):
        self.side, self.dp, self.n, self.path = side, dp, n, path
        self.rows = read_csv(os.path.join(path, "statistic.csv"))
        self.tensor = bool(self.rows) and self.rows[0]["path"] != "N/A"

    def file_of(self, r):
        return msprobe_path(self.path, r["path"])

    def payload(self, r):
        """(dtype code, dims, payload) of the row's tensor, through its alias."""
        f = self.file_of(r)
        h, _, p = read_bin(f)
        if "data" in h:
            h, _, p = read_bin(msprobe_path(self.path, h["data"]))
        return h.get("dtype"), h.get("dims"), p


def execs(out):
    res = []
    for side, dp_dir, dp in sides(out):
        for n, path in exec_dirs(dp_dir):
            res.append(Exec(side, dp, n, path))
    return res


# ---- files -----------------------------------------------------------------

def check_order(e):
    """The rows as nested blocks: an op's inputs, its children's blocks (ids 0, 1, ...), its outputs."""
    rows = [(tuple(r["id"].split("_")), r["io"], r["index"], r["line"], r["name"]) for r in e.rows]
    pos = 0
    where = "%s %s/%d" % (e.side, e.dp, e.n)

    def block(p):
        nonlocal pos
        start = pos
        for io in ("input", None, "output"):
            if io is None:
                k = 0
                while pos < len(rows) and len(rows[pos][0]) == len(p) + 1 and rows[pos][0][:len(p)] == p:
                    if rows[pos][0][-1] != str(k):
                        fail("%s: line %d: child %s of %s where %d comes next" % (
                            where, rows[pos][3], "_".join(rows[pos][0]), "_".join(p), k))
                    block(rows[pos][0])
                    k += 1
                continue
            i = 0
            while pos < len(rows) and rows[pos][0] == p and rows[pos][1] == io:
                if not re.fullmatch(r"%d(_[A-Za-z]\w*)?" % i, rows[pos][2]):
                    fail("%s: line %d: %s index %s where %d comes next" % (where, rows[pos][3], io, rows[pos][2], i))
                i += 1
                pos += 1
        if pos == start:
            fail("%s: op %s has no rows" % (where, "_".join(p)))
            pos += 1

    k = 0
    while pos < len(rows):
        p = rows[pos][0]
        if len(p) != 1 or p[0] != str(k):
            fail("%s: line %d: op %s where layer %d comes next" % (where, rows[pos][3], "_".join(p), k))
            return k
        block(p)
        k += 1
    return k


def expected_rel(r):
    names, ids = r["name"].split("/"), r["id"].split("_")
    folder = "/".join("%s_%s" % (i, n) for i, n in zip(ids, names))
    leaf = "before/intensor" if r["io"] == "input" else "after/outtensor"
    return "%s/%s%s.bin" % (folder, leaf, r["index"])


def check_bin(e, r, seen_full):
    """The row's .bin file; returns 'alias' or 'full'."""
    f = e.file_of(r)
    where = "%s %s/%d line %d" % (e.side, e.dp, e.n, r["line"])
    if f is None or not os.path.isfile(r["path"]) or not os.path.isfile(f) or not os.path.samefile(f, r["path"]):
        fail("%s: Tensor Path %s is not a file (or msprobe's rule finds another)" % (where, r["path"]))
        return None
    if os.path.relpath(f, e.path) != expected_rel(r):
        fail("%s: file %s where %s is expected" % (where, os.path.relpath(f, e.path), expected_rel(r)))
    try:
        h, lines, payload = read_bin(f)
    except (ValueError, UnicodeDecodeError) as x:
        fail("%s: %s: %s" % (where, f, x))
        return None
    code, size, _ = DTYPES[r["dtype"]]
    dims = [int(x) for x in r["shape"].split("x")]
    nbytes = size * math.prod(dims)
    keys = [line.partition("=")[0] for line in lines]
    alias = "data" in h
    want = ["$Version", "$Object.Count", "$Object.Length", "format", "dtype", "dims"] + (["data"] if alias else []) + \
           ["$Object.data", "$End"]
    if keys != want:
        fail("%s: header lines %s" % (where, keys))
    if h.get("$Version") != "1.0" or h.get("$Object.Count") != "1" or h.get("format") != "2" or h.get("$End") != "1":
        fail("%s: header %s" % (where, h))
    if h.get("dtype") != str(code):
        fail("%s: dtype=%s for %s" % (where, h.get("dtype"), r["dtype"]))
    if h.get("dims") != ",".join(map(str, dims)):
        fail("%s: dims=%s for Shape %s" % (where, h.get("dims"), r["shape"]))
    if h.get("$Object.Length") != str(nbytes) or h.get("$Object.data") != "0,%d" % nbytes:
        fail("%s: $Object.Length=%s, $Object.data=%s for %d bytes" % (
            where, h.get("$Object.Length"), h.get("$Object.data"), nbytes))
    if len(payload) != (0 if alias else nbytes):
        fail("%s: %d bytes of payload, %s" % (where, len(payload), "an alias has none" if alias else nbytes))
    if not alias:
        seen_full[os.path.realpath(f)] = (h.get("dtype"), h.get("dims"))
        return "full"
    t = msprobe_path(e.path, h["data"])
    if h["data"].startswith("/") or not h["data"].startswith("atb_dump_data/data/%s/%d/" % (e.dp, e.n)):
        fail("%s: data=%s is not below atb_dump_data/data/%s/%d/" % (where, h["data"], e.dp, e.n))
    if t is None or not os.path.isfile(t):
        fail("%s: data=%s names no file" % (where, h["data"]))
    elif os.path.realpath(t) not in seen_full:
        fail("%s: data=%s is not a full file of an earlier row" % (where, h["data"]))
    elif seen_full[os.path.realpath(t)] != (h.get("dtype"), h.get("dims")):
        fail("%s: data=%s holds another dtype or shape" % (where, h["data"]))
    return "alias"


def check_files_of(e, info_layers):
    where = "%s %s/%d" % (e.side, e.dp, e.n)
    counts = {"full": 0, "alias": 0}
    seen_full, names = {}, set()
    for r in e.rows:
        w = "%s line %d" % (where, r["line"])
        if r["dp"] != e.dp or r["exec"] != str(e.n):
            fail("%s: Device and PID %s, Execution Count %s" % (w, r["dp"], r["exec"]))
        if len(r["name"].split("/")) != len(r["id"].split("_")) or r["type"] != r["name"].split("/")[-1]:
            fail("%s: Op Name %s, Op Type %s, Op Id %s" % (w, r["name"], r["type"], r["id"]))
        if r["io"] not in ("input", "output") or r["dtype"] not in DTYPES or r["format"] != "nd" or \
                not re.fullmatch(r"\d+(x\d+)*", r["shape"]):
            fail("%s: %s" % (w, r["text"]))
            continue
        if data_name(r) in names:
            fail("%s: %s twice" % (w, data_name(r)))
        names.add(data_name(r))
        stats = [r["max"], r["min"], r["mean"], r["norm"]]
        if e.tensor:
            if stats != ["N/A"] * 4:
                fail("%s: task tensor with statistics %s" % (w, stats))
            kind = check_bin(e, r, seen_full)
            if kind:
                counts[kind] += 1
        else:
            if r["path"] != "N/A":
                fail("%s: task statistics with Tensor Path %s" % (w, r["path"]))
            if r["dtype"] == "bool" and stats != ["N/A"] * 4:
                fail("%s: bool statistics %s" % (w, stats))
            num = r"-?\d+\.\d{6}"
            intish = r["dtype"] in ("int64", "int32", "int8")
            if r["dtype"] != "bool" and not all(re.fullmatch(r"-?\d+" if intish and k < 2 else num, s)
                                                for k, s in enumerate(stats)):
                fail("%s: statistics %s are not %%f (integers' Max, Min: integers)" % (w, stats))
    # no file that no row names; op_param.json in every layer and operation folder
    named = {os.path.realpath(e.file_of(r)) for r in e.rows if e.tensor and e.file_of(r)}
    nparams, folders = 0, set()
    for r in e.rows:
        parts = expected_rel(r).split("/")[:-2]
        for k in range(1, len(parts) + 1):
            folders.add((k, "/".join(parts[:k])))
    for dirpath, _, files in os.walk(e.path):
        for fn in files:
            p = os.path.join(dirpath, fn)
            rel = os.path.relpath(p, e.path)
            if fn.endswith(".bin"):
                if os.path.realpath(p) not in named:
                    fail("%s: %s is named by no row" % (where, rel))
            elif fn == "op_param.json":
                nparams += 1
                try:
                    json.load(open(p))
                except ValueError as x:
                    fail("%s: %s: %s" % (where, rel, x))
            elif rel != "statistic.csv":
                fail("%s: stray file %s" % (where, rel))
    for depth, folder in sorted(folders):
        if depth <= 2 and not os.path.isfile(os.path.join(e.path, folder, "op_param.json")):
            fail("%s: %s has no op_param.json" % (where, folder))
        if depth == 3 and os.path.exists(os.path.join(e.path, folder, "op_param.json")):
            fail("%s: kernel folder %s has an op_param.json" % (where, folder))
    layers = check_order(e)
    layer_names = sorted({(int(r["id"]), r["name"]) for r in e.rows if "_" not in r["id"]})
    info_layers.setdefault(e.side, set()).update(layer_names)
    print("%s %s/%d: %d rows, %d layers, %s" % (
        e.side, e.dp, e.n, len(e.rows), layers,
        "tensor: %d full files, %d aliases" % (counts["full"], counts["alias"]) if e.tensor else
        "statistics: no .bin files, %d op_param.json" % nparams))


def check_info(out, side, dp, layers):
    base = os.path.join(out, side, "atb_dump_data", "info")
    want = {"%s_%d.json" % (n, i) for i, n in layers}
    got = set(os.listdir(os.path.join(base, "layer", dp))) if os.path.isdir(os.path.join(base, "layer", dp)) else set()
    if got != want:
        fail("%s info/layer/%s: %s, the layers are %s" % (side, dp, sorted(got), sorted(want)))
    for f in got:
        d = json.load(open(os.path.join(base, "layer", dp, f)))
        if d.get("opName") + ".json" != f or not d.get("nodes"):
            fail("%s info/layer/%s/%s: opName %s" % (side, dp, f, d.get("opName")))
    model = os.path.join(base, "model", dp, "DecoderModel_Prefill.json")
    try:
        m = json.load(open(model))
        names = [n["opName"] for n in m["nodes"]]
        if names != ["%s_%d" % (n, i) for i, n in sorted(layers)]:
            fail("%s: the model's nodes %s" % (model, names))
        print("%s info: %d layer files, the model's %d nodes" % (side, len(got), len(names)))
    except (OSError, ValueError, KeyError) as x:
        fail("%s: %s" % (model, x))


def cmd_files(outs):
    for out in outs:
        print("== %s" % out)
        layers = {}
        ex = execs(out)
        for e in ex:
            check_files_of(e, layers)
        for side, _, dp in sides(out):
            check_info(out, side, dp, layers.get(side, set()))
        g = [e for e in ex if e.side == "golden"]
        t = [e for e in ex if e.side == "target"]
        if [e.n for e in g] != [e.n for e in t] or [[data_name(r) for r in e.rows] for e in g] != \
                [[data_name(r) for r in e.rows] for e in t]:
            fail("%s: golden and target have other exec counts or rows" % out)


# ---- stats, filter, fault ----------------------------------------------------

def pairs(a, b):
    ea, eb = execs(a), execs(b)
    if [(e.side, e.dp, e.n) for e in ea] != [(e.side, e.dp, e.n) for e in eb]:
        fail("%s and %s: other sides or exec counts" % (a, b))
        return []
    return list(zip(ea, eb))


def cmd_stats(s_out, t_out):
    for es, et in pairs(s_out, t_out):
        if es.tensor or not et.tensor:
            fail("%s: want a statistics dump and a tensor dump" % es.path)
            continue
        n = 0
        for rs, rt in zip(es.rows, et.rows):
            if rs["text"].split(",")[:10] != rt["text"].split(",")[:10]:
                fail("%s line %d: other row than %s" % (es.path, rs["line"], rt["text"]))
                continue
            code, dims, payload = et.payload(rt)
            want = stats_text(rt["dtype"], values(rt["dtype"], payload))
            got = [rs["max"], rs["min"], rs["mean"], rs["norm"]]
            if got != want:
                fail("%s line %d %s: statistics %s, recomputed from %s: %s" % (
                    es.path, rs["line"], data_name(rs), got, rt["path"], want))
            n += 1
        if len(es.rows) != len(et.rows):
            fail("%s: %d rows, %s: %d" % (es.path, len(es.rows), et.path, len(et.rows)))
        print("%s %s/%d: %d rows' statistics equal those recomputed from the tensor files" % (es.side, es.dp, es.n, n))


def cmd_filter(f0, f1):
    for e0, e1 in pairs(f0, f1):
        same = aliases = 0
        for r0, r1 in zip(e0.rows, e1.rows):
            if data_name(r0) != data_name(r1):
                fail("%s line %d: %s against %s" % (e1.path, r1["line"], data_name(r1), data_name(r0)))
                continue
            if "data" in read_bin(e1.file_of(r1))[0]:
                aliases += 1
            if e0.payload(r0) != e1.payload(r1):
                fail("%s line %d %s: not the bytes of filter level 0" % (e1.path, r1["line"], data_name(r1)))
            else:
                same += 1
        print("%s %s/%d: %d rows hold the bytes of filter level 0, %d of them through an alias" % (
            e1.side, e1.dp, e1.n, same, aliases))


def raw_file(e, r):
    """The row's file as compared between the sides: its bytes, an alias's pid made neutral."""
    with open(e.file_of(r), "rb") as f:
        b = f.read()
    return b.replace(("atb_dump_data/data/%s/" % e.dp).encode(), b"atb_dump_data/data/<dp>/")


def cmd_fault(out, want):
    ex = execs(out)
    g = {e.n: e for e in ex if e.side == "golden"}
    t = {e.n: e for e in ex if e.side == "target"}
    for n in sorted(t):
        eg, et = g.get(n), t[n]
        if eg is None or [data_name(r) for r in eg.rows] != [data_name(r) for r in et.rows]:
            fail("exec %d: golden and target rows differ in their names" % n)
            continue
        first, ndiff = None, 0
        for k, (rg, rt) in enumerate(zip(eg.rows, et.rows)):
            if et.tensor:
                differs = eg.payload(rg) != et.payload(rt)
                if first is None and not differs and raw_file(eg, rg) != raw_file(et, rt):
                    fail("exec %d: %s: the same tensor in files that differ" % (n, data_name(rt)))
            else:
                differs = rg["text"].split(",")[1:] != rt["text"].split(",")[1:]
            if differs:
                ndiff += 1
                if first is None:
                    first = k
        name = data_name(et.rows[first]) if first is not None else "none"
        if name != want:
            fail("exec %d: the first differing row is %s, not %s" % (n, name, want))
        if first is None:
            print("exec %d: no row differs (%d rows)" % (n, len(et.rows)))
        else:
            print("exec %d: first differing %s (row %d of %d; the %d before it byte-identical), %d rows differ" % (
                n, name, first + 1, len(et.rows), first, ndiff))


# ---- fixture -----------------------------------------------------------------

def tree(root):
    res = []
    for dirpath, _, files in os.walk(root):
        for fn in files:
            res.append(os.path.relpath(os.path.join(dirpath, fn), root))
    return sorted(res)


def tail(p):
    k = p.rfind("atb_dump_data")
    return p if k < 0 else p[k:]


def cmd_fixture(out, fix, names_csv):
    for side in ("golden", "target"):
        ours, theirs = os.path.join(out, side, "atb_dump_data"), os.path.join(fix, side, "atb_dump_data")
        a, b = tree(ours), tree(theirs)
        if a != b:
            fail("%s: files differ from the fixture's: only ours %s, only theirs %s" % (
                side, sorted(set(a) - set(b))[:5], sorted(set(b) - set(a))[:5]))
        jsons = [f for f in b if f.endswith(".json")]
        same_json = [f for f in jsons if os.path.isfile(os.path.join(ours, f)) and
                     open(os.path.join(ours, f), "rb").read() == open(os.path.join(theirs, f), "rb").read()]
        for f in sorted(set(jsons) - set(same_json)):
            fail("%s: %s differs from the fixture's" % (side, f))
        rows = 0
        for f in [f for f in b if f.endswith("statistic.csv")]:
            ra, rb = read_csv(os.path.join(ours, f)), read_csv(os.path.join(theirs, f))
            for x, y in zip(ra, rb):
                xa, yb = x["text"].split(","), y["text"].split(",")
                na = [s == "N/A" for s in xa[10:14]] == [s == "N/A" for s in yb[10:14]]
                if xa[:10] != yb[:10] or tail(xa[14]) != tail(yb[14]) or not na:
                    fail("%s %s line %d: %s, the fixture's %s" % (side, f, x["line"], x["text"], y["text"]))
            if len(ra) != len(rb):
                fail("%s %s: %d rows, the fixture's %d" % (side, f, len(ra), len(rb)))
            rows += len(ra)
        print("%s: %d files as the fixture's, %d JSON files byte for byte, %d csv rows as the fixture's but for "
              "the values" % (side, len(a) if a == b else 0, len(same_json), rows))
    if names_csv:
        with open(names_csv, encoding="utf-8") as f:
            want = [line.split(",")[0] for line in f.read().split("\n")[1:] if line]
        e = [e for e in execs(out) if e.side == "target" and e.n == 0][0]
        got = [data_name(r) for r in e.rows]
        if got != want:
            fail("data names differ from msprobe's compare result: %s" % [
                (x, y) for x, y in zip(got, want) if x != y][:3])
        print("target exec 0: the %d data names of msprobe's compare result, in its order" % len(want))


def main(argv):
    if len(argv) >= 2 and argv[0] == "files":
        cmd_files(argv[1:])
    elif len(argv) == 3 and argv[0] == "stats":
        cmd_stats(argv[1], argv[2])
    elif len(argv) == 3 and argv[0] == "filter":
        cmd_filter(argv[1], argv[2])
    elif len(argv) == 3 and argv[0] == "fault":
        cmd_fault(argv[1], argv[2])
    elif len(argv) in (3, 5) and argv[0] == "fixture":
        cmd_fixture(argv[1], argv[2], argv[4] if len(argv) == 5 and argv[3] == "--names" else None)
    else:
        sys.stderr.write(__doc__)
        return 2
    if failures > 20:
        print("FAIL: %d failures in all, the first 20 shown" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
