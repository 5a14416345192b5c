# Broken and hostile packs and files: exit status 2, a message naming the file and, in a zip,
# the member (and the line and column where there is one), and nothing on stdout.  A member
# of another name is only warned about.
# long: started first in make check (about 7 s plain, 8 s under ASan)
probe-gendump --framework config-check --fault none p || exit
mkzip() { # out member text [member text ...]: a zip by Python's zipfile, deflated
	python3 - "$@" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED)
a = sys.argv[2:]
for i in range(0, len(a), 2):
    z.writestr(a[i], a[i + 1])
PY
}
run() { # label operands...
	label=$1
	shift
	probe-config "$@" > out 2> err
	echo "$label: status $?, $(wc -c < out) bytes out"
	cat err
}
mkzip notjson.zip env '{"PATH": "/bin",
  oops}' pip 'torch=2.1.0'
run "a member that is not JSON" notjson.zip p/cmp.zip
mkzip dup.zip env '{"A": "1", "A": "2"}'
run "a key twice" dup.zip p/cmp.zip
mkzip arr.zip env '["PATH"]'
run "env not an object" arr.zip p/cmp.zip
mkzip stat.zip dataset/step0/rank0/dataset.json '{"args": {"0": {"max": "1.0", "min": 0, "mean": 0, "norm": 0}}, "kwargs": {}}'
run "a statistic that is a string" stat.zip p/cmp.zip
mkzip w.zip weights/step0/rank0/weight.json '{"fc1.weight": {"max": 1, "min": 0, "mean": 0}}'
run "a weight without its norm" w.zip p/cmp.zip
mkzip r.zip random/rank0.json '{"torch.randn": [{"stack": ["File a.py, line 1, in f, x"]}]}'
run "a random call without its count" r.zip p/cmp.zip
mkzip empty.zip env ''
run "an empty member" empty.zip p/cmp.zip
head -c 900 p/bench.zip > cut.zip
run "a zip cut short" cut.zip p/cmp.zip
python3 - <<'PY'
data = bytearray(open("p/bench.zip", "rb").read())
data[60] ^= 0xff  # inside the first member's deflated data
open("flipped.zip", "wb").write(bytes(data))
PY
run "a damaged member" flipped.zip p/cmp.zip
python3 - <<'PY'
import zipfile
z = zipfile.ZipFile("stored.zip", "w", zipfile.ZIP_STORED)
z.writestr("env", '{"A": "1"}')
z.close()
data = bytearray(open("stored.zip", "rb").read())
data[data.find(b'"1"') + 1] = ord("2")  # the bytes change, their CRC does not
open("crc.zip", "wb").write(bytes(data))
PY
run "a member whose CRC does not match" crc.zip p/cmp.zip
python3 - <<'PY'
import zipfile
z = zipfile.ZipFile("bz.zip", "w", zipfile.ZIP_BZIP2)
z.writestr("env", '{"A": "1"}')
z.close()
data = bytearray(open("bz.zip", "rb").read())
PY
run "a member compressed with bzip2" bz.zip p/cmp.zip
python3 - <<'PY'
import struct
data = bytearray(open("p/bench.zip", "rb").read())
cd = data.find(b"PK\x01\x02")
data[6] |= 1           # the local header's flag: encrypted
data[cd + 8] |= 1      # and the central directory's
open("enc.zip", "wb").write(bytes(data))
PY
run "an encrypted member" enc.zip p/cmp.zip
mkzip pip.zip pip 'torch=2.1.0'
mkzip env.zip env '{"A": "1"}'
run "no check in common" pip.zip env.zip
run "a file that is not there" nothere.zip p/cmp.zip
mkdir notpack
run "a folder that is no pack" notpack p/cmp.zip
mkdir -p out1/bench
run "msprobe's output folder" out1 p/cmp.zip
mkdir dirpack && printf '{"PATH": \n' > dirpack/env
run "a folder pack's member that is not JSON" dirpack p/cmp.zip
mkfifo fifo
run "a FIFO" fifo p/cmp.zip
printf 'just some words\n' > words
cp words words2
run "a file of no kind" words words2
run "--kind pip on it" --kind pip words words2
run "--kind env on a folder" --kind env notpack p/cmp.zip
run "both standard input" - -
mkzip extra.zip env '{"A": "1"}' notes.txt 'hello' weights/readme 'x'
mkzip extra2.zip env '{"A": "2"}'
run "members of other names: warned about" extra.zip extra2.zip
