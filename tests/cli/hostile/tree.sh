# Dump trees that lie: symbolic link loops and dangling links where a step, a rank
# or a dump.json should be, a dump.json that is a directory, a rank directory
# without dump.json, and target and golden dumps whose steps or ranks differ.
# A rank that cannot be read is an error naming it, never a rank that silently
# went missing; links under other names are not followed at all.
probe-gendump --ranks 2 --steps 2 --layers 2 d > /dev/null
t() { # label operand...
	label=$1
	shift
	probe-flatten --list "$@" > out 2> err
	echo "$label: status $?, $(wc -l < out) dump(s) listed; $(cat err)"
}
cp -r d/target x
ln -s .. x/step0/rank0/up; ln -s ../../step0 x/step1/back; ln -s self x/self
t "loops under other names" x
ln -s step9 x/step9
t "a step that is a link to itself" x
rm x/step9; ln -s rank7 x/step0/rank6; ln -s rank6 x/step0/rank7
t "two ranks linked to each other" x
t "the same, one step" x/step0
rm x/step0/rank6 x/step0/rank7; ln -s nowhere x/step0/rank3
t "a dangling rank link" x
rm x/step0/rank3; mv x/step1/rank1/dump.json x/step1/rank1/moved.json; ln -s dump.json x/step1/rank1/dump.json
t "dump.json linked to itself" x
t "the same, the rank directory" x/step1/rank1
probe-flatten x/step1/rank1/dump.json > out 2> err; echo "the same, the file: status $?; $(cat err)"
rm x/step1/rank1/dump.json; mkdir x/step1/rank1/dump.json
t "dump.json is a directory" x
rmdir x/step1/rank1/dump.json
t "a rank directory without dump.json" x
mv x/step1/rank1/moved.json x/step1/rank1/dump.json
mkdir x/step0/rank2
t "an empty rank directory" x
rmdir x/step0/rank2; mkdir x/step2
t "an empty step directory" x
rmdir x/step2
t "all repaired" x
# steps and ranks that differ between target and golden
cp -r d/golden g1; rm -r g1/step1
probe-flatten d/target | probe-match g1 > out 2> err; echo "golden of one step: status $?, $(wc -l < out) pairs (it pairs with every target step)"
cp -r d/golden g2; mv g2/step1 g2/step5
probe-flatten d/target | probe-match g2 > out 2> err; echo "golden steps 0 and 5: status $?, last $(tail -1 out | cut -c1-9); $(cat err)"
cp -r d/golden g3; rm -r g3/step1/rank1
probe-flatten d/target | probe-match g3 > out 2> err; echo "a golden rank missing: status $?, last $(tail -1 out | cut -c1-9); $(cat err)"
probe-flatten d/target/step1 | probe-match d/golden/step0 | probe-first > /dev/null; echo "step1 against step0: probe-first status $?"
