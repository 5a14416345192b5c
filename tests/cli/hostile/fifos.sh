# FIFOs and special files in a dump tree, and dumps that cannot be read twice (issue 17,
# class 7).  stack.json and construct.json must be regular files: a FIFO there (with no
# writer: reading it would wait for ever) or a link to /dev/zero (it never ends) is
# refused with a message, never waited on.  A dump may come through a FIFO or <(...) when
# it can be read once; one whose "data" comes before "task" needs a second pass and gets
# the message stdin gets.  Every tool runs under timeout 10: status 124 would be a hang.
probe-gendump --layers 2 d > /dev/null
probe-flatten d/target | probe-match d/golden > pairs
cp -r d/target t
rm t/step0/rank0/stack.json
mkfifo t/step0/rank0/stack.json
probe-flatten t | probe-match d/golden > tpairs
timeout 10 probe-stack tpairs > /dev/null; echo "probe-stack, stack.json a FIFO: status $?"
timeout 10 probe-stack --format text tpairs > /dev/null; echo "probe-stack --format text, the same: status $?"
timeout 10 probe-metric --csv tpairs > table.csv; echo "probe-metric --csv, the same: status $?; $(head -1 table.csv | tr , '\n' | grep -c NPU_Stack_Info) NPU_Stack_Info column"
rm t/step0/rank0/stack.json
ln -s /dev/zero t/step0/rank0/stack.json
timeout 10 probe-stack tpairs > /dev/null; echo "probe-stack, stack.json a link to /dev/zero: status $?"
rm t/step0/rank0/stack.json
cp d/target/step0/rank0/stack.json t/step0/rank0/
rm t/step0/rank0/construct.json
mkfifo t/step0/rank0/construct.json
timeout 10 probe-stack tpairs > /dev/null; echo "probe-stack, construct.json a FIFO: status $?"
timeout 10 probe-stack --stack t/step0/rank0/construct.json tpairs > /dev/null; echo "probe-stack --stack FIFO: status $?"
# a dump through a FIFO, and through a pipe given by a name (/dev/stdin here; <(...) in bash is the same)
dump=d/target/step0/rank0/dump.json
feed() { # file: written into the FIFO "fifo" by a writer that gives up after 10 s
	rm -f fifo; mkfifo fifo
	timeout 10 sh -c 'cat "$1" > fifo' _ "$1" > /dev/null 2>&1 &
}
feed $dump
timeout 10 probe-flatten fifo > leaves; echo "probe-flatten FIFO: status $?, $(wc -l < leaves) leaves (a file: $(probe-flatten $dump | wc -l))"
cat $dump | timeout 10 probe-flatten /dev/stdin > leaves; echo "probe-flatten /dev/stdin (a pipe): status $?, $(wc -l < leaves) leaves"
feed d/golden/step0/rank0/dump.json
probe-flatten $dump > leaves
timeout 10 probe-match fifo leaves > p; echo "probe-match, the golden dump a FIFO: status $?, $(wc -l < p) pairs"
cat d/golden/step0/rank0/dump.json | timeout 10 probe-match /dev/stdin leaves > p; echo "probe-match, the golden dump a pipe: status $?, $(wc -l < p) pairs"
# "data" before "task": a second pass over the file
jq -c '{data} + del(.data)' $dump > late.json
probe-flatten late.json | wc -l
feed late.json
timeout 10 probe-flatten fifo > /dev/null; echo "probe-flatten FIFO, data before task: status $?"
cat late.json | timeout 10 probe-flatten /dev/stdin > /dev/null; echo "probe-flatten /dev/stdin (a pipe), data before task: status $?"
probe-flatten < late.json > /dev/null; echo "probe-flatten < file, data before task: status $?"
cat late.json | timeout 10 probe-match /dev/stdin leaves > /dev/null; echo "probe-match, golden a pipe, data before task: status $?"
wait
