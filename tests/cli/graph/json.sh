# --format json: one record per node of every graph, target then golden.
# Checked against what the dumps say, worked out here with jq and python
# from construct.json: the node count (construct.json's names, the root, and
# one collection per run of two or more APIs at the root), each node's
# parent, and the first divergence probe-first reports.
probe-gendump --ranks 2 --fault-rank 1 d > /dev/null
probe-flatten d/target | probe-match d/golden | probe-metric | probe-stack > m.ndjson
probe-graph --format json m.ndjson > nodes.ndjson; echo "status $?"
echo "graphs: $(jq -r .graph nodes.ndjson | sort -u | tr '\n' ' ')"
python3 - d/target/step0/rank0/construct.json <<'PY' > expected
import json, sys
c = json.load(open(sys.argv[1]))
names = set(c) | {v for v in c.values() if v}
api = lambda n: n.split(".")[0] in ("Tensor", "Torch", "Functional", "NPU", "Distributed", "Aten", "VF")
roots = [n for n in c if c[n] is None]
runs, run = 0, 0
for n in roots + [None]:
    if n is not None and api(n):
        run += 1
        continue
    runs += run >= 2
    run = 0
print("rank 0 target nodes: %d" % (len(names) + 1 + runs))
print("rank 0 parents: " + " ".join(sorted("%s<%s" % (n, c[n] or "root") for n in c if c[n])))
PY
jq -r 'select(.graph == "NPU_0_0")' nodes.ndjson > r0.ndjson
{
	echo "rank 0 target nodes: $(jq -s length r0.ndjson)"
	echo "rank 0 parents: $(jq -r 'select(.parent and .parent != "DefaultModel" and (.parent | startswith("Apis_Between") | not)) | "\(.name)<\(.parent)"' r0.ndjson | sort | tr '\n' ' ' | sed 's/ $//')"
} > got
diff expected got && echo "count and parents: as construct.json gives them"
echo "first divergence (probe-first): $(probe-first m.ndjson | jq -r 'select(.first_divergence and .first_divergence.n == 1) | "rank \(.t.rank) \(.t.entry) \(.first_divergence.role)"' | tr '\n' ';')"
echo "first divergence (probe-graph): $(jq -r 'select(.first_divergence) | "rank \(.rank) \(.name) \(.verdict)"' nodes.ndjson | tr '\n' ';')"
echo "verdicts on rank 1: $(jq -r 'select(.graph == "NPU_0_1") | .verdict' nodes.ndjson | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
echo "golden side has no precision: $(jq -s 'map(select(.side == "golden" and .precision_index != null)) | length' nodes.ndjson)"
echo "every target API with data has a precision: $(jq -s 'map(select(.side == "target" and .type == "api" and .input_data != {} and .precision_index == null)) | length' nodes.ndjson) without"
echo "-- one run: no golden side, no precision, no verdict"
probe-flatten d/target | probe-graph --format json | jq -r '[.side, (.precision_index|tostring), .verdict] | @tsv' | sort | uniq -c
echo "-- two steps: step 1 of each rank carries what differed in step 0 (no first divergence of its own)"
probe-gendump --ranks 2 --steps 2 --fault-rank 1 s > /dev/null
probe-flatten s/target | probe-match s/golden | probe-metric | probe-graph --format json | jq -r 'select(.side == "target" and .verdict != "") | "\(.graph) \(.verdict)"' | sort | uniq -c
