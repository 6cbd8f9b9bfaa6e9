# oto: static programs and their tests.
#
#   make              build every tool (static, musl; LIBC=glibc for glibc)
#   make check        build, then run every test suite; the last line sums them
#   make check-one SUITE=NAME [TESTS="test_a ..."]  one suite, static build
#   make run          build, then launch the demo through the stages that exist
#   make bench        the benchmarks in bench/ (results: bench/RESULTS.md)
#   make fuzz         the libFuzzer targets, FUZZ_SECONDS each
#   make install      PREFIX=/usr/local DESTDIR=
#
# Each of check, run, bench and fuzz first installs what it needs
# (scripts/install-deps.sh: apt-get as root, else the exact line to run), and
# only then builds or runs anything: a machine that never saw oto passes.
#
# Each tool is cmd/TOOL/*.c linked with lib/ (an archive, so only what a tool
# uses is pulled in). A directory under cmd/ is a tool: nothing to list here.
# libseccomp, libsodium and libcap are linked into every tool (the linker
# takes what each uses); OpenSSL only into otogate (LDLIBS_otogate).
#
# SAN=1 (with LIBC=glibc) builds the tools with ASan and UBSan into
# build/glibc-san: dynamically linked, for the second pass of the suites in
# make check, never installed.

LIBC    ?= musl
SAN     ?=
O       := build/$(LIBC)$(if $(SAN),-san)
BIN     := $(O)/bin
PREFIX  ?= /usr/local
DESTDIR ?=

