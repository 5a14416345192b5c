# probe-metric -o DIR --xlsx on msprobe-example step1 vs step0 writes msprobe's
# workbook: the file name, the sheets, and every cell's value and type equal to
# msprobe's own workbook for the same compare (../shared/fixtures/xlsx), read
# back by a reader of the standard library (xlsx_render.py), which must first
# render msprobe's workbook as the fixture's CSV rendering does; and the C
# reader probe-merge uses (test_xlsxr --dump) must render it the same.  The
# header's style is msprobe's, and no other cell has one.
set -u
n=0
X=$FIXTURES/xlsx/expected/02_example_step1_vs_step0_xlsx
E=$FIXTURES/msprobe-example
here=$(cd "$(dirname "$0")" && pwd)
test_xlsxr=$(dirname "$(command -v probe-flatten)")/../tests/test_xlsxr
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $FIXTURES is absent"
}
same_rendering() { # label dir-of-rendering
	n=$((n + 1))
	for f in "$X"/csv/*.csv "$X"/csv/types/*.csv; do
		rel=${f#"$X"/csv/}
		ours=$(ls "$2/$(dirname "$rel")"/*"__${rel##*__}" 2> /dev/null | head -1)
		if [ -z "$ours" ] || ! cmp -s "$f" "$ours"; then
			echo "not ok $n - $1: $rel differs"
			[ -n "$ours" ] && diff "$f" "$ours" | head -n 10 | sed 's/^/# /'
			return
		fi
	done
	echo "ok $n - $1"
}
if [ ! -d "$X" ] || [ ! -d "$E" ]; then
	for t in "the reference renderer reads msprobe's workbook as the fixture does" "the C reader too" \
		"the workbook's name" "its sheets and every cell as msprobe's" "the header style is msprobe's"; do
		skip "$t"
	done
	exit 0
fi

python3 "$here/xlsx_render.py" "$X"/compare_result_*.xlsx "$tmp/theirs" 2> "$tmp/err"
same_rendering "the reference renderer reads msprobe's workbook as the fixture does" "$tmp/theirs"

if "$test_xlsxr" --dump "$X"/compare_result_*.xlsx "$tmp/c" 2> "$tmp/err"; then
	same_rendering "the C reader (test_xlsxr --dump) reads msprobe's workbook as the fixture does" "$tmp/c"
else
	n=$((n + 1))
	echo "not ok $n - the C reader failed on msprobe's workbook"
	sed 's/^/# /' "$tmp/err"
fi

mkdir "$tmp/out"
probe-flatten "$E/step1" | probe-match "$E/step0" | probe-metric -o "$tmp/out" --xlsx 2> "$tmp/err"
n=$((n + 1))
book=$(ls "$tmp/out")
if echo "$book" | grep -Eqx 'compare_result_proc2016_[0-9]{14}\.xlsx'; then
	echo "ok $n - the workbook's name is msprobe's: compare_result_proc2016_<time>.xlsx"
else
	echo "not ok $n - the workbook's name: $book"
	sed 's/^/# /' "$tmp/err"
fi

python3 "$here/xlsx_render.py" "$tmp/out/$book" "$tmp/ours" 2> "$tmp/err"
same_rendering "Sheet1 alone, 2823 rows, every cell's value and type as in msprobe's workbook" "$tmp/ours"

n=$((n + 1))
if python3 - "$tmp/out/$book" > "$tmp/style" 2>&1 <<'PY'
import re, sys, zipfile
import xml.etree.ElementTree as ET
M = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
z = zipfile.ZipFile(sys.argv[1])
st = ET.fromstring(z.read("xl/styles.xml"))
fonts = st.find(M + "fonts").findall(M + "font")
borders = st.find(M + "borders").findall(M + "border")
fills = st.find(M + "fills").findall(M + "fill")
xfs = st.find(M + "cellXfs").findall(M + "xf")
sheet = ET.fromstring(z.read("xl/worksheets/sheet1.xml"))
problems = []
for row in sheet.iter(M + "row"):
    for c in row.findall(M + "c"):
        s = int(c.get("s", "0"))
        xf = xfs[s]
        if row.get("r") == "1":
            font = fonts[int(xf.get("fontId", "0"))]
            border = borders[int(xf.get("borderId", "0"))]
            al = xf.find(M + "alignment")
            ok = font.find(M + "b") is not None and all(
                border.find(M + side) is not None and border.find(M + side).get("style") == "thin"
                for side in ("left", "right", "top", "bottom")) and al is not None and \
                al.get("horizontal") == "center" and al.get("vertical") == "top"
            if not ok:
                problems.append("header cell %s: not bold, thin-bordered, centred and top-aligned" % c.get("r"))
        elif s != 0:
            problems.append("cell %s has a style" % c.get("r"))
for tag in ("pane", "autoFilter", "cols", "conditionalFormatting"):
    if sheet.find(".//" + M + tag) is not None:
        problems.append("the sheet has %s (msprobe's has none)" % tag)
print("\n".join(problems[:10]))
sys.exit(1 if problems else 0)
PY
then
	echo "ok $n - the header style is msprobe's (bold, thin border, centred, top) and nothing else is styled"
else
	echo "not ok $n - the styles differ from msprobe's"
	sed 's/^/# /' "$tmp/style"
fi
