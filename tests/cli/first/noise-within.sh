# Noise only: the generator's decoder with no fault (needle.json's entry null) in
# bf16, fp16 and float32 with reordered reductions, against its float32 golden run,
# differs by rounding alone.  probe-first must answer "within_rounding" with exit
# status 0 and no divergence record, and its summary's rounding count must be the
# number of leaves that differ at all, counted here independently with jq: a pair
# differs when any of dtype, shape, max, min, mean, norm or value differs as JSON,
# or, in tensor mode, when its two saved tensor files differ byte for byte (an ulp of
# float32 that moves no statistic still moves an element: fp32-kernels).  Those
# differences are real, so --bitwise (no budget) must find one: exit 1.  The text
# report starts "within rounding:".  In float32 with no fault the dumps are byte
# for byte the same: "no_divergence" and rounding 0.
# Two sizes (the default, and 3 layers of width 64 on 2 tokens) in statistics mode,
# the smaller in tensor mode too (writing the default's 800 files takes most of a
# second).  Each line: the case, the needle's entry, the leaves counted, ok or MISMATCH.
# long: 12 generated runs, 4 in tensor mode (about 2.5 s plain)
for case in default/statistics small/statistics small/tensor; do
	size=${case%/*} mode=${case#*/}
	for p in bf16 fp16 fp32-kernels fp32; do
		set --
		[ "$size" = small ] && set -- --layers 3 --width 64 --batch 2
		probe-gendump --framework decoder --precision $p --fault none --mode "$mode" "$@" d > /dev/null || echo "gendump failed"
		probe-flatten d/target | probe-match d/golden > pairs.ndjson
		probe-first pairs.ndjson > out.ndjson
		status=$?
		probe-first --bitwise pairs.ndjson > /dev/null
		bstatus=$?
		text=$(probe-first --format text pairs.ndjson | head -n 1)
		# the statistics differ, or (tensor mode) the saved elements: the files' bytes
		for run in target golden; do
			( cd d/$run/step0/rank0/dump_tensor_data 2> /dev/null && md5sum -- * ) > $run.md5
		done
		differ=$(jq -n --rawfile ts target.md5 --rawfile gs golden.md5 '
			def sums: split("\n") | map(select(length > 0) | capture("^(?<sum>[0-9a-f]+) [ *](?<file>.*)$")) |
				map({key: .file, value: .sum}) | from_entries;
			($ts | sums) as $t | ($gs | sums) as $g |
			[inputs | select((.t | {dtype, shape, max, min, mean, norm, value}) != (.g | {dtype, shape, max, min, mean, norm, value})
				or (.t.data_name != null and $t[.t.data_name] != $g[.g.data_name]))] | length' pairs.ndjson)
		if [ $p = fp32 ]; then
			want_answer=no_divergence want_bstatus=0 want_text='no divergence:'
		else
			want_answer=within_rounding want_bstatus=1 want_text='within rounding:'
		fi
		verdict=$(jq -rn --argjson status $status --argjson bstatus $bstatus --argjson differ "$differ" \
			--arg answer $want_answer --argjson want_bstatus $want_bstatus '
			[inputs] as $r | ($r | map(select(.summary)) | .[0].summary) as $s |
			if $status == 0 and ($r | length) == 1 and $s.answer == $answer
			   and $s.rounding == $differ and ($answer == "no_divergence" or $differ > 0)
			   and $bstatus == $want_bstatus
			then "ok" else "MISMATCH: status \($status), \($r | length) records, answer \($s.answer), rounding \($s.rounding) vs \($differ) differing, --bitwise status \($bstatus)" end' out.ndjson)
		case $text in "$want_text"*) ;; *) verdict="$verdict; text MISMATCH: $text" ;; esac
		printf '%-7s %-10s %-12s needle %s, %s leaves differ: %s\n' "$size" "$mode" $p "$(jq -r .entry d/needle.json)" "$differ" "$verdict"
		rm -rf d
	done
done
