# --framework atb: the same options give the same bytes (OUTDIR is in statistic.csv's Tensor Paths, so
# both runs use the same OUTDIR name, in two directories); another seed gives other values; --fault
# none gives a target that differs from the golden only by its pid.
for opts in "" "--mode tensor --save-child" "--mode tensor --save-child --filter-level 1 --steps 2 --layers 3 --device 2"; do
	mkdir -p one two
	(cd one && probe-gendump --framework atb $opts run)
	(cd two && probe-gendump --framework atb $opts run)
	diff -r one two > /dev/null && echo "${opts:-defaults}: same bytes ($(find one -type f | wc -l) files)"
	rm -rf one two
done
probe-gendump --framework atb --seed 2 s2
probe-gendump --framework atb --seed 3 s3
cmp -s s2/golden/atb_dump_data/data/0_39943/0/statistic.csv s3/golden/atb_dump_data/data/0_39943/0/statistic.csv ||
	echo "--seed: other statistics"
# --fault none: every file the golden's, an alias's pid aside (atbcheck.py compares them), the same csv
probe-gendump --framework atb --mode tensor --save-child --filter-level 1 --fault none n
python3 "$TESTS/cli/gendump/atbcheck.py" fault n none || echo "atbcheck: exit $?"
sed 's/0_39943/0_PID/g; s#/golden/#/SIDE/#' n/golden/atb_dump_data/data/0_39943/0/statistic.csv > g.csv
sed 's/0_276107/0_PID/g; s#/target/#/SIDE/#' n/target/atb_dump_data/data/0_276107/0/statistic.csv > t.csv
cmp -s g.csv t.csv && echo "--fault none: statistic.csv the same but for the pid and the side"
