# --print-tensors: the tensors behind the statistics, checked here against the dump's Max.
probe-gendump --print-tensors run | head -2 | cut -c1-120
probe-gendump --print-tensors run | awk -F'\t' '$1 == "Functional.linear.0.forward.output.0" {
	n = split($3, v, " "); m = v[1]; for (i = 2; i <= n; i++) if (v[i] + 0 > m + 0) m = v[i]; print "max of the values:", m }'
probe-flatten run/golden | jq -r 'select(.name == "Functional.linear.0.forward.output.0") | "max in the dump: \(.max)"'
