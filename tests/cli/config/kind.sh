# What an operand is: from its name (env, *.env, *pip*.txt, requirements*.txt, *.sh, *.yaml,
# *.json) or its content; --kind for both operands; standard input (-) and gzip for plain
# files; --all adds the equal items (finding same, level pass), and only them.
printf 'torch==2.1.0\nnumpy==1.26.4\n' > a
printf 'torch==2.1.0\nnumpy==1.24.2\n' | gzip > b.gz
cat a | probe-config - b.gz | jq -c 'select(.check) | [.item, .bench, .cmp]'
probe-config --all a b.gz | jq -c 'select(.check) | [.item, .finding, .level]'
printf 'lr: 0.1\n' > lr.txt
printf 'lr: 0.2\n' > lr2.txt
probe-config --kind config lr.txt lr2.txt | jq -c 'select(.check) | [.item, .bench, .cmp]'
probe-config lr.txt lr2.txt | jq -c 'select(.check) | [.item, .bench, .cmp]'
printf 'HOME=/root\nLANG=C\n' > x.env
printf '{"HOME": "/root", "LANG": "C.UTF-8", "PATH": "/bin"}' > env
probe-config x.env env | jq -c 'select(.check) | [.check, .item, .bench, .cmp, .level]'
