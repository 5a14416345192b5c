# An unknown option: the usage on stderr, status 2, nothing on stdout.
probe-flatten --bogus
