# tests/fuzz/fuzz.mk: the libFuzzer harnesses, built by tests/fuzz/build.sh
# (which passes WARNINGS and PROBE_LIBS from the top Makefile).
#
#   OUT/lib/*/*.o     lib/*/*.c with coverage and ASan+UBSan (clang)
#   OUT/libprobe.a
#   OUT/bin/fuzz_*    one harness per tests/fuzz/fuzz_*.c

OUT ?= build-fuzz
FUZZ_CC ?= clang
SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS = -std=c11 $(WARNINGS) -O1 -g $(SAN)

LIB_SRC = $(sort $(wildcard lib/*/*.c))
LIB_OBJ = $(LIB_SRC:lib/%.c=$(OUT)/lib/%.o)
FUZZ_SRC = $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN = $(FUZZ_SRC:tests/fuzz/%.c=$(OUT)/bin/%)
LIB_HEADERS = $(wildcard lib/*/*.h)
FUZZ_HEADERS = $(wildcard tests/fuzz/*.h) tests/unit/tmetric_ways.h

.PHONY: all
.SUFFIXES:
.SECONDARY:
all: $(FUZZ_BIN)

$(OUT)/lib/%.o: lib/%.c $(LIB_HEADERS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(OUT)/libprobe.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(OUT)/obj/%.o: tests/fuzz/%.c $(LIB_HEADERS) $(FUZZ_HEADERS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(OUT)/bin/%: $(OUT)/obj/%.o $(OUT)/libprobe.a
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(OUT)/libprobe.a $(PROBE_LIBS)
