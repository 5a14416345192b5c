# Names are the dump's, and a dump may hold anything: markup characters,
# control characters, escapes of lone surrogates, "]]>".  The SVG and the
# HTML stay well-formed and the names readable.  (Bytes that are not UTF-8
# make a record malformed: see tests/cli/hostile.)
probe-gendump d > /dev/null
probe-flatten d/target | probe-match d/golden | probe-metric | probe-stack > m.ndjson
python3 - <<'PY'
import json
out = open("odd.ndjson", "wb")
for line in open("m.ndjson", "rb"):
    r = json.loads(line)
    if r.get("t") and r["t"]["seq"] == 14:
        text = line.decode()
        # the first divergence gets a hostile leaf name and module
        text = text.replace('"name":"Functional.linear.1.forward.input.1"',
                            '"name":"a<b>&c\\"d\'e\\u0001f\\ud800g]]>h"')
        text = text.replace('"Module.fc2.Linear.forward.0"', '"Module.<fc2>.Linear.forward.0"')
        out.write(text.encode())
    else:
        out.write(line)
PY
probe-plot odd.ndjson > odd.svg; echo "status $?"
xmllint --noout odd.svg && echo "svg well-formed"
probe-plot --format html odd.ndjson > odd.html; echo "status $?"
xmllint --noout odd.html && echo "html well-formed"
# the label, as XML reads it back
xmllint --xpath "string(//*[local-name()='g'][@class='mark']/@data-leaf)" odd.svg | od -An -c | sed 's/  */ /g'
xmllint --xpath "string(//*[local-name()='g'][@class='module']/*[local-name()='title'][contains(., '<fc2>')])" odd.svg; echo
