# probe-metric -o names its tables as msprobe does, compare_result_rank0_<second>.csv
# (issue 17, class 6).  A table of that name that is there already (an earlier run in
# the same second, a run going on at the same time) is never replaced: the new table
# gets the name with _2, _3, ... after the time (N below).  Each step below is a run of its own,
# as in a loop over steps; every table must be there afterwards, whole.
probe-gendump --steps 4 --layers 2 d > /dev/null
for s in 0 1 2 3; do probe-flatten d/target/step$s | probe-match d/golden/step$s > pairs$s; done
stamps() { # msprobe's names for the next few seconds, with what a file of an earlier run holds
	now=$(date +%s)
	for i in 0 1 2 3 4 5 6 7 8 9; do
		echo "earlier run" > "$1/compare_result_rank0_$(date -d @$((now + i)) +%Y%m%d%H%M%S).csv"
	done
}
tables() { # dir [sed]: the names (time stamps and the numbers after them replaced: the runs may span seconds) and what each holds
	for f in "$1"/*.csv; do
		printf '  %s: %s\n' "$(basename "$f" | sed "s/_[0-9]\{14\}/_TIME/; s/_TIME_[0-9][0-9]*/_TIME_N/; ${2:-}")" \
			"$(if [ "$(cat "$f")" = "earlier run" ]; then echo "the earlier run's"; else echo "$(wc -l < "$f") lines, $(grep -c '^NPU Name,' "$f") header"; fi)"
	done | sort | uniq -c
}
mkdir a
stamps a
for s in 0 1 2 3; do probe-metric -o a pairs$s || echo "step $s: status $?"; done
echo "four runs into a directory where every name of these seconds is taken:"
tables a
mkdir b
for s in 0 1 2 3; do probe-metric -o b pairs$s & done
wait
echo "four runs at once into one directory: $(ls b | wc -l) tables (_TIME: with or without a number after it)"
tables b "s/_TIME_N/_TIME/"
echo "  rows: $(cat b/*.csv | grep -vc '^NPU Name,'), as in the four inputs: $(cat pairs0 pairs1 pairs2 pairs3 | jq -c 'select(.t != null)' | wc -l)"
# a table in parts moves as a whole: one of its names taken gives every part the next name
mkdir c
now=$(date +%s)
for i in 0 1 2 3 4 5 6 7 8 9; do
	echo "earlier run" > "c/compare_result_rank0_$(date -d @$((now + i)) +%Y%m%d%H%M%S)_part_2.csv"
done
probe-metric -o c --rows-per-file 30 pairs0; echo "a table in parts, its second part's name taken: status $?"
tables c
echo "  left behind: $(find a b c -name '*.partial' | wc -l) temporary files"
