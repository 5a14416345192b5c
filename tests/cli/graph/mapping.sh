# --mapping FILE: nodes matched through a YAML mapping of target node names
# to golden ones, wherever they sit (msprobe's mapping_match, what its -lm
# applies; no ancestor check), other names mapping to themselves.  The
# golden run's fc1 is called dense here: without the mapping fc1 and the
# linear inside it are unmatched (the linear's parent differs), with it both
# match, and the linear gets its compare columns and a precision index.
probe-gendump d > /dev/null
python3 - d/golden/step0/rank0 <<'PY'
import json, sys
d = sys.argv[1]
ren = lambda s: s.replace("Module.fc1.", "Module.dense.") if isinstance(s, str) else s
for f in ("construct.json", "stack.json", "dump.json"):
    j = json.load(open(d + "/" + f))
    if f == "construct.json":
        j = {ren(k): ren(v) for k, v in j.items()}
    elif f == "stack.json" and isinstance(j, dict) and "0" not in j:
        j = {ren(k): v for k, v in j.items()}
    elif f == "stack.json":
        j = {k: [[ren(n) for n in v[0]], v[1]] for k, v in j.items()}
    else:
        j["data"] = {ren(k): v for k, v in j["data"].items()}
    json.dump(j, open(d + "/" + f, "w"))
PY
probe-flatten d/target | probe-match d/golden | probe-metric > m.ndjson 2> /dev/null
printf 'Module.fc1.Linear.forward.0: Module.dense.Linear.forward.0\n' > map.yaml
for opt in "" "--mapping map.yaml"; do
	echo "-- ${opt:-no mapping}"
	probe-graph $opt --format json m.ndjson | jq -r 'select(.side == "target" and (.name | test("fc1|linear.0.forward"))) | "\(.name): matched \(.matched), precision \(.precision_index), columns \(.input_data | to_entries | map(.value | has("Max diff")) | any)"'
done
echo "-- both ways at once"
probe-graph --mapping map.yaml --fuzzy --format json m.ndjson; echo "status $?"
echo "-- a mapping that is not one"
printf -- '- a\n- b\n' > bad.yaml
probe-graph --mapping bad.yaml --format json m.ndjson; echo "status $?"
echo "-- the rows paired by probe-match with the same mapping (--data-mapping) have their Result"
probe-flatten d/target | jq -r 'select(.entry | startswith("Module.fc1.")) | "\(.name): \(.name | sub("Module.fc1."; "Module.dense."))"' > rows.yaml
probe-flatten d/target | probe-match --data-mapping rows.yaml d/golden | probe-metric > m2.ndjson 2> /dev/null
probe-graph --mapping map.yaml --format json m2.ndjson | jq -r 'select(.side == "target" and .name == "Module.fc1.Linear.forward.0") | "\(.name): precision \(.precision_index), Result \(.input_data | to_entries | map(.value.Result) | unique | join(","))"'
