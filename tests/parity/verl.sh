# verl's training against inference compare (../shared/fixtures/verl): msprobe's CSV of
# compare --consistent_check --backend fsdp (01) and megatron (02), byte for byte, in
# single-rank and step-directory form; then our verdict: only the perturbed layer-1 down
# projection and what follows it differ, what the frameworks compute differently is
# "structural", and probe-first names the down projection as the cause.
set -u
n=0
V=$FIXTURES/verl/inputs/tensor
E=$FIXTURES/verl/expected
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
csv() { # label expected backend train infer
	n=$((n + 1))
	if [ ! -f "$2" ]; then
		echo "ok $n - $1 # SKIP $FIXTURES is absent"
		return
	fi
	if ! { probe-flatten "$4" | probe-match --consistency "$3" "$5" | probe-metric --csv > "$tmp/ours.csv"; } 2> "$tmp/err"; then
		echo "not ok $n - $1: the pipeline failed"
		sed 's/^/# /' "$tmp/err"
	elif cmp -s "$2" "$tmp/ours.csv"; then
		echo "ok $n - $1: CSV equals msprobe's byte for byte ($(($(wc -l < "$2") - 1)) rows)"
	else
		echo "not ok $n - $1: the CSV differs from msprobe's"
		diff "$2" "$tmp/ours.csv" | head -n 10 | sed 's/^/# /'
	fi
}
ours() { # label backend expected-diff-keys
	n=$((n + 1))
	if [ ! -d "$V/infer" ]; then
		echo "ok $n - $1 # SKIP $FIXTURES is absent"
		return
	fi
	probe-flatten "$V/${2}_train/step0/rank0" | probe-match --consistency "$2" "$V/infer/step0/rank0" |
		probe-metric > "$tmp/m.ndjson" 2> "$tmp/err"
	got=$(jq -r 'select(.verdict == "diff") | .key' "$tmp/m.ndjson" | tr '\n' ' ')
	structural=$(jq -r 'select(.verdict == "structural") | .key' "$tmp/m.ndjson" | wc -l)
	if [ "$got" != "$3" ]; then
		echo "not ok $n - $1: our diffs are [$got], expected [$3]"
		sed 's/^/# /' "$tmp/err"
	elif [ "$structural" -lt 8 ]; then
		echo "not ok $n - $1: only $structural rows called structural"
	elif ! probe-first --format text < "$tmp/m.ndjson" 2>&1 | grep -q "layers.1.*\(down_proj\|linear_fc2\).*output.0"; then
		echo "not ok $n - $1: probe-first does not name the layer-1 down projection"
		probe-first --format text < "$tmp/m.ndjson" 2>&1 | head -n 5 | sed 's/^/# /'
	else
		echo "ok $n - $1: diffs [$got], $structural structural rows, probe-first names the down projection"
	fi
}
csv "01 fsdp, one rank" "$(ls "$E"/01_fsdp_tensor/*.csv 2> /dev/null)" fsdp "$V/fsdp_train/step0/rank0" "$V/infer/step0/rank0"
csv "01 fsdp, step directories" "$(ls "$E"/01_fsdp_tensor/*.csv 2> /dev/null)" fsdp "$V/fsdp_train/step0" "$V/infer/step0"
csv "02 megatron, one rank" "$(ls "$E"/02_megatron_tensor/*.csv 2> /dev/null)" megatron "$V/megatron_train/step0/rank0" "$V/infer/step0/rank0"
ours "01 fsdp, our verdict" fsdp "1:down_proj:forward.0.output.0 1:mlp:forward.0.output.0 -1:norm:forward.0.output.0 "
ours "02 megatron, our verdict" megatron "1:down_proj:forward.0.output.0 1:mlp:forward.0.output.0 "

