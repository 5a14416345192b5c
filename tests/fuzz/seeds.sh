#!/bin/sh
# tests/fuzz/seeds.sh: put seed inputs for one harness into a corpus directory.
#
#   tests/fuzz/seeds.sh NAME DIR [GENERATED]
#
# Seeds come from the project's own data: tests/data/**, the committed
# regression inputs of the harness, and, when GENERATED is given, the
# directory run.sh fills with probe-gendump dumps (several modes), their
# records and compare_result CSVs.  Each seed is stored under the SHA-1 of
# its contents, so seeding again adds nothing twice.  Files over 64 KiB
# are left out (they slow the fuzzer down and add little).
set -u
name=$1 dir=$2 gen=${3:-}
top=$(cd "$(dirname "$0")/../.." && pwd)
data=$top/tests/data
max=65536
mkdir -p "$dir"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/probe-fuzz-seeds.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

add() { # file
	[ -f "$1" ] || return 0
	size=$(wc -c < "$1")
	[ "$size" -le $max ] || return 0
	cp "$1" "$dir/$(sha1sum < "$1" | cut -c1-40)"
}
# a file with one byte in front (the json harness reads its options from it)
add_prefixed() { # byte-octal file
	printf "\\$1" > "$tmp/p"
	head -c $max "$2" >> "$tmp/p"
	add "$tmp/p"
}
# the first lines of a file, and each of them alone
add_lines() { # file count
	[ -f "$1" ] || return 0
	head -n "$2" "$1" > "$tmp/l"
	add "$tmp/l"
	head -n "$2" "$1" | while IFS= read -r line; do
		printf '%s\n' "$line" > "$tmp/l1"
		add "$tmp/l1"
	done
}
files() { # find arguments: files of tests/data and of the generated data
	{ find "$data" -type f "$@"; [ -n "$gen" ] && find "$gen" -type f "$@"; } 2>/dev/null | sort
}

for f in "$top/tests/fuzz/regressions/$name"/*; do
	[ -f "$f" ] && cp "$f" "$dir/$(sha1sum < "$f" | cut -c1-40)"
done

case $name in
json)
	files -name '*.json' | while IFS= read -r f; do
		add_prefixed 000 "$f"
		add_prefixed 026 "$f"
	done
	files \( -name '*.leaves' -o -name '*.pairs' \) | while IFS= read -r f; do
		head -n 5 "$f" > "$tmp/nd"
		add_prefixed 001 "$tmp/nd"
	done
	for s in '[]' '{}' '"\u00e9\ud83d\ude00"' '[1,-0.5e+3,NaN,-Infinity,true,false,null]' '{"a":{"b":[{}]}}'; do
		printf '%s' "$s" > "$tmp/s"
		add_prefixed 000 "$tmp/s"
		add_prefixed 003 "$tmp/s"
	done
	;;
dump|graphdata)
	files \( -name 'dump.json' -o -name 'debug.json' -o -name 'kinds.json' -o -name 'saved.json' \
		-o -name 'golden.json' -o -name 'target.json' \) | while IFS= read -r f; do
		add "$f"
	done
	f=$(files -name dump.json | head -n 1)
	[ -n "$f" ] && gzip -c "$f" > "$tmp/gz" && add "$tmp/gz"
	;;
pt)
	files -name '*.pt' | while IFS= read -r f; do add "$f"; done
	;;
ckpt)
	# fuzz_ckpt's first byte: 0 a file as it is, 1 a data.pkl, 2 a safetensors header
	files -name '*.pt' | head -n 8 | while IFS= read -r f; do add_prefixed 000 "$f"; done
	# pickle.dumps({'a': [1, (2, 'x')], 'b': {3: None}, 'c': 1.5, 'd': True}, protocol=2), and a tensor of storage 0
	printf '\001\200\002}q\000(X\001\000\000\000aq\001]q\002(K\001K\002X\001\000\000\000xq\003\206q\004eX\001\000\000\000bq\005}q\006K\003NsX\001\000\000\000cq\007G?\370\000\000\000\000\000\000X\001\000\000\000dq\010\210u.' > "$tmp/p" && add "$tmp/p"
	printf '\001\200\002}(X\001\000\000\000wctorch._utils\n_rebuild_tensor_v2\n((X\007\000\000\000storagectorch\nFloatStorage\nX\001\000\000\0000X\003\000\000\000cpuK@tQK\000K\002K\003\206K\003K\001\206\211ccollections\nOrderedDict\n)RtRu.' > "$tmp/p" && add "$tmp/p"
	printf '\002{"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},"b":{"dtype":"BF16","shape":[4],"data_offsets":[24,32]}}' > "$tmp/p" && add "$tmp/p"
	;;
npy)
	files -name '*.npy' | while IFS= read -r f; do add "$f"; done
	;;
yaml)
	files \( -name '*.yaml' -o -name '*.yml' \) | while IFS= read -r f; do add "$f"; done
	printf 'a: b\n"c": \047d\047\n' > "$tmp/y" && add "$tmp/y"
	# from the generated records: a data mapping (-dm) of row names, and
	# a cell mapping (-cm) of the module names, each in block and flow style
	files -name '*.leaves' | while IFS= read -r f; do
		sed -n 's/.*"name":"\([^"]*\)".*/\1/p' "$f" | head -n 8 |
			sed 's/^\(\(.*\)\.0\.\(.*\)\)$/\1: "\2.1.\3"/' > "$tmp/dm"
		add "$tmp/dm"
		sed -n 's/.*"entry":"Module\.\([^".]*\.[^".]*\)\..*/\1/p' "$f" | sort -u | head -n 4 |
			sed 's/^\(.*\)$/\1: \1_golden/' > "$tmp/cm"
		[ -s "$tmp/cm" ] && add "$tmp/cm"
		sed -n 's/.*"entry":"Module\.\([^".]*\)\..*/\1/p' "$f" | sort -u | head -n 4 |
			awk 'BEGIN { printf "{" } { printf "%s%s: layers.%d", (NR > 1 ? ", " : ""), $0, NR } END { print "}" }' > "$tmp/cf"
		add "$tmp/cf"
	done
	;;
