"""A second implementation of msprobe merge_result's table (../shared/reference/msprobe-xlsx.md),
from per-rank compare_result CSV files, for the tests of probe-merge: prints the merged table as
NDJSON in probe-merge's form ({"index", "name", "ranks"}), to be compared with probe-merge --format json.

usage: oracle.py API[,API...] INDEX[,INDEX...]|- FILE..."""
import csv
import json
import re
import sys

SUMMARY = ["Max diff", "Min diff", "Mean diff", "L2norm diff", "MaxRelativeErr", "MinRelativeErr",
           "MeanRelativeErr", "NormRelativeErr", "Requires_grad Consistent"]
TENSOR = ["Cosine", "EucDist", "MaxAbsErr", "MaxRelativeErr", "One Thousandth Err Ratio",
          "Five Thousandths Err Ratio", "Requires_grad Consistent"]


def numeric(s):
    try:
        float(s)
        return s != ""
    except ValueError:
        return False


def column(rows, name):
    """read_excel's typing of a column of text: all numeric -> numbers (float if any is); True/False -> bool."""
    vals = [r[name] for r in rows]
    if vals and all(numeric(v) for v in vals):
        if all(re.fullmatch(r"[+-]?\d+", v) for v in vals):
            return {i: int(v) for i, v in enumerate(vals)}
        return {i: float(v) for i, v in enumerate(vals)}
    if vals and all(v in ("True", "False", "TRUE", "FALSE", "true", "false") for v in vals):
        return {i: v.lower() == "true" for i, v in enumerate(vals)}
    return dict(enumerate(vals))


def main():
    apis = sys.argv[1].split(",")
    files = sys.argv[3:]
    tables = {}
    indexes = None
    for f in files:
        rank = int(re.search(r"compare_result_rank(\d+)", f).group(1))
        rows = list(csv.DictReader(open(f, newline="")))
        mode_indexes = TENSOR if "Cosine" in rows[0] else SUMMARY
        if indexes is None:
            indexes = mode_indexes if sys.argv[2] == "-" else sys.argv[2].split(",")
        typed = {c: column(rows, c) for c in indexes + ["NPU max", "Bench max"]}
        names = []
        for api in apis:
            for i, r in enumerate(rows):
                if api + "." in r["NPU Name"] and r["NPU Name"] not in names:
                    names.append(r["NPU Name"])
        first = {}
        for i, r in enumerate(rows):
            first.setdefault(r["NPU Name"], i)
        per = {}
        for idx in indexes:
            d = {}
            for n in names:
                i = first[n]
                v = typed[idx][i]
                if v in ("N/A", "unsupported", "Nan"):
                    v = "NPU:%s  Bench:%s" % (typed["NPU max"][i], typed["Bench max"][i])
                d[n] = v
            per[idx] = d
        tables[rank] = per
    ranks = sorted(tables)
    for idx in indexes:
        order = []
        for r in ranks:
            for n in tables[r][idx]:
                if n not in order:
                    order.append(n)
        for n in order:
            print(json.dumps({"index": idx, "name": n,
                              "ranks": {str(r): tables[r][idx].get(n) for r in ranks}}, separators=(",", ":")))


main()
