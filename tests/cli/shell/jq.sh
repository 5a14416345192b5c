# share/jq/probe.jq: every example of its doc comments runs, on the dumps the
# comments name, and prints what the comment shows (a comment's output ending in
# "..." shows the first lines); every public function has an example.  Then
# checks beyond the examples: the counts agree with an independent count, the
# ordering of "nan"/"inf" strings, the merged table against the records, and
# the errors.
# sanitizers: skip, it tests share/jq/probe.jq, which is jq code, not ours
jqdir=$TOP/share/jq
mod=$jqdir/probe.jq
[ -f "$mod" ] || { echo "no $mod"; exit 1; }
probe-gendump --ranks 4 --fault-rank 2 run > /dev/null
probe-flatten run/target | probe-match run/golden | probe-metric > metrics.ndjson
probe-gendump --mode tensor --ranks 4 --fault-rank 2 trun > /dev/null
probe-flatten trun/target | probe-match trun/golden | probe-metric > tensor-metrics.ndjson

# The examples: "#   $ command" then "#   output" lines, in the comment before a def.
mkdir -p examples && awk '
	/^#   \$ / { n++; f = "examples/" n ".cmd"; sub(/^#   \$ /, ""); print > f; close(f);
		   o = "examples/" n ".doc"; printf "" > o; inex = 1; documented = 1; next }
	inex && /^#   / { sub(/^#   /, ""); print >> o; close(o); next }
	{ inex = 0 }
	/^def _/ { documented = 0; next }
	/^def [a-z]/ { name = $2; sub(/[(:].*/, "", name); defs++;
		       if (!documented) print "no example: " name;
		       documented = 0 }
	END { print n " examples, " defs " public definitions" }
' "$mod"
i=1
while [ -f "examples/$i.cmd" ]; do
	cmd=$(sed "s|/usr/local/share/probe/jq|$jqdir|g" "examples/$i.cmd")
	echo "\$ $(cat "examples/$i.cmd")"
	sh -c "$cmd" > "examples/$i.out" 2>&1; echo "status $?"
	cat "examples/$i.out"
	# the comment shows the output, or its first lines and "..."
	if [ "$(tail -n 1 "examples/$i.doc")" = "..." ]; then
		k=$(($(wc -l < "examples/$i.doc") - 1))
		head -n "$k" "examples/$i.doc" > "examples/$i.want"
		head -n "$k" "examples/$i.out" > "examples/$i.got"
		[ "$k" -ge 1 ] && [ "$(wc -l < "examples/$i.out")" -gt "$k" ] || echo "example $i: the comment says ... but shows no line or all of them"
	else
		cp "examples/$i.doc" "examples/$i.want"
		cp "examples/$i.out" "examples/$i.got"
	fi
	cmp -s "examples/$i.want" "examples/$i.got" || { echo "example $i: the comment shows something else:"; diff "examples/$i.want" "examples/$i.got"; }
	i=$((i + 1))
done

P="import \"probe\" as p;"
echo "# summary: the same counts as counting the records one by one"
jq -nc -L "$jqdir" "$P p::summary(inputs)" metrics.ndjson > summary.ndjson
jq -r '[.rank, .state, .records, .same, .diff, .unmatched, .golden_only, .unreadable, .pass, .warning, .error, .no_msprobe] | @tsv' summary.ndjson > a.tsv
jq -r '(.t // .g) as $l | [$l.rank, $l.state, .verdict, (.msprobe.result // "none")] | @tsv' metrics.ndjson | sort | uniq -c |
	awk '{ k = $2 "\t" $3; keys[k] = 1; n[k] += $1; c[k, $4] += $1; c[k, $5] += $1 }
	     END { for (k in keys) print k "\t" n[k] "\t" c[k, "same"] + 0 "\t" c[k, "diff"] + 0 "\t" c[k, "unmatched"] + 0 "\t" c[k, "golden_only"] + 0 "\t" c[k, "unreadable"] + 0 "\t" c[k, "pass"] + 0 "\t" c[k, "warning"] + 0 "\t" c[k, "error"] + 0 "\t" c[k, "none"] + 0 }' > b.tsv
sort a.tsv > a.sorted; sort b.tsv > b.sorted
cmp -s a.sorted b.sorted && echo "same counts, $(wc -l < a.tsv) rows" || { echo "counts differ:"; diff a.sorted b.sorted; }
jq -s 'map(.records) | add' summary.ndjson
echo "# summary as a CSV"
probe-table summary.ndjson | sed -n '1p;10,13p'

echo "# worst and lowest order numbers and their string forms: nan, then inf, then the finite ones"
for v in '"nan"' '"inf"' 2 '"N/A"' '" 0.5"' '"-inf"' null '"unsupported"' '"7%"' 0.5; do
	printf '{"t":{"rank":0,"step":0,"name":"n%s"},"verdict":"diff","msprobe":{"result":"pass"},"metrics":{"max":{"rel":%s}}}\n' "$(printf %s "$v" | tr -d '" %')" "$v"
done > crafted.ndjson
jq -nc -L "$jqdir" "$P [p::worst(10; .metrics.max.rel; inputs) | .value]" crafted.ndjson
jq -nc -L "$jqdir" "$P [p::lowest(10; .metrics.max.rel; inputs) | .value]" crafted.ndjson
jq -nc -L "$jqdir" "$P [p::worst(2; .metrics.max.rel; inputs) | .name], [p::worst(0; .metrics.max.rel; inputs)]" crafted.ndjson
echo "# worst: the largest relative difference of Max is the one jq finds by sorting everything"
jq -nc -L "$jqdir" "$P p::worst(1; .metrics.max.rel; inputs) | .value" metrics.ndjson
jq -s '[.[] | .metrics.max.rel | numbers] | max' metrics.ndjson
echo "# worst on a NaN run: the NaN leaves first"
probe-gendump --fault nan nanrun > /dev/null
probe-flatten nanrun/target | probe-match nanrun/golden | probe-metric |
	jq -nc -L "$jqdir" "$P p::worst(2; .metrics.mean.rel; inputs) | {name, value}"

echo "# merge: every Distributed row of every rank, and only those; a cell is the record's"
jq -nc -L "$jqdir" "$P p::merge(\"Max diff\"; inputs)" metrics.ndjson > merged.ndjson
echo "$(wc -l < merged.ndjson) rows; $(jq -r 'select(.msprobe and (.t.name | contains("Distributed."))) | .t.name' metrics.ndjson | sort -u | wc -l) Distributed names in the records"
jq -r 'select(.msprobe and (.t.name | contains("Distributed."))) | [.t.name, "rank\(.t.rank)", .msprobe["Max diff"]] | @tsv' metrics.ndjson | sort > c.tsv
jq -r '."NPU Name" as $n | to_entries[] | select(.key != "NPU Name") | [$n, .key, .value] | @tsv' merged.ndjson | sort > d.tsv
cmp -s c.tsv d.tsv && echo "the cells are the records' Max diff" || { echo "cells differ:"; diff c.tsv d.tsv | head; }
jq -r '."NPU Name"' merged.ndjson | sort -c && echo "rows in NPU name order"
echo "# merge: a rank without such rows still has its column; all the compare indices; tensor mode"
jq -c 'select(.t.rank != 1 or (.t.name | startswith("Distributed") | not))' metrics.ndjson |
	jq -nc -L "$jqdir" "$P p::merge(\"Distributed.all_reduce.0.forward\"; \"MaxRelativeErr\"; inputs) | select(.\"NPU Name\" | endswith(\"input.0\"))" | probe-table
jq -nc -L "$jqdir" "$P p::merge([]; inputs)" metrics.ndjson | jq -r '."Compare Index"' | uniq -c
jq -nc -L "$jqdir" "$P p::merge([]; inputs)" tensor-metrics.ndjson | jq -r '."Compare Index"' | uniq -c
jq -nc -L "$jqdir" "$P p::merge(\"Cosine\"; inputs) | select(.\"NPU Name\" | test(\"all_reduce.0.forward.input.(0|group|op)\$\"))" tensor-metrics.ndjson | probe-table

echo "# errors: an error record upstream, pair records without verdicts, an md5 merge"
{ head -n 2 metrics.ndjson; echo '{"error": "probe-metric: boom"}'; } | jq -nc -L "$jqdir" "$P p::summary(inputs)"; echo "status $?"
probe-flatten run/target | probe-match run/golden | jq -nc -L "$jqdir" "$P p::summary(inputs)"; echo "status $?"
probe-gendump --mode md5 --ranks 2 md5run > /dev/null
probe-flatten md5run/target | probe-match md5run/golden | probe-metric | jq -nc -L "$jqdir" "$P p::merge([]; inputs)"; echo "status $?"
jq -nc -L "$jqdir" "$P p::merge(\"No such column\"; inputs)" metrics.ndjson; echo "status $?"
echo "# include works too"
jq -nc -L "$jqdir" 'include "probe"; [worst(1; .metrics.norm.rel; inputs) | .name]' metrics.ndjson
