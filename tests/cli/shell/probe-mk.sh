# share/probe.mk through share/examples/Makefile and through makefiles of our own:
# make passes on identical dumps, fails on a perturbed one printing the divergence,
# honours the tolerance variables, quotes paths, finds the tools through
# PROBE_BINDIR, leaves the user's default goal alone, writes msprobe's CSV (and
# nothing on failure).  make's messages name probe.mk's lines: they are written as N.
# sanitizers: skip, it tests make's use of the tools, whose code the other tests run under the sanitizers
# sanitizers: skip, it tests share/probe.mk's make rules; the tools they run are under the sanitizers in their own tests
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEFILES MAKEOVERRIDES GNUMAKEFLAGS V
mk=$TOP/share/probe.mk
example=$TOP/share/examples/Makefile
norm() { sed -e "s|$TOP|\$TOP|g" -e 's/\.mk:[0-9][0-9]*:/.mk:N:/g' -e 's/Makefile:[0-9][0-9]*:/Makefile:N:/g'; }
run() { # make arguments...: make's output (stderr after stdout), then its status
	make --no-print-directory "$@" > out.txt 2> err.txt; s=$?
	norm < out.txt; norm < err.txt; echo "make status $s"
}

echo "# identical runs: passes"
run -f "$example" FAULT=none
echo "# a 1 % weight fault: fails, with the first divergence, its stack and the message"
run -f "$example"
echo "# a band that holds the fault: passes; a narrower one: fails further on"
run -f "$example" PROBE_RTOL=0.02
run -f "$example" PROBE_RTOL=0.011 | grep -e '^  leaf' -e '^  verdict' -e 'within' -e 'status'
echo "# -n 2: two divergences; PROBE_STACKS=no: no stack"
run -f "$example" PROBE_N=2 | grep -c 'divergence #'
run -f "$example" PROBE_STACKS=no | grep -c -e '^  stack' -e '^  modules'
run -f "$example" PROBE_STACKS=maybe

echo "# every option as one quoted word (make -n prints the recipe)"
make --no-print-directory -n -f "$mk" probe-check PROBE_TARGET="t dir/it's" PROBE_GOLDEN='g;$$x' \
	PROBE_RTOL=1e-3 PROBE_ATOL=1e-6 PROBE_ULPS=4 PROBE_COS_MIN=0.99 PROBE_N=3 \
	PROBE_MATCH_FLAGS=--fuzzy PROBE_BINDIR='/opt/my probe/bin' | norm

echo "# dumps of our own, in a path with a space and a quote"
probe-gendump --fault none "runs/it's ok" > /dev/null
probe-gendump --fault input "runs/it's bad" > /dev/null
run -f "$mk" probe-check PROBE_TARGET="runs/it's ok/target" PROBE_GOLDEN="runs/it's ok/golden"
run -f "$mk" probe-check PROBE_TARGET="runs/it's bad/target" PROBE_GOLDEN="runs/it's bad/golden" | tail -n 3

echo "# tensor dumps: PROBE_ULPS and PROBE_COS_MIN decide"
probe-gendump --mode tensor --fault fc2-weight-tiny tiny > /dev/null
for v in PROBE_ULPS=1 PROBE_ULPS=4 PROBE_COS_MIN=1.1 PROBE_COS_MIN=0.9999; do
	echo "$v: $(run -f "$mk" probe-check PROBE_TARGET=tiny/target PROBE_GOLDEN=tiny/golden "$v" | tail -n 1)"
done

echo "# the tools through PROBE_BINDIR, with PATH holding only the system"
bindir=$(dirname "$(command -v probe-first)")
mkdir sys
(cd sys && PATH=/usr/bin:/bin && run -f "$example" FAULT=none PROBE_BINDIR="$bindir") | sed "s|'[^']*/probe-gendump'|'BINDIR/probe-gendump'|"
echo "without it: $( (PATH=/usr/bin:/bin && run -f "$mk" probe-check PROBE_TARGET=sys/example-none/target PROBE_GOLDEN=sys/example-none/golden) |
	grep -o -e 'probe-first: not found' -e 'make status.*')" # -o: the shells of the pipeline may interleave their messages

echo "# a variable missing"
run -f "$mk" probe-check PROBE_TARGET=example-none/target
run -f "$mk" probe-csv PROBE_GOLDEN=example-none/golden

