probe-flatten no/such/dump.json
