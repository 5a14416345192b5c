# The report for people on packs with every difference: the summary first (which checks differ,
# how many items, weights' first differing step), the note that packs hold no seed values, then
# the sections in the order that matters (seed and random calls; learning rate; library
# versions; weights; dataset; environment), then what is not counted (MASTER_PORT).
probe-gendump --framework config-check p || exit
probe-config --format text p/bench.zip p/cmp.zip; echo "status $?"
probe-gendump --framework config-check --fault none same || exit
probe-config --format text same/bench.zip same/cmp.zip; echo "status $?"
