# Views that claim more elements than their files hold (issue 17, class 8): a zero
# stride repeats a storage's elements, as torch's expand does, so that a 499-byte file can
# claim 2^40 elements; reading them all would take days (msprobe fails at once, its numpy
# arithmetic making copies of the view).  A view may repeat elements up to 2^24 of them
# (16,777,216, a [4096, 4096] expand of a row): beyond that it is refused at once with the
# numbers, the pair "unreadable".  A view that does not repeat holds at most what its
# storage holds.  Every tool runs under timeout 20: status 124 would be work without end.
# long: started first in make check (about 17 s plain, 21 s under ASan)
mkv() { python3 "$TESTS/cli/hostile/mkview.py" "$@"; }
mk() { # side file shape: a one-entry tensor dump holding file
	rm -rf $1
	mkdir -p $1/dump_tensor_data
	cp "$2" $1/dump_tensor_data/Functional.expand.0.forward.output.0.pt
	printf '{"task":"tensor","level":"L1","framework":"pytorch","dump_data_dir":"x","data":{"Functional.expand.0.forward":{"output":[{"type":"torch.Tensor","dtype":"torch.float32","shape":%s,"Max":0.0,"Min":0.0,"Mean":0.0,"Norm":0.0,"requires_grad":false,"data_name":"Functional.expand.0.forward.output.0.pt"}]}}}\n' \
		"$3" > $1/dump.json
}
run() { # label shape
	probe-flatten target | probe-match golden > pairs
	timeout 20 probe-metric pairs > m.ndjson 2> /dev/null; s=$?
	printf '%s: status %s, %s\n' "$1" $s "$(jq -r '.verdict + ": " + .reason' m.ndjson | sed 's|/dump_tensor_data/|/|')"
	timeout 20 probe-first pairs > /dev/null 2>&1; echo "  probe-first: status $?"
}
mkv pt huge.pt float32 1048576,1048576 0,0 1
ls -l huge.pt | awk '{ print "a file of " $5 " bytes claims 2^40 elements" }'
mk target huge.pt '[1048576,1048576]'
mk golden huge.pt '[1048576,1048576]'
run "2^40 elements of one"
mkv pt row.pt float32 4096,4096 0,1 4096
mk target row.pt '[4096,4096]'
mk golden row.pt '[4096,4096]'
run "[4096, 4096] of a row of 4096 (2^24)"
mkv pt over.pt float32 4097,4096 0,1 4096
mk target over.pt '[4097,4096]'
mk golden over.pt '[4097,4096]'
run "[4097, 4096] of a row of 4096"
mkv pt many.pt float32 4097,4096 0,1 20000000
mk target many.pt '[4097,4096]'
run "[4097, 4096] of a storage of 20000000 (golden of a row)"
