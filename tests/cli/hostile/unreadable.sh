# Files and directories that cannot be read: each an error naming it, exit status 2.
probe-gendump --ranks 2 --layers 2 d > /dev/null
chmod 000 d/target/step0/rank1/dump.json
if cat d/target/step0/rank1/dump.json > /dev/null 2>&1; then
	chmod 644 d/target/step0/rank1/dump.json
	echo "chmod 000 does not stop reads here (running as root)"
	exit 77
fi
probe-flatten d/target > out 2> err; echo "an unreadable dump.json: status $?, last $(tail -1 out | cut -c1-9); $(cat err)"
probe-flatten d/target 2> /dev/null | probe-match d/golden > /dev/null 2> err; echo "the same into probe-match: $(cat err)"
probe-flatten d/golden | probe-match d/target > out 2> err; echo "as the golden: status $?, last $(tail -1 out | cut -c1-9); $(cat err)"
chmod 644 d/target/step0/rank1/dump.json
chmod 000 d/target/step0/rank1
probe-flatten d/target > out 2> err; echo "an unreadable rank directory: status $?; $(cat err)"
chmod 755 d/target/step0/rank1
chmod 000 d/target/step0
probe-flatten d/target > out 2> err; echo "an unreadable step directory: status $?; $(cat err)"
chmod 755 d/target/step0
probe-flatten d/target 2> /dev/null | probe-match d/golden > pairs
chmod 000 d/target/step0/rank0/stack.json
probe-stack pairs > out 2> err; echo "an unreadable stack.json: status $?, last $(tail -1 out | cut -c1-9); $(cat err)"
chmod 644 d/target/step0/rank0/stack.json
