probe-gendump a > /dev/null
probe-gendump --mode md5 b > /dev/null
echo "statistics against md5: msprobe compares none of it; records compare what they share"
probe-flatten a/target | probe-match b/golden | probe-metric --csv > /dev/null; echo "status $?"
probe-flatten a/target | probe-match b/golden | probe-metric | jq -c 'select(.t.state == "input") | {msprobe, verdict, reason}' | head -2
echo "not pairs:"
probe-flatten a/target | probe-metric > out; echo "status $?"; tail -1 out
echo "nothing:"
: | probe-metric; echo "status $?"
echo "bad band:"
probe-metric --rtol -1 < /dev/null; echo "status $?"
echo "tensor files that are not there: unreadable, and msprobe's unsupported"
leaf='"entry":"e.0.forward","name":"e.0.forward.input.0","key":"k","type":"torch.Tensor","dtype":"torch.float32","shape":[2],"task":"tensor","data_name":"e.0.forward.input.0.pt"'
printf '{"key":"k","t":{"rank":0,"step":0,"seq":0,%s,"data":"no/such.pt"},"g":{"rank":0,"step":0,"seq":0,%s,"data":"no/such/either.pt"}}\n' "$leaf" "$leaf" |
	probe-metric | jq -c '{verdict, reason, msprobe: .msprobe.Cosine, tensor: .metrics.tensor}'; echo "status $?"
# consistency pairs (probe-match --consistency): a bad backend, a join that holds no leaf, a
# second backend later on, --xlsx-reader not there for it; the input and line named, exit 2, no rows
cl='"rank":0,"step":0,"seq":0,"entry":"M.a.A.forward.0","name":"M.a.A.forward.0.input.0","key":"k","dtype":"torch.float32","shape":[2],"max":1.0,"min":0.0,"mean":0.5,"norm":1.0'
printf '{"key":"k","consistency":"vllm","t":{%s},"g":null}\n' "$cl" | probe-metric --csv; echo "status $?"
printf '{"key":"k","consistency":"fsdp","t":{%s},"g":null,"t_join":[1]}\n' "$cl" | probe-metric --csv; echo "status $?"
printf '{"key":"k","consistency":"fsdp","t":{%s},"g":null}\n{"key":"k","consistency":"megatron","t":{%s},"g":null}\n' "$cl" "$cl" |
	probe-metric --csv; echo "status $?"
printf '{"key":"k","consistency":"fsdp","t":{%s},"g":null}\n' "$cl" | probe-metric --xlsx-reader > out.xlsx; echo "status $? $(wc -c < out.xlsx) bytes"
# a consistency compare of a tensor training dump against a statistics inference dump: msprobe
# writes no table (its message quoted); of md5 dumps: none either
printf '{"key":"k","consistency":"fsdp","t":{%s,"task":"tensor"},"g":{%s,"task":"statistics"}}\n' "$cl" "$cl" | probe-metric --csv; echo "status $?"
printf '{"key":"k","consistency":"fsdp","t":{%s,"task":"md5"},"g":{%s,"task":"md5"}}\n' "$cl" "$cl" | probe-metric; echo "status $?"
