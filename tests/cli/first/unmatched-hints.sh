# The text report explains unmatched and golden-only leaves by class, where a
# known cause explains them (issue 11's classes): module entries the golden
# dump has none of (dumped at another level), an NPU-only API, names that
# differ only by the call index (--fuzzy pairs them), entries msprobe's
# compare skips. The dumps are edited with python: golden without its module
# entries, one API renumbered; target with an NPU-only API and an entry that
# has no forward/backward in its name.
probe-gendump d > /dev/null
python3 - d/target/step0/rank0/dump.json d/golden/step0/rank0/dump.json <<'PY'
import json, sys
t, g = sys.argv[1:]
dt, dg = json.load(open(t)), json.load(open(g))
dt["data"]["NPU.npu_fusion_attention.0.forward"] = dt["data"]["Functional.relu.0.forward"]
dt["data"]["Tensor.__setitem__.0"] = dt["data"]["Functional.relu.0.forward"]
for k in [k for k in dg["data"] if k.startswith("Module.")]:
    del dg["data"][k]
dg["data"]["Functional.relu.7.forward"] = dg["data"].pop("Functional.relu.1.forward")
json.dump(dt, open(t, "w")); json.dump(dg, open(g, "w"))
PY
probe-flatten d/target | probe-match d/golden | probe-metric | probe-first --format text --partial > report.txt
echo "status $?"
grep -e '^  note' -e 'incomplete' report.txt
