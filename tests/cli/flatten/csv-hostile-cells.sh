# compare_result CSV cells that are not what msprobe writes (found by
# tests/fuzz/fuzz_csv.c): every record stays one line of valid JSON.
h='NPU Name,Bench Name,NPU Dtype,Bench Dtype,NPU Tensor Shape,Bench Tensor Shape,NPU Requires_grad,Bench Requires_grad,Max diff,Min diff,Mean diff,L2norm diff,MaxRelativeErr,MinRelativeErr,MeanRelativeErr,NormRelativeErr,NPU max,NPU min,NPU mean,NPU l2norm,Bench max,Bench min,Bench mean,Bench l2norm,Requires_grad Consistent,Result,Err_message'
row='A.0.forward.input.0,A.0.forward.input.0,torch.float32,torch.float32'
stats='False,False,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,True,pass'
# an Err_message that starts like a list but is not JSON (a control
# character, a second line, text after the list): refused, it would be
# copied into the record as it is
for msg in '"[""\033""]"' '"[""a"",
""b""]"' '"[], ""verdict"": ""pass"""' '[1]'; do
	{ echo "$h"; printf '%s,[2],[2],%s,%s\n' "$row" "$stats" "$msg"; } > compare_result_rank0_x.csv
	probe-flatten compare_result_rank0_x.csv > /dev/null; echo "status $?"
done
# a shape that is not a list of whole numbers becomes a string
nak=$(printf '\025')
for shape in '"[2, 3]"' '[]' "\"[2$nak]\"" '"[2, ""x""]"' '"[2,]"' '[02]' '"[1, 2] x"' '"[1, 2"'; do
	{ echo "$h"; printf '%s,%s,[2],%s,[]\n' "$row" "$shape" "$stats"; } > compare_result_rank0_x.csv
	probe-flatten compare_result_rank0_x.csv |
		sed 's/.*"dtype":"torch.float32","shape":\(.*\),"max":1,.*},"g":.*/\1/'
done
# a stack whose \x escape is cut short by the end of the cell is left out
{ echo "$h,NPU_Stack_Info"; printf "%s,[2],[2],%s,[],['a\\\\x4\n" "$row" "$stats"; } > compare_result_rank0_x.csv
probe-flatten compare_result_rank0_x.csv | grep -c '"stack"'
{ echo "$h,NPU_Stack_Info"; printf "%s,[2],[2],%s,[],['a\\\\x41']\n" "$row" "$stats"; } > compare_result_rank0_x.csv
probe-flatten compare_result_rank0_x.csv | grep -o '"stack":[^]]*]'
