# runlimit: GNU make (on the BSDs: gmake).  `make`, `make check`, `make install`.

# Where `make install` puts things: the GNU directory variables (prefix, exec_prefix, bindir,
# datarootdir, mandir, man1dir, DESTDIR), each also under its old upper-case name (PREFIX,
# BINDIR, MANDIR).  mandir is the parent of man1, as for GNU and the BSDs; a MANDIR that
# names a man1 directory itself (runlimit's old meaning) is taken as man1dir.
PREFIX      ?= /usr/local
prefix      ?= $(PREFIX)
exec_prefix ?= $(prefix)
BINDIR      ?= $(exec_prefix)/bin
bindir      ?= $(BINDIR)
datarootdir ?= $(prefix)/share
MANDIR      ?= $(datarootdir)/man
mandir      ?= $(MANDIR)
man1dir     ?= $(if $(filter %/man1 %/man1/,$(mandir)),$(mandir),$(mandir)/man1)
# The shell completions (completions/), each where its shell looks by default.
bashcompdir ?= $(datarootdir)/bash-completion/completions
zshcompdir  ?= $(datarootdir)/zsh/site-functions
fishcompdir ?= $(datarootdir)/fish/vendor_completions.d
DESTDIR     ?=
INSTALL     ?= install
INSTALL_PROGRAM ?= $(INSTALL) -m 755
INSTALL_DATA    ?= $(INSTALL) -m 644

CC      ?= cc
# Warnings are errors only when asked (WERROR=1, as .ci/run and the workflow do): a newer
# compiler's new warning, or a distribution's flags (-flto), must not break a user's build.
WARN     = -Wall -Wextra -Wpedantic -Wshadow -Wconversion
ifeq ($(WERROR),1)
WARN    += -Werror
endif
CFLAGS  ?= -O2 -g
# Feature macros, one policy: every file sees POSIX.1-2008 with its XSI option, and a file
# that needs a system's own names asks for them at its top (_GNU_SOURCE or _DEFAULT_SOURCE
# for glibc and musl, _DARWIN_C_SOURCE for macOS).  FreeBSD's headers cannot add BSD names
# to a strict namespace (and hide u_int, ppoll and WCOREDUMP in one), so there nothing is
# asked for: its default is everything.
FEATURES = -D_XOPEN_SOURCE=700
FEATURES_FreeBSD =
CSTD     = -std=c11 $(if $(filter FreeBSD,$(OS)),$(FEATURES_FreeBSD),$(FEATURES))
LDLIBS  += -lm

ifeq ($(SANITIZE),1)
CFLAGS  += -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
# ASan zeroes RLIMIT_CORE at start-up by default, which the command would inherit.
export ASAN_OPTIONS = disable_coredump=0
endif
OS ?= $(shell uname -s)

# Linking: a static binary starts in about half the time of a dynamic one (no loader, no
# relocations), which is most of runlimit's overhead per command (docs/performance.md).
# STATIC=pie (the default on Linux where the toolchain can) is static with address-space
# randomisation kept; STATIC=1 is plain static; STATIC=0 is dynamic.  Sanitizers need dynamic.
ifeq ($(SANITIZE),1)
STATIC ?= 0
endif
# The probe links with the build's own flags and checks that the result has no program
# interpreter: musl-gcc, for one, accepts -static-pie and links dynamically.
ifeq ($(origin STATIC)$(OS),undefinedLinux)
STATIC := $(shell t=$$(mktemp) && printf 'int main(void){return 0;}\n' | \
	$(CC) $(CFLAGS) $(LDFLAGS) -x c -static-pie -o "$$t" - 2>/dev/null && \
	LC_ALL=C readelf -l "$$t" 2>/dev/null | grep -q 'Elf file type' && \
	! LC_ALL=C readelf -l "$$t" | grep -q INTERP && echo pie || echo 0; rm -f "$$t")
