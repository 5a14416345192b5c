# --layer-mapping (msprobe -lm) on a small MindSpore target and PyTorch golden
# (tests/data/match/layer): the expected data mapping below is worked out by hand
# from msprobe-crossfw.md's rules: a class's rename (Cell -> the top layer, Block's
# attn), the longest rule first with its "(...)" dropped (Attention's
# dense_op.matmul), the framework function from the stack (dense_op), backward in its
# forward's scope, the ParallelTransformer's layers renumbered from 0 (3 -> 0), the
# N-th call of a scope with the golden's N-th (add.1), scopes the golden has no call
# in (N/A); the golden's stack.json is in the newer form.
cp -r "$TESTS/data/match/layer" .
cd layer
cat > want.yaml <<'YAML'
Mint.matmul.0.forward.input.0: Torch.matmul.0.forward.input.0
Mint.matmul.0.forward.output.0: Torch.matmul.0.forward.output.0
Cell.net.layers.3.attn.Attention.forward.0.input.0: Module.model.layers.0.self_attention.SelfAttention.forward.0.input.0
Cell.net.layers.3.attn.Attention.forward.0.output.0: Module.model.layers.0.self_attention.SelfAttention.forward.0.output.0
Cell.net.layers.3.Block.forward.0.input.0: N/A
Cell.net.layers.3.Block.forward.0.output.0: N/A
Cell.net.ParallelTransformer.forward.0.input.0: N/A
Cell.net.ParallelTransformer.forward.0.output.0: N/A
Mint.matmul.0.backward.input.0: Torch.matmul.0.backward.input.0
Mint.matmul.0.backward.output.0: Torch.matmul.0.backward.output.0
Mint.add.0.forward.input.0: Torch.add.0.forward.input.0
Mint.add.0.forward.output.0: Torch.add.0.forward.output.0
Mint.add.1.forward.input.0: Torch.add.1.forward.input.0
Mint.add.1.forward.output.0: Torch.add.1.forward.output.0
YAML
mkdir out
probe-flatten t | probe-match --partial --layer-mapping=rules.yaml --save-mapping out g > pairs.ndjson; echo "status $?"
ls out | sed 's/_[0-9]\{14\}\.yaml$/_<ts>.yaml/'
diff want.yaml out/data_mapping_*.yaml && echo "derived mapping as worked out"
# the pairs follow the mapping; the dtype gate is off, as with a data mapping
jq -r '"\(.t.name) -> \(.g.name // "-")"' pairs.ndjson
# the derived mapping given back as a data mapping pairs the same way
probe-flatten t | probe-match --partial --data-mapping out/data_mapping_*.yaml g | cmp - pairs.ndjson && echo "same pairs through --data-mapping"
# without a file: the scopes alone (net is not model: only the top-level calls pair)
probe-flatten t | probe-match --partial --layer-mapping g | jq -r 'select(.t != null and .g != null) | .t.name'
# the golden's construct.json alone: an error naming the missing file; neither: a warning, no mapping
mv g/stack.json stack.json.away
probe-flatten t | probe-match --layer-mapping=rules.yaml g > /dev/null; echo "status $?"
mv g/construct.json construct.json.away
probe-flatten t | probe-match --partial --layer-mapping=rules.yaml g > none.ndjson; echo "status $?"
jq -s '[.[] | select(.t != null and .g != null)] | length' none.ndjson
# the target without them: no mapping, the names pair as they are (none here: Mint against Torch)
mv stack.json.away g/stack.json; mv construct.json.away g/construct.json
mv t/stack.json t/construct.json .
probe-flatten t | probe-match --partial --layer-mapping=rules.yaml g > none.ndjson; echo "status $?"
mv stack.json construct.json t/
# a golden given as records cannot be scoped; --save-mapping wants --layer-mapping; a bad rule file
probe-flatten g > g.ndjson
probe-flatten t | probe-match --layer-mapping=rules.yaml g.ndjson > /dev/null; echo "status $?"
probe-match --save-mapping out g < /dev/null > /dev/null 2> err; echo "status $?"; head -n 1 err
printf 'Block: [attn]\n' > list.yaml
probe-match --layer-mapping=list.yaml g < /dev/null; echo "status $?"
printf 'Block:\n  attn: [a, b]\n' > nested.yaml
probe-match --layer-mapping=nested.yaml g < /dev/null; echo "status $?"
