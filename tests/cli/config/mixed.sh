# A pack against a plain file: only the check both hold is compared, the others are "not
# compared" in the summary (and in the report), never passed.  By hand: the pack's pip
# (numpy 1.24.2, torch 2.1.0, ...) against a freeze with numpy 1.26.4: numpy error, the
# packages only in the pack at level info, but safetensors and transformers (numerical
# libraries: warning); the pack's hyperparameters (static file) against a
# YAML config holding lr 0.01 and seed 1234 under other keys: lr (refined name
# optimizer.lr) and seed (training.seed) alike, the rest of the pack's keys only in bench.
probe-gendump --framework config-check --fault none p || exit
printf 'torch==2.1.0\nnumpy==1.26.4\n' > freeze.txt
probe-config p/bench.zip freeze.txt > pip.rec; echo "status $?"
jq -c 'select(.check) | [.item, .finding, .level]' pip.rec
jq -c '.summary.checks // empty' pip.rec
probe-config --format text p/bench.zip freeze.txt | head -n 9
printf 'optimizer:\n  lr: 0.01\ntraining:\n  seed: "1234"\n' > c.yaml
probe-config --all p/bench.zip c.yaml | jq -c 'select(.check == "hyperparameters") | [.item, .finding, .matched_with]'