endif
ifeq ($(STATIC),1)
LDFLAGS += -static
else ifeq ($(STATIC),pie)
LDFLAGS += -static-pie
else ifeq ($(OS),Linux)
# Dynamic: every symbol bound at load (-z now), not at its first call through the lazy
# resolver, which costs a start some 75 µs here (docs/performance.md); full RELRO comes with it.
LDFLAGS += -Wl,-z,now
endif

# The platform (src/os/, behind src/os/os.h): one line of files per system, one chosen by
# PLATFORM, which defaults to the system built on (uname -s) and falls back to portable, the
# POSIX-only files (poll, the process group only, sysconf).  PLATFORM=portable picks them on
# any system, which is how the paths of systems without a reaper or a process table are
# tested here (make check-portable).
PLAT_Linux    = src/os/linux.c src/os/linux_child.c src/os/linux_cgroup.c src/os/linux_tree.c src/os/linux_snap.c src/os/linux_stat.c src/os/snapargs.c src/os/walk.c src/os/pidmap.c src/os/grow.c src/os/cpufiles.c src/os/ppoll.c src/os/clock.c
PLAT_FreeBSD  = src/os/freebsd.c src/os/kqexit.c src/os/plain.c src/os/forkchild.c src/os/snapargs.c src/os/ppoll.c src/os/clock.c
PLAT_Darwin   = src/os/darwin.c src/os/kqexit.c src/os/plain.c src/os/forkchild.c src/os/snapargs.c src/os/walk.c src/os/pidmap.c src/os/grow.c src/os/selfpipe.c src/os/clock.c
PLAT_portable = src/os/posix.c src/os/plain.c src/os/forkchild.c src/os/selfpipe.c src/os/clock.c
PLAT = $(if $(filter portable,$(PLATFORM)),portable,$(if $(PLAT_$(OS)),$(OS),portable))
PLATFORM_SRCS = $(PLAT_$(PLAT))

# What the tests may take for granted of the platform built: a capability probe that then
# finds it missing fails the tests that need it instead of skipping them (a broken tree walk
# must not pass for a system without one).  sessions: a setsid'd descendant is reached;
# orphans: orphaned descendants are adopted (a subreaper or reaper; macOS has none); counts:
# the run report counts the tree's processes (a process table is read); readback: the report
# tail is read back from a regular file (reopen_for_reading); splice: the relay moves bytes
# between pipes in the kernel (pipe_move); peercred: a control socket knows its peer's uid
# (peer_uid); snapshot: the tree is described at a limit (tree_snapshot); hooktail: the
# --on-timeout hook's output reaches a relayed stderr (relay_stderr_writer); widepipe: the
# relay's pipe holds more than 64 KiB (pipe_widen); budgets: the tree is measured for the
# budgets (tree_usage); sharedchild: the command's child is cloned sharing runlimit's memory
# (os_spawn_shared: raw system calls written for x86-64 and arm64, no sanitizer).  The
# portable build takes nothing for granted.
SHAREDCHILD = $(if $(filter 1,$(SANITIZE)),,$(if $(filter x86_64 aarch64,$(shell uname -m)),sharedchild))
EXPECT_Linux   = sessions orphans counts readback splice peercred searchcwd snapshot hooktail widepipe budgets $(SHAREDCHILD)
EXPECT_FreeBSD = sessions orphans peercred snapshot budgets
EXPECT_Darwin  = sessions counts readback peercred snapshot budgets
EXPECT = $(EXPECT_$(PLAT))

CORE = src/budget.c src/budget_cgroup.c src/budget_table.c src/cli.c src/nested_deadline.c src/signal_out.c src/signal_in.c src/escalation.c src/duration.c \
	src/guard.c src/hook.c src/nested.c src/jobctl.c src/json.c src/start.c src/longopt.c src/msg.c src/nowait.c src/nproc.c \
	src/quote.c src/relay.c src/relay_lines.c src/relay_stream.c src/relay_tail.c \
	src/relay_watch.c src/named_dir.c src/named_wire.c src/named_client.c src/named_control.c src/report.c src/report_file.c \
	src/signal_names.c src/size.c src/snapshot.c src/start_exec.c src/run_end.c src/stdfds.c src/supervise.c src/tty.c src/parent.c
