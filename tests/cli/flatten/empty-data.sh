printf '{"task": "statistics", "data": {}}' > dump.json
probe-flatten dump.json
