# stack.json in msprobe's old format (entry -> frames); construct.json with
# Megatron's [parent, micro_step] and the optimizer pseudo-node; explicit files.
cp "$TESTS/data/stack/dump.json" .
cp "$TESTS/data/stack/stack-old.json" stack.json
cp "$TESTS/data/stack/construct-megatron.json" construct.json
probe-flatten dump.json | probe-stack | jq -c '{name, where, stack_from, modules, micro_step, modules_from}'
mkdir other && cp dump.json other/
probe-flatten other/dump.json | probe-stack --stack stack.json --construct construct.json 2>&1 | head -1 | jq -c '{name, where}'
