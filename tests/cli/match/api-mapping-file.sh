# --api-mapping=FILE (msprobe -am FILE) on the small MindSpore target and PyTorch golden of
# tests/data/match/layer: the expected pairs, worked out by hand from msprobe-crossfw.md:
# Mint.matmul's argument 0 is the golden's argument 1 and its output 0 the golden's 0
# (outputs read from ms_outputs / pt_outputs, as documented); the backward input 0 then
# looks for the golden's backward input 1, which is not there; Mint.add's entry names a
# golden API the golden lacks (Torch.plus), so the built-in table maps it (Mint -> Torch);
# an entry with lists of different lengths is dropped with a warning.
cp -r "$TESTS/data/match/layer" .
cd layer
cat > am.yaml <<'YAML'
- ms_api: Mint.matmul
  pt_api: Torch.matmul
  ms_args: [0]
  pt_args: [1]
  ms_outputs: [0]
  pt_outputs: [0]
- ms_api: Mint.add
  pt_api: Torch.plus
  ms_args: [0]
  pt_args: [0]
- ms_api: Mint.add
  pt_api: Torch.add
  ms_args: [0, 1]
  pt_args: [0]
YAML
probe-flatten t | probe-match --partial --api-mapping=am.yaml g > pairs.ndjson; echo "status $?"
jq -r 'select(.t != null and (.t.name | test("matmul|add"))) | "\(.t.name) [\(.key)] -> \(.g.name // "-")"' pairs.ndjson
# errors: not a list; an entry without pt_api; an index that is a list
printf 'ms_api: Mint.add\n' > map.yaml
probe-match --api-mapping=map.yaml g < /dev/null; echo "status $?"
printf -- '- ms_api: Mint.add\n  ms_args: [0]\n' > nopt.yaml
probe-match --api-mapping=nopt.yaml g < /dev/null; echo "status $?"
printf -- '- ms_api: Mint.add\n  pt_api: Torch.add\n  ms_args: [[0]]\n  pt_args: [0]\n' > nested.yaml
probe-match --api-mapping=nested.yaml g < /dev/null; echo "status $?"
