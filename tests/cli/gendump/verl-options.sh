# --framework verl-fsdp|verl-megatron with the options that make sense for it.
# The same options give the same bytes (dump_data_dir names the directory written: the same name).
mkdir a b
(cd a && probe-gendump --framework verl-fsdp --mode tensor --ranks 2 run)
(cd b && probe-gendump --framework verl-fsdp --mode tensor --ranks 2 run)
diff -r a b && echo "same bytes, $(find a -type f | wc -l | tr -d ' ') files"
# the defaults: statistics, bfloat16, down-proj on rank 0, one rank; level L0, the vLLM golden
probe-gendump --framework verl-megatron d
find d -type f | sort
jq -c '[.task, .level, .framework, .dump_data_dir, (.data | length)]' d/golden/step0/rank0/dump.json d/target/step0/rank0/dump.json
jq -c '[.. | objects | .dtype? // empty] | group_by(.) | map([.[0], length])' d/target/step0/rank0/dump.json
# --dtype float32: every float tensor float32 (the rotary angles are float32 anyway)
probe-gendump --framework verl-megatron --dtype float32 f
jq -c '[.. | objects | .dtype? // empty] | group_by(.) | map([.[0], length])' f/target/step0/rank0/dump.json
# --seed: other weights and prompt, the same structure
probe-gendump --framework verl-fsdp --seed 7 s7
probe-gendump --framework verl-fsdp s1
for s in s1 s7; do jq -c '.data["Module.model.embed_tokens.VocabParallelEmbedding.forward.0"].input_args[0] | [.Max, .Min]' $s/golden/step0/rank0/dump.json; done
strip='walk(if type == "object" and has("Max") then del(.Max, .Min, .Mean, .Norm) else . end)'
jq "$strip" s1/target/step0/rank0/dump.json > 1.json
jq "$strip" s7/target/step0/rank0/dump.json > 7.json
cmp 1.json 7.json && echo "--seed 7: the same dump but for the statistics"
# --pt-layout torch2: torch 2.x's zip entries
probe-gendump --framework verl-fsdp --mode tensor --pt-layout torch2 t2
python3 -c 'import sys, zipfile; print(sorted(n.split("/", 1)[1] for n in zipfile.ZipFile(sys.argv[1]).namelist()))' \
	t2/target/step0/rank0/dump_tensor_data/Module._fsdp_wrapped_module.model.norm.Qwen2RMSNorm.forward.0.output.0.pt
# --ranks 3 --fault-rank 2: a prompt per rank; the training side differs from the golden on rank 2 only
probe-gendump --framework verl-fsdp --ranks 3 --fault-rank 2 r
ls r/golden/step0 r/target/step0
for k in 0 1 2; do jq -c '.data["Module.model.embed_tokens.VocabParallelEmbedding.forward.0"].input_args[0] | [.Max, .Min]' r/golden/step0/rank$k/dump.json; done
probe-flatten r/target | probe-match --consistency fsdp r/golden | probe-metric |
	jq -r 'select(.verdict == "diff") | "rank \(.t.rank): \(.key)"'
# stack.json: the frames of layer 1's down_proj (gate, act_fn, up and down are called on one line,
# in both layers: one group), the framework's files, verl's, then the invented script's (genverl.c)
jq -r '.[] | select(.[0] | index("Module._fsdp_wrapped_module.model.layers.1._fsdp_wrapped_module.mlp.down_proj.Linear.forward.0")) |
	"\(.[0] | length) entries", (.[1][] | sub("^File /usr/local/lib/python3.10/dist-packages/"; "File …/"))' s1/target/step0/rank0/stack.json
