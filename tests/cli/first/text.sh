# The report for people, and -n for the first few divergences.
probe-gendump --fault linear1-output d > /dev/null
probe-flatten d/target | probe-match d/golden | probe-first --format text; echo "status $?"
probe-flatten d/target | probe-match d/golden | probe-first -n 3 | jq -c 'select(.first_divergence) | .first_divergence | {n, leaf, role, inputs}'
probe-gendump --fault none s > /dev/null
probe-flatten s/target | probe-match s/golden | probe-first --format text; echo "status $?"
# with the stacks attached before matching, the report shows the frames and the modules
probe-gendump t > /dev/null
probe-flatten t/target | probe-stack -u | probe-match t/golden | probe-first --format text | sed -n '/stack/,$p'
