# probe-plot on msprobe's example (step1 against step0 of proc2016): the
# leaves whose golden statistic is exactly 0 (213 of them, worked out here
# from the leaves' own statistics with python) go to the "golden 0" strip,
# not to the inf/nan band, which stays empty since no value of that run is
# an inf or a NaN; the page's table shows each with its absolute difference;
# the run, which has no rank, is called proc2016 and nothing else.
set -u
n=0
E=$FIXTURES/msprobe-example
if [ ! -d "$E" ]; then
	for what in "golden 0 strip" "inf/nan band empty" "table" "run label"; do
		n=$((n + 1))
		echo "ok $n - msprobe-example: $what # SKIP $FIXTURES is absent"
	done
	exit 0
fi
tmp=$(mktemp -d)
cd "$tmp" || exit 1
probe-flatten "$E/step1/proc2016" | probe-match "$E/step0/proc2016" | probe-metric | probe-stack > m.ndjson
probe-plot m.ndjson > p.svg
probe-plot --format html --table-rows 100000 m.ndjson > p.html
want=$(python3 - m.ndjson <<'PY'
import json, math, sys
zero = nonfinite = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    t, g = r.get("t"), r.get("g")
    if not t or not g or r["verdict"] in ("unmatched", "unreadable"):
        continue
    pairs = [(float(t[s]), float(g[s])) for s in ("max", "min", "mean", "norm")
             if isinstance(t.get(s), (int, float, str)) and isinstance(g.get(s), (int, float, str))]
    if any(not math.isfinite(a) or not math.isfinite(b) for a, b in pairs):
        nonfinite += 1
    elif any(b == 0 and a != 0 for a, b in pairs):
        zero += 1
print(zero, nonfinite)
PY
)
set -- $want
zero=$1 nonfinite=$2
counts=$(grep -o 'class="counts"[^>]*>[^<]*' p.svg | sed 's/.*>//')

n=$((n + 1))
if echo "$counts" | grep -q "; [0-9]* diverge, $zero against a golden of 0, " && [ "$(grep -c 'class="golden0"' p.svg)" -gt 0 ]; then
	echo "ok $n - msprobe-example: $zero leaves against a golden of 0, in their strip"
else
	echo "not ok $n - msprobe-example: golden 0 strip: want $zero; the picture says: $counts"
fi

# the y of the inf/nan band: its label's baseline less 4; no vertex of a line is there
n=$((n + 1))
bad=$(python3 - p.svg <<'PY'
import re, sys, xml.etree.ElementTree as ET
S = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
band = [float(t.get("y")) - 4 for t in root.iter(S + "text") if t.text == "inf/nan"][0]
bad = 0
for p in root.iter(S + "path"):
    if p.get("class") == "rank":
        ys = [float(y) for y in re.findall(r"[ML][-0-9.]+ ([-0-9.]+)", p.get("d"))]
        bad += sum(abs(y - band) < 0.05 for y in ys)
print(bad)
PY
)
if [ "$nonfinite" = 0 ] && [ "$bad" = 0 ] && ! echo "$counts" | grep -q 'inf/nan'; then
	echo "ok $n - msprobe-example: no value is an inf or a NaN, and the inf/nan band is empty"
else
	echo "not ok $n - msprobe-example: inf/nan: $nonfinite leaves worked out, $bad vertices in the band; $counts"
fi

n=$((n + 1))
rows=$(xmllint --xpath "count(//*[local-name()='td'][contains(@class, 'golden0')][starts-with(., 'golden 0: abs ')])" p.html)
if [ "$rows" = "$zero" ]; then
	echo "ok $n - msprobe-example: the table shows the $zero with their absolute difference"
else
	echo "not ok $n - msprobe-example: table: $rows golden 0 rows, want $zero"
fi

n=$((n + 1))
labels=$(xmllint --xpath "//*[local-name()='td'][@class='rank']/text()" p.html | sort -u | tr '\n' ' ')
legend=$(xmllint --xpath "//*[local-name()='ul'][@id='ranks']/*/text()" p.html | tr '\n' ' ')
if [ "$labels" = "proc2016 " ] && [ "$legend" = "proc2016 " ] && grep -q '>proc2016<' p.svg &&
	! grep -q 'rank ?\|(no rank)\|rank -1\|>-1<' p.svg p.html; then
	echo "ok $n - msprobe-example: the run without a rank is proc2016 in the legend, the table and the page"
else
	echo "not ok $n - msprobe-example: run label: table '$labels', ranks '$legend'"
fi
cd / && rm -rf "$tmp"