csv)
	files -name '*.csv' | while IFS= read -r f; do
		add "$f"
		head -n 4 "$f" > "$tmp/c" && add "$tmp/c"
	done
	;;
xlsx)
	# workbooks of probe-metric --xlsx (libxlsxwriter's layout) and their members restored as stored
	# entries, so that the fuzzer reaches the XML: xlsx_store.py rewrites a workbook uncompressed
	files -name '*.xlsx' | while IFS= read -r f; do
		add "$f"
		python3 "$top/tests/fuzz/xlsx_store.py" "$f" "$tmp/x.xlsx" 2> /dev/null && add "$tmp/x.xlsx"
	done
	;;
stack)
	files \( -name 'stack*.json' \) | while IFS= read -r f; do add "$f"; done
	;;
construct|hier)
	files \( -name 'construct*.json' \) | while IFS= read -r f; do add "$f"; done
	;;
records)
	files \( -name '*.leaves' -o -name '*.pairs' -o -name '*.metric' -o -name '*.ndjson' \) |
		while IFS= read -r f; do add_lines "$f" 6; done
	# pairs whose "value" nests 9,997 levels (read) and 10,000 (one too many: the leaf counts)
	for d in 9999 10002; do
		for open in '[' '{"a":'; do
			awk -v d=$d -v o="$open" 'BEGIN {
				c = o == "[" ? "]" : "}"; inner = o == "[" ? "" : "1"
				printf "{\"key\":\"k\",\"t\":{\"name\":\"n\",\"key\":\"k\",\"entry\":\"e\",\"type\":\"int\",\"value\":"
				for (i = 0; i < d - 2; i++) printf "%s", o
				printf "%s", inner
				for (i = 0; i < d - 2; i++) printf "%s", c
				printf "},\"g\":null}\n"
			}' > "$tmp/deep"
			add "$tmp/deep"
		done
	done
	;;
tmetric)
	# float bytes from the tensor files of tests/data behind a control byte:
	# float32 or bfloat16, two halves or a patched copy, and where
	files \( -name '*.pt' -o -name '*.npy' \) | head -n 12 | while IFS= read -r f; do
		for c in 000 001 002 003 012 103 376; do add_prefixed "$c" "$f"; done
	done
	;;
