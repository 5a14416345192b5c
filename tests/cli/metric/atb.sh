# msprobe's ATB statistics table from two hand-written exec folders: the diffs and relative
# errors as msprobe's str() prints them (N/A where the golden is 0 or a side is no number), a
# target row without a golden partner left out of the table with a warning (msprobe drops it
# without a word) but kept in the records; a tensor dump against a statistics one refused as
# msprobe refuses it; --mode refused.
H='Device and PID,Execution Count,Op Name,Op Type,Op Id,Input/Output,Index,Dtype,Format,Shape,Max,Min,Mean,Norm,Tensor Path'
mkdir -p t/0_11/0 g/0_22/0 x/0_33/0/1_L/after
cat > t/0_11/0/statistic.csv <<CSV
$H
0_11,0,L,L,1,input,0,bf16,nd,4,1.5,0.000000,-0.25,2,N/A
0_11,0,L,L,1,input,1,bool,nd,4,N/A,N/A,N/A,N/A,N/A
0_11,0,L,L,1,output,0,float,nd,4,3.3,-4.049017,0.1,16.480848,N/A
0_11,0,L/AddKernel,AddKernel,1_0,output,0,float,nd,4,1,1,1,1,N/A
CSV
cat > g/0_22/0/statistic.csv <<CSV
$H
0_22,0,L,L,1,input,0,bf16,nd,4,1.5,0.0,0.25,2,N/A
0_22,0,L,L,1,input,1,bool,nd,4,N/A,N/A,N/A,N/A,N/A
0_22,0,L,L,1,output,0,float,nd,4,3.328861,-3.588793,0.1,0,N/A
CSV
probe-flatten t | probe-match g | probe-metric --csv
probe-flatten t | probe-match g | probe-metric | jq -c '[.key, .verdict, .msprobe["Max Diff"]]'
printf '%s\n0_33,0,L,L,1,input,0,bf16,nd,4,N/A,N/A,N/A,N/A,/d/atb_dump_data/data/0_33/0/1_L/before/intensor0.bin\n' "$H" > x/0_33/0/statistic.csv
probe-flatten t | probe-match x | probe-metric --csv > /dev/null; echo "status $?"
probe-flatten t | probe-match g | probe-metric --mode tensor > /dev/null; echo "status $?"
# --xlsx to stdout: the workbook's bytes (a zip)
probe-flatten t | probe-match g | probe-metric --xlsx | head -c 2; echo
