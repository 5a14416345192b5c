# A band lets small statistics differences through; a non-finite value never passes.
probe-gendump --fault fc2-weight-tiny tiny > /dev/null
probe-flatten tiny/target | probe-match tiny/golden > pairs
for band in "" "--rtol 1e-6" "--atol 1e-3"; do
	echo "band '$band': $(probe-metric $band pairs | jq -r .verdict | sort | uniq -c | tr -s ' \n' ' ')"
done
probe-gendump --fault nan nan > /dev/null
probe-flatten nan/target | probe-match nan/golden | probe-metric --rtol 1e9 --atol 1e9 |
	jq -r 'select(.verdict == "diff") | .reason' | head -1
