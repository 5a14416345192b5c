# Two launch scripts (Megatron style: *_ARGS blocks, $VAR, a flag followed by a flag, --k=v).
# probe's reading (launch.h), by hand:
#   bench: nproc_per_node=8 hidden-size=8 lr=0.01 use-flash-attn=True bf16=True
#          lr-decay-style=cosine train-iters=3 data-path="/data/set 1"
#   cmp:   the same but lr=0.02 (LR="0.02" in quotes), no bf16, lr-decay-style=linear
#   findings: lr error, lr-decay-style error, bf16 only in bench (warning); exit 1.
# msprobe's reading (its ShellParser, for its workbook), by hand: in bench use-flash-attn takes
# "--bf16" as its value, and cmp's is a flag (True): a row whose cell "--bf16" msprobe's own
# formula guard refuses (it starts with '-' and is no number), so that msprobe writes no
# workbook, and neither does probe-config (status 2, msprobe's message).  With --bf16 on both
# sides, the workbook: lr "0.01" | "\"0.02\"" (msprobe keeps LR="0.02"'s quotes; pure name,
# error); lr-decay-style true on both (--lr-decay-style=cosine is a flag to msprobe): no row;
# data-path "\"/data/set" on both (cut at the blank): no row.
cat > bench.sh <<'IN'
#!/bin/bash
LR=0.01
GPUS=8
DIST_ARGS="--nproc_per_node $GPUS"
GPT_ARGS="
    --hidden-size 8 \
    --lr ${LR} \
    --use-flash-attn --bf16 \
    --lr-decay-style=cosine
"
torchrun $DIST_ARGS pretrain_gpt.py $GPT_ARGS --train-iters 3 --data-path "/data/set 1"
IN
sed -e 's/^LR=0.01/LR="0.02"/' -e 's/ --bf16//' -e 's/cosine/linear/' bench.sh > cmp.sh
probe-config bench.sh cmp.sh; echo "status $?"
probe-config -o out bench.sh cmp.sh; echo "status $?"
ls out
sed -e 's/^LR=0.01/LR="0.02"/' -e 's/cosine/linear/' bench.sh > cmp2.sh
probe-config -o out bench.sh cmp2.sh; echo "status $?"
python3 "$TESTS/parity/xlsx_render.py" out/result.xlsx book && cat book/result__summary.csv book/result__hyperparameters.csv
