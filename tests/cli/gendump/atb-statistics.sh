# The statistics of --framework atb's statistics task are those atbcheck.py recomputes from the tensor
# task's files of the same run (Max, Min exact, Mean and Norm of the stored values in double, %f;
# integers' Max and Min as integers, bool N/A), for every row of both sides; and the two tasks write
# the same rows.
check() { python3 "$TESTS/cli/gendump/atbcheck.py" "$@" || echo "atbcheck $1: exit $?"; }
for opts in "--save-child" "--save-child --steps 2 --layers 3 --width 40 --batch 7 --seed 5" \
	"--fault linear-weight --width 8 --batch 1"; do
	echo "== $opts"
	rm -rf s t
	probe-gendump --framework atb $opts s
	probe-gendump --framework atb --mode tensor $opts t
	check stats s t
done
# the rows of the defaults, target side
probe-gendump --framework atb one
cat one/target/atb_dump_data/data/0_276107/0/statistic.csv
