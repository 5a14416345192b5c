# probe-merge's refusals, as msprobe merge_result gives them where they make sense:
# one rank, md5 results, an index the mode has not, no api, names msprobe refuses;
# and what it accepts that msprobe refuses (CSV, records).  Exit 2, nothing on stdout.
run() { # label args...
	label=$1; shift
	probe-merge "$@" > out 2> err; status=$?
	echo "$label: status $status, $(wc -c < out) bytes out"
	sed 's/^/  /; s/_[0-9]\{14\}/_TIMESTAMP/g' err
}
probe-gendump --ranks 2 run > /dev/null
probe-gendump --ranks 2 --mode md5 md5 > /dev/null
mkdir two one md5s
probe-flatten run/target | probe-match run/golden | probe-metric -o two --xlsx
probe-flatten md5/target | probe-match md5/golden | probe-metric -o md5s --xlsx
cp two/compare_result_rank0_*.xlsx one/
run "one rank" --api all_reduce one
run "md5 results" --api all_reduce md5s
run "an index statistics mode has not" --api all_reduce --index Cosine two
run "no api" two
printf 'compare_index:\n  - Max diff\n' > noapi.yaml
run "a config without api" -c noapi.yaml two
printf 'api: all_reduce\n' > scalar.yaml
run "api not a list" -c scalar.yaml two
printf 'api: [all_reduce\n' > broken.yaml
run "a YAML syntax error" -c broken.yaml two
cp two/compare_result_rank0_*.xlsx two/result_of_rank0.xlsx
run "a name msprobe refuses" --api all_reduce two
rm two/result_of_rank0.xlsx
cp two/compare_result_rank0_*.xlsx "two/compare_result_rank_$(date +%Y%m%d%H%M%S).xlsx"
run "a single-rank name is left out (msprobe's warning)" --api all_reduce two
rm two/compare_result_rank_*.xlsx
cp two/compare_result_rank1_*.xlsx "two/compare_result_rank1-rank1_$(date +%Y%m%d%H%M%S).xlsx"
run "two results for rank 1" --api all_reduce two
rm two/compare_result_rank1-rank1_*.xlsx
printf 'not a zip' > "two/compare_result_rank3_$(date +%Y%m%d%H%M%S).xlsx"
run "a file that is not a workbook" --api all_reduce two
rm two/compare_result_rank3_*.xlsx
run "an API no rank has (msprobe would write empty sheets)" --api no_such_op two
run "--groups with -o" --groups -o . two
run "--format text without --groups" --api all_reduce --format text two
run "no input" --api all_reduce
