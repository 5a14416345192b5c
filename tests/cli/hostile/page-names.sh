# Names that would stop a page (issue 41, class 9).  Three modules are renamed
# "fc1<!--<script>", "fc2</script><![CDATA[x]]>&amp;" and "fc3" with U+FFFE, U+FFFF,
# U+FDD0, U+1FFFE, U+2028 and a DEL in it.  In probe-graph's and probe-plot's pages the
# text of every <script> element holds no '<' at all (a "<!--<script>" there puts the HTML
# parser in a state where the real "</script>" no longer ends the script, and the page
# never renders), no raw U+2028/U+2029, and no character a page may not hold (the
# non-characters, controls): each is written as a \u escape or becomes U+FFFD
# (jsonw_script_safe()), so the JSON data still parse and still name the modules.  The
# SVG and probe-plot's page, which are XML as well as HTML, are well-formed (xmllint),
# with the names in their text and attributes.  tests/cli/hostile/page-names-browser.sh
# loads the same pages in a browser.
probe-gendump --ranks 2 --fault-rank 1 d > /dev/null
# the names, made by jq from \u escapes
names='gsub("fc1"; "fc1<!--<script>") | gsub("fc2"; "fc2</script><![CDATA[x]]>&amp;") |
	gsub("fc3"; "fc3\ufffe\uffff\ufdd0\ud83f\udffe\u2028\u007f")'
for f in d/*/step0/rank*/*.json; do
	jq -c "walk(if type == \"object\" then with_entries(.key |= ($names)) elif type == \"string\" then $names else . end)" \
		"$f" > x && mv x "$f"
done
probe-flatten d/target | probe-match d/golden | probe-metric | probe-stack > m.ndjson
echo "records: $(grep -c 'fc1<!--<script>' m.ndjson) with fc1's name, $(grep -c 'fc3' m.ndjson) with fc3's"
probe-graph --output-file graph.html m.ndjson; echo "probe-graph --format html: status $?"
probe-plot --format html m.ndjson > plot.html; echo "probe-plot --format html: status $?"
probe-plot --format svg m.ndjson > plot.svg; echo "probe-plot --format svg: status $?"
for f in plot.svg plot.html; do
	xmllint --noout "$f" > lint 2>&1; echo "xmllint $f: status $?"
	head -n 3 lint
done
# the script elements as an HTML parser sees them (html.parser: a script's text ends at its "</script")
cat > check.py <<'EOF'
import html.parser, json, re, sys
bad = re.compile('[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufdd0-\ufdef\ufffe\uffff\U0001fffe\U0001ffff]')
class Scripts(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.scripts, self.cur = [], None
    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self.cur = [dict(attrs).get("type"), ""]
    def handle_data(self, data):
        if self.cur is not None:
            self.cur[1] += data
    def handle_endtag(self, tag):
        if tag == "script" and self.cur is not None:
            self.scripts.append(self.cur)
            self.cur = None
for path in sys.argv[1:]:
    page = open(path, encoding="utf-8").read()
    p = Scripts()
    p.feed(page)
    p.close()
    data = [text for kind, text in p.scripts if kind == "application/json"]
    parsed = json.dumps([json.loads(text) for text in data], ensure_ascii=False)
    print("%s: %d script elements, %d of JSON data with %d '<', %d '>', %d '&', %d raw U+2028 or U+2029;"
          " %d characters a page may not hold in the page"
          % (path, len(p.scripts), len(data), sum(t.count("<") for t in data), sum(t.count(">") for t in data),
             sum(t.count("&") for t in data), sum(t.count("\u2028") + t.count("\u2029") for t in data),
             len(bad.findall(page))))
    print("  the data parse, and name fc1<!--<script> %d times, fc2</script><![CDATA[x]]>&amp; %d times, fc3 %d times"
          " (as fc3, four U+FFFD, U+2028, U+FFFD: %d)" % (parsed.count("fc1<!--<script>"), parsed.count("fc2</script><![CDATA[x]]>&amp;"),
                                          parsed.count("fc3"), parsed.count("fc3" + "\ufffd" * 4 + "\u2028\ufffd")))
EOF
python3 check.py graph.html plot.html
fc3=$(printf 'fc3\357\277\275\357\277\275\357\277\275\357\277\275\342\200\250\357\277\275')
echo "the SVG: fc3, four U+FFFD, U+2028, U+FFFD in $(grep -c "$fc3" plot.svg) lines, fc2's name escaped in $(grep -c -F 'fc2&lt;/script&gt;&lt;![CDATA[x]]&gt;&amp;amp;' plot.svg)"
