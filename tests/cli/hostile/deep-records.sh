# Records nested 100,000 deep (issue 17, class 2): before, a pair whose "value"
# nested that deep crashed probe-metric (SIGSEGV in the recursive pyval_parse),
# and its parse was quadratic in the depth.  Now every record reader refuses a
# line nesting deeper than 10,000 levels, the dump reader's limit, naming the
# input, the line and the limit, exit status 2 (a record-writing tool ending its
# output with {"error": ...}); what probe-flatten writes from the deepest dump
# it reads (a scalar argument 9,995 levels down) goes through every tool.
probe-gendump --layers 2 g > /dev/null
probe-flatten g/target > leaves
probe-match g/golden leaves > pairs
probe-metric pairs > metrics
python3 - <<'PY'
import json
n = 100000
arrays, objects = "[" * n + "]" * n, '{"a":' * n + "1" + "}" * n
leaves = open("leaves").read().splitlines()
pair = json.loads(open("pairs").readline())
metric = open("metrics").readline().rstrip("\n")
def scalar(leaf, deep):
    d = {k: v for k, v in leaf.items() if k not in ("dtype", "shape", "max", "min", "mean", "norm", "requires_grad")}
    d["type"], d["value"] = "int", "@"
    return json.dumps(d, separators=(",", ":")).replace('"@"', deep)
for name, deep in (("arrays", arrays), ("objects", objects)):
    with open("leaves-" + name, "w") as f:
        f.write(leaves[0] + "\n" + scalar(json.loads(leaves[1]), deep) + "\n")
    with open("pairs-" + name, "w") as f:
        p = {"key": pair["key"], "t": "@t", "g": "@g"}
        line = json.dumps(p, separators=(",", ":"))
        line = line.replace('"@t"', scalar(pair["t"], deep)).replace('"@g"', scalar(pair["g"], deep))
        f.write(open("pairs").readline() + line + "\n")
    with open("metrics-" + name, "w") as f:
        f.write(metric + "\n" + metric[:-1] + ',"extra":' + deep + "}\n")
PY
for kind in arrays objects; do
	for t in "probe-match g/golden" "probe-match leaves-$kind" probe-metric probe-first probe-stack probe-plot probe-table; do
		case $t in
		"probe-match g/golden") in=leaves-$kind ;;
		"probe-match leaves"*) in=leaves ;;
		probe-metric | probe-first) in=pairs-$kind ;;
		*) in=metrics-$kind ;;
		esac
		$t $in > out 2> err
		printf '%-7s %-25s < %-15s status %s, last line %-10s| %s\n' $kind "$t" $in $? "$(tail -1 out | cut -c1-10)" "$(cat err)"
	done
done
# the deepest dump the dump reader takes: its records read back everywhere
python3 - <<'PY'
n = 9995
head = '{"task":"statistics","level":"L1","dump_data_dir":null,"data":{"Functional.linear.0.forward":{"input_args":[{"type":"int","value":'
open("deep.json", "w").write(head + "[" * n + "1" + "]" * n + '}],"input_kwargs":{},"output":[]}}}')
open("deeper.json", "w").write(head + "[" * (n + 1) + "1" + "]" * (n + 1) + '}],"input_kwargs":{},"output":[]}}}')
PY
probe-flatten deeper.json > /dev/null 2> err; echo "one level more in the dump: status $?, $(cat err)"
probe-flatten deep.json > l; echo "probe-flatten: status $?, value $(grep -o '"value":\[*1' l | tr -dc '[' | wc -c) levels deep"
probe-match deep.json l > p; echo "probe-match: status $?"
probe-metric p > m; echo "probe-metric: status $?, $(grep -o '"verdict":"[a-z_]*"' m)"
probe-metric --csv p > /dev/null; echo "probe-metric --csv: status $?"
probe-first m > /dev/null; echo "probe-first: status $?"
probe-stack m 2> /dev/null | probe-table | wc -l | sed 's/^/probe-stack | probe-table: lines /'
probe-plot m > /dev/null; echo "probe-plot: status $?"
