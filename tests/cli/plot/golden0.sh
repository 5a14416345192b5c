# A relative difference against a golden statistic of exactly 0 is no
# number, and no inf or NaN either: probe-plot puts such a leaf in its own
# strip, "golden 0", with the absolute difference in its tooltip and in the
# table, and keeps the inf/nan band for leaves whose values hold an inf or a
# NaN (which wins when a leaf has both).  Input: generated dumps with a NaN
# fault and the zoo (zoo_zeros_golden: a golden of zeros), and golden
# statistics set to 0 by hand: one of four (linear.0 output's min), all four
# (relu.0 output), the max of an input (for msprobe's MaxRelativeErr), and
# the max of the leaf that holds the NaN.  The expected leaves and values are
# worked out here from the leaves' own statistics, not from probe's metrics.
probe-gendump --zoo --fault nan d > /dev/null
probe-flatten d/golden | jq -c '
	if .name == "Functional.linear.0.forward.output.0" then .min = 0
	elif .name == "Functional.relu.0.forward.output.0" then .max = 0 | .min = 0 | .mean = 0 | .norm = 0
	elif .name == "Functional.linear.0.forward.input.0" then .max = 0
	elif .name == "Functional.linear.1.forward.output.0" then .max = 0
	else . end' > g.ndjson
probe-flatten d/target | probe-match g.ndjson | probe-metric > m.ndjson

# the oracle: per pair, from the statistics of its two leaves.  rel (probe's
# metric, every statistic): a non-finite value on either side is inf/nan;
# else a golden of 0 against a target that is not 0 has no relative
# difference.  max_rel (msprobe's MaxRelativeErr of statistics, the max only,
# by the reference's rule): the same texts give 0; a nan or an inf is
# inf/nan; a golden of 0 gives msprobe's "inf" (so -0.0 against 0.0 does).
cat > oracle.py <<'PY'
import json, math, sys
which = sys.argv[2]
stats = ("max", "min", "mean", "norm") if which == "rel" else ("max",)
for line in open(sys.argv[1]):
    r = json.loads(line, parse_float=str, parse_int=str)
    t, g = r.get("t"), r.get("g")
    if not t or not g or r["verdict"] in ("unmatched", "unreadable"):
        continue
    pairs = [(t[s], g[s]) for s in stats if isinstance(t.get(s), str) and isinstance(g.get(s), str)]
    if which == "max_rel":
        pairs = [(a, b) for a, b in pairs if a != b]
    pairs = [(float(a), float(b)) for a, b in pairs]
    if any(not math.isfinite(a) or not math.isfinite(b) for a, b in pairs):
        print("inf/nan", t["name"])
        continue
    zero = [abs(a - b) for a, b in pairs if b == 0 and (a != 0 or which == "max_rel")]
    if zero:
        print("golden 0", t["name"], "golden 0: abs %.4g" % max(zero))
PY
# what the picture says: each dot's tooltip (sparse: every leaf is a dot), and where the dots sit
cat > dots.py <<'PY'
import sys, xml.etree.ElementTree as ET
S = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
label_y = {t.text: float(t.get("y")) for t in root.iter(S + "text")}
for c in root.iter(S + "circle"):
    leaf, where, value = c.find(S + "title").text.split("\n")
    kind = "golden 0" if value.startswith("golden 0") else "inf/nan" if value.split()[-1] in ("inf", "nan") else None
    if kind:
        row = "on its strip" if abs(float(c.get("cy")) + 4 - label_y[kind]) < 0.05 else "OFF its strip"
        print(kind, leaf, value if kind == "golden 0" else "", row)
PY
check() { # metric
	python3 oracle.py m.ndjson "$1" | sort > want.txt
	probe-plot --metric "$1" m.ndjson > p.svg
	python3 dots.py p.svg | sort > got.txt
	if sed 's/ *on its strip$//' got.txt | cmp -s - want.txt && ! grep -q OFF got.txt; then
		echo "--metric $1: $(grep -c '^golden 0' want.txt) leaves against a golden of 0, $(grep -c '^inf/nan' want.txt) inf/nan, each on its strip, as worked out"
	else
		echo "--metric $1: DIFFER"; diff got.txt want.txt
	fi
	grep -o 'class="counts"[^>]*>[^<]*' p.svg | sed 's/.*>//'
}
check rel
grep '^golden 0' got.txt
# a golden max of 0 where the target holds a NaN: inf/nan wins
grep -F 'Functional.linear.1.forward.output.0' got.txt
check max_rel
grep '^golden 0' got.txt
# the absolute difference exists against a golden of 0: no strip
probe-plot --metric abs m.ndjson > p.svg
echo "--metric abs: golden 0 strip labels: $(grep -c '>golden 0<' p.svg), dots on it: $(python3 dots.py p.svg | grep -c '^golden 0')"
# the page's table says the same, and sorts those rows above every number and under inf/nan
probe-plot --format html m.ndjson > p.html
xmllint --xpath "//*[local-name()='td'][contains(@class, 'golden0')]" p.html | grep -o 'data-v="[^"]*">[^<]*' | sort -u
# tensor mode, --metric cos: msprobe's Cosine is "Nan" against a golden of
# zeros (golden 0, with the largest absolute difference of the elements) and
# for a target of zeros (no cosine: the 0 band, "no 1 - cos"); neither holds
# a NaN.  The norms and max_abs of the records say which is which.
probe-gendump --zoo --mode tensor t > /dev/null
probe-flatten t/target | probe-match t/golden | probe-metric 2> /dev/null > mt.ndjson
jq -r 'select(.t.name | test("zoo_zeros_(golden|target)\\.0\\.forward\\.output")) |
	"\(.t.name): Cosine \(.msprobe.Cosine), norms \(.t.norm) vs \(.g.norm), max_abs \(.metrics.tensor.max_abs)"' mt.ndjson
probe-plot --metric cos mt.ndjson > p.svg
python3 - p.svg <<'PY'
import sys, xml.etree.ElementTree as ET
S = "{http://www.w3.org/2000/svg}"
for c in ET.parse(sys.argv[1]).getroot().iter(S + "circle"):
    leaf, where, value = c.find(S + "title").text.split("\n")
    if "zoo_zeros_golden.0.forward.output" in leaf or "zoo_zeros_target.0.forward.output" in leaf:
        print("%s: %s" % (leaf, value))
PY
