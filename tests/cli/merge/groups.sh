# probe-merge --groups: within a communication group the outputs of all_reduce must
# agree across ranks.  Generated 4-rank runs: the all-reduce fault gives rank 1 a
# result the others do not have (exit 1, rank 1 named, its inputs equal to its
# golden's); the fc2-weight fault on rank 2 changes rank 2's input to the first
# all_reduce while every rank's output agrees (exit 0, rank 2 named as where the
# difference entered).  From workbooks, CSV and records alike.
for fault in all-reduce:1 fc2-weight:2; do
	probe-gendump --ranks 4 --fault "${fault%:*}" --fault-rank "${fault#*:}" "run-${fault%:*}" > /dev/null
done
for run in run-all-reduce run-fc2-weight; do
	mkdir "$run.xlsx" "$run.csv"
	probe-flatten "$run/target" | probe-match "$run/golden" | probe-metric > "$run.records"
	probe-metric -o "$run.xlsx" --xlsx < "$run.records"
	probe-metric -o "$run.csv" < "$run.records"
	echo "== $run, from workbooks"
	probe-merge --groups "$run.xlsx"; echo "status $?"
	probe-merge --groups --format json "$run.csv" > csv.json; echo "CSV: status $?"
	probe-merge --groups --format json "$run.records" > rec.json; echo "records: status $?"
	probe-merge --groups --format json "$run.xlsx" > xlsx.json
	cmp -s csv.json xlsx.json && cmp -s rec.json xlsx.json && echo "the same records from the three forms"
	cat xlsx.json
done
# the merged table warns when a group disagrees
probe-merge --api all_reduce.0 run-all-reduce.xlsx > /dev/null; echo "the merge itself: status $?"
