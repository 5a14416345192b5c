# ATB .bin files from a hostile dump (issue 41, class 7).  Every number in a .bin header
# is read with overflow checks and every offset + length is checked before it is used:
# "$Object.data=9223372036854775807,4" is refused with the file and the header line (it
# used to overflow a signed sum, UBSan).  An alias (data=, filter_level 1) is followed
# only to a file inside the dump's folder, as a .pt data_name is held to its tensor
# folder: an absolute alias naming a file outside, a ".." alias leaving it, and a .bin
# that is a symbolic link out of the dump are refused, naming the alias and the file,
# with status 2 and nothing read from outside.  An alias that stays inside is followed.
probe-gendump --framework atb --mode tensor --filter-level 1 d > /dev/null
here=$(pwd -P)
tidy() { sed "s|$here|HERE|g; s|/[0-9]*_[0-9]*/|/DEV_PID/|g"; }
exec_dir=$(dirname "$(find d/target -name statistic.csv | head -1)")
alias=$(grep -l '^data=' -r "$exec_dir" | head -1)
run() { # label
	probe-flatten d/target > recs 2> err; s=$?
	[ $s = 0 ] && { probe-match d/golden < recs 2> /dev/null | probe-metric > /dev/null 2>> err; s=$?; }
	echo "$1: status $s; $(grep -v warning: err | tidy | head -2)"
}
run 'an alias inside the dump'
cp "$alias" saved
echo "outside" > "$here/outside.bin"
sed -i "s|^data=.*|data=$here/outside.bin|" "$alias"
run 'data= an absolute path outside'
cp saved "$alias"
sed -i "s|^data=.*|data=atb_dump_data/data/0_1/0/../../../../../../outside.bin|" "$alias"
run 'data= ../ out of the dump'
cp saved "$alias"
# a .bin that is a link out of the dump
victim=$(find "$exec_dir" -name 'outtensor0.bin' | head -1)
cp "$victim" "$here/copy.bin"
mv "$victim" saved.bin
ln -s "$here/copy.bin" "$victim"
run 'a .bin linked out of the dump'
rm "$victim"; mv saved.bin "$victim"
run 'restored'

# header arithmetic: offset + length past 2^63 - 1
bin=$(find "$exec_dir" -name '*.bin' | while read -r f; do grep -q '^data=' "$f" || { echo "$f"; break; }; done)
len=$(sed -n 's|^\$Object.data=0,||p' "$bin")
cp "$bin" saved.bin
for line in "\$Object.data=9223372036854775807,$len" '$Object.data=99999999999999999999,1' "\$Object.data=9223372036854775800,$len"; do
	cp saved.bin "$bin"
	sed -i "s|^\\\$Object.data=.*|$line|" "$bin"
	probe-flatten d/target 2>&1 > recs | grep -v warning: | tidy
	probe-match d/golden < recs 2> /dev/null | probe-metric > m.ndjson 2> /dev/null
	echo "$line: status $?; $(jq -r 'select(.reason != null) | .reason' m.ndjson | grep -i 'overflow\|Object' | tidy | head -1)"
done
cp saved.bin "$bin"
