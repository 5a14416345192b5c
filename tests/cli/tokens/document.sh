# One JSON document holding the list of prompts (json.dump(outputs, f,
# indent=2)), against the same prompts as NDJSON: the same records, but for
# each prompt's "line" (where it starts in its file).  The document's
# prompts: an array of ids at line 2, an object at line 6, an empty array at
# line 11; the NDJSON's at lines 1, 2, 3.  A gzip-compressed file is read as
# it is; "-" is standard input.
cat > target.json <<'J'
[
  [
    1,
    2
  ],
  {
    "token_ids": [3, 4, 5],
    "logprobs": [-0.25, -0.5, -0.125],
    "text": "abc"
  },
  []
]
J
printf '[1,2]\n{"ids":[3,6,5]}\n[]\n' > golden.ndjson
probe-tokens target.json golden.ndjson; echo "status $?"
jq -c '.[]' target.json > target.ndjson
probe-tokens target.ndjson golden.ndjson | jq -c 'del(.t.line, .g.line)' > a
probe-tokens target.json golden.ndjson | jq -c 'del(.t.line, .g.line)' > b
cmp a b && echo "document and NDJSON: the same records but for the lines"
gzip -c target.json > target.json.gz
probe-tokens target.json.gz golden.ndjson | jq -c 'del(.t.line, .g.line)' | cmp - b && echo "gzip: the same records"
probe-tokens - golden.ndjson < target.json | jq -c 'del(.t.line, .g.line)' | cmp - b && echo "stdin: the same records"
# a document must be the file's only value; its error points into it
printf '[[1],[2]]\n[3]\n' > two.json
probe-tokens two.json golden.ndjson; echo "status $?"
printf '[\n  [1],\n  {"ids": [2, "x"]}\n]\n' > bad.json
probe-tokens bad.json golden.ndjson; echo "status $?"