# ---- statistics mode: the fixture's dumps with their tensors taken away (task statistics, no
# data_name), as msprobe's statistics task would have written the same run
as_statistics() { # tensor-rank-dir out-rank-dir
	mkdir -p "$2"
	jq '.task = "statistics" | del(.dump_data_dir) | .data |= walk(if type == "object" then del(.data_name) else . end)' \
		"$1/dump.json" > "$2/dump.json"
	cp "$1/stack.json" "$1/construct.json" "$2/"
}
stats_ours() { # label backend expected-diff-keys
	n=$((n + 1))
	if [ ! -d "$V/infer" ]; then
		echo "ok $n - $1 # SKIP $FIXTURES is absent"
		return
	fi
	S=$tmp/stats
	as_statistics "$V/${2}_train/step0/rank0" "$S/${2}_train/step0/rank0"
	as_statistics "$V/infer/step0/rank0" "$S/infer/step0/rank0"
	probe-flatten "$S/${2}_train/step0/rank0" | probe-match --consistency "$2" "$S/infer/step0/rank0" |
		probe-metric > "$tmp/s.ndjson" 2> "$tmp/err"
	got=$(jq -r 'select(.verdict == "diff") | .key' "$tmp/s.ndjson" | tr '\n' ' ')
	joined=$(jq -r 'select(.t_join or .g_join) | select(.verdict != "same") | .key' "$tmp/s.ndjson" | wc -l)
	if [ "$got" != "$3" ]; then
		echo "not ok $n - $1: our diffs are [$got], expected those of tensor mode [$3]"
		sed 's/^/# /' "$tmp/err"
	elif [ "$joined" -ne 0 ]; then
		echo "not ok $n - $1: $joined joined rows (q/k/v, gate/up) are not same on their recombined statistics"
	else
		echo "ok $n - $1: diffs [$got] as in tensor mode, the joined rows same on their recombined statistics"
	fi
}
stats_ours "01 fsdp, statistics mode, our verdict" fsdp "1:down_proj:forward.0.output.0 1:mlp:forward.0.output.0 -1:norm:forward.0.output.0 "
stats_ours "02 megatron, statistics mode, our verdict" megatron "1:down_proj:forward.0.output.0 1:mlp:forward.0.output.0 "

# msprobe's statistics table, cells worked out from the reference (msprobe-verl.md 4 and 7,
# msprobe-compare.md 5): the down projection's output row differs by the dumped statistics
# (1.75 - 1.34375 = 0.40625, 0.40625 / 1.34375 = 30.232558139534884 %), a joined mean is a text
# ("a;b;c") against a number, so "Diff"; and its ordinary checkers (requires_grad, unsqueezed
# shapes) call an error every row that has a Bench Name and whose requires_grad or shape
# differ, as the reference says ("nearly every matched row").
n=$((n + 1))
if [ ! -d "$V/infer" ]; then
	echo "ok $n - 01 fsdp, statistics mode, msprobe's table # SKIP $FIXTURES is absent"
elif ! probe-flatten "$tmp/stats/fsdp_train/step0/rank0" | probe-match --consistency fsdp "$tmp/stats/infer/step0/rank0" |
	probe-metric --csv > "$tmp/s.csv" 2> "$tmp/err"; then
	echo "not ok $n - 01 fsdp, statistics mode, msprobe's table: the pipeline failed"
	sed 's/^/# /' "$tmp/err"
