# probe.mk: fail a build when a run's msprobe dump diverges from a golden one.
# A makefile fragment for GNU make, from probe (see probe(7), probe-first(1)).
#
# Usage, in your own Makefile:
#
#     # the dump under suspicion, and the reference dump
#     PROBE_TARGET = npu/step0
#     PROBE_GOLDEN = gpu/step0
#     include /usr/local/share/probe/probe.mk
#
#     all: train                        # your first target stays the default goal
#     check: probe-check                # make check fails on a divergence
#     probe-check: npu/step0/rank0/dump.json   # optional: what must exist first
#
#     $ make probe-check
#     $ make probe-check PROBE_RTOL=1e-3 PROBE_ATOL=1e-6
#     $ make probe-csv PROBE_CSV=compare_result.csv
#
# The file is $(DATADIR)/probe/probe.mk: /usr/local/share/probe/probe.mk after
# `make install`, /usr/share/probe/probe.mk with PREFIX=/usr; an example that uses it
# is $(DATADIR)/probe/examples/Makefile.  Including it defines no other target, does
# not change the default goal (the first target of your Makefile stays the one `make`
# builds), and may be included more than once.
#
# Targets (both phony: they run each time they are asked for):
#
#   probe-check  Compares the dumps and prints probe-first's text report:
#                  probe-flatten TARGET | probe-match GOLDEN | probe-stack | probe-first --format text
#                Succeeds when probe-first finds no divergence and every pair was
#                compared (exit status 0; the report says "no divergence", or "within
#                rounding" when every difference is one rounding explains: see
#                PROBE_ROUNDING to refuse those, or "no divergence beyond the band").  Fails
#                when it finds one (status 1: the report of the first divergence,
#                the rank that started it first, with the user's line, the Python
#                stack and the module chain when probe-stack found stack.json and
#                construct.json beside the dump, then "probe-check: TARGET diverges
#                from GOLDEN" on standard error); when the comparison is incomplete
#                (status 3: no divergence in what was compared, but some pairs were
#                not: unmatched leaves, tensor files that cannot be read; the report
#                says how many, then "probe-check: TARGET against GOLDEN is
#                incomplete"); or on trouble (status 2: a dump that cannot be read,
#                nothing to compare, two dumps that are not a run and its reference;
#                the tools' messages on standard error).  Any failure stops make
#                with an error, as a failed compiler does: make exits with status 2
#                (`make -k` goes on with the targets that do not depend on
#                probe-check).  PROBE_PARTIAL=yes accepts a partial comparison.
#
#   probe-csv    Writes msprobe's compare_result CSV of the same pair of dumps
#                (probe-metric --csv) to PROBE_CSV, or, when PROBE_CSV_DIR is set, one
#                file per rank and step into that directory, named as msprobe names
#                them (probe-metric -o).  Writes nothing on failure.
#
# Variables (set them before or after the include, or on make's command line; empty
# means "not given"):
#
#   PROBE_TARGET     the target run's dump: a dump.json, a rank, step or dump root
#                    directory (required)
#   PROBE_GOLDEN     the golden run's dump, of the same kind (required)
#   PROBE_BINDIR     the directory of the probe tools; empty (the default): found on PATH
#   PROBE_ROUNDING   accept (the default): a run whose every difference is within
#                    probe-first's rounding budget passes ("within rounding"); refuse:
#                    any difference fails (probe-first --bitwise), for two runs that
#                    must be the same bit for bit (the same hardware and kernels)
#   PROBE_BUDGET_FACTOR
#                    probe-first --budget-factor: how many times its rounding budget a
#                    difference may be before it is a divergence (default 12)
#   PROBE_RTOL       probe-first --rtol: a relative tolerance band
#   PROBE_ATOL       probe-first --atol: an absolute tolerance band
#   PROBE_ULPS       probe-first --ulps: tensor elements within N units in the last place
#   PROBE_COS_MIN    probe-first --cos-min: tensors whose msprobe Cosine is at least X
#   PROBE_N          probe-first -n: report the first N divergences of each rank (default 1)
#   PROBE_WHERE      probe-first --where: report only the divergences this jq filter
#                    chooses (every leaf still counts), e.g.
#                    PROBE_WHERE = .t.entry | startswith("Torch.dropout") | not
#   PROBE_PARTIAL    yes to accept a partial comparison (probe-match and probe-first
#                    --partial): most leaves unmatched, or some not compared; the
#                    report still says how much was compared; no (the default)
#   PROBE_STACKS     yes (the default) to attach stacks with probe-stack; no to leave it out
#   PROBE_CSV        probe-csv's output file (default compare_result.csv)
#   PROBE_CSV_DIR    probe-csv's output directory instead (probe-metric -o DIR)
#   PROBE_FLATTEN_FLAGS, PROBE_MATCH_FLAGS, PROBE_STACK_FLAGS, PROBE_FIRST_FLAGS,
#   PROBE_METRIC_FLAGS
#                    more options for each tool, as shell words (e.g.
#                    PROBE_MATCH_FLAGS = --fuzzy, PROBE_FLATTEN_FLAGS = --step 3)
#   PROBE_FLATTEN, PROBE_MATCH, PROBE_METRIC, PROBE_FIRST, PROBE_STACK, PROBE_GENDUMP,
#   PROBE_TABLE      the commands themselves (default: the tool in PROBE_BINDIR, or on PATH)
#   V=1              show the commands as they run
#
# Paths are passed to the shell quoted, so they may hold spaces and quotes (write a
# '$' as '$$', as everywhere in make, and keep comments off the variable's line, since
# make keeps the spaces before them).  The recipes use only POSIX sh; the pipeline's
# status is probe-first's (or probe-metric's), and a failure earlier in the pipeline
# reaches it as an error record (probe-records(5)), so nothing fails silently.

