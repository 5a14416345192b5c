# ATB .bin tensors out as torch.save and numpy.save files (msprobe's parse): a kernel's input folder
# (stems kept: intensor0.pt), a kernel folder with -r (before/ and after/ kept), the leaves of records
# (named by msprobe's data name, '/' as folders) and of pairs (target/ and golden/). exportcheck.py, a
# second reader written from the formats, reads every written file and its source: same shape, every
# element bitwise, bfloat16 in a .npy as the float32 of the same value.
check() { python3 "$TESTS/cli/export/exportcheck.py" "$1" | sed "s|$PWD/||g" || echo "exportcheck $1: exit $?"; }
probe-gendump --framework atb --mode tensor --save-child --seed 3 run > /dev/null
T=run/target/atb_dump_data/data/0_276107/0
K=$T/1_Prefill_layer/3_ElewiseOperation/0_AddBF16Kernel
echo "== a folder: its .bin files"
probe-export $K/before > a.nd; echo "status $?"
find output -type f | sort
check a.nd
echo "== -r -t npy, text"
probe-export -r -t npy -o k --format text $K; echo "status $?"
find k -type f | sort
echo "== one file named, into a folder that is made"
probe-export -o deep/er $K/after/outtensor0.bin > b.nd; echo "status $?"
check b.nd
echo "== records: the kernel's leaves"
probe-flatten run/target | jq -c 'select(.entry == "1_Prefill_layer/3_ElewiseOperation/0_AddBF16Kernel")' |
	probe-export -o rec > c.nd; echo "status $?"
jq -c '{file, name, rank, step, dtype, shape}' c.nd
check c.nd
echo "== pairs: both sides, as npy"
probe-flatten run/target | probe-match run/golden | jq -c 'select(.key | startswith("1_Prefill_layer/3_ElewiseOperation/0_AddBF16Kernel/"))' |
	probe-export -t npy -o pairs > d.nd; echo "status $?"
find pairs -type f | sort
check d.nd
echo "== every tensor of the dump, both formats"
probe-flatten run/golden | probe-export -o all > e.nd; echo "status $?"
check e.nd | sed 's/ \[.*\]//' | awk '{ print $1, $3, $4, $5 }' | sort | uniq -c
probe-flatten run/golden | probe-export -t npy -o alln > f.nd; echo "status $?"
check f.nd | sed 's/ \[.*\]//' | awk '{ print $1, $3, $4, $5 }' | sort | uniq -c
echo "== exported again: replaced"
probe-export -o rec $K/after > /dev/null; probe-export -o rec $K/after > g.nd; echo "status $?"
ls rec
