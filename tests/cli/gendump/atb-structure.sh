# --framework atb writes what the reference ATB dumps (../shared/fixtures/atb/dumps) hold, but for the
# values: with --save-child --mode tensor the files, statistic.csv's columns but Max..Norm, the Tensor
# Paths below atb_dump_data, op_param.json and info/ byte for byte of tensor_op_f0 (layers, operations
# and kernels, filter_level 0), and the 82 data names of msprobe's compare result of it, in its order;
# with --steps 2 those of stats_layer (statistics, layer level, exec counts 0 and 1).  Checked by
# atbcheck.py, which reads the files (not the generator's code).
A=$FIXTURES/atb
if [ ! -d "$A/dumps/tensor_op_f0" ] || [ ! -d "$A/dumps/stats_layer" ]; then
	echo "the ATB reference dumps ($A/dumps) are absent"
	exit 77
fi
check() { python3 "$TESTS/cli/gendump/atbcheck.py" "$@" || echo "atbcheck $1: exit $?"; }
probe-gendump --framework atb --save-child --mode tensor op
check fixture op "$A/dumps/tensor_op_f0" --names "$A"/expected/05_tensor_op_f0/csv/*Sheet1.csv
probe-gendump --framework atb --steps 2 layer
check fixture layer "$A/dumps/stats_layer" --names "$A"/expected/01_stats_layer_exec0/csv/*Sheet1.csv
# the pids and the device are the reference's; --device changes the folder's name only
probe-gendump --framework atb --device 3 dev
ls dev/golden/atb_dump_data/data dev/target/atb_dump_data/data dev/target/atb_dump_data/info/layer
cut -d, -f1 dev/target/atb_dump_data/data/3_276107/0/statistic.csv | sort | uniq -c
