# Every layout the generator writes is read as a second reader reads it (ckptread.py: zipfile,
# pickle with stand-ins, struct and json, msprobe's merge rules written out again): the same
# parameters, in the same order, with the same dtypes and shapes; and probe-flatten's records
# hold the same names, dtypes and shapes, with statistics equal to the second reader's sums.
# long: started first in make check (about 9 s plain, 10 s under ASan)
command -v python3 > /dev/null || { echo "python3 is not installed"; exit 77; }
oracle="python3 $TESTS/cli/ckpt/ckptread.py"
check() { # label golden-path [generator options...]
	label=$1 path=$2
	shift 2
	rm -rf out
	probe-gendump --framework checkpoint --fault none "$@" out || return
	$oracle list "out/golden$path" > want
	probe-flatten "out/golden$path" | jq -r '"\(.name) \(.dtype | sub("torch."; "")) \(.shape | tostring | gsub(","; ", "))"' > got
	if cmp -s want got; then
		echo "$label: $(wc -l < want) parameters agree"
	else
		echo "$label: parameters differ"
		diff want got | head -5
	fi
	probe-flatten "out/golden$path" > records
	python3 - records "out/golden$path" "$TESTS/cli/ckpt" <<'PY'
import json, math, sys
sys.path.insert(0, sys.argv[3])
import ckptread
params = ckptread.load(sys.argv[2])
bad = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    v = ckptread.values(params[r['name']])
    want = {'max': max(v), 'min': min(v), 'mean': sum(v) / len(v), 'norm': math.sqrt(sum(x * x for x in v))}
    for k, x in want.items():
        if r[k] != x:
            bad += 1
            print('  %s %s: %r, the second reader %r' % (r['name'], k, r[k], x))
    if r['state'] != 'parameters' or r['key'] != r['name'] or r['data_member'] != r['name'] or \
            r['entry'] != r['name'].rsplit('.', 1)[0] or r['task'] != 'tensor' or r['rank'] is not None:
        bad += 1
        print('  %s: a field is not what probe-records(5) says' % r['name'])
print('  statistics and fields: %s' % ('agree' if not bad else '%d differ' % bad))
PY
}
check "megatron tp 2 pp 2" "" --tp 2 --pp 2
check "megatron tp 1 pp 1" "" --tp 1 --pp 1
check "megatron tp 4 pp 1, 4 layers of width 8" "" --tp 4 --pp 1 --width 8
check "megatron tp 1 pp 4, float32" "" --tp 1 --pp 4 --dtype float32
check "pt" "/model.pt" --ckpt-layout pt
check "safetensors (the file)" "/model.safetensors" --ckpt-layout safetensors --dtype float16
check "safetensors (its folder)" "" --ckpt-layout safetensors
check "hf, 3 shards" "" --ckpt-layout hf --shards 3
# the iteration folder named instead of the checkpoint's top
probe-gendump --framework checkpoint --fault none top
probe-flatten top/golden/iter_0000010 | jq -r .data | sort -u
