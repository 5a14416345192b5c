# NPU Tensor Shape as Python's str() of the shape: plain whole numbers take a short path,
# anything else (blanks, signs, floats, big numbers, other values) the general one.
leaf() { # SHAPE
	printf '{"rank":0,"step":0,"seq":0,"entry":"e.0.forward","name":"e.0.forward.input.0","key":"e.0.forward.input.0","state":"input","type":"torch.Tensor","dtype":"torch.float32","shape":%s,"max":1,"min":1,"mean":1,"norm":1,"requires_grad":false,"task":"statistics"}' "$1"
}
for shape in '[]' '[0]' '[7]' '[32,64,56,56]' '[ 1 , 2 ]' '[-1]' '[1.0]' '[1e3]' \
	'[18446744073709551616]' '[true]' '["a"]' '[[2,3]]' '[0,10,100]'; do
	l=$(leaf "$shape")
	echo "$shape:"
	printf '{"key":"k","t":%s,"g":%s}\n' "$l" "$l" | probe-metric --csv | sed -n 2p
done
