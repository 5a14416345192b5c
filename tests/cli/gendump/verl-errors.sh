# What --framework verl-fsdp|verl-megatron refuses (exit 2, saying why).
probe-gendump --framework verl-fsdp --mode md5 out; echo "exit $?"
probe-gendump --framework verl-megatron --dtype float16 out; echo "exit $?"
probe-gendump --framework verl-fsdp --layers 3 out; echo "exit $?"
probe-gendump --framework verl-fsdp --zoo out; echo "exit $?"
probe-gendump --framework verl-megatron --format npy --mode tensor out; echo "exit $?"
probe-gendump --framework verl-fsdp --fault fc2-weight out; echo "exit $?"
probe-gendump --framework verl-fsdp --pt-layout torch2 out; echo "exit $?"
probe-gendump --framework verl-fsdp --ranks 2 --fault-rank 2 out; echo "exit $?"
# and the MLP run the verl faults
probe-gendump --fault q-weight out; echo "exit $?"
test -e out || echo "nothing written"
