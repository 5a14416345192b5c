# --batches N: the ranks of a step in at most N runs of consecutive ranks, an
# --only-ranks LIST a line, balanced by bytes: every rank once, in order; no
# batch holds more than its share of the bytes plus one rank's; as many lines
# as ranks when N is larger; a dump without a rank refused (exit 2) with
# nothing on stdout. The batches run as jobs and their records, joined in
# batch order, equal the serial pipeline's byte for byte.
probe-gendump --ranks 7 --fault-rank 4 --layers 3 d > /dev/null
# rank 5 made four times as large (its entries repeated under new names): the cut moves around it
python3 - d/target/step0/rank5/dump.json d/golden/step0/rank5/dump.json <<'PY'
import json, sys
for p in sys.argv[1:]:
    d = json.load(open(p))
    for k in list(d["data"]):
        for i in range(3):
            d["data"][k.replace(".forward", "_copy%d.forward" % i)] = d["data"][k]
    json.dump(d, open(p, "w"))
PY
for n in 1 2 3 7 20; do
	probe-flatten --batches $n d/target/step0 > b$n; echo "--batches $n: status $?: $(paste -sd' ' b$n)"
	python3 - b$n d/target/step0 $n <<'PY'
import os, sys
lines = open(sys.argv[1]).read().split()
step, n = sys.argv[2], int(sys.argv[3])
size = {int(r[4:]): os.path.getsize(os.path.join(step, r, "dump.json")) for r in os.listdir(step)}
ranks = []
for l in lines:
    b = []
    for part in l.split(","):
        lo, _, hi = part.partition("-")
        b += range(int(lo), int(hi or lo) + 1)
    ranks.append(b)
flat = [r for b in ranks for r in b]
assert flat == sorted(size), flat
assert len(lines) == min(n, len(size)), lines
share = sum(size.values()) / len(lines)
worst = max(sum(size[r] for r in b) for b in ranks)
assert worst <= share + max(size.values()), (worst, share)
print("  every rank once, in order; %d batches; the largest within its share and one rank" % len(lines))
PY
done
probe-flatten --batches 2 d/target/step0/rank3/dump.json; echo "one rank: status $?"
probe-flatten --batches 2 < d/target/step0/rank3/dump.json > out; echo "stdin: status $?, $(wc -c < out) bytes out"
probe-flatten --batches 2 --list d/target > out; echo "with --list: status $?, $(wc -c < out) bytes out"
probe-flatten --batches 3 d/target/step0 | {
	i=0
	while read -r ranks; do
		i=$((i + 1))
		probe-flatten --only-ranks "$ranks" d/target/step0 | probe-match --only-ranks "$ranks" d/golden/step0 |
			probe-metric > part$i.ndjson
	done
}
probe-flatten d/target/step0 | probe-match d/golden/step0 | probe-metric > serial.ndjson
cat part1.ndjson part2.ndjson part3.ndjson | cmp - serial.ndjson && echo "the batches joined: the serial records"
probe-first serial.ndjson | jq -c 'select(.summary) | .summary.started_by'