echo "# include-safe: the user's first target stays the default goal, before or after the include, included twice"
cat > first.mk <<'EOF'
include $(PROBE_MK)
include $(PROBE_MK)
hello:
	@echo hello, the first target
check: probe-check
EOF
cat > after.mk <<'EOF'
hello:
	@echo hello, the first target
include $(PROBE_MK)
EOF
cat > goal.mk <<'EOF'
.DEFAULT_GOAL := bye
include $(PROBE_MK)
hello:
	@echo hello
bye:
	@echo bye, the default goal set before the include
EOF
cat > only.mk <<'EOF'
include $(PROBE_MK)
EOF
run -f first.mk PROBE_MK="$mk"
run -f after.mk PROBE_MK="$mk"
run -f goal.mk PROBE_MK="$mk"
run -f only.mk PROBE_MK="$mk"
run -f first.mk PROBE_MK="$mk" check PROBE_TARGET=example-none/target PROBE_GOLDEN=example-none/golden
echo "# an includer with a recipe prefix of its own, .ONESHELL and a shell that stops on errors"
cat > odd.mk <<'EOF'
.RECIPEPREFIX = >
.ONESHELL:
SHELL = /bin/sh
.SHELLFLAGS = -e -c
include $(PROBE_MK)
hello:
> @echo hello, with a recipe prefix of its own
EOF
run -f odd.mk PROBE_MK="$mk"
run -f odd.mk PROBE_MK="$mk" probe-check PROBE_TARGET=example-fc2-weight/target PROBE_GOLDEN=example-fc2-weight/golden | tail -n 3
echo "# variables set after the include count"
cat > late.mk <<'EOF'
include $(PROBE_MK)
hello: ; @echo hello
PROBE_TARGET = example-fc2-weight/target
PROBE_GOLDEN = example-fc2-weight/golden
PROBE_RTOL = 0.02
PROBE_CSV = late csv/out.csv
EOF
mkdir "late csv"
run -f late.mk PROBE_MK="$mk" probe-check probe-csv
wc -l < "late csv/out.csv"

echo "# probe-csv: msprobe's CSV, as probe-metric --csv writes it"
run -f "$example" csv
probe-flatten example-fc2-weight/target | probe-match example-fc2-weight/golden | probe-metric --csv > direct.csv
cmp compare_result.csv direct.csv && echo "compare_result.csv is probe-metric's CSV, $(wc -l < direct.csv) lines"
echo "# probe-csv fails on a missing dump and writes nothing; PROBE_CSV_DIR: one file per rank"
run -f "$mk" probe-csv PROBE_TARGET=example-none/target PROBE_GOLDEN=no-such-dump PROBE_CSV="no such.csv"
ls -d no* 2> /dev/null || echo "no CSV, no temporary file"
probe-gendump --ranks 2 two > /dev/null
run -f "$mk" probe-csv PROBE_TARGET=two/target PROBE_GOLDEN=two/golden PROBE_CSV_DIR="per rank"
ls "per rank" | sed 's/[0-9]\{14\}/YYYYmmddHHMMSS/'

echo "# PROBE_ROUNDING: a bf16 autocast run against float32 with rounding only passes (accept, the"
echo "# default), fails with refuse (probe-first --bitwise); another value is an error"
probe-gendump --framework decoder --precision bf16 --fault none mix > /dev/null
run -f "$mk" probe-check PROBE_TARGET=mix/target PROBE_GOLDEN=mix/golden PROBE_STACKS=no | sed -n -e 1p -e "\$p"
run -f "$mk" probe-check PROBE_TARGET=mix/target PROBE_GOLDEN=mix/golden PROBE_ROUNDING=refuse | grep -e '^divergence' -e 'status'
run -f "$mk" probe-check PROBE_TARGET=mix/target PROBE_GOLDEN=mix/golden PROBE_ROUNDING=maybe
echo "# PROBE_BUDGET_FACTOR: a factor under what the rounding reaches makes a divergence of it"
run -f "$mk" probe-check PROBE_TARGET=mix/target PROBE_GOLDEN=mix/golden PROBE_BUDGET_FACTOR=0.5 | grep -e '^divergence' -e 'status'
