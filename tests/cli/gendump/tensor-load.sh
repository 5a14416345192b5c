# torch 1.13 and numpy 1.24 (Debian's /usr/bin/python3) load every file the generator writes, and agree
# with dump.json.  Where /usr/bin/python3 cannot import them (python3-torch is not in make deps: it is
# large) the test is skipped, saying so (exit 77), not passed.
# Float8 files are decoded here (torch 1.13 has no float8); the truncated zoo file is "unreadable".
py=/usr/bin/python3
if ! $py -c 'import torch, numpy' 2> /dev/null; then
	echo "Debian's python3-torch and python3-numpy are not installed (apt-get install python3-torch)"
	exit 77
fi
probe-gendump --mode tensor --zoo pt1
probe-gendump --mode tensor --zoo --pt-layout torch2 --dtype float16 --ranks 2 pt2
probe-gendump --mode tensor --zoo --format npy --dtype bfloat16 npy
$py - pt1 pt2 npy 2>&1 <<'PY'
import glob, io, json, os, sys, warnings, zipfile
import numpy as np, torch
warnings.filterwarnings("ignore")

def float8(raw, kind):
    """torch 1.13 has no float8 type: decode the storage bytes."""
    out = []
    for v in raw:
        s = -1.0 if v & 0x80 else 1.0
        if kind == "e4m3fn":
            e, m = (v >> 3) & 15, v & 7
            out.append(float("nan") if (e, m) == (15, 7) else s * (m / 8 * 2.0**-6 if e == 0 else (1 + m / 8) * 2.0**(e - 7)))
        else:
            e, m = (v >> 2) & 31, v & 3
            out.append(s * float("inf") if (e, m) == (31, 0) else float("nan") if e == 31 else
                       s * (m / 4 * 2.0**-14 if e == 0 else (1 + m / 4) * 2.0**(e - 15)))
    return np.array(out, dtype=np.float32)

def load(path, leaf):
    """(numpy array, the torch tensor or None, description of how it was stored)"""
    if path.endswith(".npy"):
        a = np.load(path)
        order = "F" if a.ndim > 1 and a.flags.f_contiguous and not a.flags.c_contiguous else "C"
        return a, None, "%s %s" % (a.dtype.str, order)
    if "float8" in leaf["dtype"]:
        z = zipfile.ZipFile(path)
        stem = z.namelist()[0].split("/")[0]
        return float8(z.read(stem + "/data/0"), leaf["dtype"].split("_")[1]).reshape(leaf["shape"]), None, "float8 (decoded)"
    t = torch.load(path)
    how = "%s stride %s offset %d" % (str(t.dtype), list(t.stride()), t.storage_offset())
    return (t.float() if t.dtype == torch.bfloat16 else t).numpy(), t, how

def leaves(node, path=()):
    if isinstance(node, dict):
        if node.get("type") == "torch.Tensor":
            yield node
            return
        for v in node.values():
            yield from leaves(v, path)
    elif isinstance(node, list):
        for v in node:
            yield from leaves(v, path)

def stat_agrees(json_value, value):
    if json_value is None:
        return True
    if isinstance(json_value, bool):
        return json_value == bool(value)
    return np.isnan(value) and np.isnan(json_value) or float(value) == float(json_value)

def check(run):
    counts = dict(files=0, loaded=0, shape=0, maxmin=0, meannorm=0, meannorm_close=0, meannorm_torch=0,
                  unreadable=0)
    zoo = []
    for d in sorted(glob.glob(run + "/*/step*/rank*")):
        dump = json.load(open(d + "/dump.json"))
        names = sorted(os.listdir(d + "/dump_tensor_data"))
        counts["files"] += len(names)
        for entry, body in dump["data"].items():
            for leaf in leaves(body):
                name = leaf["data_name"]
                path = d + "/dump_tensor_data/" + name
                is_zoo = entry.startswith("Tensor.zoo_") and ".output." in name
                label = "%s %s" % (d.split("/")[1], entry[len("Tensor.zoo_"):-len(".0.forward")])
                if name == "-1" or not os.path.exists(path):
                    if is_zoo:
                        zoo.append("%s: %s" % (label, "data_name -1" if name == "-1" else "missing"))
                    continue
                try:
                    a, t, how = load(path, leaf)
                except Exception:
                    counts["unreadable"] += 1
                    if is_zoo:
                        zoo.append("%s: unreadable" % label)
                    continue
                counts["loaded"] += 1
                counts["shape"] += list(a.shape) == leaf["shape"]
                v = np.abs(a) if a.dtype.kind == "c" else a.astype(np.float64)
                if a.size and a.dtype.kind != "c":
                    mx = v.max() if not np.isnan(v).any() else np.nan
                    mn = v.min() if not np.isnan(v).any() else np.nan
                    counts["maxmin"] += stat_agrees(leaf["Max"], mx) and stat_agrees(leaf["Min"], mn)
                else:
                    counts["maxmin"] += 1
                if leaf["Mean"] is not None and a.ndim and a.dtype.kind == "f":
                    mean, norm = v.mean(), np.sqrt((v * v).sum())
                    exact = stat_agrees(leaf["Mean"], mean) and stat_agrees(leaf["Norm"], norm)
                    close = np.allclose([leaf["Mean"], leaf["Norm"]], [mean, norm], rtol=1e-2, atol=1e-6, equal_nan=True)
                    counts["meannorm"] += 1
                    counts["meannorm_close"] += bool(close)
                    if t is not None:  # what torch itself says of the saved tensor
                        counts["meannorm_torch"] += stat_agrees(leaf["Mean"], torch.mean(t).item()) and \
                            stat_agrees(leaf["Norm"], torch.norm(t).item())
                if is_zoo:
                    flat = v.ravel()
                    zoo.append("%s: %s %s %s first %s" % (label, leaf["dtype"], list(a.shape), how,
                               [float("%.4g" % x) for x in flat[:4]]))
    print("%s: %d files, %d loaded, %d unreadable; shape as dump.json: %d, Max/Min as dump.json: %d; "
          "of %d Mean/Norm pairs, %d within 1%% of numpy's, %d equal to torch.mean/torch.norm of the .pt" % (
          run, counts["files"], counts["loaded"], counts["unreadable"], counts["shape"], counts["maxmin"],
          counts["meannorm"], counts["meannorm_close"], counts["meannorm_torch"]))
    return zoo

for run in sys.argv[1:]:
    zoo = check(run)
    if run == "pt1":
        print("\n".join(zoo))
PY