ifndef probe_mk_included
probe_mk_included := 1

# include-safe: remember the default goal and the recipe prefix; both are restored at
# the end of this file (the recipes below begin with a tab whatever the includer's
# .RECIPEPREFIX).
probe_mk_default_goal := $(.DEFAULT_GOAL)
probe_mk_recipeprefix := $(.RECIPEPREFIX)
.RECIPEPREFIX :=

PROBE_TARGET ?=
PROBE_GOLDEN ?=
PROBE_BINDIR ?=
PROBE_ROUNDING ?= accept
PROBE_BUDGET_FACTOR ?=
PROBE_RTOL ?=
PROBE_ATOL ?=
PROBE_ULPS ?=
PROBE_COS_MIN ?=
PROBE_N ?=
PROBE_WHERE ?=
PROBE_PARTIAL ?= no
PROBE_STACKS ?= yes
PROBE_CSV ?= compare_result.csv
PROBE_CSV_DIR ?=
PROBE_FLATTEN_FLAGS ?=
PROBE_MATCH_FLAGS ?=
PROBE_STACK_FLAGS ?=
PROBE_FIRST_FLAGS ?=
PROBE_METRIC_FLAGS ?=

# probe_q: one shell word, single-quoted: 'it'\''s' for it's.
probe_q = '$(subst ','\'',$(1))'
# probe_tool: a tool's command, from PROBE_BINDIR or PATH.
probe_tool = $(if $(PROBE_BINDIR),$(call probe_q,$(PROBE_BINDIR)/$(1)),$(1))

PROBE_FLATTEN ?= $(call probe_tool,probe-flatten)
PROBE_MATCH ?= $(call probe_tool,probe-match)
PROBE_METRIC ?= $(call probe_tool,probe-metric)
PROBE_FIRST ?= $(call probe_tool,probe-first)
PROBE_STACK ?= $(call probe_tool,probe-stack)
PROBE_GENDUMP ?= $(call probe_tool,probe-gendump)
PROBE_TABLE ?= $(call probe_tool,probe-table)

