# The verl dumps in statistics mode (msprobe's default task: no tensor files), through the same
# pipeline: our verdict compares the dumped statistics (the joined q/k/v and gate/up rows on their
# statistics recombined), and calls "diff" the keys the down-proj fault reaches, as in tensor
# mode (verl-consistency.sh says why those), and none with --fault none.
# msprobe's statistics table (probe-metric --csv) is not checked here: its consistency table in
# statistics mode is being reworked.
down_fsdp="1:down_proj:forward.0.output.0 1:mlp:forward.0.output.0 -1:norm:forward.0.output.0"
down_megatron="1:down_proj:forward.0.output.0 1:mlp:forward.0.output.0"
check() { # backend fault expected-keys
	probe-gendump --framework verl-$1 --fault $2 $1-$2
	probe-flatten $1-$2/target | probe-match --consistency $1 $1-$2/golden | probe-metric > m.ndjson
	jq -r 'select(.verdict == "diff") | .key' m.ndjson > got
	for w in $3; do echo "$w"; done > want
	if cmp -s want got; then
		echo "$1 $2, statistics: the $(wc -l < got | tr -d ' ') diff keys of tensor mode"
	else
		echo "$1 $2, statistics: the diff keys are not tensor mode's:"
		diff want got
	fi
	echo "  verdicts: $(jq -r .verdict m.ndjson | sort | uniq -c | awk '{printf "%s %s, ", $1, $2}' | sed 's/, $//')"
}
check fsdp down-proj "$down_fsdp"
check megatron down-proj "$down_megatron"
check fsdp none ""
check megatron none ""
