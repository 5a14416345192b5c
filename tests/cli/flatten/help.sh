probe-flatten --help
