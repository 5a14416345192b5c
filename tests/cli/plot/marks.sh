# The marked points are the ones probe-first reports: the first divergence of
# each rank (probe-first on the same records) and the first non-finite value
# (probe-first --nonfinite on the target's leaves), at the x of that leaf;
# and, independently of lib/compare/first.c, the first leaf whose verdict is "diff"
# in execution order on each rank.  The SVG is well-formed XML.
marks() { # kind: "rank leaf x" per mark of that kind, sorted
	xmllint --xpath "//*[local-name()='g'][@class='mark'][@data-kind='$1']" p.svg 2>/dev/null |
		grep -o 'data-rank="[0-9]*"[^>]*data-x="[0-9]*" data-leaf="[^"]*"' |
		sed 's/data-rank="\([0-9]*\)".*data-x="\([0-9]*\)" data-leaf="\([^"]*\)"/\1 \3 \2/' | sort
}
check() { # label, dump dir
	probe-flatten "$2/target" | probe-match "$2/golden" | probe-metric | probe-stack > m.ndjson
	probe-plot m.ndjson > p.svg || echo "$1: probe-plot failed"
	xmllint --noout p.svg && echo "$1: well-formed"
	marks divergence > plot.txt
	# x is the seq after the steps before: the step's first seq is 0 in these dumps
	jq -r 'select(.t) | "\(.t.rank) \(.t.step) \(.t.seq)"' m.ndjson | sort -n -k1 -k2 -k3 -u |
		awk '{ if ($1 != r || $2 != s) { if ($1 != r) base = 0; else base = next_x; r = $1; s = $2 } x[$1" "$2" "$3] = base + $3; if (base + $3 + 1 > next_x) next_x = base + $3 + 1 }
		     END { for (k in x) print k, x[k] }' > xs.txt
	probe-first m.ndjson | jq -r 'select(.first_divergence) | "\(.t.rank) \(.t.step) \(.t.seq) \(.first_divergence.leaf)"' |
		while read -r rank step seq leaf; do
			echo "$rank $leaf $(awk -v k="$rank $step $seq" '$1" "$2" "$3 == k { print $4 }' xs.txt)"
		done | sort > first.txt
	if cmp -s plot.txt first.txt && [ -s first.txt ]; then
		echo "$1: $(wc -l < first.txt) divergence marks, as probe-first"
	else
		echo "$1: divergence marks DIFFER"; diff plot.txt first.txt
	fi
	jq -r 'select(.verdict == "diff") | "\(.t.rank) \(.t.step) \(.t.seq) \(.t.name)"' m.ndjson | sort -n -k1 -k2 -k3 |
		awk '!seen[$1]++ { print $1, $4 }' > oracle.txt
	if cut -d' ' -f1,2 plot.txt | cmp -s - oracle.txt; then
		echo "$1: each the first leaf whose verdict is diff"
	else
		echo "$1: NOT the first diff leaf"; cut -d' ' -f1,2 plot.txt | diff - oracle.txt
	fi
	marks nonfinite > plot.txt
	jq -c .t m.ndjson | probe-first --nonfinite |
		jq -r 'select(.first_nonfinite) | "\(.rank) \(.step) \(.seq) \(.first_nonfinite.leaf)"' |
		while read -r rank step seq leaf; do
			echo "$rank $leaf $(awk -v k="$rank $step $seq" '$1" "$2" "$3 == k { print $4 }' xs.txt)"
		done | sort > first.txt
	if cmp -s plot.txt first.txt; then
		echo "$1: $(wc -l < first.txt) non-finite marks, as probe-first --nonfinite"
	else
		echo "$1: non-finite marks DIFFER"; diff plot.txt first.txt
	fi
}
probe-gendump --fault fc2-weight d1 > /dev/null
check "fc2-weight" d1
probe-gendump --ranks 4 --fault-rank 2 --steps 2 d2 > /dev/null
check "4 ranks, 2 steps" d2
probe-gendump --ranks 2 --fault-rank 1 --fault nan --steps 2 d3 > /dev/null
check "nan on rank 1" d3
probe-gendump --fault inf --micro-batches 2 d4 > /dev/null
check "inf" d4
