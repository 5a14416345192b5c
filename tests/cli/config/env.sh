# Two environment dumps: env's output (a value over two lines) against export -p's (quotes),
# a GPU run (no variable holds ASCEND) against an NPU run.  By hand:
#   msprobe's pairs, each side's name by its device, unset as msprobe's default:
#     NCCL_DETERMINISTIC unset (False) | HCCL_DETERMINISTIC true    error
#     NCCL_ALGO unset (None) | HCCL_ALGO unset (None)                alike
#     CUDA_LAUNCH_BLOCKING 1 | ASCEND_LAUNCH_BLOCKING 0              error
#     CUDA_VISIBLE_DEVICES 0,1 | ASCEND_RT_VISIBLE_DEVICES 0,1       alike
#     HCCL_INTRA_ROCE_ENABLE, HCCL_INTRA_PCIE_ENABLE: NPU only       info
#   the other variables, by name: ASCEND_HOME_PATH (a path: info), BASH_FUNC (info),
#   HCCL_CONNECT_TIMEOUT (HCCL_: warning), PYTHONHASHSEED 0 | 1 (warning), HOME equal
# Exit 1.  msprobe's env sheet (compare_env_data with the two sides swapped): the same two
# errors, each value in the other side's column (bench_value "true", cmp_value False: the bool
# of its default, for the unset NCCL_DETERMINISTIC; then "0" and "1"), and two warnings "only
# bench has this env" for the two HCCL_INTRA_ROCE_ENABLE entries of its env.yaml, with their
# defaults 0 and 1, although it is cmp, the NPU run, that has them.
cat > gpu.env <<'IN'
HOME=/root
PYTHONHASHSEED=0
CUDA_LAUNCH_BLOCKING=1
CUDA_VISIBLE_DEVICES=0,1
BASH_FUNC_f%%=() {  echo hi
}
IN
cat > npu.txt <<'IN'
declare -x ASCEND_HOME_PATH="/usr/local/Ascend"
declare -x ASCEND_LAUNCH_BLOCKING="0"
declare -x ASCEND_RT_VISIBLE_DEVICES="0,1"
declare -x HCCL_CONNECT_TIMEOUT="1200"
declare -x HCCL_DETERMINISTIC="true"
declare -x HOME="/root"
declare -x PYTHONHASHSEED="1"
IN
probe-config --kind env gpu.env npu.txt; echo "status $?"
probe-config --kind env -o out gpu.env npu.txt; echo "status $?"
python3 "$TESTS/parity/xlsx_render.py" out/result.xlsx book && cat book/result__env.csv book/types/result__env.types.csv
