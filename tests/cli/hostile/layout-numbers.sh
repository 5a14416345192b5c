# Rank, proc and step directories whose number does not fit in 64 bits (issue 17,
# class 12a): before, left out without a word (msprobe, reading the number as a
# Python int, compares them: a rank left out silently makes a comparison that
# looks complete).  Now an error that names the directory, exit status 2.
probe-gendump --ranks 2 --layers 2 g > /dev/null
cp -r g/target/step0/rank1 g/target/step0/rank99999999999999999999
probe-flatten g/target/step0 > out 2> err; echo "a step dir: status $?, $(wc -c < out) bytes out; $(cat err)"
probe-flatten g/target > out 2> err; echo "the dump root: status $?; $(cat err)"
probe-flatten g/target/step0/rank0 | probe-match g/target > /dev/null 2> err; echo "as the golden side: status $?; $(cat err)"
rm -r g/target/step0/rank99999999999999999999
mv g/target/step0/rank1 g/target/step0/rank9223372036854775807
probe-flatten --list g/target/step0 > out 2> err; echo "INT64_MAX is still a rank: status $?; $(cat out err)"
mv g/target/step0/rank9223372036854775807 g/target/step0/rank9223372036854775808
probe-flatten g/target/step0 > /dev/null 2> err; echo "INT64_MAX + 1: status $?; $(cat err)"
mv g/target/step0/rank9223372036854775808 g/target/step0/rank1
mkdir g/target/step18446744073709551616; cp -r g/target/step0/rank0 g/target/step18446744073709551616/
probe-flatten g/target > /dev/null 2> err; echo "a step: status $?; $(cat err)"
rm -r g/target/step18446744073709551616
mkdir -p p/step0/proc99999999999999999999; cp g/target/step0/rank0/dump.json p/step0/proc99999999999999999999/
probe-flatten p/step0 > /dev/null 2> err; echo "a proc dir: status $?; $(cat err)"
touch g/target/step0/rank99999999999999999999
probe-flatten g/target/step0 > /dev/null; echo "a plain file of that name is not a directory of the layout: status $?"
