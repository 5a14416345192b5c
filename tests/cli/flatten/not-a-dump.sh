# A JSON that is not a dump: a clear error naming the position, status 2, and an
# error record as the last line of stdout so that no consumer takes it for a result.
echo '{"task": "statistics", "dta": {}}' > dump.json
probe-flatten dump.json
