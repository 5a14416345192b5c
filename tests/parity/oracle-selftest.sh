# The oracle itself (tests/oracle/selftest.py): it reproduces msprobe's own CSVs for the
# fixtures (SKIP when they are absent) and the worked example of the reference, and every
# expected.csv of the corpus is what it says now.
python3 "$TESTS/oracle/selftest.py" 2>&1 | sed -n 's/^\(ok\|not ok\) [0-9]* - /\1 1 - oracle: /p' | awk '{ sub(/ 1 - /, " " NR " - "); print }'
