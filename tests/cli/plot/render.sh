# Rendered by a browser (headless Chromium), no two pieces of text in the
# picture overlap and none leaves it: the text is measured with the fonts
# the browser has, not with the estimate probe-plot lays it out with.
# Pictures: one rank, four ranks over four steps (61,376 leaves), a NaN on
# rank 1 (two kinds of marks at one x), the CRC metric, and a narrow one.
# sanitizers: skip, a browser test (Chromium measures the picture's text); probe-plot's code runs under the sanitizers in the other plot tests
# long: started first in make check (about 9 s; not under ASan)
browser=$(command -v chromium-headless-shell || command -v chromium || true)
if [ -z "$browser" ]; then
	echo "no chromium-headless-shell: the rendering check needs a browser"
	exit 77
fi
measure() { # svg -> "texts N, overlaps M" and the overlapping pairs
	{
		echo '<!DOCTYPE html><html><body style="margin:0">'
		sed 1d "$1"
		cat <<'JS'
<pre id="result"></pre><script>
var svg = document.querySelector('svg'), box = svg.getBoundingClientRect();
var t = Array.prototype.map.call(svg.querySelectorAll('text'), function (e) {
	return { s: e.textContent, r: e.getBoundingClientRect() };
}).filter(function (x) { return x.s.trim() !== ''; });
var bad = [];
for (var i = 0; i < t.length; i++) {
	var a = t[i].r;
	if (a.left < box.left - 0.5 || a.right > box.right + 0.5 || a.top < box.top - 0.5 || a.bottom > box.bottom + 0.5)
		bad.push('outside: ' + t[i].s);
	for (var j = i + 1; j < t.length; j++) {
		var b = t[j].r;
		/* glyph boxes include the line's leading: allow a pixel */
		if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1)
			bad.push(t[i].s + ' | ' + t[j].s);
	}
}
document.getElementById('result').textContent = 'texts ' + t.length + ', overlaps ' + bad.length + '\n' + bad.join('\n');
</script></body></html>
JS
	} > page.html
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --dump-dom "file://$PWD/page.html" 2> browser.log |
		sed -n '/<pre id="result">/,/<\/pre>/p' | sed 's/<pre id="result">//; s/<\/pre>.*//' |
		sed 's/texts [0-9]*, /texts counted, /'
}
pipeline() { probe-flatten "$1/target" | probe-match "$1/golden" | probe-metric | probe-stack; }
probe-gendump --steps 3 a > /dev/null
pipeline a > a.ndjson
probe-plot a.ndjson > p.svg; echo "one rank, 3 steps: $(measure p.svg)"
probe-gendump --ranks 4 --fault-rank 2 --steps 4 --micro-batches 4 --layers 40 b > /dev/null
pipeline b > b.ndjson
probe-plot b.ndjson > p.svg; echo "4 ranks, 61376 leaves: $(measure p.svg)"
probe-gendump --ranks 4 --fault nan --fault-rank 1 --steps 2 --layers 6 c > /dev/null
pipeline c > c.ndjson
probe-plot c.ndjson > p.svg; echo "nan on rank 1: $(measure p.svg)"
probe-gendump --mode md5 e > /dev/null
pipeline e > e.ndjson
probe-plot --metric md5 e.ndjson > p.svg; echo "md5: $(measure p.svg)"
probe-plot --width 400 --height 300 c.ndjson > p.svg; echo "400 x 300: $(measure p.svg)"
probe-flatten a/target | probe-match a/golden | probe-metric | probe-plot --width 300 --height 200 > p.svg
echo "300 x 200, no modules: $(measure p.svg)"
