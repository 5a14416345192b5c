# msprobe's answer for those who want it: -da (an output statistic that
# changes by more than 50 %, or an md5 mismatch) and overflow_check.  The
# 1% weight fault is below msprobe's 50 %: it finds nothing (exit 0) where
# ours finds the cause.
probe-gendump --fault fc2-weight d > /dev/null
probe-flatten d/target | probe-match d/golden | probe-first --msprobe; echo "status $?"
probe-gendump --mode md5 --fault fc2-weight m > /dev/null
probe-flatten m/target | probe-match m/golden | probe-first --msprobe; echo "status $?"
probe-gendump --fault nan n > /dev/null
probe-flatten n/target | probe-first --nonfinite --msprobe; echo "status $?"
# every answer is valid JSON
probe-flatten m/target | probe-match m/golden | probe-first --msprobe | jq -e . > /dev/null && echo "valid JSON"
probe-flatten n/target | probe-first --nonfinite --msprobe | jq -e . > /dev/null && echo "valid JSON"
