# Two runs of a tool into one -o DIR in the same second: each names its file by the time,
# to the second, and the second run used to replace the first's (probe-graph, probe-plot;
# both exit 0): a result lost without a word.  Every tool whose -o DIR names files by the
# time follows probe-metric's rule (partial.h, partial_numbered_name): a name a file has is
# never taken again; the run gets the next, _2, _3, ... before the suffix.  The test needs
# no clock of its own: it plants a file under each name the next seconds would give, so
# that every run meets a taken name, then runs each tool twice: the planted files must be
# as they were, and the two runs' files two more, named _<N> (N >= 2), not one name.
probe-gendump --ranks 2 run > /dev/null
probe-flatten run/target | probe-match run/golden | probe-metric > m.ndjson
mkdir x
probe-metric -o x --xlsx < m.ndjson
# plant DIR PREFIX SUFFIX: a file under the name of each second from now - 2 s to now + 30 s
plant() {
	mkdir -p "$1"
	now=$(date +%s)
	for s in $(seq $((now - 2)) $((now + 30))); do
		echo planted > "$1/$2_$(date -d "@$s" +%Y%m%d%H%M%S)$3"
	done
}
# check DIR PREFIX SUFFIX LABEL: the planted files kept, and the runs' files
check() {
	kept=$(grep -lx planted "$1"/* | wc -l)
	new=$(cd "$1" && for f in "$2"_*"$3"; do grep -qx planted "$f" || echo "$f"; done |
		sed "s/^$2_[0-9]\{14\}_[2-9]$3\$/$2_TIME_N$3/" | sort | uniq -c | tr -s ' \n' ' ')
	echo "$4: $kept planted files kept; the runs' files:$new"
}
twice() { # DIR PREFIX SUFFIX LABEL command...
	dir=$1 prefix=$2 suffix=$3 label=$4; shift 4
	plant "$dir" "$prefix" "$suffix"
	"$@" > /dev/null 2> err1; s1=$?
	"$@" > /dev/null 2> err2; s2=$?
	echo "$label: status $s1, $s2"
	check "$dir" "$prefix" "$suffix" "$label"
}
twice g compare .vis.db "probe-graph -o" probe-graph -o g m.ndjson
twice gh compare .html "probe-graph -o --format html" probe-graph -o gh --format html m.ndjson
twice gj compare .ndjson "probe-graph -o --format json" probe-graph -o gj --format json m.ndjson
twice p plot .svg "probe-plot -o" probe-plot -o p m.ndjson
twice ph plot .html "probe-plot -o --format html" probe-plot -o ph --format html m.ndjson
twice mg multi_ranks_compare_merge .xlsx "probe-merge -o" probe-merge --api all_reduce -o mg x
twice mt compare_result_rank0 .csv "probe-metric -o (rank 0)" probe-metric -o mt m.ndjson
# probe-merge says which name it took
probe-merge --api all_reduce -o mg x 2>&1 >/dev/null | sed 's/_[0-9]\{14\}_[2-9]/_TIME_N/'
