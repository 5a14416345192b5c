# probe: precision debugging of msprobe dumps.  See README.md.
#
#   make deps      install the Debian packages the build and the tests need (as root)
#   make           build the tools into build/bin
#   make test      the edit-test loop: build, unit and golden tests (no sanitizers, no fuzzing)
#   make check     all tests (unit, golden, parity with ../shared/fixtures, sanitizers, fuzz smoke)
#   make demo      the main job on a generated example
#   make bench     measurements (see bench/run.sh)
#   make install   PREFIX=/usr/local DESTDIR= ; make uninstall
#
# Honoured: CC CPPFLAGS CFLAGS LDFLAGS LDLIBS LTO PREFIX DESTDIR BINDIR MANDIR V=1 DEVELOPER=1

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
INSTALL ?= install
CC ?= cc
CFLAGS ?= -O2 -g
BUILD ?= build

WARNINGS = -Wall -Wextra -Wshadow -Wpointer-arith -Wstrict-prototypes -Wmissing-prototypes \
	   -Wvla -Wformat=2 -Wundef -Wno-unused-parameter -Wno-format-nonliteral -Werror=implicit-function-declaration
ifeq ($(DEVELOPER),1)
WARNINGS += -Werror
endif
CC_IS_GCC := $(shell $(CC) -v 2>&1 | grep -c '^gcc version')

# Link-time optimisation where the compiler is GCC: the record scanners' small
# functions are called across files millions of times a run.  LTO= turns it
# off; gcc-ar keeps the archive's index of LTO objects.
ifeq ($(CC_IS_GCC),1)
LTO ?= -flto=auto
endif
ifneq ($(strip $(LTO)),)
AR = gcc-ar
endif
ALL_CFLAGS = -std=c11 $(WARNINGS) $(CFLAGS) $(LTO)
ALL_CPPFLAGS = $(CPPFLAGS)
PROBE_LIBS = -ljq -lcsv -lyaml -lsqlite3 -lxlsxwriter -lminizip -lexpat -lz -lxxhash -lm -lpthread
ALL_LDLIBS = $(PROBE_LIBS) $(LDLIBS)

ifneq ($(V),1)
Q = @
QUIET_CC = @echo '   CC' $@;
QUIET_LINK = @echo ' LINK' $@;
QUIET_AR = @echo '   AR' $@;
endif

