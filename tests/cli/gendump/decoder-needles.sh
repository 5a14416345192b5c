# --framework decoder writes where its fault is, from the injection: needle.json for each fault
# with the defaults (bf16, layer 1, rank 0), as lib/testdata/gendecoder.h lists them (the numbers
# follow from the model's order: a layer calls Tensor.__add__ 4 times, Functional.linear 7 times,
# Functional.silu and Tensor.__truediv__ once), in other layers, ranks and precisions, and with no
# fault; and the line of model.py that called the needle's entry (its innermost stack frame).
for f in scale eps softmax-fp16 weight kernel hook none; do
	probe-gendump --framework decoder --fault $f $f
	jq -c . $f/needle.json
done
probe-gendump --framework decoder --precision fp32-kernels --fault weight --fault-layer 3 --ranks 3 --fault-rank 2 w3
jq -c . w3/needle.json
probe-gendump --framework decoder --precision fp16 --fault eps --fault-layer 0 --layers 1 e0
jq -c . e0/needle.json
probe-gendump --framework decoder --precision fp32 --fault hook --fault-layer 2 h2
jq -c . h2/needle.json
for f in scale eps softmax-fp16 weight kernel hook; do
	entry=$(jq -r .entry $f/needle.json)
	jq -r --arg e "$entry" '.[] | select(.[0] | index($e)) | .[1][0]' $f/target/step0/rank0/stack.json | tr '\n' ' '
	echo
done
