# The pipeline of the README on the generated dumps: the first divergence with
# the file, line and function of the model code that called it.  And every
# record's stack is the one stack.json lists for its entry (backward and
# parameters_grad entries: their forward call's), read here with python.
probe-gendump --fault fc2-weight d > /dev/null
probe-flatten d/target | probe-match d/golden | probe-first | probe-stack > first.ndjson; echo "status $?"
jq -c 'select(.first_divergence) | {entry: .t.entry, where: .t.where, modules: .t.modules}' first.ndjson
probe-flatten d/target | probe-match d/golden | probe-first | probe-stack --format text
probe-flatten d/target | probe-stack > leaves.ndjson
python3 - d/target/step0/rank0/stack.json leaves.ndjson <<'PY'
import json, sys
raw = json.load(open(sys.argv[1]))
frames = {}
for names, stack in raw.values():
    for n in names:
        frames[n] = stack
def forward(e):
    p = e.split(".")
    if p[-1] == "backward":
        return ".".join(p[:-1] + ["forward"])
    if p[-2] in ("backward", "parameters_grad"):
        return ".".join(p[:-2] + ["forward", p[-1]])
    return e
n = bad = 0
for line in open(sys.argv[2]):
    r = json.loads(line)
    want = frames.get(r["entry"]) or frames.get(forward(r["entry"]))
    n += 1
    if r.get("stack") != want:
        bad += 1
        print("  differs:", r["name"])
    if r.get("stack_from") and frames.get(r["entry"]):
        print("  stack_from but has its own:", r["name"])
print(f"{n} leaves, {bad} with a stack other than stack.json's")
PY
# the user's frames only, and the innermost two
probe-flatten d/target | head -1 | probe-stack -u | jq -c '.stack | length'
probe-flatten d/target | head -1 | probe-stack --innermost 2 | jq -c '.stack | length'
probe-flatten d/target | head -1 | probe-stack --framework /home/user/mlp/ | jq -c '.where'
# the golden side of pairs
probe-flatten d/target | probe-match d/golden | head -1 | probe-stack --golden | jq -c '{t: (.t.stack != null), g: (.g.stack != null)}'
