# Broken and hostile checkpoints: exit 2 with a message that names the file and the member
# (the zip entry, the byte of data.pkl, the tensor of a safetensors header, the shard, the rank
# folder), and nothing on standard output that could pass for a result.
command -v python3 > /dev/null || { echo "python3 is not installed"; exit 77; }
run() { # label command...
	label=$1
	shift
	"$@" > stdout 2> stderr
	echo "$label: exit $?, $(wc -c < stdout) bytes out"
	sed 's/^/  /' stderr
}
probe-gendump --framework checkpoint --ckpt-layout pt --fault none pt
probe-gendump --framework checkpoint --ckpt-layout safetensors --fault none st
probe-gendump --framework checkpoint --ckpt-layout hf --fault none hf
probe-gendump --framework checkpoint --fault none mg
good=pt/golden/model.pt

# .pt files
head -c 3000 $good > cut.pt
run "a truncated .pt" probe-ckpt cut.pt $good
python3 - $good <<'PY'
import sys, zipfile
src = zipfile.ZipFile(sys.argv[1])
def rewrite(name, change):
    with zipfile.ZipFile(name, 'w') as out:
        for name_ in src.namelist():
            out.writestr(name_, change(name_, src.read(name_)))
rewrite('short-storage.pt', lambda n, d: d[:len(d) // 2] if n.endswith('/data/3') else d)
rewrite('bad-pickle.pt', lambda n, d: d[:2] + b'\xff' + d[2:] if n.endswith('/data.pkl') else d)
rewrite('no-storage.pt', lambda n, d: d)
with zipfile.ZipFile('no-storage.pt', 'w') as out:
    for name_ in src.namelist():
        if not name_.endswith('/data/5'):
            out.writestr(name_, src.read(name_))
# a pickle that would run a command if it were loaded with pickle.load: read as an inert name
import pickle
class Evil:
    def __reduce__(self):
        import os
        return (os.system, ('touch hacked',))
with zipfile.ZipFile('evil.pt', 'w') as out:
    out.writestr('evil/data.pkl', pickle.dumps({'model': Evil()}, protocol=2))
    out.writestr('evil/version', '3\n')
PY
run "a storage entry shorter than its storage" probe-ckpt short-storage.pt $good
run "a storage entry missing" probe-ckpt no-storage.pt $good
run "an unknown opcode in data.pkl" probe-ckpt bad-pickle.pt $good
run "os.system in data.pkl" probe-ckpt evil.pt $good
[ -e hacked ] && echo "  the command ran" || echo "  nothing ran"
run "a device as a checkpoint" probe-ckpt pt/golden/model.pt /dev/null
printf '\200\002}q\000.' > legacy.pt
run "torch's legacy format" probe-ckpt legacy.pt $good

# safetensors headers that lie
python3 - st/golden/model.safetensors <<'PY'
import json, struct, sys
data = open(sys.argv[1], 'rb').read()
n = struct.unpack('<Q', data[:8])[0]
header = json.loads(data[8:8 + n])
body = data[8 + n:]
def write(name, h, body=body, n=None):
    text = json.dumps(h, separators=(',', ':')).encode()
    open(name, 'wb').write(struct.pack('<Q', n if n is not None else len(text)) + text + body)
first = [k for k in header if k != '__metadata__'][0]
h = json.loads(json.dumps(header)); h[first]['data_offsets'][1] += len(body); write('past-end.safetensors', h)
h = json.loads(json.dumps(header)); h[first]['data_offsets'][1] -= 2; write('short.safetensors', h)
h = json.loads(json.dumps(header))
by_size = {}
for k, v in h.items():
    if k != '__metadata__':
        by_size.setdefault(v['data_offsets'][1] - v['data_offsets'][0], []).append(k)
a, b = [names for names in by_size.values() if len(names) > 1][0][:2]
h[b]['data_offsets'] = h[a]['data_offsets']; write('overlap.safetensors', h)
write('long-header.safetensors', header, n=10 ** 9)
h = json.loads(json.dumps(header)); h[first]['dtype'] = 'F8_E8M0'; write('dtype.safetensors', h)
text = b'{"a":{"dtype":"F32" "shape":[1]}}'
open('not-json.safetensors', 'wb').write(struct.pack('<Q', len(text)) + text + b'\0' * 16)
PY
for f in past-end short overlap long-header dtype not-json; do
	run "safetensors: $f" probe-ckpt $f.safetensors st/golden/model.safetensors
done
head -c 5 st/golden/model.safetensors > five.safetensors
run "safetensors: 5 bytes" probe-ckpt five.safetensors st/golden

# Hugging Face folders
cp -r hf/golden hf-bad
printf '{"weight_map": {"a": "../../etc/passwd"}}' > hf-bad/model.safetensors.index.json
run "hf: a shard outside the folder" probe-ckpt hf-bad hf/golden
printf '{"weight_map": {"nothing.weight": "model-00001-of-00002.safetensors"}}' > hf-bad/model.safetensors.index.json
run "hf: a name its shard does not hold" probe-ckpt hf-bad hf/golden
printf '{"weight_map": {"a": "model-00001-of-00002.safetensors",}' > hf-bad/model.safetensors.index.json
run "hf: an index that is not JSON" probe-ckpt hf-bad hf/golden
rm hf-bad/model-00002-of-00002.safetensors
sed 's/,}/}}/' hf/golden/model.safetensors.index.json > hf-bad/model.safetensors.index.json
run "hf: a shard missing" probe-ckpt hf-bad hf/golden

# Megatron folders
cp -r mg/golden mg-bad
echo latest > mg-bad/latest_checkpointed_iteration.txt
run "megatron: a tracker that names nothing" probe-ckpt mg-bad mg/golden
echo 20 > mg-bad/latest_checkpointed_iteration.txt
run "megatron: a tracker that names no folder" probe-ckpt mg-bad mg/golden
echo 10 > mg-bad/latest_checkpointed_iteration.txt
rm -r mg-bad/iter_0000010/mp_rank_01_001
run "megatron: a rank folder missing" probe-ckpt mg-bad mg/golden
run "megatron: a rank folder named" probe-ckpt mg/golden/iter_0000010/mp_rank_00_000 mg/golden
cp -r mg/golden/iter_0000010/mp_rank_00_000 mg-bad/iter_0000010/mp_rank_01_001
cp $good mg-bad/iter_0000010/mp_rank_00_000/model_optim_rng.pt
run "megatron: a rank file without args" probe-ckpt mg-bad mg/golden
cp -r mg/golden mg-extra && mkdir mg-extra/iter_0000010/mp_rank_07_000
run "megatron: a rank folder the sizes do not name (a warning)" probe-ckpt mg-extra mg/golden

# neither
mkdir empty
run "an empty folder" probe-ckpt empty $good
run "a file that does not exist" probe-ckpt nothing.pt $good
run "one operand" probe-ckpt $good
run "probe-flatten of a truncated .pt" probe-flatten cut.pt
