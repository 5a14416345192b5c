# Zip bombs in a workbook and a config_check pack (issue 41, class 2): memory and time follow
# what the zip really holds, not what its members claim or inflate to.  Every zip may inflate
# to at most 64 times its size (at least 64 MiB; PROBE_MAX_INFLATE sets it), all the members
# read together: shared strings past it are refused (exit 2, a message naming the file and the
# member) before a byte is inflated; comment parts are never inflated at all; a pack member
# past it is refused the same way.  Each run is under `timeout 20` and, on the normal build,
# `ulimit -v` of 600 MB: a crash or a timeout shows as a status other than 2.  Raising the
# bound through PROBE_MAX_INFLATE lets a moderate member (100 MiB of JSON padding) through.
command -v python3 > /dev/null || { echo "SKIP: python3 is needed to build the zips"; exit 77; }
python3 - <<'PY'
import zipfile
def member(z, name, head, fill, mib, tail):
    info = zipfile.ZipInfo(name); info.compress_type = zipfile.ZIP_DEFLATED
    with z.open(info, 'w', force_zip64=True) as f:
        f.write(head)
        block = fill * ((1 << 20) // len(fill))
        for _ in range(mib):
            f.write(block)
        f.write(tail)
def workbook(path, shared_mib, comments_mib):
    z = zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED)
    z.writestr('[Content_Types].xml', '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>')
    z.writestr('xl/workbook.xml', '<workbook><sheets><sheet name="s" sheetId="1" r:id="rId1" '
               'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"/></sheets></workbook>')
    z.writestr('xl/_rels/workbook.xml.rels', '<Relationships>'
               '<Relationship Id="rId1" Type="http://x/worksheet" Target="worksheets/sheet1.xml"/>'
               '<Relationship Id="rId2" Type="http://x/sharedStrings" Target="sharedStrings.xml"/></Relationships>')
    z.writestr('xl/worksheets/sheet1.xml', '<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row>'
               '</sheetData></worksheet>')
    member(z, 'xl/sharedStrings.xml', b'<sst><si><t>', b'a', shared_mib, b'</t></si></sst>')
    for i in range(3 if comments_mib else 0):
        member(z, 'xl/comments%d.xml' % (i + 1), b'<comments>', b' ', comments_mib, b'</comments>')
    z.close()
workbook('compare_result_rank0_20250101000000.xlsx', 300, 0)
workbook('compare_result_rank1_20250101000000.xlsx', 0, 200)
z = zipfile.ZipFile('weights.zip', 'w', zipfile.ZIP_DEFLATED)
z.writestr('env', '{"A": "1"}')
member(z, 'weights/step0/rank0/weight.json', b'{"w": [', b'0,', 150, b'0]}')
z.close()
z = zipfile.ZipFile('padded.zip', 'w', zipfile.ZIP_DEFLATED)
member(z, 'env', b'{"A": "1"', b' ', 100, b'}')
z.close()
PY
for f in compare_result_rank0_20250101000000.xlsx compare_result_rank1_20250101000000.xlsx weights.zip padded.zip; do
	ls -l $f | awk '{ printf "%s: %d KB on disk\n", $9, ($5 + 1023) / 1024 }'
done
# ulimit -v is for the normal build: the sanitizers reserve terabytes of address space
asan=; grep -q __asan_init "$(command -v probe-merge)" && asan=1
run() { # status of the command, under the bounds
	( [ -n "$asan" ] || ulimit -v 600000; timeout 20 "$@" > out 2> err ); echo "status $?"
	sed 's/^/  /' err | cut -c1-300
}
echo "--- probe-merge: shared strings of 300 MiB in a small workbook"
run probe-merge --api Tensor.add compare_result_rank0_20250101000000.xlsx
echo "--- probe-merge: three comment parts of 200 MiB (never inflated)"
run probe-merge --api Tensor.add compare_result_rank1_20250101000000.xlsx
echo "--- probe-config: a weights JSON of 150 MiB"
run probe-config weights.zip weights.zip
echo "--- probe-config: an env of 100 MiB, refused by default"
run probe-config padded.zip padded.zip
echo "--- the same, PROBE_MAX_INFLATE=200M"
PROBE_MAX_INFLATE=200M run probe-config padded.zip padded.zip
echo "--- PROBE_MAX_INFLATE=lots"
PROBE_MAX_INFLATE=lots run probe-config padded.zip padded.zip
