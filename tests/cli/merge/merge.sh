# probe-merge on generated multi-rank runs (4 and 16 ranks), checked against a second
# implementation of msprobe merge_result's rules (oracle.py, from the reference) and
# shown as the workbook's sheets: msprobe's file name and sheets, the rows of the
# configured APIs, numbers where a column is numeric, the N/A replacement
# "NPU:<max>  Bench:<max>", an empty cell where a rank lacks a row.
# long: started first in make check (about 7 s plain, 14 s under ASan)
agree() { # label apis indexes csv-dir -- probe-merge-args...: both tables, compared value for value
	label=$1
	python3 "$TESTS/cli/merge/oracle.py" "$2" "$3" "$4"/*.csv > want.ndjson
	shift 5
	probe-merge "$@" > got.ndjson 2> err; status=$?
	if python3 -c '
import json, math, sys
def load(p):
    return [json.loads(l) for l in open(p)]
def norm(v):
    if isinstance(v, str) and v in ("inf", "-inf"):
        return float(v)
    return v
a, b = load(sys.argv[1]), load(sys.argv[2])
def same(x, y):
    x, y = norm(x), norm(y)
    if isinstance(x, float) and isinstance(y, float):
        return x == y or (math.isnan(x) and math.isnan(y))
    return x == y and type(x) == type(y)
ok = len(a) == len(b) and all(p["index"] == q["index"] and p["name"] == q["name"] and p["ranks"].keys() == q["ranks"].keys()
                              and all(same(p["ranks"][k], q["ranks"][k]) for k in p["ranks"]) for p, q in zip(a, b))
sys.exit(0 if ok and a else 1)' want.ndjson got.ndjson; then
		echo "$label: status $status, $(wc -l < got.ndjson) rows, as the oracle's"
	else
		echo "$label: status $status, differs from the oracle's"; diff want.ndjson got.ndjson | head -5
	fi
	sed 's/^/  /; s/_[0-9]\{14\}/_TIMESTAMP/g' err
}

probe-gendump --ranks 4 --fault-rank 2 run4 > /dev/null
probe-flatten run4/target | probe-match run4/golden | probe-metric > run4.records
mkdir csv4 xlsx4 merged
probe-metric -o csv4 < run4.records
probe-metric -o xlsx4 --xlsx < run4.records
printf 'api:\n  - all_reduce\ncompare_index:\n  - Max diff\n  - MeanRelativeErr\n  - Requires_grad Consistent\n' > cfg.yaml
agree "4 ranks, msprobe's xlsx" all_reduce "Max diff,MeanRelativeErr,Requires_grad Consistent" csv4 -- -c cfg.yaml xlsx4
agree "the same from CSV" all_reduce "Max diff,MeanRelativeErr,Requires_grad Consistent" csv4 -- -c cfg.yaml csv4
agree "the same from records (one stream, every rank)" all_reduce "Max diff,MeanRelativeErr,Requires_grad Consistent" csv4 -- -c cfg.yaml run4.records
agree "every index of the mode (no compare_index), two APIs" all_reduce,linear.1 - csv4 -- --api all_reduce --api linear.1 xlsx4

probe-merge -c cfg.yaml -o merged xlsx4 2> err; echo "-o: status $?, $(ls merged | sed "s/_[0-9]\{14\}\./_TIMESTAMP./"); $(sed "s/_[0-9]\{14\}/_TIMESTAMP/" err)"
python3 "$TESTS/parity/xlsx_render.py" merged/*.xlsx sheets
for f in sheets/*.csv; do
	echo "sheet ${f##*__}: $(head -1 "$f"); $(($(wc -l < "$f") - 1)) rows; types $(sed -n 2p "sheets/types/$(basename "${f%.csv}").types.csv")"
	sed -n '2p;5p' "$f" | cut -c1-150
done
probe-merge -c cfg.yaml --format csv xlsx4 | sed -n '1,3p'

# tensor mode: the N/A of non-tensor rows replaced by the two maxima
probe-gendump --mode tensor --ranks 2 tensor > /dev/null
mkdir csvt xlsxt
probe-flatten tensor/target | probe-match tensor/golden | probe-metric -o csvt
probe-flatten tensor/target | probe-match tensor/golden | probe-metric -o xlsxt --xlsx
agree "tensor mode, 2 ranks, from CSV" all_reduce - csvt -- --api all_reduce csvt
probe-merge --api all_reduce xlsxt > got.ndjson; echo "from the workbooks (msprobe's Cosine is a number there):"
grep '"Cosine"' got.ndjson | grep -m2 'input.group\|input.0"'

# 16 ranks, the fault on rank 5, rank 9's all_reduce rows gone
probe-gendump --ranks 16 --fault-rank 5 run16 > /dev/null
mkdir csv16
probe-flatten run16/target | probe-match run16/golden | probe-metric -o csv16
f9=$(ls csv16/compare_result_rank9_*)
grep -v 'all_reduce' "$f9" > tmp.csv && mv tmp.csv "$f9"
agree "16 ranks, rank 9 without all_reduce" all_reduce,relu.0 "Max diff" csv16 -- --api all_reduce --api relu.0 --index "Max diff" csv16
grep -m1 'all_reduce.0.forward.input.0"' got.ndjson

# a table probe-metric -o split into _part_N files is read as one table
mkdir parts
probe-metric -o parts --rows-per-file 30 < run4.records
probe-merge -c cfg.yaml parts > parts.ndjson; probe-merge -c cfg.yaml csv4 > whole.ndjson
echo "$(ls parts | wc -l) part files of 4 ranks: $(cmp -s parts.ndjson whole.ndjson && echo "the same table as the whole files'" || echo differs)"
# --fault all-reduce needs ranks
probe-gendump --fault all-reduce one > /dev/null 2>&1; echo "--fault all-reduce with one rank: status $?"
