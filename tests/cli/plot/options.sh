# The metric, the ranks, the range and the size.
probe-gendump --ranks 4 --fault-rank 2 --steps 2 d > /dev/null
probe-flatten d/target | probe-match d/golden | probe-metric | probe-stack > m.ndjson
attr() { grep -o "$1=\"[^\"]*\"" p.svg | head -n 1; }
title() { grep -o '<text[^>]*font-weight="bold"[^>]*>[^<]*' p.svg | sed 's/.*>//'; }
ranks() { grep -o 'class="rank" data-rank="[0-9]*"' p.svg | grep -o '[0-9]*' | sort -n | tr '\n' ' '; echo; }
probe-plot m.ndjson > p.svg
echo "default: $(title); ranks drawn: $(ranks)"
probe-plot --metric abs m.ndjson > p.svg
echo "--metric abs: $(title)"
probe-plot --ranks 1,3 m.ndjson > p.svg
echo "--ranks 1,3: ranks drawn: $(ranks)"
grep -o 'data-kind="divergence" data-rank="[0-9]*"' p.svg
probe-plot --width 800 --height 400 m.ndjson > p.svg
echo "--width 800 --height 400: $(attr width) $(attr height)"
# a height too small for what must be drawn grows
probe-plot --height 200 m.ndjson > p.svg
echo "--height 200: $(attr height)"
# the range: x from 100 to 200 of each rank; the first divergences outside it are not drawn
probe-plot --range 100:200 m.ndjson > p.svg
echo "--range 100:200: $(grep -c 'class="mark"' p.svg) marks; ticks: $(grep -o '<text[^>]*text-anchor="middle" fill="#333">[0-9]*<' p.svg | grep -o '>[0-9]*<' | tr -d '<>' | tr '\n' ' ')"
grep -o 'range 100:200' p.svg
probe-plot --range 500: m.ndjson > p.svg && echo "--range 500: ok"
probe-plot --module-depth 0 m.ndjson > p.svg
echo "--module-depth 0: $(grep -c 'class="module"' p.svg) module bands"
probe-plot --module-depth 1 m.ndjson > p.svg
echo "--module-depth 1: $(grep -c 'class="module"\|class="dense"' p.svg) bands"
# md5 mode: the statistics are there too, and drawn by default; --metric md5 draws whether the CRC differs
probe-gendump --mode md5 md > /dev/null
probe-flatten md/target | probe-match md/golden | probe-metric > m5.ndjson
probe-plot m5.ndjson > p.svg
echo "md5: $(title)"
probe-plot --metric md5 m5.ndjson > p.svg
echo "md5 --metric md5: $(title)"
grep -o '>differs<\|>same<' p.svg | sort -u
# tensor mode: msprobe's MaxRelativeErr, and the others on request
probe-gendump --mode tensor t > /dev/null
probe-flatten t/target | probe-match t/golden | probe-metric > mt.ndjson
for m in auto max_abs ulp cos rel; do
	probe-plot --metric $m mt.ndjson > p.svg
	echo "tensor --metric $m: $(title)"
done
# without probe-stack the bands come from the module entries themselves
probe-flatten d/target | probe-match d/golden | probe-metric | probe-plot > p.svg
echo "without probe-stack: $(grep -c 'class="module"' p.svg) module bands"
# a band moves the first divergence as it moves probe-first's
probe-plot --rtol 0.011 m.ndjson > p.svg
grep -o 'data-kind="divergence" data-rank="2"[^>]*data-leaf="[^"]*"' p.svg | sed 's/data-step.*data-leaf/data-leaf/'
probe-first --rtol 0.011 m.ndjson | jq -r 'select(.first_divergence and .t.rank == 2) | .first_divergence.leaf'
