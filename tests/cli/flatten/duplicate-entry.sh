# An entry named twice in "data": an error naming the second one (Python would keep the last
# value at the first place; a stream cannot, and a dump written by msprobe never has it).
cat > dump.json <<'JSON'
{"task": "statistics", "data": {
 "Torch.add.0.forward": {"output": [{"type": "int", "value": 1}]},
 "Torch.mul.0.forward": {"output": [{"type": "int", "value": 2}]},
 "Torch.add.0.forward": {"output": [{"type": "int", "value": 3}]}
}}
JSON
probe-flatten dump.json | jq -c '[.name, .value]'
# The repeat is found once its value has been read: a repeated entry whose value is itself
# malformed is reported for that (the first problem in the file), and no row of it is written.
cat > bad.json <<'JSON'
{"task": "statistics", "data": {
 "Torch.add.0.forward": {"output": [{"type": "int", "value": 1}]},
 "Torch.add.0.forward": {"output": [{"type": "int", "value": 1,}]}
}}
JSON
probe-flatten bad.json | jq -c '[.name, .value]'
