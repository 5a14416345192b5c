# msprobe's result.xlsx of generated packs (all differences), read back by a reader of the
# standard library, faults included, by msprobe's rules (msprobe-precheck.md) by hand:
#   summary: the six checks, each error (random too: the count differs)
#   env: bench_value 1, cmp_value 0 (its columns swapped: bench.zip has 0)
#   pip: numpy 1.24.2 | 1.26.4
#   dataset: equal False and the relative differences signed by bench's value
#   weights: per step the order of Python's set (fc2.bias, fc2.weight, fc1.weight, fc1.bias,
#     as in fixture cc01), equal True at step 0 but for fc2.bias, the differences signed
#   hyperparameters: lr and seed (pure name), and the warning "Only in comparison,
#     hidden-size" of the key collision (hidden-size and model.hidden_size refine alike)
#   random: each bench call takes the first cmp call whose stack matches (same length, each
#     frame's (file + function + difflib ratio of the code) / 3 >= 0.8): manual_seed line 62
#     with cmp's line 62 (True); line 67 also with line 62 (ratio 0.652..., score 0.884...:
#     both bench calls take one cmp call, and line 67 goes unseen), 1 | 1, True; randn line 75
#     with cmp's line 75, 1 | 2, False; line 76 also with line 75 (ratio 0.905...), 1 | 2,
#     False; the operations in the order of Python's set
# Then two identical packs: every sheet passes but hyperparameters, which warns (msprobe's
# collision), and the records find nothing (exit 0).
probe-gendump --framework config-check p || exit
probe-config --xlsx p/bench.zip p/cmp.zip > result.xlsx; echo "status $?"
python3 "$TESTS/parity/xlsx_render.py" result.xlsx book || exit
for s in summary env pip dataset weights hyperparameters random; do
	echo "== $s"
	cat book/result__$s.csv book/types/result__$s.types.csv
done
probe-gendump --framework config-check --fault none same || exit
probe-config -o out same/bench.zip same/cmp.zip; echo "identical: status $?"
python3 "$TESTS/parity/xlsx_render.py" out/result.xlsx book2 && cat book2/result__summary.csv book2/result__hyperparameters.csv
