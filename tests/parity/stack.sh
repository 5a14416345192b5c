# On msprobe's example dumps, the stack probe-stack attaches to every leaf is
# the one stack.json has for its entry (read here with python, both dumps),
# and the CSV made from records that carry their stacks has the NPU_Stack_Info
# column msprobe wrote, cell for cell.
set -u
n=0
E=$FIXTURES/msprobe-example
n=$((n + 1))
if [ ! -d "$E" ]; then
	echo "ok $n - msprobe-example: stacks # SKIP $FIXTURES is absent"
	n=$((n + 1))
	echo "ok $n - msprobe-example: NPU_Stack_Info # SKIP $FIXTURES is absent"
	exit 0
fi
tmp=$(mktemp -d)
probe-flatten "$E/step1" | probe-stack 2>/dev/null > "$tmp/leaves.ndjson"
res=$(python3 - "$E/step1/proc2016/stack.json" "$tmp/leaves.ndjson" <<'PY'
import json, sys
raw = json.load(open(sys.argv[1]))
frames = {}
for names, stack in raw.values():
    for name in names:
        frames[name] = stack
def forward(e):
    p = e.split(".")
    if p[-1] == "backward":
        return ".".join(p[:-1] + ["forward"])
    if len(p) > 1 and p[-2] in ("backward", "parameters_grad"):
        return ".".join(p[:-2] + ["forward", p[-1]])
    return e
n = bad = own = 0
for line in open(sys.argv[2]):
    r = json.loads(line)
    want = frames.get(r["entry"]) or frames.get(forward(r["entry"]))
    n += 1
    own += r["entry"] in frames
    if r.get("stack") != want:
        bad += 1
print(n, own, bad)
PY
)
set -- $res
if [ "${3:-x}" = 0 ]; then
	echo "ok $n - msprobe-example: all $1 leaves carry stack.json's stack ($2 of their entries have their own)"
else
	echo "not ok $n - msprobe-example: stacks: $res (leaves, own, wrong)"
fi
n=$((n + 1))
probe-match "$E/step0" "$tmp/leaves.ndjson" | probe-metric --csv > "$tmp/out.csv"
if cmp -s "$tmp/out.csv" "$E/expected/compare_step1_vs_step0.csv"; then
	echo "ok $n - msprobe-example: with probe-stack's stacks the CSV (NPU_Stack_Info included) equals msprobe's"
else
	echo "not ok $n - msprobe-example: NPU_Stack_Info"
	diff "$tmp/out.csv" "$E/expected/compare_step1_vs_step0.csv" | head -4 | cut -c1-200 | sed 's/^/#   /'
fi
rm -rf "$tmp"