probe_at = $(if $(filter 1,$(V)),,@)
probe_need = $(if $(PROBE_TARGET),,$(error probe.mk: PROBE_TARGET is not set: the dump to check))$(if \
	$(PROBE_GOLDEN),,$(error probe.mk: PROBE_GOLDEN is not set: the golden dump))
probe_opt = $(if $(2),$(1) $(call probe_q,$(2)))
probe_first_opts = $(call probe_opt,-n,$(PROBE_N)) $(call probe_opt,--rtol,$(PROBE_RTOL)) \
	$(call probe_opt,--atol,$(PROBE_ATOL)) $(call probe_opt,--ulps,$(PROBE_ULPS)) \
	$(call probe_opt,--cos-min,$(PROBE_COS_MIN)) $(call probe_opt,--where,$(PROBE_WHERE)) \
	$(call probe_opt,--budget-factor,$(PROBE_BUDGET_FACTOR)) $(probe_rounding) $(probe_partial) $(PROBE_FIRST_FLAGS)
probe_rounding = $(if $(filter refuse,$(PROBE_ROUNDING)),--bitwise,$(if $(filter-out accept,$(PROBE_ROUNDING)),$(error \
	probe.mk: PROBE_ROUNDING is accept or refuse, not '$(PROBE_ROUNDING)')))
probe_partial = $(if $(filter yes,$(PROBE_PARTIAL)),--partial,$(if \
	$(filter-out no,$(PROBE_PARTIAL)),$(error probe.mk: PROBE_PARTIAL is yes or no, not '$(PROBE_PARTIAL)')))
probe_stack_stage = $(if $(filter yes,$(PROBE_STACKS)),| $(PROBE_STACK) $(PROBE_STACK_FLAGS),$(if \
	$(filter-out no,$(PROBE_STACKS)),$(error probe.mk: PROBE_STACKS is yes or no, not '$(PROBE_STACKS)')))
# the pairs of leaves, target against golden
probe_pairs = $(PROBE_FLATTEN) $(PROBE_FLATTEN_FLAGS) $(call probe_q,$(PROBE_TARGET)) \
	| $(PROBE_MATCH) $(probe_partial) $(PROBE_MATCH_FLAGS) $(call probe_q,$(PROBE_GOLDEN))

.PHONY: probe-check probe-csv

probe-check:
	$(probe_at)$(probe_need)$(probe_pairs) $(probe_stack_stage) | $(PROBE_FIRST) --format text $(probe_first_opts) || { \
	status=$$?; \
	[ $$status -ne 1 ] || printf 'probe-check: %s diverges from %s\n' \
		$(call probe_q,$(PROBE_TARGET)) $(call probe_q,$(PROBE_GOLDEN)) >&2; \
	[ $$status -ne 3 ] || printf 'probe-check: %s against %s is incomplete\n' \
		$(call probe_q,$(PROBE_TARGET)) $(call probe_q,$(PROBE_GOLDEN)) >&2; \
	exit $$status; }

probe-csv:
	$(probe_at)$(probe_need)$(if $(PROBE_CSV_DIR),$(probe_csv_dir),$(probe_csv_file))

# into a temporary file first, so that a failure leaves no partial CSV behind
probe_csv_file = out=$(call probe_q,$(PROBE_CSV)); \
	$(probe_pairs) | $(PROBE_METRIC) $(PROBE_METRIC_FLAGS) --csv > "$$out.tmp" && mv -f "$$out.tmp" "$$out" \
	|| { status=$$?; rm -f "$$out.tmp"; exit $$status; }
probe_csv_dir = mkdir -p $(call probe_q,$(PROBE_CSV_DIR)) && \
	$(probe_pairs) | $(PROBE_METRIC) $(PROBE_METRIC_FLAGS) -o $(call probe_q,$(PROBE_CSV_DIR))

.DEFAULT_GOAL := $(probe_mk_default_goal)
.RECIPEPREFIX := $(probe_mk_recipeprefix)

endif
