# msprobe-compare.md section 11.1: msprobe's own output for these two dumps (the expected
# file holds msprobe's CSV as the reference quotes it, not ours).
. "$TESTS/data/worked-11-1.sh"
probe-flatten npu | probe-match bench | probe-metric --csv