tokens)
	# each input form of probe-tokens(1): ids, objects with logprobs (numbers, dicts, vLLM's Logprob),
	# a document over several lines, and a gzip stream of one of them
	for s in '[1,2,3]\n[4,5]\n[]\n' \
		'{"ids":[7,8],"logprobs":[-0.25,{"8":-0.5,"9":-0.5625}]}\n{"ids":[7,9],"logprobs":[null,-0.125]}\n' \
		'{"token_ids":[13,50,2],"text":"x","logprobs":[{"13":{"logprob":-0.0625,"rank":1,"decoded_token":"a"}},{"50":{"logprob":-0.5,"rank":1},"40":{"logprob":-1.25,"rank":2}},{"2":-Infinity}],"finish_reason":"stop"}\n' \
		'[\n  [1, 2],\n  {"ids": [3, 4], "logprobs": null},\n  []\n]\n' \
		'{"ids":[1],"logprobs":[{"1":-1,"2":-2,"3":-3}]}\n[2]\n{"ids":[3,4],"logprobs":[-0.5,-0.75]}\n[3]\n'; do
		printf "$s" > "$tmp/t"
		add "$tmp/t"
	done
	gzip -c "$tmp/t" > "$tmp/t.gz" && add "$tmp/t.gz"
	;;
precheck)
	# probe-config's inputs: each plain kind, each JSON member of a config_check pack, and a pack
	# zip (Python's zipfile, as msprobe's packer writes one)
	for s in 'torch==2.1.0\nnumpy=1.24.2\nmylib @ file:///x\n-e git+https://h/r.git#egg=r\n# c\n' \
		'Package Version\n------- -------\nnumpy 1.26.4\n' \
		'PATH=/bin\nF=() {  a\n}\ndeclare -x HCCL_ALGO="level0:NA"\n' \
		'model:\n  hidden_size: 8\n  lr: 1.0e-5\nbase: &b {p: 1}\nm2: {<<: *b, q: [1, {a: ~}]}\nd: 2002-12-14\n' \
		'{"opt": {"lr": 0.01, "betas": [0.9, 0.95]}, "n": null}' \
		'LR=0.01\nA_ARGS="--lr $LR --bf16 \\\n --x=1"\ntorchrun $A_ARGS t.py --seed ${SEED} --d "a b#c" | tee l\n' \
		'{"PATH": "/bin", "CUDA_LAUNCH_BLOCKING": "1", "ASCEND_X": "y"}' \
		'{"args": {"0": {"max": 1.5, "min": -1, "mean": NaN, "norm": 2}, "1": ""}, "kwargs": {"x": {"0": {"max": 0, "min": 0, "mean": 0, "norm": 0}}}}' \
		'{"fc1.weight": {"max": 0.5, "min": -0.5, "mean": 0.0, "norm": 1.5}, "fc1.bias": {"max": 1, "min": 1, "mean": 1, "norm": 1}}' \
		'{"torch.manual_seed": [{"count": 1, "stack": ["File /a/t.py, line 62, in <module>, torch.manual_seed(0)"]}], "torch.randn": [{"count": 2, "stack": ["File /a/t.py, line 75, in f, x = torch.randn(4, 4)", "File /a/u.py, line 3, in g, y"]}]}'; do
		printf "$s" > "$tmp/p"
		add "$tmp/p"
	done
	python3 - "$tmp/z.zip" <<'PY' && add "$tmp/z.zip"
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED)
z.writestr("env", '{\n    "PATH": "/bin",\n    "CUDA_LAUNCH_BLOCKING": "0"\n}')
z.writestr("pip", "torch=2.1.0\nnumpy=1.24.2\n")
z.writestr("hyperparameters/hyperparameters_static.json", '{"lr": "0.01", "hidden-size": "8", "model.hidden_size": 8}')
z.writestr("dataset/step0/rank0/dataset.json", '{"args": {"0": {"max": 1.0, "min": -1.0, "mean": 0.0, "norm": 2.0}}, "kwargs": {}}')
z.writestr("weights/step0/rank0/weight.json", '{"w": {"max": 1.0, "min": -1.0, "mean": 0.0, "norm": 2.0}}')
z.writestr("random/rank0.json", '{"torch.randn": [{"count": 1, "stack": ["File /a/t.py, line 1, in f, x = 1"]}]}')
PY
	;;
*)
	echo "seeds.sh: no seeds for harness $name" >&2
	exit 2
	;;
esac
exit 0
