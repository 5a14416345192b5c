# A tolerance band wide enough to hide noise hides a small first cause: the
# 1% weight change passes --rtol 0.011, and the first leaf beyond it is an
# output whose inputs differ within the band; probe-first says so, and counts
# the earlier leaves that differ below the band.  A band that passes
# everything gives exit 0 and counts what it let through.  A non-finite value
# passes no band.
probe-gendump --fault fc2-weight d > /dev/null
probe-flatten d/target | probe-match d/golden > pairs.ndjson
probe-first pairs.ndjson | jq -c 'select(.first_divergence) | .first_divergence | {leaf, role}'
probe-first --rtol 0.011 pairs.ndjson > out.ndjson; echo "status $?"
jq -c 'select(.first_divergence) | .first_divergence | {leaf, role, inputs, earlier_within_band, why}' out.ndjson
probe-first --rtol 0.02 pairs.ndjson > out.ndjson; echo "status $?"
jq -c '.summary.ranks[0] | {diff, within_band}' out.ndjson
probe-gendump --fault inf i > /dev/null
probe-flatten i/target | probe-match i/golden | probe-first --rtol 1e9 --atol 1e9 | jq -c 'select(.first_divergence) | .first_divergence | {leaf, role}'
