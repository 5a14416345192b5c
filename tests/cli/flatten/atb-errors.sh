# ATB dumps that cannot be read: each an error naming the file (and line), exit 2, no records.
H='Device and PID,Execution Count,Op Name,Op Type,Op Id,Input/Output,Index,Dtype,Format,Shape,Max,Min,Mean,Norm,Tensor Path'
try() { probe-flatten "$@" > out.ndjson; echo "status $?, $(wc -l < out.ndjson) records"; }
# an exec folder without its statistic.csv
mkdir -p a/atb_dump_data/data/0_1/0/1_Prefill_layer
try a/atb_dump_data/data/0_1/0
# a wrong header
mkdir -p b/0_1/0
echo 'Device,Execution Count' > b/0_1/0/statistic.csv
try b/0_1/0
# a Shape that is no shape
mkdir -p c/0_1/0
printf '%s\n0_1,0,L,L,1,input,0,bf16,nd,4y4,1,1,1,1,N/A\n' "$H" > c/0_1/0/statistic.csv
try c/0_1
# a statistics row and a tensor row in one file
mkdir -p e/0_1/0
printf '%s\n0_1,0,L,L,1,input,0,bf16,nd,4,1,1,1,1,N/A\n0_1,0,L,L,1,output,0,bf16,nd,4,N/A,N/A,N/A,N/A,/x/atb_dump_data/data/0_1/0/1_L/after/outtensor0.bin\n' "$H" > e/0_1/0/statistic.csv
try e/0_1/0
# an alias (filter_level 1) whose file is not there
mkdir -p f/atb_dump_data/data/0_1/0/1_L/after
printf '%s\n0_1,0,L,L,1,output,0,bf16,nd,4,N/A,N/A,N/A,N/A,/x/atb_dump_data/data/0_1/0/1_L/after/outtensor0.bin\n' "$H" > f/atb_dump_data/data/0_1/0/statistic.csv
printf '$Version=1.0\n$Object.Count=1\n$Object.Length=8\nformat=2\ndtype=27\ndims=4\ndata=/x/atb_dump_data/data/0_1/0/0_E/after/outtensor0.bin\n$End=1\n' > f/atb_dump_data/data/0_1/0/1_L/after/outtensor0.bin
try f
# two processes of one device in a root
mkdir -p g/atb_dump_data/data/0_1/0 g/atb_dump_data/data/0_2/0
printf '%s\n' "$H" > g/atb_dump_data/data/0_1/0/statistic.csv
printf '%s\n' "$H" > g/atb_dump_data/data/0_2/0/statistic.csv
try g
