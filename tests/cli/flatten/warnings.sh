# Entries msprobe's compare drops, and bare values, are read and reported, not dropped silently.
cat > dump.json <<'JSON'
{"task": "statistics", "data": {
 "Torch.add.0.forward": {"input_args": [1, {"type": "int", "value": 2}], "output": []},
 "Torch.add.0": {"output": [{"type": "int", "value": 3}]}
}}
JSON
probe-flatten dump.json | jq -c '[.name, .msprobe_skips]'
probe-flatten -q dump.json | wc -l
