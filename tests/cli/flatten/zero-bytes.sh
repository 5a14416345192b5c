: > dump.json
probe-flatten dump.json
