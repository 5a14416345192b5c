# A debug.json (single-point saves): entries named <var>.<count>.debug are read whole,
# nothing is renumbered and nothing is reported as dropped.
mkdir -p step0/rank0
cat > step0/rank0/debug.json <<'JSON'
{"task": "statistics", "level": "debug", "framework": "pytorch", "dump_data_dir": null, "data": {
 "loss.0.debug": {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [], "Max": 2.5, "Min": 2.5, "Mean": 2.5, "Norm": 2.5, "requires_grad": true},
 "x_grad.3.debug": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1, "Min": 0, "Mean": 0.5, "Norm": 1.0, "requires_grad": false}, {"lr": {"type": "float", "value": 0.1}}]
}}
JSON
probe-flatten step0 | jq -c '[.rank, .step, .name, .key, .state, .type]'
probe-flatten --list step0
