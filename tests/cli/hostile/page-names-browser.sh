# The pages of tests/cli/hostile/page-names.sh (modules named "fc1<!--<script>",
# "fc2</script><![CDATA[x]]>&amp;" and fc3 with non-characters and U+2028, issue 41,
# class 9) in a browser (headless Chromium over the DevTools protocol, tests/browser/cdp.py):
# probe-graph's and probe-plot's pages render (their script ran to its ready mark, which a
# "<!--<script>" in the data used to stop), with no console error, and show the names as
# text, not as markup.
# sanitizers: skip, the browser is the program under test here; page-names.sh runs the tools under ASan
browser=$(command -v chromium-headless-shell || command -v chromium || true)
if [ -z "$browser" ]; then
	echo "no chromium-headless-shell: the page check needs a browser"
	exit 77
fi
probe-gendump --ranks 2 --fault-rank 1 d > /dev/null
names='gsub("fc1"; "fc1<!--<script>") | gsub("fc2"; "fc2</script><![CDATA[x]]>&amp;") |
	gsub("fc3"; "fc3\ufffe\uffff\ufdd0\ud83f\udffe\u2028\u007f")'
for f in d/*/step0/rank*/*.json; do
	jq -c "walk(if type == \"object\" then with_entries(.key |= ($names)) elif type == \"string\" then $names else . end)" \
		"$f" > x && mv x "$f"
done
probe-flatten d/target | probe-match d/golden | probe-metric | probe-stack > m.ndjson
probe-graph --output-file graph.html m.ndjson
probe-plot --output-file plot.html m.ndjson
has='["fc1<!--<script>", "fc2</script><![CDATA[x]]>&amp;"].map(n => document.body.textContent.includes(n))'
for page in graph.html plot.html; do
	timeout 120 python3 "$TESTS/browser/cdp.py" --timeout 60 --wait "document.body.dataset.ready === '1'" \
		--eval "({scripts: document.scripts.length, names: $has, code_scripts: document.querySelectorAll('body script:not([type]), body script[type=\"text/javascript\"]').length})" \
		"$page" > r.json
	echo "$page: status $?, $(jq -c '{value, errors, requests, blank: (.colours < 2)}' r.json)"
done
