# Every file of --framework atb's dumps as atbcheck.py reads it (msprobe-atb.md): statistic.csv's
# header and 15 fields, each row's Op Name against its Op Id, Dtype, Format nd, Shape; rows nested as
# the dumper writes them (an op's inputs, its children's rows, its outputs); in the tensor task each
# row's .bin at its Tensor Path (and where msprobe's rule finds it), its header lines in order, dtype
# code, dims against Shape, lengths, payload; aliases (--filter-level 1) naming an earlier full file of
# the same dtype and shape below atb_dump_data/data/<device>_<pid>/<exec>/; no file without a row;
# op_param.json in each layer and operation folder, none in a kernel's; the info/ files of each layer
# and the model.
check() { python3 "$TESTS/cli/gendump/atbcheck.py" "$@" || echo "atbcheck $1: exit $?"; }
probe-gendump --framework atb a
probe-gendump --framework atb --save-child b
probe-gendump --framework atb --mode tensor c
probe-gendump --framework atb --mode tensor --filter-level 1 d
probe-gendump --framework atb --mode tensor --save-child --filter-level 1 --steps 2 --layers 3 --width 24 \
	--batch 5 --device 7 --seed 9 e
probe-gendump --framework atb --mode tensor --save-child --steps 2 --layers 3 --width 24 --batch 5 \
	--device 7 --seed 9 e0
check files a b c d e
# filter level 1 holds the bytes of filter level 0, each tensor once
check filter e0 e
du -s --apparent-size -B1 e0/golden e/golden | awk '{ print $1 }' | tr '\n' ' ' | awk '{ print ($1 > $2) ? "filter level 1 is smaller" : "filter level 1 is not smaller" }'
# a layer's output is the next layer's input: one file, one alias
sed -n 's/^data=//p' d/golden/atb_dump_data/data/0_39943/0/2_Prefill_layer/before/intensor0.bin
sed -n 's/^data=//p' e/target/atb_dump_data/data/7_276107/1/1_Prefill_layer/0_RmsNormOperation/0_RmsNormKernel/before/intensor0.bin
# an alias is its header alone
cat d/golden/atb_dump_data/data/0_39943/0/2_Prefill_layer/before/intensor3.bin
