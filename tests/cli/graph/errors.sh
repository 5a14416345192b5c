# Bad input: a clear message naming the file (and the node or line), exit
# status 2, and no output file left behind.
probe-gendump --ranks 1 d > /dev/null
probe-flatten d/target | probe-match d/golden | probe-metric > m.ndjson
run() { "$@"; echo "status $?"; }
quiet() { "$@" > /dev/null; echo "status $?"; }
echo "-- no records"
: | run probe-graph --format json
echo "-- not records"
echo 'garbage' | run probe-graph --format json
echo "-- an error record ends the stream"
printf '%s\n' "$(head -n 1 m.ndjson)" '{"error":"probe-metric: disk full"}' | quiet probe-graph --format json
echo "-- leaf records and pairs mixed"
{ head -n 1 m.ndjson; probe-flatten d/target | head -n 1; } | quiet probe-graph --format json
echo "-- a construct.json whose parents form a cycle"
cp -r d c
python3 - c/target/step0/rank0/construct.json <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["Module.fc1.Linear.forward.0"] = "Module.fc2.Linear.forward.0"
d["Module.fc2.Linear.forward.0"] = "Module.fc1.Linear.forward.0"
json.dump(d, open(p, "w"))
PY
probe-flatten c/target | probe-match c/golden | probe-metric | run probe-graph --output-file cycle.html
ls cycle.html* 2> /dev/null
echo "-- a parent that is never given a parent of its own"
cp -r d n
python3 - n/target/step0/rank0/construct.json <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["Module.fc1.Linear.forward.0"] = "Module.nowhere.X.forward.0"
json.dump(d, open(p, "w"))
PY
probe-flatten n/target | run probe-graph --format visdb --output-file n.vis.db
ls n.vis.db* 2> /dev/null
echo "-- a construct.json that is not JSON"
cp -r d j
printf '{"Module.a.A.forward.0": nul' > j/target/step0/rank0/construct.json
probe-flatten j/target | run probe-graph --format json
echo "-- a dump.json that went away"
probe-flatten d/target > leaves.ndjson
mv d/target/step0/rank0/dump.json d/target/step0/rank0/gone.json
run probe-graph --format json leaves.ndjson
echo "-- usage"
run probe-graph --format visdb m.ndjson
run probe-graph --format svg m.ndjson
