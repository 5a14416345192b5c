# The page probe-graph writes, in a browser (headless Chromium driven over the
# DevTools protocol, tests/browser/cdp.py): it loads with no console error and
# no network request, its data parse, "go to the first divergence" (a real
# click) selects the first divergence and the detail panel shows its target
# and golden numbers, expanding a module shows its children on both sides and
# collapsing it on one side collapses the other, search finds nodes, next and
# previous walk the diverging nodes, the filter keeps the diverging ones, and
# the screenshot is not blank.  Pages: generated dumps (2 ranks, the fault on
# rank 1) and, when ../shared/fixtures has it, msprobe's example.
# PROBE_SCREENSHOT=path copies the example page's screenshot (shot.png) there.
# long: started first in make check (about 8 s; not under ASan)
browser=$(command -v chromium-headless-shell || command -v chromium || true)
if [ -z "$browser" ]; then
	echo "no chromium-headless-shell: the page check needs a browser"
	exit 77
fi
check() { python3 "$TESTS/browser/graph.py" "$@" 2>&1; }

echo "== generated dumps, 2 ranks, fault on rank 1"
probe-gendump --ranks 2 --fault-rank 1 g > /dev/null
probe-flatten g/target | probe-match g/golden | probe-metric | probe-stack > m.ndjson
probe-graph --output-file page.html m.ndjson
check --search linear --shot shot.png page.html

ex=$FIXTURES/msprobe-example
echo "== msprobe example"
if [ -d "$ex" ]; then
	probe-flatten "$ex/step1/proc2016" | probe-match "$ex/step0/proc2016" | probe-metric | probe-stack |
		probe-graph --output-file ex.html
	check --search conv2d --shot shot.png ex.html
else
	echo "skipped: ../shared/fixtures absent"
fi
if [ -n "${PROBE_SCREENSHOT:-}" ]; then
	cp shot.png "$PROBE_SCREENSHOT"
fi