TOOLS   := $(notdir $(wildcard cmd/*))
LIBSRC  := $(wildcard lib/*.c)
LIBOBJ  := $(LIBSRC:%.c=$(O)/obj/%.o)

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wswitch-default -Wformat=2 -Wpointer-arith -Wundef -Wvla -Wwrite-strings \
           -Wmissing-declarations -Wold-style-definition
HARDEN  := -fstack-protector-strong -ffunction-sections -fdata-sections
CFLAGS  ?= -Os
CFLAGS  += -std=c11 -D_GNU_SOURCE $(WARN) $(HARDEN) -Ilib -MMD -MP
LDFLAGS += -static -Wl,--gc-sections -s -Wl,-z,noexecstack -Wl,-z,relro -Wl,-z,now
LDLIBS  := -lseccomp -lsodium -lcap
# What one tool links besides: OpenSSL (build/deps, like the others) is otogate's alone.
LDLIBS_otogate := -lssl -lcrypto

ifeq ($(LIBC),musl)
# musl has no _FORTIFY_SOURCE; its headers ignore the macro, so it is not set.
# static-pie: Debian's musl-gcc.specs drops -static-pie and links a dynamic
# PIE, so the binaries are plain static (docs/HACKING.md, "Static binaries").
CC      := musl-gcc
DEPS    := build/deps
DEPSTAMP := $(DEPS)/.built
CFLAGS  += -isystem $(DEPS)/include -isystem $(DEPS)/uapi
LDFLAGS += -L$(DEPS)/lib
else ifeq ($(LIBC),glibc)
CC      := gcc
DEPSTAMP :=
ifeq ($(SAN),)
CFLAGS  += -D_FORTIFY_SOURCE=2
# glibc's static NSS needs the shared libc for getpwnam: the linker warns.
LDFLAGS += -Wl,--no-warn-search-mismatch
else
# The sanitizers' runtimes are shared libraries: this build is dynamic, not
# stripped, and the relay's seccomp filter also lets the runtime's
# sigaltstack through (tests/helpers/otonet_asan_seccomp.c, wrapped in).
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g
CFLAGS  += $(SANFLAGS) -DOTO_SAN
LDFLAGS := $(SANFLAGS) -Wl,--as-needed -Wl,-z,noexecstack -Wl,-z,relro -Wl,-z,now
SAN_ALL := tests/helpers/san_defaults.c
SAN_otonet := tests/helpers/otonet_asan_seccomp.c -Wl,--wrap=seccomp_load
SAN_otogate := tests/helpers/otogate_asan_seccomp.c -Wl,--wrap=seccomp_load
endif
else
$(error LIBC must be musl or glibc)
endif
ifneq ($(SAN),)
ifneq ($(LIBC),glibc)
$(error SAN=1 needs LIBC=glibc: the sanitizers have no musl runtime)
endif
endif

all: $(O)/.hostdeps $(TOOLS:%=$(BIN)/%)

# ---- version -------------------------------------------------------------
# The one version string. $(O)/version.h holds it and the Debian revision of
# each library (musl: what build-deps.sh built, its stamps; glibc and the
# fuzz targets: the installed -dev packages); lib/version.c prints them for
# --version.
OTO_VERSION := 0.1.0

$(O)/version.h: Makefile scripts/version-h.sh $(DEPSTAMP)
	@mkdir -p $(@D)
	@scripts/version-h.sh $(OTO_VERSION) $(if $(DEPSTAMP),$(DEPS)) >$@.tmp && mv $@.tmp $@
build/fuzz/version.h: Makefile scripts/version-h.sh
	@mkdir -p $(@D)
	@scripts/version-h.sh $(OTO_VERSION) >$@.tmp && mv $@.tmp $@
$(O)/obj/lib/version.o: $(O)/version.h
$(O)/obj/lib/version.o: CFLAGS += -I$(O)

# Build tools and libraries the build needs (apt-get as root, else a message).
$(O)/.hostdeps: scripts/install-deps.sh
	@mkdir -p $(O)
	@scripts/install-deps.sh build
	@touch $@

# The script keeps a stamp per library (the Debian revision built) and
# rebuilds only a library whose pinned upstream version changed.
$(DEPS)/.built: scripts/build-deps.sh | $(O)/.hostdeps
	scripts/build-deps.sh $(DEPS)
	@touch $@

# V=1 shows the whole command lines.
Q := $(if $(V),,@)

$(O)/obj/%.o: %.c | $(DEPSTAMP) $(O)/.hostdeps
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(O)/liboto.a: $(LIBOBJ)
	@rm -f $@
	$(Q)ar rcs $@ $^

# otoexec's built-in profiles: the texts (cmd/otoexec/*.profile) are the
# source; the C files that embed them are made here, the same for every LIBC,
# for the tools, the unit tests and the fuzz targets alike.
GEN     := build/gen
OTOEXEC_PROFILES := $(GEN)/otoexec/default_profile.c $(GEN)/otoexec/dev_profile.c
$(OTOEXEC_PROFILES): $(GEN)/otoexec/%_profile.c: cmd/otoexec/%.profile scripts/profile-c.sh
	@mkdir -p $(@D)
	@$(if $(Q),echo "  GEN     $@")
	$(Q)scripts/profile-c.sh OTOEXEC_$$(echo $* | tr a-z A-Z)_PROFILE $< >$@.tmp && mv $@.tmp $@

# Seccomp filters compiled here, once, into the BPF the kernel runs, for
# this machine's architecture: a tool's gen/bpfgen.c links the code the tool
# would compile them with, runs on the build machine, and writes the C file
# that embeds them. otoexec's built-in profiles (tests/test_otoexec.sh checks
# that they are byte for byte what otoexec compiles from the texts at run
# time); otonet's relay filter and otogate's (libseccomp runs here, not in
# the relay or the gateway at every launch).
define bpfgen_rule
$(O)/gen/$(1)_bpfgen: $(2) $(O)/liboto.a
	@mkdir -p $$(@D)
	@$$(if $$(Q),echo "  LD      $$@")
	$$(Q)$$(CC) $$(LDFLAGS) -o $$@ $(2) $(O)/liboto.a $(SAN_ALL) $$(LDLIBS)
$(O)/gen/$(1)_bpf.c: $(O)/gen/$(1)_bpfgen
	@$$(if $$(Q),echo "  GEN     $$@")
	$$(Q)$$< >$$@.tmp && mv $$@.tmp $$@
$(O)/gen/$(1)_bpf.o: $(O)/gen/$(1)_bpf.c
	$$(Q)$$(CC) $$(CFLAGS) -Icmd/$(1) -c -o $$@ $$<
EXTRA_$(1) := $(O)/gen/$(1)_bpf.o
endef
$(eval $(call bpfgen_rule,otoexec,$(patsubst %.c,$(O)/obj/%.o,cmd/otoexec/gen/bpfgen.c \
	cmd/otoexec/profile.c cmd/otoexec/filter.c cmd/otoexec/bpf.c $(OTOEXEC_PROFILES))))
EXTRA_otoexec += $(OTOEXEC_PROFILES:%.c=$(O)/obj/%.o)
$(eval $(call bpfgen_rule,otonet,$(patsubst %.c,$(O)/obj/%.o,cmd/otonet/gen/bpfgen.c \
	cmd/otonet/seccomp.c)))
$(eval $(call bpfgen_rule,otogate,$(patsubst %.c,$(O)/obj/%.o,cmd/otogate/gen/bpfgen.c \
	cmd/otogate/seccomp.c)))

define tool_rule
$(BIN)/$(1): $(patsubst %.c,$(O)/obj/%.o,$(wildcard cmd/$(1)/*.c)) $(EXTRA_$(1)) $(O)/liboto.a
	@mkdir -p $(BIN)
	@$(if $(Q),echo "  LD      $$@")
	$(Q)$$(CC) $$(LDFLAGS) -o $$@ $$(filter %.o,$$^) $(O)/liboto.a $(SAN_ALL) $(SAN_$(1)) \
		$$(LDLIBS_$(1)) $$(LDLIBS)
endef
$(foreach t,$(TOOLS),$(eval $(call tool_rule,$(t))))

# ---- tests ---------------------------------------------------------------
# Unit tests of lib/ and of each tool's pure code: host compiler, sanitizers.
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=build/unit/%)
UNIT_CFLAGS := -std=c11 -D_GNU_SOURCE -g -O1 $(WARN) -Wno-missing-prototypes \
	-Wno-missing-declarations -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all -Ilib -Icmd
# A unit test names the sources it covers in lines "// UNIT: lib/x.c cmd/y/z.c":
# pure code only. None may hold an exit path (die, die_usage, opt_die, an
# x-prefixed function, lib/oto.h): a unit test that links one is refused here.
UNIT_EXITS := ' [TtWw] (die|die_usage|opt_die|x[a-z0-9_]*)$$'
build/unit/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(LIBSRC) $(wildcard cmd/*/*.[ch]) \
		$(OTOEXEC_PROFILES) | deps-test
	@mkdir -p build/unit
	gcc $(UNIT_CFLAGS) -o $@ $< $(shell sed -n 's|^// UNIT: *||p' $<) \
		-lcmocka -lseccomp -lsodium -lcap
	@if nm $@ | grep -E $(UNIT_EXITS); then \
		echo "$@: links an exit path (above): a unit test covers pure code only" >&2; \
		rm -f $@; exit 1; fi

unit: $(UNIT_BIN)

# libFuzzer targets: fuzz/fuzz_*.c, each naming its sources in "// FUZZ: ..." lines.
# What they call of lib/ beyond the files named comes from an archive of lib/
# built alike, as the tools take it from liboto.a.
FUZZ_SRC := $(wildcard fuzz/fuzz_*.c)
FUZZ_BIN := $(FUZZ_SRC:fuzz/%.c=build/fuzz/%)
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -DOTO_SAN -g -O1 -fno-sanitize-recover=all -Ilib -Icmd
FUZZ_LIBOBJ := $(LIBSRC:%.c=build/fuzz/obj/%.o)
build/fuzz/obj/%.o: %.c build/fuzz/version.h | deps-fuzz
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -Ibuild/fuzz -c -o $@ $<
build/fuzz/liboto.a: $(FUZZ_LIBOBJ)
	@rm -f $@
	ar rcs $@ $^
build/fuzz/%: fuzz/%.c build/fuzz/liboto.a $(wildcard cmd/*/*.[ch]) $(OTOEXEC_PROFILES) | deps-fuzz
	@mkdir -p build/fuzz
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $< \
		$(shell sed -n 's|^// FUZZ: *||p' $<) build/fuzz/liboto.a -lseccomp -lsodium -lcap

fuzz-build: $(FUZZ_BIN)

# Each target runs FUZZ_SECONDS on its corpus in fuzz/corpus/NAME (kept in git).
fuzz: fuzz-build
	@for f in $(FUZZ_BIN); do n=$$(basename $$f); mkdir -p fuzz/corpus/$$n; \
		echo "== $$n ($(FUZZ_SECONDS) s)"; \
		$$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 fuzz/corpus/$$n 2>&1 | \
		grep -E 'stat::number_of_executed_units|ERROR|SUMMARY|crash' || exit 1; done

# What each purpose needs, installed before anything of it is built or run
# (order-only: installing never makes a target out of date).
deps-test deps-bench deps-fuzz:
	@scripts/install-deps.sh $(@:deps-%=%)

# The suites run twice: against the static musl binaries users run (as root
# and as an unprivileged user), then once more against the same code built
# with ASan and UBSan (glibc, dynamic: OTO_SAN_BIN).
check: | deps-test
	@$(MAKE) --no-print-directory all unit
	@$(MAKE) --no-print-directory LIBC=glibc SAN=1 all
	@$(MAKE) --no-print-directory fuzz-build
	@OTO_BIN=$(abspath $(BIN)) OTO_SAN_BIN=$(abspath build/glibc-san/bin) \
		OTO_UNIT="$(abspath $(UNIT_BIN))" tests/run.sh

# One suite against the static musl build, what to run while working on it
# (tests/README.md): make check-one SUITE=otonet (or test_otonet,
# tests/test_otonet.sh) [TESTS="test_a test_b"]. Installs the test
# dependencies and builds what the suite needs, as make check does; as root,
# a suite whose header says "# run-as: root user" runs as uid 65534 too.
CHECK_ONE = test_$(patsubst test_%,%,$(basename $(notdir $(SUITE))))
check-one: | deps-test
	@if [ -z "$(SUITE)" ] || [ ! -f tests/$(CHECK_ONE).sh ]; then \
		echo 'make check-one SUITE=NAME [TESTS="test_a test_b"]: no suite tests/$(CHECK_ONE).sh' >&2; \
		exit 100; fi
	@$(MAKE) --no-print-directory LIBC=musl SAN= all $(if $(filter test_fuzz,$(CHECK_ONE)),fuzz-build)
	@OTO_BIN=$(abspath build/musl/bin) OTO_ONLY='^$(CHECK_ONE)\.sh$$' OTO_ONLY_TESTS='$(TESTS)' \
		tests/run.sh

# The static checks alone (also the first part of make check's run):
# shellcheck, cppcheck, clang-tidy (scripts/lint.sh).
lint: | deps-test
	@$(MAKE) --no-print-directory all
	@scripts/lint.sh >$(O)/lint.out; s=$$?; grep -v '^PASS \|^FAIL ' $(O)/lint.out; exit $$s

run: all
	@OTO_BIN=$(abspath $(BIN)) scripts/demo.sh

# The mutation check (scripts/mutate.sh): each defect of tests/mutations.txt
# in a private copy, the suites that cover it run; slow, so not in make check.
# MUTATE=REGEX: only those defects.
mutate: | deps-test
	@scripts/mutate.sh '$(MUTATE)'

# The container recipe as deploy/README.md documents it, with podman (as
# root; installs podman, runc and podman-compose; builds two images).
check-container:
	@sh deploy/test-container.sh

bench: | deps-bench
	@$(MAKE) --no-print-directory all
	@for b in bench/*.sh; do OTO_BIN=$(abspath $(BIN)) sh $$b || exit 1; done

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/man/man7
	install -m 0755 $(TOOLS:%=$(BIN)/%) $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 $(wildcard man/*.1) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 $(wildcard man/*.7) $(DESTDIR)$(PREFIX)/share/man/man7/

# Every C file as scripts/lint.sh wants it, by the pinned clang-format-14.
format:
	scripts/lint.sh --format

clean:
	rm -rf build/musl build/glibc build/glibc-san build/unit build/fuzz build/gen

distclean:
	rm -rf build

-include $(LIBOBJ:.o=.d) $(wildcard $(O)/obj/cmd/*/*.d)

.PHONY: all unit fuzz fuzz-build check check-one check-container lint run mutate bench install format clean \
	distclean deps-test deps-bench deps-fuzz
