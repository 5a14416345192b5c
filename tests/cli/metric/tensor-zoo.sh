# Every case of the generator's tensor zoo gets the metrics and Result msprobe
# gives it (tests/data/zoo/expected.tsv, computed independently), in the
# torch 1.x and 2.x layouts; and our bitwise verdict on each.
for layout in torch1 torch2; do
	probe-gendump --mode tensor --pt-layout $layout --zoo z-$layout > /dev/null
	probe-flatten z-$layout/target | probe-match z-$layout/golden > pairs.ndjson
	probe-metric --csv pairs.ndjson > zoo.csv
	python3 - zoo.csv "$TESTS/data/zoo/expected.tsv" $layout <<'PY'
import csv, sys
rows = {r["NPU Name"]: r for r in csv.DictReader(open(sys.argv[1]))}
cols = ["Cosine", "EucDist", "MaxAbsErr", "MaxRelativeErr", "One Thousandth Err Ratio", "Five Thousandths Err Ratio"]
bad = 0
n = 0
for line in open(sys.argv[2]):
    if line.startswith("#"):
        continue
    f = line.rstrip("\n").split("\t")
    want = ["unsupported" if x == "u" else x for x in f[1:7]] + [f[7]]
    r = rows.get("Tensor.zoo_%s.0.forward.output.0" % f[0])
    got = [r[c] for c in cols] + [r["Result"]] if r else None
    n += 1
    if got != want:
        bad += 1
        print("  %s: got %s, want %s" % (f[0], got, want))
inputs = [r for k, r in rows.items() if k.startswith("Tensor.zoo_") and ".input.0" in k]
ok_inputs = sum(1 for r in inputs if [r[c] for c in cols] == ["1.0", "0.0", "0.0", "0.0", "1.0", "1.0"])
print("%s: %d cases, %d differ; %d of %d input rows perfect" % (sys.argv[3], n, bad, ok_inputs, len(inputs)))
PY
done
# ours: which zoo outputs are the same bytes, which differ, which could not be read
probe-metric pairs.ndjson | jq -r 'select(.t.entry // "" | startswith("Tensor.zoo_")) | select(.t.state == "output") |
	"\(.t.entry | sub("Tensor.zoo_"; "") | sub(".0.forward"; "")) \(.verdict) \(.metrics.tensor.differ // "-") \(.metrics.tensor.first_diff // "-") \(.metrics.tensor.max_ulp // "-")"'
# .npy tensor dumps: msprobe (PyTorch) does not read them, so its cells say unsupported; ours still compare
probe-gendump --mode tensor --format npy n > /dev/null
probe-flatten n/target | probe-match n/golden | probe-metric |
	jq -c 'select(.t.name == "Functional.linear.1.forward.input.1") | {verdict, cos: .msprobe.Cosine, tensor: (.metrics.tensor | {elements, differ, same})}'
