# Hostile checkpoints (issue 41, class 6): what a header or a name claims is checked, and
# a message stays one line whatever the file holds.
# - safetensors: no two tensors' byte ranges overlap, an empty tensor included by its offset:
#   an empty tensor sorted between two overlapping ones used to hide the overlap (exit 0,
#   two parameters reading the same bytes); one inside another tensor's bytes is refused too
#   (as the safetensors library refuses it), one at a boundary is fine.
# - a tensor name of 20 MB is quoted cut to a bound (200 bytes and "..."), not whole.
# - Megatron: a layer number that does not fit (layers.99999999999999999999) is refused
#   with the file and the name (it used to saturate, overflow under UBSan and drop a tensor
#   with exit 0); layers.00000000000000000001 is Python's int 1 and is read.
command -v python3 > /dev/null || { echo "python3 is not installed"; exit 77; }
run() { # label command...
	label=$1
	shift
	"$@" > stdout 2> stderr
	echo "$label: exit $?, $(wc -c < stdout) bytes out, $(wc -c < stderr) bytes of message"
	cut -c1-400 stderr | sed 's/^/  /'
}
python3 - <<'PY'
import json, struct
def write(name, tensors, body):
    text = json.dumps(tensors, separators=(',', ':')).encode()
    open(name, 'wb').write(struct.pack('<Q', len(text)) + text + body)
f32 = lambda n, b, e: {"dtype": "F32", "shape": [n], "data_offsets": [b, e]}
body = bytes(range(32))
write('good.safetensors', {"a": f32(4, 0, 16), "e": f32(0, 16, 16), "b": f32(4, 16, 32)}, body)
write('hidden.safetensors', {"a": f32(4, 0, 16), "e": f32(0, 4, 4), "b": f32(3, 4, 16)}, body)
write('empty-inside.safetensors', {"a": f32(4, 0, 16), "e": f32(0, 8, 8), "b": f32(4, 16, 32)}, body)
write('empty-at-ends.safetensors', {"e0": f32(0, 0, 0), "a": f32(4, 0, 16), "e": f32(0, 16, 16), "b": f32(4, 16, 32),
                                    "e2": f32(0, 32, 32)}, body)
write('empty-past.safetensors', {"a": f32(4, 0, 16), "e": f32(0, 33, 33), "b": f32(4, 16, 32)}, body)
long = "w" * (20 << 20)
write('long-name.safetensors', {long: f32(4, 0, 160)}, body)
write('long-dtype.safetensors', {"a": {"dtype": "F" * (20 << 20), "shape": [4], "data_offsets": [0, 16]}}, body)
PY
for f in hidden empty-inside empty-at-ends empty-past long-name long-dtype; do
	run "safetensors $f" probe-ckpt $f.safetensors good.safetensors
done
rm long-name.safetensors long-dtype.safetensors

probe-gendump --framework checkpoint --fault none mg > /dev/null
patch() { # file old new: a name in a rank file's pickle, the same length, the zip's CRC made right
	python3 - "$@" <<'PY'
import sys, zipfile, zlib, struct
path, old, new = sys.argv[1], sys.argv[2].encode(), sys.argv[3].encode()
assert len(old) == len(new)
z = zipfile.ZipFile(path)
pkl = [n for n in z.namelist() if n.endswith('/data.pkl')][0]
before = z.read(pkl)
z.close()
after = before.replace(old, new)
assert after != before
raw = open(path, 'rb').read()
raw = raw.replace(before, after).replace(struct.pack('<I', zlib.crc32(before)), struct.pack('<I', zlib.crc32(after)))
open(path, 'wb').write(raw)
PY
}
cp -r mg/target mg/huge
for r in mp_rank_00_000 mp_rank_01_000; do
	patch mg/huge/iter_0000010/$r/model_optim_rng.pt decoder.layers.0.self_attention layers.99999999999999999999.sel
done
run "megatron layers.99999999999999999999" probe-ckpt mg/huge mg/golden
rm -r mg/huge
cp -r mg/target mg/zeros
for r in mp_rank_00_000 mp_rank_01_000; do
	patch mg/zeros/iter_0000010/$r/model_optim_rng.pt decoder.layers.0.self_attention layers.00000000000000000001.sel
done
probe-ckpt --format records mg/zeros mg/zeros > out 2> err
echo "megatron layers.00000000000000000001: exit $?; $(cat err)"
grep -o '"[^"]*layers[.]0*1[.]sel[^"]*"' out | sort -u
