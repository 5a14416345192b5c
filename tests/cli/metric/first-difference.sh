# Our bitwise verdict finds where each injected fault starts; msprobe's Result, at the
# same place, mostly says pass (it only flags outputs whose norm moves more than its inputs').
for f in fc2-weight fc2-weight-tiny input linear1-output nan; do
	probe-gendump --fault $f $f > /dev/null
	probe-flatten $f/target | probe-match $f/golden | probe-metric |
		jq -r --arg f $f 'select(.verdict == "diff") | "\($f): \(.t.name) msprobe=\(.msprobe.result) \(.reason)"' | head -1
done