SRCS = src/main.c $(CORE) $(PLATFORM_SRCS)
DARWIN_SRCS = src/main.c $(CORE) $(PLAT_Darwin)
HDRS = $(wildcard src/*.h src/os/*.h)

BIN ?= runlimit

all: $(BIN)

# Rebuild when the compiler or flags change (SANITIZE=1, STATIC=1, CC=clang ...).
BUILD_FLAGS = $(CC) $(CSTD) $(WARN) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) $(LDLIBS) $(PLATFORM_SRCS)
.build-flags-$(BIN): FORCE
	@echo '$(BUILD_FLAGS)' | cmp -s - $@ || echo '$(BUILD_FLAGS)' > $@

$(BIN): $(SRCS) $(HDRS) Makefile .build-flags-$(BIN)
	$(CC) $(CSTD) $(WARN) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) -o $@ $(SRCS) $(LDLIBS)

# A build with test hooks (RUNLIMIT_TEST_HOOKS: a real fault on demand, each listed in
# src/test_hooks.h), for the tests that show a genuine fault still ends runlimit.  Never
# installed; in every other build the hooks are constant false.
HOOKS_BIN = runlimit-hooks
$(HOOKS_BIN): $(SRCS) $(HDRS) Makefile .build-flags-$(BIN)
	$(CC) $(CSTD) $(WARN) $(CFLAGS) $(CPPFLAGS) -DRUNLIMIT_TEST_HOOKS $(LDFLAGS) -o $@ $(SRCS) \
		$(LDLIBS)

# The unit tests take the pure parts, on any OS: parsers, the nproc policy (with made-up
# probes), quoting, the JSON writer, the exit-status rules, the run report's writer (which
# links without the modules whose figures its record holds), the report tail's ring,
# runlimit's own lines, RUNLIMIT_DEADLINE's text and arithmetic, the budgets' sizes and the
# wire of named runs (its lines made and read); and they link the platform built, whose event
# wait (the clock) unit_clock.c runs.  The platform's private parts (the cgroup files against
# made-up trees, the pid map, the /proc stat line) are linked on every system (UNIT_OS) and
# tested by tests/unit/os/, the one place outside src/os/ that includes their headers
# (scripts/check-includes.py).
UNIT_SRCS = src/nested_deadline.c src/duration.c src/signal_names.c src/nproc.c src/longopt.c src/msg.c \
	src/nowait.c src/quote.c src/json.c src/run_end.c src/budget_table.c src/report.c \
	src/escalation.c src/relay_tail.c src/relay_lines.c src/size.c src/named_wire.c
UNIT_OS = src/os/cpufiles.c src/os/pidmap.c src/os/grow.c src/os/linux_stat.c
UNIT_TESTS = tests/unit/unit.c tests/unit/unit_nproc.c tests/unit/unit_quote.c \
	tests/unit/unit_json.c tests/unit/unit_run_end.c tests/unit/unit_report.c \
	tests/unit/unit_clock.c tests/unit/unit_relay_tail.c tests/unit/unit_relay_lines.c tests/unit/unit_nested_deadline.c \
	tests/unit/unit_size.c tests/unit/unit_escalation.c tests/unit/unit_named_wire.c tests/unit/os/unit_cpufiles.c \
	tests/unit/os/unit_pidmap.c tests/unit/os/unit_stat.c
# UNIT_OS and a platform's files, each once
unit_os = $(UNIT_OS) $(filter-out $(UNIT_OS),$(1))
UNIT_PLAT = $(call unit_os,$(PLATFORM_SRCS))
tests/unit/run-unit: $(UNIT_TESTS) tests/unit/unit.h $(UNIT_SRCS) $(UNIT_PLAT) $(HDRS) Makefile .build-flags-$(BIN)
	$(CC) $(CSTD) $(WARN) $(CFLAGS) $(CPPFLAGS) -Isrc $(LDFLAGS) -o $@ $(UNIT_TESTS) \
		$(UNIT_SRCS) $(UNIT_PLAT) $(LDLIBS)

# What the tests need (bats, and tmux for the terminal tests), installed; `make check` itself
# never installs anything, it says what is missing.
test-deps:
	@scripts/test-deps.sh --install

# Tests run against $(RUNLIMIT) (default: the binary just built).  JOBS: bats files in parallel.
RUNLIMIT ?= $(CURDIR)/$(BIN)
JOBS ?= 4
check: $(BIN) $(HOOKS_BIN) tests/unit/run-unit
	./tests/unit/run-unit
	@scripts/test-deps.sh
	RUNLIMIT=$(RUNLIMIT) RUNLIMIT_HOOKS=$(CURDIR)/$(HOOKS_BIN) RUNLIMIT_EXPECT="$(EXPECT)" \
		scripts/run-bats.sh $(JOBS)

# The tests that need a real cgroup v2 hierarchy with every controller (tests/vm/, and a part
# of the suite), run as root in a VM: Debian's cloud kernel under qemu-system-x86_64 (plain
# emulation), an initramfs with busybox, bash and a static musl runlimit, and runlimit as the
# VM's PID 1 (scripts/check-vm.sh).  Where the VM cannot be made it says why and skips
# (status 77, a pass here), except with CI=true.  VM_FILES: other bats files to run there.
check-vm:
	@scripts/check-vm.sh $(VM_FILES) || [ $$? -eq 77 ]

# Cross-check: compile and link the program and the unit tests for macOS and FreeBSD, arm64
# and x86_64, with zig (scripts/zig.sh), warnings as errors, and check each file's format.
# Nothing can run them here: compiling everything is the check.
CROSS_TARGETS = aarch64-macos x86_64-macos x86_64-freebsd aarch64-freebsd
FREEBSD_SRCS = src/main.c $(CORE) $(PLAT_FreeBSD)
cross: $(DARWIN_SRCS) $(FREEBSD_SRCS) $(UNIT_TESTS) $(UNIT_SRCS) $(UNIT_OS) $(HDRS)
	@zig=$$(scripts/zig.sh) || exit 1; \
	for t in $(CROSS_TARGETS); do \
		arch=$${t%%-*}; \
		case $$t in \
		*-macos) srcs="$(DARWIN_SRCS)"; feat="$(FEATURES)"; plat="$(call unit_os,$(PLAT_Darwin))"; \
			[ "$$arch" = aarch64 ] && arch=arm64; want="Mach-O 64-bit $$arch executable";; \
		*-freebsd) srcs="$(FREEBSD_SRCS)"; feat="$(FEATURES_FreeBSD)"; plat="$(call unit_os,$(PLAT_FreeBSD))"; \
			[ "$$arch" = x86_64 ] && arch=x86-64; \
			want="ELF 64-bit LSB .*$$arch.*FreeBSD";; \
		esac; \
		echo "zig cc -target $$t: runlimit-$$t tests/unit/run-unit-$$t"; \
		$$zig cc -target $$t -std=c11 $$feat $(WARN) -O2 -o runlimit-$$t $$srcs -lm || exit 1; \
		$$zig cc -target $$t -std=c11 $$feat $(WARN) -O2 -Isrc -o tests/unit/run-unit-$$t \
			$(UNIT_TESTS) $(UNIT_SRCS) $$plat -lm || exit 1; \
		for f in runlimit-$$t tests/unit/run-unit-$$t; do \
			file -b $$f | grep -Eq "^$$want" || \
				{ echo "$$f is not what $$t wants: $$(file -b $$f)"; exit 1; }; \
			echo "$$f: $$(file -b $$f | cut -c1-60)"; \
		done; \
	done

# A static musl build, and the whole bats suite against it.
musl:
	@command -v musl-gcc >/dev/null || { echo "musl-gcc missing: apt-get install musl-tools"; exit 1; }
	$(MAKE) BIN=runlimit-musl CC=musl-gcc STATIC=1 HOOKS_BIN=runlimit-musl-hooks \
		runlimit-musl runlimit-musl-hooks
	file runlimit-musl | grep -q 'statically linked'
	@scripts/test-deps.sh
	RUNLIMIT=$(CURDIR)/runlimit-musl RUNLIMIT_HOOKS=$(CURDIR)/runlimit-musl-hooks \
		RUNLIMIT_LIBC=musl RUNLIMIT_EXPECT="$(EXPECT)" scripts/run-bats.sh $(JOBS)

# The POSIX-only back ends (PLATFORM=portable) built beside ./runlimit, with a test-hooks build
# of their own, and the whole bats suite against them: what the tree walk, the subreaper or
# the cgroup quota would do is skipped, by what the tests find the binary does.
check-portable:
	$(MAKE) BIN=runlimit-portable PLATFORM=portable HOOKS_BIN=runlimit-portable-hooks \
		runlimit-portable runlimit-portable-hooks
	@scripts/test-deps.sh
	RUNLIMIT=$(CURDIR)/runlimit-portable RUNLIMIT_HOOKS=$(CURDIR)/runlimit-portable-hooks \
		RUNLIMIT_EXPECT= scripts/run-bats.sh $(JOBS)

SHELL_SCRIPTS = scripts/*.sh bench/*.sh .ci/run tests/helpers.bash tests/python.bash tests/vm/*.bash tests/tools/*.sh tests/tools/block_signals \
	tests/tools/complete-in-bash completions/runlimit.bash
lint:
	mandoc -Tlint -Wwarning man/runlimit.1
	shellcheck $(SHELL_SCRIPTS)
	scripts/check-bash3.sh
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability --std=c11 \
		--inline-suppr -D__linux__ src/
	$(CC) -O2 -Wall -Wextra -Werror -o /dev/null bench/benchrun.c
	ruby -c scripts/homebrew/runlimit.rb
	scripts/check-includes.py src
	scripts/check-test-fds.py

# The Python package's types as a user's mypy --strict and pyright see them (dev tools in
# .cache/typecheck: scripts/typecheck.sh --install, which .ci/run does).
typecheck:
	scripts/typecheck.sh

# Fuzz the duration and signal parsers with libFuzzer (clang; Debian libclang-rt-14-dev).
FUZZ_SECONDS ?= 60
fuzz:
	clang $(CSTD) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Isrc \
		-o tests/unit/fuzz-parsers tests/fuzz/fuzz_parsers.c src/duration.c src/signal_names.c -lm
	tests/unit/fuzz-parsers -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1

# The version, from the one place it is written (what --version prints).
VERSION := $(shell sed -n 's/^[#]define RUNLIMIT_VERSION "\(.*\)"$$/\1/p' src/cli.h)

# The source tarball, runlimit-$(VERSION).tar.gz: what git tracks, less .ci/ and .github/
# (scripts/dist.sh); distcheck unpacks it elsewhere, builds, tests, installs and uninstalls
# (scripts/distcheck.sh).
dist:
	@scripts/dist.sh >/dev/null
	@echo runlimit-$(VERSION).tar.gz

distcheck: dist
	MAKE=$(MAKE) scripts/distcheck.sh runlimit-$(VERSION).tar.gz

# The release, into release/ (RELEASE_DIR: emptied only if it is empty or a previous
# release): the tarball, a stripped binary per platform (zig: Linux x86_64 and aarch64
# static-pie with musl, FreeBSD x86_64 and aarch64, one macOS universal binary), the Homebrew
# formula, SHA256SUMS and the notes, NEWS.md's entry (scripts/release.sh), then checked,
# suites included (scripts/release-check.sh; RELEASE_TESTS=0 skips the suites).
release:
	@LINUX_SRCS="src/main.c $(CORE) $(PLAT_Linux)" FREEBSD_SRCS="$(FREEBSD_SRCS)" \
		DARWIN_SRCS="$(DARWIN_SRCS)" FEATURES="$(FEATURES)" FEATURES_FreeBSD="$(FEATURES_FreeBSD)" \
		WARN="$(WARN)" scripts/release.sh
	@scripts/release-check.sh $(or $(RELEASE_DIR),release)

# The completions go where each shell looks (bashcompdir, zshcompdir, fishcompdir).  What is
# at a destination is removed first: a link there (an old install's, a stow link) is
# replaced, never written through.  uninstall removes a timeout or nproc link only if it
# points at runlimit.
install: $(BIN)
	mkdir -p "$(DESTDIR)$(bindir)" "$(DESTDIR)$(man1dir)" "$(DESTDIR)$(bashcompdir)" \
		"$(DESTDIR)$(zshcompdir)" "$(DESTDIR)$(fishcompdir)"
	rm -f "$(DESTDIR)$(bindir)/runlimit" "$(DESTDIR)$(man1dir)/runlimit.1" \
		"$(DESTDIR)$(bashcompdir)/runlimit" "$(DESTDIR)$(zshcompdir)/_runlimit" \
		"$(DESTDIR)$(fishcompdir)/runlimit.fish"
	$(INSTALL_PROGRAM) $(BIN) "$(DESTDIR)$(bindir)/runlimit"
	$(INSTALL_DATA) man/runlimit.1 "$(DESTDIR)$(man1dir)/runlimit.1"
	$(INSTALL_DATA) completions/runlimit.bash "$(DESTDIR)$(bashcompdir)/runlimit"
	$(INSTALL_DATA) completions/_runlimit "$(DESTDIR)$(zshcompdir)/_runlimit"
	$(INSTALL_DATA) completions/runlimit.fish "$(DESTDIR)$(fishcompdir)/runlimit.fish"

# A smoke test of the installed binary (the GNU name; scripts/installcheck.sh, plain sh): a
# time-out, a TERM-ignoring command KILLed, --version, the timeout name, the manual there.
installcheck:
	sh scripts/installcheck.sh "$(DESTDIR)$(bindir)/runlimit" "$(VERSION)" \
		"$(DESTDIR)$(man1dir)/runlimit.1"

install-links:
	for l in timeout nproc; do \
		rm -f "$(DESTDIR)$(bindir)/$$l" && ln -s runlimit "$(DESTDIR)$(bindir)/$$l" || exit 1; \
	done

uninstall:
	rm -f "$(DESTDIR)$(bindir)/runlimit" "$(DESTDIR)$(man1dir)/runlimit.1" \
		"$(DESTDIR)$(bashcompdir)/runlimit" "$(DESTDIR)$(zshcompdir)/_runlimit" \
		"$(DESTDIR)$(fishcompdir)/runlimit.fish"
	for l in timeout nproc; do \
		if [ -L "$(DESTDIR)$(bindir)/$$l" ] && \
		   [ "$$(readlink "$(DESTDIR)$(bindir)/$$l")" = runlimit ]; then \
			rm -f "$(DESTDIR)$(bindir)/$$l"; \
		fi; \
	done

clean:
	rm -rf release
	rm -f $(BIN) runlimit-* tests/unit/run-unit tests/unit/run-unit-* tests/unit/fuzz-* .build-flags-*

FORCE:
.PHONY: all check check-vm test-deps check-portable cross musl lint typecheck fuzz dist distcheck release install installcheck install-links uninstall clean FORCE