TOOLS = probe-flatten probe-gendump probe-match probe-metric probe-first probe-stack probe-table probe-plot probe-graph probe-merge probe-tokens probe-ckpt probe-config probe-export probe-compare
LIB_SRC = $(sort $(wildcard lib/*/*.c))
LIB_OBJ = $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/graphview.o $(BUILD)/gen/plotpage.o
GRAPH_VIEW = lib/graph/view.html lib/graph/view.css lib/graph/view.js
PLOT_PAGE = lib/plot/page.css lib/plot/page.js
LIB_A = $(BUILD)/libprobe.a
TOOL_BIN = $(TOOLS:%=$(BUILD)/bin/%)
UNIT_SRC = $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# Each object's header dependencies, written by the compiler (-MMD -MP) beside it.
DEP_FILES = $(wildcard $(BUILD)/lib/*/*.d $(BUILD)/tools/*.d $(BUILD)/tests/unit/*.d)

DEBIAN_PACKAGES = make gcc libc6-dev pkg-config zlib1g-dev libxxhash-dev libjq-dev libcsv-dev \
		  libyaml-dev libsqlite3-dev libxlsxwriter-dev libminizip-dev libexpat1-dev jq time python3 bsdutils gzip mandoc zsh fish parallel \
		  clang libclang-rt-dev cppcheck clang-tidy valgrind \
		  libxml2-utils chromium-headless-shell fonts-dejavu-core

.PHONY: all deps test check asan demo bench install uninstall clean regen completions unit fuzz lint valgrind
.SUFFIXES:
# The objects of the tools and unit tests are kept, so that a change to lib/ recompiles only what includes it.
.SECONDARY:

all: $(TOOL_BIN)

# The tensor loops are worth vectorising even where GCC's -O2 cost model says no.
ifeq ($(CC_IS_GCC),1)
$(BUILD)/lib/compare/tmetric.o $(BUILD)/lib/compare/atbtab.o $(BUILD)/lib/tensors/tensor.o: ALL_CFLAGS += -fvect-cost-model=dynamic
endif

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

-include $(DEP_FILES)

# probe-graph's page: view.html, view.css and view.js compiled in as three C strings.
$(BUILD)/gen/graphview.c: $(GRAPH_VIEW) share/build/cstring.sh
	@mkdir -p $(dir $@)
	@if grep -qi -e '</script' -e '</style' lib/graph/view.js lib/graph/view.css; then \
		echo "lib/graph/view.js or view.css holds </script or </style, which would end its element in the page" >&2; exit 1; fi
	$(Q)sh share/build/cstring.sh graph_view_html lib/graph/view.html graph_view_css lib/graph/view.css \
		graph_view_js lib/graph/view.js > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/graphview.o: $(BUILD)/gen/graphview.c
	$(QUIET_CC)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

# probe-plot's page: page.css and page.js compiled in (the script goes in a CDATA section of the page).
$(BUILD)/gen/plotpage.c: $(PLOT_PAGE) share/build/cstring.sh
	@mkdir -p $(dir $@)
	@if grep -qi -e '</script' -e '</style' -e ']]>' $(PLOT_PAGE); then \
		echo "lib/plot/page.js or page.css holds </script, </style or ]]>, which would end its element in the page" >&2; exit 1; fi
	$(Q)sh share/build/cstring.sh plot_page_css lib/plot/page.css plot_page_js lib/plot/page.js > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/plotpage.o: $(BUILD)/gen/plotpage.c
	$(QUIET_CC)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(LIB_A): $(LIB_OBJ)
	$(QUIET_AR)rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/bin/%: $(BUILD)/tools/%.o $(LIB_A)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_A) $(ALL_LDLIBS)

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(LIB_A)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_A) $(ALL_LDLIBS)

unit: $(UNIT_BIN)

# Install the Debian packages that are missing (as root), or say how.
deps:
	@missing=; for p in $(DEBIAN_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
		echo "make deps: missing Debian packages; as root run:"; \
		echo "  apt-get install -y$$missing"; exit 1; \
	fi; \
	echo "make deps: installing$$missing"; \
	apt-get update -q >/dev/null && \
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing

# The same code with AddressSanitizer and UndefinedBehaviorSanitizer.
asan:
	$(Q)$(MAKE) --no-print-directory BUILD=build-asan LTO= \
		CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
		LDFLAGS="-fsanitize=address,undefined" all unit

# The builds of test, check, demo and bench use every processor unless make was given -j.
NPROC := $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
SUBJOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))

test: deps
	$(Q)$(MAKE) --no-print-directory $(SUBJOBS) all unit
	$(Q)tests/run.sh --build $(BUILD) --fast

check: deps
	$(Q)$(MAKE) --no-print-directory $(SUBJOBS) all unit
	$(Q)$(MAKE) --no-print-directory $(SUBJOBS) asan
	$(Q)tests/run.sh --build $(BUILD) --asan build-asan

# Each fuzz harness for FUZZ_SECONDS (default 60), on a clang build of its own (build-fuzz).
FUZZ_SECONDS ?= 60
fuzz: deps
	$(Q)tests/fuzz/run.sh $(FUZZ_SECONDS)

# Static analysis (cppcheck, clang-tidy) with the suppressions in tests/lint/.
lint: deps
	$(Q)tests/lint/run.sh

# The golden tests again under valgrind (slow: minutes).
valgrind: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tests/valgrind/run.sh $(BUILD)

# Rewrite the completions from the tools' option tables (commit the result).
completions: all
	$(Q)completions/gen.sh $(BUILD)/bin $(sort $(TOOLS))

# Rewrite the expected output of the golden tests from what the tools print now.
regen: all
	$(Q)tests/run.sh --build $(BUILD) --regen

demo: deps
	$(Q)$(MAKE) --no-print-directory $(SUBJOBS) all
	$(Q)share/examples/demo.sh $(BUILD)

bench: deps
	$(Q)$(MAKE) --no-print-directory $(SUBJOBS) all
	$(Q)bench/run.sh $(BUILD)

install: all
	$(INSTALL) -d $(DESTDIR)$(BINDIR)
	$(INSTALL) -m 755 $(TOOL_BIN) $(DESTDIR)$(BINDIR)
	$(INSTALL) -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7
	$(INSTALL) -m 644 share/man/*.1 $(DESTDIR)$(MANDIR)/man1
	$(INSTALL) -m 644 share/man/*.5 $(DESTDIR)$(MANDIR)/man5
	$(INSTALL) -m 644 share/man/*.7 $(DESTDIR)$(MANDIR)/man7
	$(INSTALL) -d $(DESTDIR)$(DATADIR)/bash-completion/completions \
		$(DESTDIR)$(DATADIR)/zsh/site-functions $(DESTDIR)$(DATADIR)/fish/vendor_completions.d
	$(INSTALL) -m 644 completions/_probe $(DESTDIR)$(DATADIR)/zsh/site-functions/_probe
	for t in $(TOOLS); do \
		$(INSTALL) -m 644 completions/probe.bash $(DESTDIR)$(DATADIR)/bash-completion/completions/$$t; \
		$(INSTALL) -m 644 completions/$$t.fish $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/$$t.fish; \
	done
	$(INSTALL) -d $(DESTDIR)$(DATADIR)/probe/jq $(DESTDIR)$(DATADIR)/probe/examples
	$(INSTALL) -m 644 share/probe.mk $(DESTDIR)$(DATADIR)/probe/probe.mk
	$(INSTALL) -m 644 share/jq/*.jq $(DESTDIR)$(DATADIR)/probe/jq
	$(INSTALL) -m 644 share/examples/Makefile $(DESTDIR)$(DATADIR)/probe/examples
	$(INSTALL) -m 755 share/examples/demo.sh $(DESTDIR)$(DATADIR)/probe/examples

uninstall:
	for t in $(TOOLS); do \
		rm -f $(DESTDIR)$(BINDIR)/$$t $(DESTDIR)$(MANDIR)/man1/$$t.1 \
		      $(DESTDIR)$(DATADIR)/bash-completion/completions/$$t \
		      $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/$$t.fish; \
	done
	rm -f $(DESTDIR)$(MANDIR)/man5/probe-records.5 $(DESTDIR)$(MANDIR)/man7/probe.7 \
	      $(DESTDIR)$(DATADIR)/zsh/site-functions/_probe
	rm -rf $(DESTDIR)$(DATADIR)/probe

clean:
	rm -rf build build-asan build-fuzz
