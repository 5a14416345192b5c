# probe-metric --csv on the generated verl dumps writes msprobe's table of
# compare --consistent_check --backend fsdp|megatron.  Its rows are those of msprobe's own output
# for the reference dumps of the same model (../shared/fixtures/verl/expected, counted there):
#   fsdp      144 rows: 60 matched, 42 training-only (Bench Name N/A), 42 inference-only
#   megatron  201 rows: 59 matched, 99 training-only, 43 inference-only
# since the generated dumps have the reference's structure (verl-structure.sh).  The faulted row,
# layer 1's down projection output, is an error (its inputs agree one in a thousand, its output
# not: OneThousandthErr); with --fault none it passes.  The other errors are the structural rows
# msprobe's checkers flag whatever the values (SiLU against SiluAndMul, the decoder layers, ...).
count() { # csv
	python3 - "$1" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
matched = sum(r["NPU Name"] != "N/A" and r["Bench Name"] != "N/A" for r in rows)
train = sum(r["Bench Name"] == "N/A" for r in rows)
infer = sum(r["NPU Name"] == "N/A" for r in rows)
results = {}
for r in rows:
    results[r["Result"]] = results.get(r["Result"], 0) + 1
down = [r for r in rows if r["NPU Name"].endswith((".layers.1._fsdp_wrapped_module.mlp.down_proj.Linear.forward.0.output.0",
                                                    ".layers.1.mlp.linear_fc2.TERowParallelLinear.forward.0.output.0"))]
print("%d rows: %d matched, %d training-only, %d inference-only; %s; layer 1's down projection output: %s %s" % (
    len(rows), matched, train, infer, ", ".join("%d %s" % (n, k) for k, n in sorted(results.items())),
    down[0]["Result"] if down else "absent", down[0]["Err_message"] if down else ""))
PY
}
for b in fsdp megatron; do
	for f in down-proj none; do
		probe-gendump --framework verl-$b --mode tensor --fault $f $b-$f
		probe-flatten $b-$f/target | probe-match --consistency $b $b-$f/golden | probe-metric --csv > $b-$f.csv
		echo "$b $f: exit $?, $(count $b-$f.csv)"
	done
done
head -n 1 fsdp-none.csv
