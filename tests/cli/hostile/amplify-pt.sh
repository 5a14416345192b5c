# Amplification in the .pt and Megatron readers (issue 41, class 2): memory and
# time follow what the file holds, not what it claims or how it expands.  Under
# `ulimit -v 600000` and `timeout 20`, each hostile file is refused with exit 2
# and a message naming the file and member, never a crash or a timeout:
# - 100 views of one deflated 16 MiB storage (1.6 GB if each inflates it): the
#   views inflate at most PROBE_PT_EXPAND (64) times the file's size in all, at
#   least 64 MiB;
# - 40 dicts that each hold the next one twice (2^40 visits): a walk visits at
#   most 64 times data.pkl's objects, at least 1 Mi;
# - a dict holding itself under a 12 MB key: the key's size and the depth are
#   checked before it is copied;
# - Megatron args tp=65536 with one rank folder: the folders are counted first.
# A legitimate file whose two tensors share one small storage reads as it should.
python3 - <<'EOF'
import struct, zipfile, os, zlib
def s(x):
    b = x.encode()
    return b"X" + struct.pack("<I", len(b)) + b
def pint(n):
    if 0 <= n < 256: return b"K" + bytes([n])
    if 0 <= n < 65536: return b"M" + struct.pack("<H", n)
    return b"J" + struct.pack("<i", n)
def tensor(key, numel, shape, stride, offset=0):
    t = b"ctorch._utils\n_rebuild_tensor_v2\n("
    t += b"(" + s("storage") + b"ctorch\nFloatStorage\n" + s(key) + s("cpu") + pint(numel) + b"tQ"
    t += pint(offset) + b"(" + b"".join(pint(i) for i in shape) + b"t(" + b"".join(pint(i) for i in stride) + b"t"
    t += b"\x89}tR"
    return t
def save(path, pkl, storages, deflate=False):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("archive/data.pkl", b"\x80\x02" + pkl + b".", zipfile.ZIP_DEFLATED)
        z.writestr("archive/byteorder", b"little")
        for k, v in storages.items():
            z.writestr("archive/data/" + k, v, zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED)
        z.writestr("archive/version", b"3\n")
# views: 100 views of one deflated storage of 4 Mi floats
n = 4 << 20
p = b"}(" + b"".join(s("v%d" % i) + tensor("0", n, [n], [1]) for i in range(100)) + b"u"
save("views.pt", p, {"0": bytes(4 * n)}, deflate=True)
# shared: two views of one 4-float storage, legitimately
p = b"}(" + s("a") + tensor("0", 4, [2], [1]) + s("b") + tensor("0", 4, [2], [1], 2) + b"u"
save("shared.pt", p, {"0": struct.pack("<4f", 1, 2, 3, 4)})
save("shared2.pt", p, {"0": struct.pack("<4f", 1, 2, 3, 4)})
# twice: d0 = {"a": d1, "b": d1}, ..., d40 = {"t": tensor}, each level memoised
p = b"}q\x00" + s("t") + tensor("0", 1, [1], [1]) + b"s"
for i in range(1, 41):
    p = b"}(" + s("a") + p + b"q" + bytes([i]) + s("b") + b"h" + bytes([i]) + b"u"
save("twice.pt", p, {"0": bytes(4)})
# selfkey: d = {}; d[12 MB key] = d
p = b"}q\x00" + s("k" * (12 << 20)) + b"h\x00s"
save("selfkey.pt", p, {})
p = b"}q\x00" + s("k" * 1000) + b"h\x00s"
save("selfshort.pt", p, {})
# megatron: args tp=65536, one rank folder
os.makedirs("mega/iter_0000001/mp_rank_00")
open("mega/latest_checkpointed_iteration.txt", "w").write("1")
p = b"}(" + s("args") + b"}(" + s("tensor_model_parallel_size") + pint(65536) + s("pipeline_model_parallel_size") + pint(1) + b"u"
p += s("model") + b"}(" + s("w") + tensor("0", 4, [4], [1]) + b"u" + b"u"
save("mega/iter_0000001/mp_rank_00/model_optim_rng.pt", p, {"0": bytes(16)})
EOF
ls -l views.pt twice.pt selfkey.pt | awk '{print $9, ($5 < 200000 ? "small" : "large")}' # on disk
# ulimit -v is for the normal build: the sanitizers reserve terabytes of address space
asan=; grep -q __asan_init "$(command -v probe-ckpt)" && asan=1
run() { # what, command...
	w=$1; shift
	( [ -n "$asan" ] || ulimit -v 600000; timeout 20 "$@" ) > out 2> err; s=$?
	printf '%s: exit %s: %s\n' "$w" $s "$(head -c 300 err | head -1)"
}
run views probe-ckpt views.pt views.pt
run twice probe-ckpt twice.pt twice.pt
run selfkey probe-ckpt selfkey.pt selfkey.pt
run selfshort probe-ckpt selfshort.pt selfshort.pt
run mega probe-ckpt mega mega
run views-flatten probe-flatten views.pt
run twice-flatten probe-flatten twice.pt
run shared probe-ckpt --format text shared.pt shared2.pt
cat out
