# --overflow (msprobe's -oc): each node's level, worked out by hand from
# msprobe's rules (reference: msprobe-firstdiff.md section 6) for one entry
# per rule: inputs normal and output inf: critical; both anomalous: high;
# input anomalous, output normal: medium; output Norm over 100 times the
# input's: high (exactly 100 times: none; input Norm 0: output over 100);
# anomalies inside nested lists count, inside a dict that is no leaf do not;
# a backward's "input" stands for input_args; msprobe's ignore rules drop
# torch.empty's output 0 (but not its output 1) and distributed.recv's
# input 0 (whose outputs the rule does not check).
mkdir -p d/step0/rank0
t() { # max min mean norm
	printf '{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": %s, "Min": %s, "Mean": %s, "Norm": %s, "requires_grad": false}' "$@"
}
ok=$(t 1.0 0.0 0.5 1.0)
cat > d/step0/rank0/dump.json <<JSON
{"task": "statistics", "level": "mix", "framework": "pytorch", "dump_data_dir": null, "data": {
 "Torch.a.0.forward": {"input_args": [$ok], "input_kwargs": {}, "output": [$(t Infinity 0.0 0.5 1.0)]},
 "Torch.b.0.forward": {"input_args": [$(t NaN 0.0 0.5 1.0)], "input_kwargs": {}, "output": [$(t 1.0 -Infinity 0.5 1.0)]},
 "Torch.c.0.forward": {"input_args": [$ok], "input_kwargs": {"w": $(t 1.0 0.0 NaN 1.0)}, "output": [$ok]},
 "Torch.d.0.forward": {"input_args": [$ok], "input_kwargs": {}, "output": [$(t 1.0 0.0 0.5 101.0)]},
 "Torch.e.0.forward": {"input_args": [$ok], "input_kwargs": {}, "output": [$(t 1.0 0.0 0.5 100.0)]},
 "Torch.h.0.forward": {"input_args": [$(t 0.0 0.0 0.0 0.0)], "input_kwargs": {}, "output": [$(t 1.0 0.0 0.5 100.5)]},
 "Torch.i.0.forward": {"input_args": [$(t 0.0 0.0 0.0 0.0)], "input_kwargs": {}, "output": [$(t 1.0 0.0 0.5 50.0)]},
 "Torch.f.0.forward": {"input_args": [[[$(t NaN 0.0 0.5 1.0)]]], "input_kwargs": {}, "output": [$ok]},
 "Torch.g.0.forward": {"input_args": [{"inner": $(t NaN 0.0 0.5 1.0)}], "input_kwargs": {}, "output": [$ok]},
 "Torch.empty.0.forward": {"input_args": [], "input_kwargs": {}, "output": [$(t Infinity 0.0 0.5 1.0)]},
 "Torch.empty.1.forward": {"input_args": [], "input_kwargs": {}, "output": [$ok, $(t Infinity 0.0 0.5 1.0)]},
 "Distributed.recv.0.forward": {"input_args": [$(t NaN 0.0 0.5 1.0)], "input_kwargs": {}, "output": [$(t NaN 0.0 0.5 1.0)]},
 "Module.m.M.backward.0": {"input": [$(t NaN 0.0 0.5 1.0)], "output": [$ok]}
}}
JSON
python3 - <<'PY'
import json
d = json.load(open("d/step0/rank0/dump.json"))
json.dump({k: None for k in d["data"]}, open("d/step0/rank0/construct.json", "w"))
PY
probe-flatten d | probe-graph --overflow --format json | jq -r '"\(.name): \(.overflow_level)"' | grep -v '^Apis_Between\|^DefaultModel'
echo "-- without --overflow: none"
probe-flatten d | probe-graph --format json | jq -r 'select(.overflow_level) | .name' | wc -l
echo "-- the vis.db says it was asked"
probe-flatten d | probe-graph --overflow --output-file o.vis.db
python3 -c 'import sqlite3; db = sqlite3.connect("o.vis.db"); print(db.execute("SELECT overflow_check FROM tb_config").fetchall(), db.execute("SELECT overflow_level, count(*) FROM tb_nodes GROUP BY 1 ORDER BY 1").fetchall())'
