# --width, --batch and --dtype: the shapes, the saved type, the statistics of the saved values.
probe-gendump --mode tensor --width 40 --batch 6 --dtype float16 run
d=run/golden/step0/rank0
jq -c '.data["Functional.linear.1.forward"].input_args[] | [.dtype, .shape, .Max, .Mean, .Norm]' $d/dump.json
jq -c '.data["Functional.mse_loss.0.forward"].output[0] | [.dtype, .shape, .Max, .Min]' $d/dump.json
# fp16 storage: 40 x 40 x 2 bytes in the weight's file
wc -c < $d/dump_tensor_data/Functional.linear.1.forward.input.1.pt
# the defaults are the old model: width 16, batch 4
probe-gendump --width 16 --batch 4 --dtype float32 a
probe-gendump b
diff -r a b && echo "--width 16 --batch 4 --dtype float32 are the defaults"
# md5 mode: the CRC-32 of the saved half bytes
probe-gendump --mode md5 --dtype bfloat16 m
jq -c '.data["Functional.linear.0.forward"].input_args[0] | [.dtype, .md5]' m/golden/step0/rank0/dump.json
