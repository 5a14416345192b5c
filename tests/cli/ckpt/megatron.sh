# Megatron's layouts merged by msprobe's rules, checked two ways: against a second reader
# (ckptread.py, msprobe's megatron_loader.py written out again) and against the whole model's
# own state dict the generator writes from the same formula (--ckpt-layout pt): every
# parameter the merge gives is that model's, bit for bit, except the names msprobe's
# name_mapping rewrites (the attention's layer norm, input_layernorm in the merge) and its
# concatenated copies of the MLP's layer norm.  Tensor, pipeline, virtual pipeline and expert
# parallelism; the tracker's "release"; a replicated parameter whose ranks disagree.
command -v python3 > /dev/null || { echo "python3 is not installed"; exit 77; }
oracle="python3 $TESTS/cli/ckpt/ckptread.py"
check() { # label generator options...
	label=$1
	shift
	rm -rf mg flat
	probe-gendump --framework checkpoint --fault none "$@" mg
	probe-gendump --framework checkpoint --fault none --ckpt-layout pt $(echo "$@" | sed -e 's/--[tpv]*p [0-9]*//g' -e 's/--ep [0-9]*//') flat
	$oracle list mg/golden > want
	probe-flatten mg/golden | jq -r '"\(.name) \(.dtype | sub("torch."; "")) \(.shape | tostring | gsub(","; ", "))"' > got
	cmp -s want got && agree="the second reader agrees" || agree="the second reader disagrees"
	probe-ckpt mg/golden flat/golden/model.pt > records
	echo "$label: $(wc -l < got) parameters, $agree; against the model: $(jq -r '.verdict // empty' records | sort | uniq -c | tr -s ' ' | tr '\n' ',')"
	jq -r 'select(.verdict == "only_a") | "  merge only: \(.name) \(.a.shape)"' records | sed 's/decoder.layers.[0-9]*/decoder.layers.N/' | sort | uniq -c
	jq -r 'select(.verdict == "diff") | "  differ: \(.name) (\(.reason): \(.a.shape) against \(.b.shape))"' records
}
check "tp 2, pp 2" --tp 2 --pp 2
check "tp 1, pp 1, 2 layers" --tp 1 --pp 1 --layers 2
check "tp 2, pp 2, vpp 2, 8 layers" --tp 2 --pp 2 --vpp 2 --layers 8
check "tp 1, pp 2, vpp 2, ep 2, 4 experts" --tp 1 --pp 2 --vpp 2 --ep 2 --experts 4
check "tp 2, pp 1, ep 4, 8 experts" --tp 2 --pp 1 --ep 4 --experts 8
ls mg/golden/iter_0000010
# the perturbed element in the last expert of the last expert rank, found where it lies
rm -rf moe && probe-gendump --framework checkpoint --tp 2 --pp 2 --ep 2 --experts 4 moe
probe-ckpt moe/golden moe/target | jq -c 'select(.verdict == "diff") | {name, first_diff, max_ulp}'
# "release" in the tracker names the folder release/
cp -r moe/golden rel && mv rel/iter_0000010 rel/release && echo release > rel/latest_checkpointed_iteration.txt
probe-ckpt rel moe/golden | jq -c '.summary | {answer, iteration: .a.iteration, read: .a.read}' | tail -1
# a replicated parameter whose tensor-parallel ranks disagree: rank 0's is read, and a warning says so
# (in the last expert rank's files: msprobe keeps the last expert rank's copy of a parameter they all have)
python3 - moe/golden/iter_0000010/mp_rank_01_000_001/model_optim_rng.pt "$TESTS/cli/ckpt" <<'PY'
import sys, zipfile
sys.path.insert(0, sys.argv[2])
import ckptread
path = sys.argv[1]
model = ckptread.load_pt(path)['model']
raw, _ = model['decoder.layers.0.self_attention.linear_qkv.layer_norm_weight'].raw, None
src = zipfile.ZipFile(path)
entries = {n: src.read(n) for n in src.namelist()}
key = [n for n, d in entries.items() if d == raw and '/data/' in n][0]
entries[key] = bytes(b ^ 1 for b in raw)
src.close()
with zipfile.ZipFile(path, 'w') as out:
    for n, d in entries.items():
        out.writestr(n, d)
PY
probe-ckpt moe/golden/iter_0000010 rel > /dev/null
echo "the replicated norm of rank 1 changed: exit $?"
