# matched_distributed: the communication nodes of two ranks linked as
# msprobe's DistributedAnalyzer links them, worked out by hand from its
# rules (lib/graph/distlink.c's header): send (dst 1) on rank 0 with recv
# (src 0) on rank 1, both ways; broadcast from rank 0 (input 1) to the
# group, the reverse link back; all_reduce both ways; a second recv that no
# second send answers, and all_reduces of different groups, left unlinked.
# One run (leaf records): no precision, so every peer index is "Nan".
python3 - <<'PY'
import json, os
def t(v=1.0):
    return {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": v, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": False}
def i(v):
    return {"type": "int", "value": v}
def g(ranks, gid):
    return {"type": "torch.ProcessGroup", "group_ranks": ranks, "group_id": gid}
ranks = {
    0: {"Distributed.send.0.forward": {"input_args": [t()], "input_kwargs": {"dst": i(1)}, "output": [None]},
        "Distributed.broadcast.0.forward": {"input_args": [t(), i(0)], "input_kwargs": {"group": g([0, 1], "g1")}, "output": [None]},
        "Distributed.all_reduce.0.forward": {"input_args": [t()], "input_kwargs": {"group": g([0, 1], "g1")}, "output": [None]},
        "Distributed.all_reduce.1.forward": {"input_args": [t()], "input_kwargs": {"group": g([0, 1], "g2")}, "output": [None]}},
    1: {"Distributed.recv.0.forward": {"input_args": [t()], "input_kwargs": {"src": i(0)}, "output": [None]},
        "Distributed.recv.1.forward": {"input_args": [t()], "input_kwargs": {"src": i(0)}, "output": [None]},
        "Distributed.broadcast.0.forward": {"input_args": [t(), i(0)], "input_kwargs": {"group": g([0, 1], "g1")}, "output": [None]},
        "Distributed.all_reduce.0.forward": {"input_args": [t()], "input_kwargs": {"group": g([0, 1], "g1")}, "output": [None]},
        "Distributed.all_reduce.1.forward": {"input_args": [t()], "input_kwargs": {"group": g([0, 1], "g3")}, "output": [None]}},
}
for r, data in ranks.items():
    d = "run/step0/rank%d" % r
    os.makedirs(d)
    json.dump({"task": "statistics", "level": "mix", "framework": "pytorch", "dump_data_dir": None, "data": data}, open(d + "/dump.json", "w"))
    json.dump({k: None for k in data}, open(d + "/construct.json", "w"))
PY
probe-flatten run | probe-graph --format json | jq -r 'select(.name | startswith("Distributed")) | "rank \(.rank) \(.name): \(.matched_distributed | tojson)"'
echo "-- the same in the vis.db"
probe-flatten run | probe-graph --output-file l.vis.db
python3 -c 'import sqlite3; db = sqlite3.connect("l.vis.db"); print(db.execute("SELECT count(*) FROM tb_nodes WHERE matched_distributed != \"{}\"").fetchall())'
