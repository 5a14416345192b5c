# md5 mode is detected from the leaves; its CSV has the CRC columns and the CRC checker only.
probe-gendump --mode md5 run > /dev/null
probe-flatten run/target | probe-match run/golden | probe-metric --csv | head -3 | cut -c1-160
probe-flatten run/target | probe-match run/golden | probe-metric | jq -c 'select(.t.name == "Functional.linear.1.forward.input.1") | [.msprobe, .metrics.md5_match]'
