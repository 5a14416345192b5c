# probe-merge on compare results without the table they claim: a workbook whose rows come
# before any header row, whose first sheet (part_0) is empty while part_1 holds rows, whose
# sheet has no rows or a header and nothing else, and CSV results that are empty, a header
# only, or a split table whose first part is empty.  Each used to reach code that took the
# header's rows for granted (a NULL dereference in merge.c: SIGSEGV); each must be a clear
# error naming the file (and the sheet and row when there is one), exit 2, with nothing on
# stdout and no workbook in -o's folder: no output that could pass for a complete merge.
# A header with no row under it is a table of no rows, not broken: it merges as an empty
# table (exit 0), as msprobe's read_excel reads it.
probe-gendump --ranks 2 run > /dev/null
mkdir x c
probe-flatten run/target | probe-match run/golden | probe-metric > recs
probe-metric -o x --xlsx < recs
probe-metric -o c < recs
x0=$(ls x/compare_result_rank0_*.xlsx) x1=$(ls x/compare_result_rank1_*.xlsx)
c0=$(ls c/compare_result_rank0_*.csv) c1=$(ls c/compare_result_rank1_*.csv)
# workbook MODE SRC DST: SRC's sheet rewritten (the zip made again, every other member as it was)
workbook() {
	python3 - "$@" <<'PY'
import re, sys, zipfile
mode, src, dst = sys.argv[1:]
z = zipfile.ZipFile(src)
members = {n: z.read(n) for n in z.namelist()}
sheet = members["xl/worksheets/sheet1.xml"].decode()
head, rows, tail = re.match(r"(.*<sheetData>)(.*)(</sheetData>.*)", sheet, re.S).groups()
rows = re.findall(r"<row .*?</row>", rows, re.S)
if mode == "no-header":        # the data rows only: row 2 comes first
    sheet = head + "".join(rows[1:]) + tail
elif mode == "no-rows":
    sheet = head + tail
elif mode == "header-only":
    sheet = head + rows[0] + tail
elif mode == "empty-part0":    # part_0 without rows, part_1 the whole table
    members["xl/worksheets/sheet2.xml"] = sheet.encode()
    sheet = head + tail
    wb = members["xl/workbook.xml"].decode().replace('name="Sheet1"', 'name="part_0"')
    wb = wb.replace('</sheets>', '<sheet name="part_1" sheetId="2" r:id="rId9"/></sheets>')
    members["xl/workbook.xml"] = wb.encode()
    rels = members["xl/_rels/workbook.xml.rels"].decode()
    rels = rels.replace('</Relationships>', '<Relationship Id="rId9" Type="http://schemas.openxmlformats.org/'
                        'officeDocument/2006/relationships/worksheet" Target="worksheets/sheet2.xml"/></Relationships>')
    members["xl/_rels/workbook.xml.rels"] = rels.encode()
members["xl/worksheets/sheet1.xml"] = sheet.encode()
with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as out:
    for n, data in members.items():
        out.writestr(n, data)
PY
}
run() { # label args...: status, bytes on stdout, stderr (the time in names made constant)
	label=$1; shift
	probe-merge "$@" > out 2> err; status=$?
	echo "$label: status $status, $(wc -c < out) bytes out"
	sed 's/^/  /; s/_[0-9]\{14\}/_TIMESTAMP/g' err
}
for mode in no-header empty-part0 no-rows header-only; do
	rm -rf "$mode" && mkdir "$mode" "$mode.out"
	workbook "$mode" "$x0" "$mode/${x0#x/}"
	cp "$x1" "$mode/"
	run "workbook, $mode" --api all_reduce "$mode"
	run "workbook, $mode, --groups" --groups "$mode"
	run "workbook, $mode, -o" --api all_reduce -o "$mode.out" "$mode"
	echo "  in -o's folder: $(ls "$mode.out" | sed 's/_[0-9]\{14\}/_TIMESTAMP/g' | tr '\n' ' ')"
done
mkdir csv-empty csv-header csv-parts
: > "csv-empty/${c0#c/}"
head -1 "$c0" > "csv-header/${c0#c/}"
cp "$c1" csv-empty/
cp "$c1" csv-header/
b=${c0#c/}
: > "csv-parts/${b%.csv}_part_1.csv"
cp "$c0" "csv-parts/${b%.csv}_part_2.csv"
cp "$c1" csv-parts/
for d in csv-empty csv-header csv-parts; do
	run "$d" --api all_reduce "$d"
	run "$d, --groups" --groups "$d"
done
