# The dataset and weights findings' numbers, against python3 reading the same zip members:
# for each statistic b of bench and c of cmp, abs_diff = |b - c| and rel_diff = |b - c| / |b|
# (unsigned; msprobe's is signed by b), and the statistics objects as the members hold them.
# Prints the number of findings checked and every mismatch; then one finding in full.
probe-gendump --framework config-check --fault dataset,weight,lr p || exit
probe-config p/bench.zip p/cmp.zip > p.rec; echo "status $?"
python3 - p.rec <<'PY'
import json, sys, zipfile
recs = [json.loads(l) for l in open(sys.argv[1])]
bench, cmp = zipfile.ZipFile("p/bench.zip"), zipfile.ZipFile("p/cmp.zip")
checked = bad = 0
for r in recs:
    if r.get("check") not in ("dataset", "weights"):
        continue
    if r["check"] == "dataset":
        m = "dataset/step%d/rank%d/dataset.json" % (r["step"], r["rank"])
        b = json.loads(bench.read(m))["args"]["0"]; c = json.loads(cmp.read(m))["args"]["0"]
    else:
        m = "weights/step%d/rank%d/weight.json" % (r["step"], r["rank"])
        b = json.loads(bench.read(m))[r["item"]]; c = json.loads(cmp.read(m))[r["item"]]
    for k in ("max", "min", "mean", "norm"):
        want_abs = abs(b[k] - c[k])
        want_rel = want_abs / abs(b[k]) if b[k] != 0 else (0.0 if c[k] == 0 else None)
        if r["bench"] != b or r["cmp"] != c or r["abs_diff"][k] != want_abs or r["rel_diff"][k] != want_rel:
            bad += 1
            print("mismatch", r["check"], r["step"], r["item"], k, r["abs_diff"][k], want_abs, r["rel_diff"][k], want_rel)
    checked += 1
print("checked", checked, "findings, mismatches", bad)
PY
jq -c 'select(.check == "weights" and .step == 0)' p.rec
