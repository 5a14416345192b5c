# Each fault of --framework atb, at the layer level and with --save-child, in both tasks: the first
# row of statistic.csv (in its order) whose tensor differs between golden and target, as atbcheck.py
# finds it comparing the files (the statistics in the statistics task), with every earlier file
# byte-identical (an alias's pid aside); the names are those lib/testdata/genatb.h documents.
# long: started first in make check (about 8 s plain, 10 s under ASan)
# sanitizers: skip, it checks the generator's ATB files with a Python reader; probe's ATB code runs under the sanitizers in the flatten, metric and first tests
check() { python3 "$TESTS/cli/gendump/atbcheck.py" "$@" || echo "atbcheck $1: exit $?"; }
kernel=1_Prefill_layer/3_ElewiseOperation/0_AddBF16Kernel/output.0
for mode in statistics tensor; do
	for child in "" --save-child; do
		echo "== $mode ${child:-layer level}"
		rm -rf d
		probe-gendump --framework atb --mode $mode $child d
		check fault d "$([ -n "$child" ] && echo $kernel || echo 1_Prefill_layer/output.0)"
		rm -rf d
		probe-gendump --framework atb --mode $mode $child --fault linear-weight d
		check fault d 1_Prefill_layer/input.2
		rm -rf d
		probe-gendump --framework atb --mode $mode $child --fault none d
		check fault d none
	done
done
# with two exec counts and filter level 1 the fault is in each; linear-weight: the MatMulKernel's two inputs
echo "== tensor --save-child --filter-level 1 --steps 2 --layers 3"
probe-gendump --framework atb --mode tensor --save-child --filter-level 1 --steps 2 --layers 3 f
check fault f $kernel
probe-gendump --framework atb --mode tensor --save-child --fault linear-weight w
cmp -s w/golden/atb_dump_data/data/0_39943/0/1_Prefill_layer/1_LinearOperation/0_MatMulKernel/before/intensor0.bin \
	w/target/atb_dump_data/data/0_276107/0/1_Prefill_layer/1_LinearOperation/0_MatMulKernel/before/intensor0.bin &&
	echo "linear-weight: the MatMulKernel's input 0 is equal"
cmp -s w/golden/atb_dump_data/data/0_39943/0/1_Prefill_layer/1_LinearOperation/0_MatMulKernel/before/intensor1.bin \
	w/target/atb_dump_data/data/0_276107/0/1_Prefill_layer/1_LinearOperation/0_MatMulKernel/before/intensor1.bin ||
	echo "linear-weight: its input 1 (the weight) differs"
# add-kernel: the kernel's inputs are equal, its output row 0 is 0.5 higher, the others equal
probe-gendump --framework atb --mode tensor --save-child k
python3 - <<'PY'
import struct
def read(p):
    b = open(p, "rb").read()
    i = b.index(b"$End=1\n") + 7
    return [struct.unpack("<f", struct.pack("<I", h << 16))[0] for h in struct.unpack("<%dH" % ((len(b) - i) // 2), b[i:])]
k = "/0/1_Prefill_layer/3_ElewiseOperation/0_AddBF16Kernel/"
g, t = "k/golden/atb_dump_data/data/0_39943" + k, "k/target/atb_dump_data/data/0_276107" + k
print("add-kernel: inputs equal:", all(read(g + "before/intensor%d.bin" % i) == read(t + "before/intensor%d.bin" % i) for i in (0, 1)))
go, to = read(g + "after/outtensor0.bin"), read(t + "after/outtensor0.bin")
print("add-kernel: rows 1.. equal:", go[16:] == to[16:])
print("add-kernel: row 0 - golden's:", sorted({round(b - a, 3) for a, b in zip(go[:16], to[:16])}))
PY
