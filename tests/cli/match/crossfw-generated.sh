# A MindSpore target against a PyTorch golden, both from the generator (--framework
# mindspore-pytorch; fault fc2-weight): by name nothing pairs (Cell against Module,
# MintFunctional against Functional); the built-in API table pairs the APIs; the layer
# mapping pairs every leaf, and probe-first names the faulty weight, fc2's, the input 1
# of the second linear, as on the PyTorch pair.
probe-gendump --framework mindspore-pytorch run > /dev/null
jq -r '.framework, (.data | keys_unsorted | .[0:3] | join(" "))' run/target/step0/rank0/dump.json
jq -r '.data["MintFunctional.linear.0.forward"].input_args[0] | "\(.type) \(.dtype) requires_grad:\(has("requires_grad"))"' run/target/step0/rank0/dump.json
probe-flatten run/target | probe-match --partial run/golden 2> /dev/null | jq -s '[.[] | select(.t != null and .g != null)] | length'
probe-flatten run/target | probe-match --api-mapping run/golden 2> /dev/null | jq -s '[.[] | select(.t != null and .g != null)] | length'
probe-flatten run/target | probe-match --layer-mapping run/golden | probe-metric | probe-first | jq -r 'select(.first_divergence) | .first_divergence.leaf'
# tensor mode, bfloat16: MindSpore's .npy hold float32; each pair is compared as the bfloat16 it holds, so the
# forward verdicts are those of the same run dumped by PyTorch on both sides
probe-gendump --mode tensor --dtype bfloat16 --framework mindspore-pytorch ms > /dev/null
probe-gendump --mode tensor --dtype bfloat16 pt > /dev/null
ls ms/target/step0/rank0/dump_tensor_data | sed 's/.*\.//' | sort | uniq -c
ls ms/golden/step0/rank0/dump_tensor_data | sed 's/.*\.//' | sort | uniq -c
probe-flatten ms/target | probe-match --layer-mapping ms/golden | probe-metric > ms.ndjson
probe-flatten pt/target | probe-match pt/golden | probe-metric > pt.ndjson
jq -r 'select(.t.entry | test("forward")) | "\(.t.seq) \(.verdict)"' ms.ndjson > ms.v
jq -r 'select(.t.entry | test("forward")) | "\(.t.seq) \(.verdict)"' pt.ndjson > pt.v
cmp ms.v pt.v && echo "forward verdicts as on the PyTorch pair: $(wc -l < ms.v) leaves, $(grep -c same ms.v) same"
grep -c 'differ in dtype or shape' ms.ndjson
probe-first ms.ndjson | jq -r 'select(.first_divergence) | .first_divergence.leaf'