else
	check=$(python3 - "$tmp/s.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cols = list(rows[0].keys())
want = ["NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape", "Bench Tensor Shape",
        "NPU Requires_grad", "Bench Requires_grad", "Max diff", "Min diff", "Mean diff", "L2norm diff",
        "MaxRelativeErr", "MinRelativeErr", "MeanRelativeErr", "NormRelativeErr", "NPU max", "NPU min",
        "NPU mean", "NPU l2norm", "Bench max", "Bench min", "Bench mean", "Bench l2norm",
        "Requires_grad Consistent", "Result", "Err_message", "NPU_Stack_Info"]
bad = []
if cols != want:
    bad.append("columns %s" % cols)
down = [r for r in rows if "layers.1._fsdp_wrapped_module.mlp.down_proj" in r["NPU Name"] and r["NPU Name"].endswith("output.0")]
if len(down) != 1:
    bad.append("%d down_proj output rows" % len(down))
else:
    d = down[0]
    nmax, bmax = float(d["NPU max"]), float(d["Bench max"])
    if d["Max diff"] != repr(nmax - bmax) or d["MaxRelativeErr"] != repr(abs((nmax - bmax) / bmax * 100)) + "%":
        bad.append("down_proj Max diff %s, MaxRelativeErr %s" % (d["Max diff"], d["MaxRelativeErr"]))
qkv = [r for r in rows if "q_proj" in r["NPU Name"] and "parameters.weight" in r["NPU Name"] and "layers.0" in r["NPU Name"]]
if len(qkv) != 1 or qkv[0]["Mean diff"] != "Diff" or qkv[0]["Max diff"] != "0":
    bad.append("joined q/k/v weight row: %s" % [(r["Max diff"], r["Mean diff"]) for r in qkv])
for r in rows:
    expect_error = r["Bench Name"] != "N/A" and (r["NPU Requires_grad"] != r["Bench Requires_grad"]
                                               or r["NPU Tensor Shape"] != r["Bench Tensor Shape"])
    if expect_error and r["Result"] != "error":
        bad.append("row %s is %s" % (r["NPU Name"][:60], r["Result"]))
        break
print("; ".join(bad) if bad else "ok %d rows, %d error" % (len(rows), sum(r["Result"] == "error" for r in rows)))
PY
)
	case $check in
	ok*) echo "ok $n - 01 fsdp, statistics mode, msprobe's table: ${check#ok }" ;;
	*) echo "not ok $n - 01 fsdp, statistics mode, msprobe's table: $check" ;;
	esac
fi

