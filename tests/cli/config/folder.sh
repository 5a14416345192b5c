# A pack as a folder (the layout msprobe extracts a zip to) reads as its zip does: the same
# records from folder against folder, zip against folder, and folder against zip; a trailing
# slash changes nothing but the path in the summary.
probe-gendump --framework config-check --fault lr,pip p || exit
python3 -m zipfile -e p/bench.zip bench || exit
python3 -m zipfile -e p/cmp.zip cmp || exit
probe-config p/bench.zip p/cmp.zip > zip.rec; echo "zips: status $?"
probe-config bench cmp > dir.rec; echo "folders: status $?"
probe-config p/bench.zip cmp/ > mixed.rec; echo "zip and folder: status $?"
grep -v summary zip.rec > a; grep -v summary dir.rec > b; grep -v summary mixed.rec > c
cmp a b && cmp a c && echo "the same $(wc -l < a) findings"
jq -c 'select(.summary) | [.summary.bench, .summary.cmp, .summary.alike]' zip.rec dir.rec mixed.rec
