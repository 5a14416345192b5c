# probe-metric --xlsx: msprobe's workbook, to stdout or one per rank with -o;
# cells typed as msprobe's (numbers, text, booleans: an inf statistic is pandas'
# text "inf", a NaN one msprobe's "Nan"); --xlsx-reader's layout for people.
# The workbooks are read back by tests/parity/xlsx_render.py (the standard library's zip and XML).
render() { # book dir: each sheet as "name: rows x cols" then its first lines, cells|types
	python3 "$TESTS/parity/xlsx_render.py" "$1" "$2"
	for f in "$2"/*.csv; do
		sheet=${f##*__}
		echo "sheet ${sheet%.csv}: $(wc -l < "$f") rows"
	done
}
probe-gendump --ranks 2 --fault nan --fault-rank 1 run > /dev/null
probe-flatten run/target | probe-match run/golden | probe-metric > records
probe-metric --xlsx < records > one.xlsx 2> err; echo "two ranks to stdout: status $? ($(sed 's/probe-metric: //' err))"
mkdir out
probe-metric -o out --xlsx < records; echo "-o: status $?"
ls out | sed 's/_[0-9]\{14\}\./_TIMESTAMP./'
render out/compare_result_rank1_*.xlsx r1
f=$(ls r1/*.csv)
t=r1/types/$(basename "${f%.csv}").types.csv
echo "the header: $(head -1 "$f")"
echo "the types of the first rows:"; sed -n 2,4p "$t"
echo "the NaN and inf rows (NPU max, its type; Result):"
paste -d'|' "$f" "$t" | grep 'linear.1.forward.output.0' | head -2 | python3 -c '
import csv, sys
for line in sys.stdin:
    cells, types = line.rstrip("\n").split("|")
    c = next(csv.reader([cells])); t = next(csv.reader([types]))
    print(" ", c[0], repr(c[16]), t[16], c[25])'
echo "Requires_grad Consistent's types: $(cut -d, -f25 "$t" | tail -n +2 | sort | uniq -c | tr -s ' ')"

probe-gendump --fault inf inf > /dev/null
probe-flatten inf/target | probe-match inf/golden | probe-metric --xlsx > inf.xlsx
render inf.xlsx ri > /dev/null
f=$(ls ri/*.csv)
paste -d'|' "$f" "ri/types/$(basename "${f%.csv}").types.csv" | grep 'linear.1.forward.output.0' | head -1 | python3 -c '
import csv, sys
cells, types = sys.stdin.read().rstrip("\n").split("|")
c = next(csv.reader([cells])); t = next(csv.reader([types]))
print("an inf statistic: NPU max", repr(c[16]), t[16], "NPU mean", repr(c[18]), t[18])'

# the reader's layout
probe-metric --xlsx-reader < records > /dev/null 2> err; echo "--xlsx-reader, two ranks to stdout: status $?"
probe-gendump --fault fc2-weight fc > /dev/null
probe-flatten fc/target | probe-match fc/golden | probe-metric --xlsx-reader > reader.xlsx
render reader.xlsx rr
f=$(ls rr/*.csv)
echo "the last columns: $(head -1 "$f" | awk -F, '{ print $(NF - 1) "," $NF }')"
python3 - reader.xlsx <<'PY'
import sys, zipfile, xml.etree.ElementTree as ET
M = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
z = zipfile.ZipFile(sys.argv[1])
sheet = ET.fromstring(z.read("xl/worksheets/sheet1.xml"))
st = ET.fromstring(z.read("xl/styles.xml"))
xfs = st.find(M + "cellXfs").findall(M + "xf")
fills = st.find(M + "fills").findall(M + "fill")
fonts = st.find(M + "fonts").findall(M + "font")
pane = sheet.find(".//" + M + "pane")
print("frozen:", pane.get("state"), "below row", pane.get("ySplit"))
print("autofilter:", sheet.find(M + "autoFilter").get("ref"))
widths = [float(c.get("width")) for c in sheet.find(M + "cols")]
print("widths: %d columns, from %d to %d" % (len(widths), min(widths), max(widths)))
def colour(s):
    fill = fills[int(xfs[s].get("fillId", "0"))].find(M + "patternFill")
    fg = fill.find(M + "fgColor")
    return fg.get("rgb") if fg is not None else "none"
shared = {}
for row in sheet.iter(M + "row"):
    cells = row.findall(M + "c")
    if row.get("r") == "1":
        continue
    name = "".join(t.text or "" for t in cells[0].iter(M + "t"))
    result = "".join(t.text or "" for t in cells[25].iter(M + "t"))
    verdict = "".join(t.text or "" for t in cells[28].iter(M + "t"))
    s = int(cells[0].get("s", "0"))
    bold = fonts[int(xfs[s].get("fontId", "0"))].find(M + "b") is not None
    key = (result, colour(s), bold, verdict.startswith("diff: first"))
    if key not in shared:
        shared[key] = name
for k in sorted(shared):
    print("  Result %-7s fill %-8s bold %-5s first %-5s e.g. %s" % (k + (shared[k],)))
PY
probe-metric --xlsx --rows-per-file 5 < /dev/null; echo "--rows-per-file with --xlsx: status $?"
