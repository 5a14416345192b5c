"""An independent reading of msprobe dumps, field by field, for probe-records(5).

usage: oracle.py RECORDS DUMP.json [rank step [exec_mode]]

Walks DUMP.json with Python's json module the way reference/msprobe-compare.md
sections 1.2-1.6 describe msprobe's compare reading it, builds the record each
leaf should have, and compares it with the records probe-flatten wrote (RECORDS,
NDJSON).  Prints one line per field: how many records carry it and whether all
agree; the first disagreement is shown.  Number texts are kept as written.
"""
import json
import sys

IO = [("input_args", ".input", "input"), ("input_kwargs", ".input", "input"),
      ("input", ".input", "input"), ("output", ".output", "output"),
      ("parameters", ".parameters", "parameters")]
ORDER = {"input": 0, "debug": 0, "parameters": 1, "output": 2, "parameters_grad": 3}
KNOWN = {"type": "type", "dtype": "dtype", "shape": "shape", "Max": "max", "Min": "min",
         "Mean": "mean", "Norm": "norm", "requires_grad": "requires_grad", "md5": "md5",
         "value": "value", "data_name": "data_name"}


class Num(str):
    """A number as its text."""


def const(s):
    return {"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}[s]


def load(text):
    return json.loads(text, parse_float=Num, parse_int=Num, parse_constant=const,
                      object_pairs_hook=list)


def obj(pairs):
    return dict(pairs)


def plain(v):
    """pairs lists back to dicts, recursively (for comparing values)."""
    if isinstance(v, list) and v and all(isinstance(p, tuple) for p in v):
        return {k: plain(x) for k, x in v}
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v


def is_obj(v):
    return isinstance(v, list) and all(isinstance(p, tuple) for p in v) and len(v) > 0


def walk(v, name, state, rows):
    if v is None:
        rows.append((name, state, None, None))
    elif isinstance(v, list) and not is_obj(v):
        for i, x in enumerate(v):
            sub = name if "parameters_grad" in name.split(".") else f"{name}.{i}"
            walk(x, sub, state, rows)
    elif is_obj(v):
        d = obj(v)
        if d.get("class_type") == "torch.distributed.P2POp":
            t = d.get("tensor")
            rows.append((name, state, t if is_obj(t) else None, v))
        elif isinstance(d.get("type"), str):
            rows.append((name, state, v, None))
        else:
            for k, x in v:
                walk(x, f"{name}.{k}", state, rows)


def entry_rows(entry, body):
    parts = entry.split(".")
    rows = []
    if parts[-1] == "debug":
        walk(body, entry, "debug", rows)
    elif "parameters_grad" in parts[-2:]:
        walk(body, entry, "parameters_grad", rows)
    else:
        d = obj(body)
        for key, suffix, state in IO:
            if key in d:
                walk(d[key], entry + suffix, state, rows)
    rows.sort(key=lambda r: ORDER[r[1]])  # stable
    return rows


def main():
    recs = [load(l) for l in open(sys.argv[1])]
    recs = [obj(r) for r in recs]
    dump_path = sys.argv[2]
    rank = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3] != "null" else None
    step = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[4] != "null" else None
    # the folder of a graph/pynative root the dump is in, as probe-records(5) says
    exec_mode = sys.argv[5] if len(sys.argv) > 5 else None
    top = obj(load(open(dump_path).read()))
    want = []
    backward_seen = {}
    for entry, body in top["data"]:
        parts = entry.split(".")
        last, second = parts[-1], parts[-2] if len(parts) > 1 else ""
        base, direction = "", None
        if "parameters_grad" in (last, second):
            base, direction = ".".join(parts[:-1]) if len(parts) > 1 else "", "pg"
        elif "forward" in (last, second) or "backward" in (last, second):
            direction = "forward" if "forward" in (last, second) else "backward"
            base = ".".join(parts[:-2]) if len(parts) > 2 else ""
        order = 0
        if direction == "backward" and base:
            order = backward_seen.get(base, 0)
            backward_seen[base] = order + 1
        for name, state, leaf, p2p in entry_rows(entry, body):
            r = {"rank": rank, "step": step, "entry": entry, "state": state, "task": top["task"],
                 "dump": dump_path}
            if exec_mode:
                r["exec_mode"] = exec_mode
            d = obj(leaf) if leaf else {}
            dn = d.get("data_name")
            r["name"] = dn.rsplit(".", 1)[0] if dn else name
            key = r["name"]
            if direction == "backward" and base and (second.isdigit() or last.isdigit()):
                cd = f"{order}.{last}" if second.isdigit() else f"{second}.{order}"
                key = f"{base}.{cd}" + r["name"].replace(entry, "")
            r["key"] = key
            r["type"] = d.get("type")
            attrs = []
            for k, v in (leaf or []):
                if k in KNOWN:
                    if k != "type" and not (k == "data_name" and not v):
                        r[KNOWN[k]] = plain(v)
                else:
                    attrs.append((k, plain(v)))
            if attrs:
                r["attrs"] = dict(attrs)
            if dn:
                r["data"] = dump_path.rsplit("/", 1)[0] + "/dump_tensor_data/" + dn if "/" in dump_path \
                    else "dump_tensor_data/" + dn
            if p2p:
                r["p2p"] = {k: plain(v) for k, v in p2p if k != "tensor"}
            if not base:
                r["msprobe_skips"] = True
            want.append(r)
    for i, r in enumerate(want):
        r["seq"] = Num(str(i))
    if len(want) != len(recs):
        print(f"record count: {len(recs)} written, {len(want)} expected")
    fields = ["rank", "step", "exec_mode", "seq", "entry", "name", "key", "state", "type", "dtype", "shape", "max",
              "min", "mean", "norm", "requires_grad", "md5", "value", "attrs", "p2p", "data_name", "data",
              "task", "dump", "msprobe_skips"]
    for f in fields:
        carried = sum(1 for r in want if f in r)
        bad = [(i, recs[i].get(f), w.get(f)) for i, w in enumerate(want)
               if i < len(recs) and plain(recs[i].get(f)) != w.get(f)
               and not (f in ("rank", "step") and recs[i].get(f) is None and w.get(f) is None)]
        rank_num = lambda x: x
        if f in ("rank", "step"):
            bad = [(i, a, b) for i, a, b in bad if not (a is not None and b is not None and int(a) == b)]
        extra = [i for i, r in enumerate(recs) if f in r and f not in want[i]] if len(recs) == len(want) else []
        status = "agree" if not bad and not extra else "DISAGREE"
        line = f"{f}: {carried} records, {status}"
        if bad:
            i, got, exp = bad[0]
            line += f" (first at seq {i}: wrote {json.dumps(got)}, expected {json.dumps(exp)})"
        if extra:
            line += f" (seq {extra[0]} carries it but should not)"
        print(line)


main()
