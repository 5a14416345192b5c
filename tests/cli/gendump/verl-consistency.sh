# verl's training against inference check on generated dumps, tensor mode:
#   probe-flatten OUT/target | probe-match --consistency fsdp|megatron OUT/golden | probe-metric
# The keys our verdict calls "diff" must be exactly those the fault reaches, worked out from the
# model (lib/testdata/genverl.h), not copied from the tools' output:
#
# down-proj (layer 1's down projection output x 1.3 + noise, the rest recomputed from it): the
#   faulted output 1:down_proj:forward.0.output.0, the MLP that returns it 1:mlp:forward.0.output.0,
#   and on FSDP the final norm of the residual stream it is added to, -1:norm:forward.0.output.0.
#   The rest it reaches is no like-for-like pair: the decoder layer's output (vLLM's returns the
#   branch before the add) and the final norm's input (vLLM's takes branch and residual apart) are
#   structural; last_hidden_state, the backward part and, on Megatron, final_layernorm and
#   GPTModel's logits have no inference counterpart.
# q-weight (layer 0's q_proj weight x 1.3 + noise, before the run): layer 0's joined q/k/v weight
#   and output, then everything q steers: the attention output (o_proj input and output, the
#   attention module's output; Megatron: TEDotProductAttention's output), layer 0's post-attention
#   norm output, gate/up input and output, down_proj input and output, MLP input and output; in layer
#   1 every matched row but the parameters (the normed input, q/k/v, attention, MLP; on Megatron the
#   attention's key and value inputs too, which on FSDP are inside the joined q/k/v output); the
#   final norm's output (FSDP).  The embedding, layer 0's input norm and q/k/v input and bias stay
#   the same.  On Megatron the input of a TELayerNormColumnParallelLinear (before its own norm), the
#   MLP's and the attention module's inputs and the query of TEDotProductAttention (another shape)
#   are structural; its parameters are not (they mean what vLLM's do), so the joined weight the
#   fault changed is a diff (printed below) and probe-first names it.
# none: no key.
#
# In every case the structural rows are there (their count is printed), and probe-first names the
# first divergent leaf (exit 1), or none (exit 0).
down_fsdp="1:down_proj:forward.0.output.0 1:mlp:forward.0.output.0 -1:norm:forward.0.output.0"
down_megatron="1:down_proj:forward.0.output.0 1:mlp:forward.0.output.0"
q_layer0_fsdp="0:qkv_proj:forward.0.parameters.weight 0:qkv_proj:forward.0.output.0 0:o_proj:forward.0.input.0
0:o_proj:forward.0.output.0 0:self_attn:forward.0.output.0 0:post_attention_layernorm:forward.0.output.0
0:gate_up_proj:forward.0.input.0 0:gate_up_proj:forward.0.output.0 0:down_proj:forward.0.input.0
0:down_proj:forward.0.output.0 0:mlp:forward.0.input.0 0:mlp:forward.0.output.0"
q_layer1_fsdp="1:input_layernorm:forward.0.output.0 1:qkv_proj:forward.0.input.0 1:qkv_proj:forward.0.output.0
1:o_proj:forward.0.input.0 1:o_proj:forward.0.output.0 1:self_attn:forward.0.kwargs.hidden_states
1:self_attn:forward.0.output.0 1:post_attention_layernorm:forward.0.output.0 1:gate_up_proj:forward.0.input.0
1:gate_up_proj:forward.0.output.0 1:down_proj:forward.0.input.0 1:down_proj:forward.0.output.0
1:mlp:forward.0.input.0 1:mlp:forward.0.output.0 -1:norm:forward.0.output.0"
q_fsdp="$q_layer0_fsdp $q_layer1_fsdp"
q_megatron="0:qkv_proj:forward.0.parameters.weight 0:qkv_proj:forward.0.output.0 0:attn:forward.0.output.0 0:o_proj:forward.0.input.0
0:o_proj:forward.0.output.0 0:self_attn:forward.0.output.0 0:gate_up_proj:forward.0.output.0
0:down_proj:forward.0.input.0 0:down_proj:forward.0.output.0 0:mlp:forward.0.output.0
1:qkv_proj:forward.0.output.0 1:attn:forward.0.input.1 1:attn:forward.0.input.2 1:attn:forward.0.output.0
1:o_proj:forward.0.input.0 1:o_proj:forward.0.output.0 1:self_attn:forward.0.output.0
1:gate_up_proj:forward.0.output.0 1:down_proj:forward.0.input.0 1:down_proj:forward.0.output.0
1:mlp:forward.0.output.0"
words() { for w in $1; do echo "$w"; done; }
check() { # backend fault expected-keys
	probe-gendump --framework verl-$1 --mode tensor --fault $2 $1-$2
	probe-flatten $1-$2/target | probe-match --consistency $1 $1-$2/golden | probe-metric > m.ndjson
	jq -r 'select(.verdict == "diff") | .key' m.ndjson > got
	words "$3" > want
	if cmp -s want got; then
		echo "$1 $2: the $(wc -l < got | tr -d ' ') diff keys the model says"
	else
		echo "$1 $2: the diff keys are not the model's:"
		diff want got
	fi
	echo "  verdicts: $(jq -r .verdict m.ndjson | sort | uniq -c | awk '{printf "%s %s, ", $1, $2}' | sed 's/, $//')"
	probe-first --format text < m.ndjson > first
	status=$?
	leaf=$(sed -n 's/^  rank 0, step 0: \([^ ]*\) .*/\1/p' first | head -n 1)
	echo "  probe-first: exit $status, ${leaf:-$(head -n 1 first | cut -d: -f1)}"
}
check fsdp down-proj "$down_fsdp"
check megatron down-proj "$down_megatron"
check fsdp q-weight "$q_fsdp"
check megatron q-weight "$q_megatron"
jq -r 'select(.key == "0:qkv_proj:forward.0.parameters.weight") | "  the changed weight row: \(.verdict)"' m.ndjson
check fsdp none ""
check megatron none ""
# ranks: the fault on --fault-rank only; the other rank agrees everywhere
probe-gendump --framework verl-fsdp --mode tensor --ranks 2 --fault-rank 1 two
probe-flatten two/target | probe-match --consistency fsdp two/golden | probe-metric |
	jq -r 'select(.verdict == "diff") | "rank \(.t.rank): \(.key)"'
