# --precision bf16 and fp16 are autocast: in the target, Functional.linear, Torch.matmul and
# Functional.softmax return torch.bfloat16 (torch.float16) and every other API float32 (a tensor is
# dumped as its API returned it wherever it is an input); the golden is float32 throughout, and
# the parameters stay float32 on both sides.  The statistics of each 16-bit leaf are representable
# in its type (Max and Min are elements, Mean and Norm are computed in the type): x = 0, or
# |x| / 2^floor(log2 |x|) has at most 7 (bfloat16) or 10 (float16) bits after the point, or x is a
# float16 subnormal (a multiple of 2^-24).  In tensor mode each 16-bit leaf's file holds a storage
# of that type whose largest and smallest elements are the leaf's Max and Min, read by a reader of
# our own (zipfile, struct).
for p in bf16 fp16; do
	probe-gendump --framework decoder --precision $p --fault none $p
	echo "== $p: the outputs' dtypes, by API"
	for s in target golden; do
		jq -r --arg s $s '.data | to_entries[] | "\($s) \(.key | sub("\\.[0-9]+\\.forward$"; "")) \(.value.output[0].dtype)"' \
			$p/$s/step0/rank0/dump.json | sort -u | awk -v s=$s '
				$3 != "torch.float32" { print } $3 == "torch.float32" { n++ } END { print s, n, "APIs: torch.float32" }'
	done
	echo "the weights (input.1 of every linear and of the embedding), both sides:" $(jq -r '.data | to_entries[]
		| select(.key | test("linear|embedding")) | .value.input_args[1].dtype' $p/*/step0/rank0/dump.json | sort | uniq -c)
	jq -r --arg p $p '
		def bits: if $p == "bf16" then 7 else 10 end;
		def representable: if . == 0 then true
			else fabs as $a
			| if $p == "fp16" and $a < pow(2; -14) then ($a * pow(2; 24)) | . == floor
			  else ($a / pow(2; $a | log2 | floor) * pow(2; bits)) | . == floor end end;
		[.data[] | (.input_args[], .output[]) | select(.dtype? == "torch.bfloat16" or .dtype? == "torch.float16")] as $l
		| [$l[] | [.Max, .Min, .Mean, .Norm][] | select(representable | not)] as $bad
		| "16-bit leaves: \($l | length), their dtypes \([$l[].dtype] | unique), statistics not representable: \($bad)"' \
		$p/target/step0/rank0/dump.json
done

probe-gendump --framework decoder --mode tensor --fault none --layers 2 pt
python3 - <<'PY'
import json, re, struct, zipfile
d = "pt/target/step0/rank0/"
dump = json.load(open(d + "dump.json"))
n = 0
for entry in dump["data"].values():
    for leaf in entry["input_args"] + entry["output"]:
        if leaf.get("dtype") != "torch.bfloat16":
            continue
        z = zipfile.ZipFile(d + "dump_tensor_data/" + leaf["data_name"])
        pkl = z.read(next(m for m in z.namelist() if m.endswith("data.pkl")))
        raw = z.read(next(m for m in z.namelist() if m.endswith("/data/0")))
        assert re.search(rb"ctorch\nBFloat16Storage", pkl), leaf["data_name"]
        v = [struct.unpack("<f", struct.pack("<I", h << 16))[0] for h in struct.unpack("<%dH" % (len(raw) // 2), raw)]
        assert (max(v), min(v)) == (leaf["Max"], leaf["Min"]), leaf["data_name"]
        n += 1
print("tensor mode: %d bfloat16 files, each a BFloat16 storage whose max and min are the leaf's" % n)
PY
