# An msprobe compare_result CSV reads back as metric records: msprobe's verdict as it
# wrote it, leaves rebuilt from its columns, and our verdict on them.
probe-gendump run > /dev/null
probe-flatten run/target | probe-match run/golden | probe-metric -o . > /dev/null
mv compare_result_rank0_*.csv compare_result_rank0_20261129000000.csv
probe-flatten --list compare_result_rank0_20261129000000.csv
probe-flatten compare_result_rank0_20261129000000.csv > from-csv
wc -l < from-csv
jq -c 'select(.t.name == "Functional.linear.1.forward.input.1") | [.t.rank, .t.entry, .t.state, .t.max, .g.max, .msprobe.result, .verdict]' from-csv
jq -c 'select(.t.name == "Functional.linear.0.forward.input.0") | .t.stack[2]' from-csv
echo "the same verdicts as probe-metric's:"
probe-flatten run/target | probe-match run/golden | probe-metric | jq -r '[.t.name, .verdict, .msprobe.result] | @tsv' > direct
jq -r '[.t.name, .verdict, .msprobe.result] | @tsv' from-csv | cmp - direct && echo same
printf 'NPU Name,Bench Name,Result\n"unterminated\n' > compare_result_bad.csv
probe-flatten compare_result_bad.csv; echo "status $?"
