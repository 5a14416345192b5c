# probe-gendump --mode tensor against the real msprobe dump of the same model (torch 1.13,
# ../shared/fixtures/mlp-tensor-mix): the same files, of the same sizes, with the same
# data.pkl in each; only the values (and so the CRCs) differ.  (Moved here from
# tests/cli/gendump/tensor.sh, which must pass where the fixtures are absent.)
set -u
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $FIXTURES is absent"; }
fx=$FIXTURES/mlp-tensor-mix
if [ ! -d "$fx" ]; then
	for side in golden target; do
		skip "$side: the fixture's files and sizes"
		skip "$side: the fixture's data.pkl, byte for byte"
	done
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
probe-gendump --mode tensor run > /dev/null
pkl() { python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' "$@"; }
pkls() { # dir: the md5 of each file's data.pkl, in file order
	for f in $(ls "$1"); do
		pkl "$1/$f" "${f%.pt}/data.pkl" | md5sum
	done
}
for side in golden target; do
	theirs=$fx/$side/step0/rank0/dump_tensor_data ours=run/$side/step0/rank0/dump_tensor_data
	(cd "$theirs" && wc -c *) > fixture
	(cd "$ours" && wc -c *) > mine
	if cmp -s fixture mine; then ok "$side: the fixture's files and sizes"; else notok "$side: the fixture's files and sizes"; fi
	pkls "$theirs" > fixture
	pkls "$ours" > mine
	if cmp -s fixture mine; then ok "$side: the fixture's data.pkl, byte for byte"
	else notok "$side: the fixture's data.pkl, byte for byte"; fi
done
