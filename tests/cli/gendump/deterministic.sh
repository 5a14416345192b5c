# The same options give the same bytes; --fault none gives a target equal to the golden run.
probe-gendump --ranks 2 --steps 2 --micro-batches 2 --mode md5 a
probe-gendump --ranks 2 --steps 2 --micro-batches 2 --mode md5 b
diff -r a b && echo same bytes
probe-gendump --fault none --ranks 2 c
diff -r c/golden c/target && echo target equals golden
