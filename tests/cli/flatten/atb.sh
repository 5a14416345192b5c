# ATB (MindIE) dumps: an atb_dump_data root with two exec folders, one a statistics task with
# the rows msprobe drops without a word (a row of 14 fields, a name of another depth than its
# id, a repeated data name), read into leaf records: the data name as key, the device as rank,
# the exec count as step, "process" kept out of attrs (it differs between runs).
H='Device and PID,Execution Count,Op Name,Op Type,Op Id,Input/Output,Index,Dtype,Format,Shape,Max,Min,Mean,Norm,Tensor Path'
d=run/atb_dump_data/data/3_4242
mkdir -p "$d/0" "$d/1"
cat > "$d/0/statistic.csv" <<CSV
$H
3_4242,0,Prefill_layer,Prefill_layer,1,input,0,bf16,nd,4x16,1.171875,-0.718750,0.058599,3.545797,N/A
3_4242,0,Prefill_layer,Prefill_layer,1,input,1,bool,nd,4x4,N/A,N/A,N/A,N/A,N/A
3_4242,0,Prefill_layer/ElewiseOperation,ElewiseOperation,1_3,output,0,float,nd,4,nan,-inf,0.5,7,N/A
3_4242,0,Prefill_layer/ElewiseOperation,ElewiseOperation,1,output,0,bf16,nd,4,1,1,1,1,N/A
3_4242,0,Prefill_layer,Prefill_layer,1,output,0,bf16,nd,4x16,2.0,-2.0,0.1
3_4242,0,Prefill_layer,Prefill_layer,1,input,0,bf16,nd,4x16,9.0,-9.0,0.0,9.0,N/A
CSV
printf '%s\n3_4242,1,LmHead,LmHead,3,output,0,float,nd,4x32,3.3,-4.0,0.2,16.4,N/A\n' "$H" > "$d/1/statistic.csv"
probe-flatten --list run
probe-flatten run | jq -c '[.rank, .step, .seq, .key, .entry, .dtype, .shape, .max, .min, .process, .attrs]'
# the same exec folder named by its statistic.csv, relabelled
probe-flatten -q --rank 0 --step 7 "$d/0/statistic.csv" | jq -c '[.rank, .step, .key]' | head -n 1
