# A golden dump of one step is compared with every target step (as msprobe
# compares whatever two dumps it is given).  When two target steps meet the same
# golden step, probe-match warns once, naming the golden dump and the target
# dump; one target step against one golden step of another number, and two
# roots compared step with step, say nothing.
probe-gendump --layers 2 --steps 3 s > /dev/null
probe-flatten s/target | probe-match s/golden/step0 > p; echo "every target step: status $?, $(wc -l < p) pairs"
probe-flatten s/target/step1 | probe-match s/golden/step0 > p; echo "step 1 against step 0: status $?, $(wc -l < p) pairs"
probe-flatten s/target | probe-match s/golden > p; echo "root against root: status $?, $(wc -l < p) pairs"
