probe-gendump
probe-gendump --fault bogus out
probe-gendump --ranks 0 out
probe-gendump --fault-rank 3 --ranks 2 out
probe-gendump --layers 1 out
touch file
probe-gendump file
