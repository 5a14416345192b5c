# The page probe-plot writes, in a browser (headless Chromium driven over the
# DevTools protocol, tests/browser/cdp.py, checked by tests/browser/plot.py):
# it loads with no console error and no network request; every vertex and
# dot drawn has a tooltip, each saying the leaf, the run, its step and seq
# and its value as worked out from the records, and the mouse shows it; a
# click on a point or a mark selects that leaf's row and scrolls it into
# view under the table's head; the filter box keeps the rows holding its
# text; the filter bar and the head stay in view; the table fits the window;
# each verdict has its colour, the same in the key; the ranks' colours are
# distinct and far apart (8 and 32 ranks), the same in the lines, the legend
# and the key, and the legend names the rank that started it (gendump's
# fault rank); a run without a rank is called by its proc folder; the title
# names the dumps when the records come on standard input.
# long: started first in make check (about 14 s; not under ASan)
browser=$(command -v chromium-headless-shell || command -v chromium || true)
if [ -z "$browser" ]; then
	echo "no chromium-headless-shell: the page check needs a browser"
	exit 77
fi
check() { python3 "$TESTS/browser/plot.py" "$@" 2>&1; }
metric() { probe-flatten "$1/target" | probe-match "$2" | probe-metric | probe-stack; }

echo "== 8 ranks, the fault on rank 5, rank 3's relu.1 without a golden, from a file"
probe-gendump --ranks 8 --fault-rank 5 r8 > /dev/null
probe-flatten r8/golden | jq -c 'select((.rank == 3 and (.name | test("relu\\.1\\."))) | not)' > r8golden.ndjson
metric r8 r8golden.ndjson > r8.ndjson
probe-plot --output-file r8.html r8.ndjson
check --query Functional.relu.1. --started 5 --min-de 20 --narrow 800 \
	--title "r8/target/step0 (8 dumps) vs r8/golden/step0 (8 dumps) (r8.ndjson)" r8.html r8.ndjson

echo "== 32 ranks, the fault on rank 17, on standard input"
probe-gendump --ranks 32 --fault-rank 17 r32 > /dev/null
metric r32 r32/golden > r32.ndjson
probe-plot --format html < r32.ndjson > r32.html
check --query "rank 17" --started 17 --min-de 12 --title "r32/target/step0 (32 dumps) vs r32/golden/step0 (32 dumps)" \
	r32.html r32.ndjson

echo "== a run without a rank (proc1234), golden statistics of 0 and NaNs (zoo), on standard input"
probe-gendump --zoo --fault nan p > /dev/null
for side in target golden; do mv p/$side/step0/rank0 p/$side/step0/proc1234; done
probe-flatten p/golden | jq -c 'if .name == "Functional.linear.0.forward.output.0" then .min = 0 else . end' > pgolden.ndjson
metric p pgolden.ndjson > p.ndjson
probe-plot --format html < p.ndjson > p.html
check --query zoo --title "p/target/step0/proc1234 vs p/golden/step0/proc1234" p.html p.ndjson

echo "== 2 ranks, 3 steps one after another on the axis, the fault on rank 1"
probe-gendump --ranks 2 --fault-rank 1 --steps 3 s3 > /dev/null
metric s3 s3/golden > s3.ndjson
probe-plot --output-file s3.html s3.ndjson
check --query mse_loss --started 1 --title "s3/target (6 dumps) vs s3/golden (6 dumps) (s3.ndjson)" s3.html s3.ndjson
