# Empty input is trouble (exit status 2), never "no difference": an empty
# file, one of blanks only, and two files whose prompts have no tokens at
# all.  A file with prompts against an empty one names the empty one.
: > empty.ndjson
printf '\n  \n' > blank.ndjson
printf '[]\n{"ids":[]}\n' > no-tokens.ndjson
printf '[1]\n[2]\n' > two.ndjson
probe-tokens empty.ndjson empty.ndjson; echo "status $?"
probe-tokens blank.ndjson two.ndjson; echo "status $?"
probe-tokens two.ndjson empty.ndjson; echo "status $?"
probe-tokens no-tokens.ndjson no-tokens.ndjson; echo "status $?"
printf '[]\n' > empty-document.json
probe-tokens empty-document.json empty-document.json; echo "status $?"
# prompts without tokens in one run only are a difference: "ends" at 0
probe-tokens no-tokens.ndjson two.ndjson > out; echo "status $?"
jq -c 'select(.prompt != null) | [.status, .position, .g.id]' out
