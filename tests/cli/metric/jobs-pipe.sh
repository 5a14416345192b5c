# sanitizers: skip, the threads started, not memory: the other metric tests run the same threads under the sanitizers
# Statistics pairs read from a pipe: without -j, probe-metric starts half the processors' jobs, at
# least one, since the stages writing the pipe run on the same processors; -j N starts N.  The
# threads are counted in /proc while a writer holds the FIFO open, with -j 2 first to show that the
# count sees a helper when there is one.
n=$(getconf _NPROCESSORS_ONLN)
if [ "$n" -lt 2 ]; then
	echo "one processor: a helper thread would not be started either way"
	exit 77
fi
probe-gendump --ranks 1 --micro-batches 10 --layers 12 d > /dev/null
probe-flatten d/target | probe-match d/golden > pairs.ndjson
echo "pairs: $(wc -l < pairs.ndjson)"
mkfifo fifo

# threads of probe-metric reading the FIFO, once it has the pairs and while the writer still holds it
threads_with() {
	probe-metric "$@" --csv fifo > out.csv &
	pid=$!
	exec 3> fifo
	cat pairs.ndjson >&3
	most=0
	i=0
	while [ $i -lt 40 ]; do # 2 s: the pairs are read in a few ms
		t=$(ls /proc/$pid/task 2> /dev/null | wc -l)
		[ "$t" -gt "$most" ] && most=$t
		i=$((i + 1))
		sleep 0.05
	done
	exec 3>&-
	wait $pid
	echo "status $?, rows $(($(wc -l < out.csv) - 1))"
	echo "$most"
}
r=$(threads_with -j 2)
echo "-j 2: $(echo "$r" | head -n 1), $(echo "$r" | tail -n 1) threads"
r=$(threads_with)
want=$((n / 2))
got=$(echo "$r" | tail -n 1)
echo "default: $(echo "$r" | head -n 1)"
if [ "$got" -eq "$want" ]; then echo "default: half the processors' threads"; else echo "default: $got threads, want $want ($n processors)"; fi
