probe-flatten --rank x dump.json
