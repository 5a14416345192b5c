# Two pip lists in three forms (pip freeze, pip list's table, msprobe's Name=version member):
# names compared as PEP 503 normalises them (PyYAML = pyyaml, torch_npu = torch-npu), a name
# twice taking its last version, comments, options and blank lines skipped.  By hand:
#   numpy 1.24.2 | 1.26.4   error (a numerical library)
#   torch-npu only in cmp    warning (one of them, on one side only)
#   tqdm 4.64.1 | 4.66.0     info (not counted)
#   mylib only in bench      info
#   torch, pyyaml, safetensors: equal
# Exit 1 (an error and a warning).  msprobe's pip sheet (--xlsx) lists only its eight names:
# numpy, and torch only when its version differs (here it does not).
cat > gpu-freeze.txt <<'IN'
# pip freeze on the GPU machine
-i https://pypi.org/simple
torch==2.1.0
numpy==1.24.2
PyYAML==6.0
safetensors==0.4.1
tqdm==4.64.1
mylib @ file:///home/user/mylib

IN
cat > npu-list.txt <<'IN'
Package     Version
----------- -------
numpy       1.26.4
pyyaml      6.0
safetensors 0.4.0
safetensors 0.4.1
torch       2.1.0
torch_npu   2.1.0.post3
tqdm        4.66.0
IN
probe-config gpu-freeze.txt npu-list.txt; echo "status $?"
# the same list as msprobe's member format against itself: alike
printf 'torch=2.1.0\nnumpy=1.24.2\nPyYAML=6.0\n' > pip
cp pip pip2
probe-config --kind pip pip pip2 | jq -c .summary; echo "status $?"
probe-config --xlsx gpu-freeze.txt npu-list.txt > pip.xlsx; echo "xlsx status $?"
python3 "$TESTS/parity/xlsx_render.py" pip.xlsx book && cat book/pip__summary.csv book/pip__pip.csv