# --xlsx: msprobe's workbook of the same table: read back by a reader of our own
# (xlsx_render.py), every cell is msprobe's CSV cell (names joined ";\n" as its --xlsx
# joins them, numbers as a workbook keeps them: 16 significant digits), the statistics and
# metrics numbers, Requires_grad Consistent booleans.
n=$((n + 1))
X=$(ls "$E"/01_fsdp_tensor/*.csv 2> /dev/null)
if [ ! -f "$X" ]; then
	echo "ok $n - 01 fsdp, --xlsx # SKIP $FIXTURES is absent"
elif ! probe-flatten "$V/fsdp_train/step0/rank0" | probe-match --consistency fsdp "$V/infer/step0/rank0" |
	probe-metric --xlsx > "$tmp/s.xlsx" 2> "$tmp/err" || ! python3 "$(dirname "$0")/xlsx_render.py" "$tmp/s.xlsx" "$tmp/book"; then
	echo "not ok $n - 01 fsdp, --xlsx: the pipeline failed"
	sed 's/^/# /' "$tmp/err"
else
	check=$(python3 - "$X" "$tmp/book/s__Sheet1.csv" "$tmp/book/types/s__Sheet1.types.csv" <<'PY'
import csv, sys
a, b, t = (list(csv.reader(open(p))) for p in sys.argv[1:4])
bad = [] if len(a) == len(b) else ["%d rows, msprobe %d" % (len(b), len(a))]
for i, (x, y) in enumerate(zip(a, b)):
    for j, (p, q) in enumerate(zip(x, y)):
        if p == q.replace(";\n", ";  ") or p.strip() == q:
            continue
        try:
            if float(p) == float(q) or float("%.16g" % float(p)) == float(q):
                continue
        except ValueError:
            pass
        bad.append("row %d %s: %r against %r" % (i, a[0][j], q[:40], p[:40]))
h = a[0]
if any(r[h.index("Requires_grad Consistent")] != "b" for r in t[1:]):
    bad.append("Requires_grad Consistent not boolean")
if not any(r[h.index("Cosine")] in "if" for r in t[1:]) or not any(r[h.index("NPU max")] in "if" for r in t[1:]):
    bad.append("metrics or statistics not numbers")
print("; ".join(bad[:3]) if bad else "ok")
PY
)
	[ "$check" = ok ] && echo "ok $n - 01 fsdp, --xlsx: the workbook holds msprobe's cells" ||
		echo "not ok $n - 01 fsdp, --xlsx: $check"
fi

# Two ranks: a table per rank pair (msprobe's compare_result_rank<N>_<ts>), each the same as
# the one-rank table; to stdout, where there is no file per rank, an error.
n=$((n + 1))
if [ ! -f "$X" ]; then
	echo "ok $n - 01 fsdp, two ranks # SKIP $FIXTURES is absent"
else
	for side in fsdp_train infer; do
		mkdir -p "$tmp/two/$side/step0"
		cp -r "$V/$side/step0/rank0" "$tmp/two/$side/step0/rank0"
		cp -r "$V/$side/step0/rank0" "$tmp/two/$side/step0/rank1"
	done
	mkdir "$tmp/out2"
	probe-flatten "$tmp/two/fsdp_train/step0" | probe-match --consistency fsdp "$tmp/two/infer/step0" |
		probe-metric -o "$tmp/out2" 2> "$tmp/err"
	files=$(ls "$tmp/out2" | sed 's/_[0-9]*\.csv$//' | tr '\n' ' ')
	same=0
	cut -d, -f1-25 "$X" > "$tmp/want25"
	for f in "$tmp"/out2/*.csv; do
		cut -d, -f1-25 "$f" | cmp -s - "$tmp/want25" && same=$((same + 1))
	done
	if probe-flatten "$tmp/two/fsdp_train/step0" | probe-match --consistency fsdp "$tmp/two/infer/step0" |
		probe-metric --csv > /dev/null 2>&1; then
		echo "not ok $n - 01 fsdp, two ranks: --csv to stdout mixed two ranks in one table"
	elif [ "$files" != "compare_result_rank0 compare_result_rank1 " ] || [ "$same" -ne 2 ]; then
		echo "not ok $n - 01 fsdp, two ranks: files [$files], $same equal to msprobe's one-rank table"
		sed 's/^/# /' "$tmp/err"
	else
		echo "ok $n - 01 fsdp, two ranks: a table per rank, each msprobe's; --csv to stdout refused"
	fi
fi

# --mode statistics on the tensor dumps: the statistics table and our verdict on the statistics,
# the same diffs as on the statistics dumps; --rows-per-file is not applied (said on stderr)
n=$((n + 1))
if [ ! -d "$V/infer" ]; then
	echo "ok $n - 01 fsdp, --mode statistics # SKIP $FIXTURES is absent"
else
	probe-flatten "$V/fsdp_train/step0/rank0" | probe-match --consistency fsdp "$V/infer/step0/rank0" |
		probe-metric --mode statistics --rows-per-file 10 > "$tmp/m.ndjson" 2> "$tmp/err"
	got=$(jq -r 'select(.verdict == "diff") | .key' "$tmp/m.ndjson" | tr '\n' ' ')
	mode=$(jq -r '.msprobe.mode' "$tmp/m.ndjson" | sort -u | tr '\n' ' ')
	if [ "$got" = "1:down_proj:forward.0.output.0 1:mlp:forward.0.output.0 -1:norm:forward.0.output.0 " ] &&
		[ "$mode" = "statistics " ] && grep -q 'rows-per-file is not applied' "$tmp/err"; then
		echo "ok $n - 01 fsdp, --mode statistics: msprobe's statistics table, our diffs [$got]"
	else
		echo "not ok $n - 01 fsdp, --mode statistics: diffs [$got], modes [$mode]"
		sed 's/^/# /' "$tmp/err"
	fi
fi
