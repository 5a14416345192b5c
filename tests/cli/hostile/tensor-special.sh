# Tensor files that are not regular files (issue 17, class 7): a FIFO (with no writer:
# opening it for reading would wait for ever), a link to one inside the tensor folder, a
# directory, a socket.  Each is refused before it is opened, with its kind named, the pair
# "unreadable"; probe-metric and probe-first go on with the other pairs and end.  Every
# tool runs under timeout 10: status 124 would be a hang.
probe-gendump --mode tensor --layers 2 d > /dev/null
cp -r d/target t
data=t/step0/rank0/dump_tensor_data
f1=Functional.linear.0.forward.output.0.pt f2=Functional.linear.0.forward.input.0.pt
f3=Functional.relu.0.forward.output.0.pt
rm $data/$f1 $data/$f2 $data/$f3
mkfifo $data/$f1 $data/fifo
ln -s fifo $data/$f2
mkdir $data/$f3
probe-flatten t | probe-match d/golden > pairs
timeout 10 probe-metric pairs > m.ndjson 2> err; echo "probe-metric: status $?, $(wc -l < m.ndjson) records"
jq -r 'select(.verdict == "unreadable") | .t.name + ": " + .reason' m.ndjson | sed 's|t/step0/rank0/dump_tensor_data/||'
timeout 10 probe-metric --csv pairs > table.csv 2> /dev/null; echo "probe-metric --csv: status $?, $(sed 1d table.csv | wc -l) rows"
timeout 10 probe-first pairs > /dev/null 2>&1; echo "probe-first on pairs: status $?"
timeout 10 probe-first m.ndjson > /dev/null 2>&1; echo "probe-first on metrics: status $?"
# the golden side, and a socket (a program that listens is not needed: bind makes it)
rm -rf g && cp -r d/golden g
gdata=g/step0/rank0/dump_tensor_data
rm $gdata/$f1
python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' $gdata/$f1
probe-flatten d/target | probe-match g > gpairs
timeout 10 probe-metric gpairs 2> /dev/null | jq -r 'select(.verdict == "unreadable") | .t.name + ": " + .reason' | sed 's|g/step0/rank0/dump_tensor_data/||'
timeout 10 probe-first gpairs > /dev/null 2>&1; echo "probe-first, a golden socket: status $?"
