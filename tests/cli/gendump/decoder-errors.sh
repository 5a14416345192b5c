# What --framework decoder refuses (exit 2, saying why), and what the others refuse of its options.
probe-gendump --framework decoder --mode md5 out; echo "exit $?"
probe-gendump --framework decoder --width 30 out; echo "exit $?"
probe-gendump --framework decoder --width 8192 out; echo "exit $?"
probe-gendump --framework decoder --fault-layer 4 out; echo "exit $?"
probe-gendump --framework decoder --layers 1 out; echo "exit $?"
probe-gendump --framework decoder --fault-rank 1 out; echo "exit $?"
probe-gendump --framework decoder --fault fc2-weight out; echo "exit $?"
probe-gendump --framework decoder --precision bf32 out; echo "exit $?"
probe-gendump --framework decoder --dtype bfloat16 out; echo "exit $?"
probe-gendump --framework decoder --steps 2 out; echo "exit $?"
probe-gendump --framework decoder --fault-layer -1 out; echo "exit $?"
# the others do not take its options, nor its faults
probe-gendump --precision bf16 out; echo "exit $?"
probe-gendump --framework atb --fault-layer 0 out; echo "exit $?"
probe-gendump --fault softmax-fp16 out; echo "exit $?"
test -e out || echo "nothing written"
# --fault none needs no fault layer: one layer is fine
probe-gendump --framework decoder --layers 1 --fault none one && jq -c . one/needle.json
