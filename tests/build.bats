#!/usr/bin/env bats
# The build system as a packager meets it: `make check` installs nothing (an offline package
# build runs it), and says what is missing; `make test-deps` is what installs.

load helpers

bats_require_minimum_version 1.5.0

setup() {
	REPO=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	D=$BATS_TEST_TMPDIR
	MK=$(command -v gmake || command -v make) # GNU make: on the BSDs, gmake
	# Installers that only note that they ran: none may run for a check.
	mkdir -p "$D/fake"
	local tool
	for tool in apt-get brew pkg npm sudo; do
		printf '#!/bin/sh\necho "%s $*" >>"%s/installed"\nexit 1\n' "$tool" "$D" >"$D/fake/$tool"
		chmod +x "$D/fake/$tool"
	done
}

teardown() {
	[ -z "${N:-}" ] || kill_named "$N-s"
}

@test "make check installs nothing: a missing bats is said, with how to install it, and stops the check" {
	run -1 --separate-stderr env PATH="$D/fake:$PATH" TEST_DEPS_BATS=rl-no-such-bats \
		"$REPO/scripts/test-deps.sh"
	echo "$stderr"
	[[ "$stderr" == *"missing: rl-no-such-bats (apt-get install bats"*"make test-deps"* ]]
	[ ! -e "$D/installed" ]
	# and make check runs it so, never with --install (make -n: what it would run, run nothing)
	run -0 "$MK" -n -s -C "$REPO" check
	[[ "$output" == *"scripts/test-deps.sh"* ]]
	[[ "$output" != *"test-deps.sh --install"* ]]
	run -0 "$MK" -n -s -C "$REPO" test-deps
	[[ "$output" == *"scripts/test-deps.sh --install"* ]]
}

@test "a missing tmux is said, the terminal tests skip, and the check goes on" {
	run -0 --separate-stderr env PATH="$D/fake:$PATH" TEST_DEPS_TMUX=rl-no-such-tmux \
		"$REPO/scripts/test-deps.sh"
	[[ "$stderr" == *"missing: rl-no-such-tmux"*"tests/tty.bats skips"* ]]
	[ ! -e "$D/installed" ]
}

@test "a missing shell for the completion tests is said, installs nothing, and the check goes on" {
	run -0 --separate-stderr env PATH="$D/fake:$PATH" TEST_DEPS_ZSH=rl-no-such-zsh \
		"$REPO/scripts/test-deps.sh"
	[[ "$stderr" == *"missing:"*" rl-no-such-zsh"*"the tests that use them skip"* ]]
	[ ! -e "$D/installed" ]
}

@test "make test-deps is what installs: it calls an installer for what is missing" {
	run --separate-stderr env PATH="$D/fake:$PATH" TEST_DEPS_BATS=rl-no-such-bats \
		"$REPO/scripts/test-deps.sh" --install
	[ "$status" -ne 0 ] # the fake installers fail
	[ -s "$D/installed" ]
	grep -q bats "$D/installed"
}

@test "warnings are errors only when asked: WERROR=1 adds -Werror, the default build has none" {
	# A packager's flags may hold a -Werror of their own (dpkg-buildflags: -Werror=format-security),
	# which is theirs to give: the word -Werror alone is what WERROR adds.
	run -0 env -u WERROR CFLAGS="-O2 -Werror=format-security" "$MK" -n -s -C "$REPO" \
		BIN=rl-flagcheck rl-flagcheck
	[[ "$output" == *"-Wall"*"-Werror=format-security"* ]]
	[[ " $output " != *" -Werror "* ]]
	run -0 env -u WERROR CFLAGS="-O2 -Werror=format-security" "$MK" -n -s -C "$REPO" WERROR=1 \
		BIN=rl-flagcheck rl-flagcheck
	[[ "$output" == *"-Wall"*" -Werror "* ]]
}

# ---- a failing test fails; it never hangs -------------------------------------------------

@test "a failing test fails, it never hangs: bats ends a file whose failed test left a process running that closed descriptor 3" {
	# bats reads a file's report from its descriptor 3 until every process holding it has
	# closed it: a helper a test leaves running with it open holds the whole file, and CI,
	# until it exits (a fake peer: never).  With 3>&- it cannot (CONTRIBUTING.md,
	# Conventions; make lint's scripts/check-test-fds.py holds every test to it).
	local bats sleeper t0
	bats=$BATS_ROOT/bin/bats # (on PATH in a test: bats' own inner bats)
	[ -x "$bats" ] || skip "no bats at $bats"
	per_test_sleep bd
	SLEEPER=$D/sleeper
	# (printf: a line of this file that starts with @test, here-document or not, is a test)
	# shellcheck disable=SC2016
	printf '%s\n' '@test "fails, leaving a sleeper of a minute behind" {' \
		'	"$S" 60 3>&- &' '	echo $! >"$SLEEPER"' '	false' '}' >"$D/leaves.bats"
	# The inner bats, bounded: were it to wait for the sleeper, this test fails in 15 s.  Of
	# its own (none of this one's variables: its filter, its directories), its report to a
	# file and this one's descriptor 3 closed, so that nothing of it can hold this file.
	local st=0
	t0=$(now)
	bounded 15 env -i PATH="$PATH" HOME="$HOME" ${TMPDIR:+TMPDIR="$TMPDIR"} S="$S" \
		SLEEPER="$SLEEPER" "$bats" --tap "$D/leaves.bats" >"$D/tap" 2>&1 3>&- || st=$?
	output=$(cat "$D/tap")
	echo "$output (status $st in $(elapsed "$t0") s)"
	[ "$st" -eq 1 ]
	[[ "$output" == *"not ok 1 fails, leaving a sleeper"* ]]
	# bats has returned while the sleeper still runs: it did not wait for it
	sleeper=$(cat "$SLEEPER")
	kill -0 "$sleeper"
	kill -KILL "$sleeper"
}

@test "make lint fails, naming file and line, where a test starts a process in the background with bats' descriptor 3 open" {
	run -0 "$MK" -n -s -C "$REPO" lint
	[[ "$output" == *"scripts/check-test-fds.py"* ]]
	# (printf: a line of this file that starts with @test, here-document or not, is a test)
	# shellcheck disable=SC2016
	printf '%s\n' '@test "x" {' \
		'	"$S" 60 &' \
		'	"$S" 61 3>&- &' \
		'	"$S" 62 & # ended by teardown: kill_named' \
		'	(trap "" TERM; exec "$S" 63) 3>&- &' \
		'	(trap "" TERM; exec "$S" 64 3>&-) &' \
		'	"$PY" "$TOOLS/drive.py" 3>&- | tail -n 1 >"$D/out" &' \
		'	{ "$PY" "$TOOLS/drive.py" | tail -n 1 >"$D/out"; } 3>&- &' \
		'	run sh -c '\''"$S" 65 & wait'\''' \
		'	tmux -L "$SOCK" new-session -d -s t bash' \
		'	tmux -L "$SOCK" new-session -d -s t bash 3>&-' \
		'	x=$("$S" 66 &)' \
		'}' >"$D/t.bats"
	run -1 "$REPO/scripts/check-test-fds.py" "$D/t.bats"
	echo "$output"
	# the sleeper, a subshell whose 3>&- closes it for its exec alone, a pipeline whose tail
	# keeps it, tmux's server, a command substitution: no more (a sh -c script is runlimit's
	# command's, whose tree runlimit ends, or is checked where it is started)
	[ "$(grep -c "^$D/t.bats:" <<<"$output")" -eq 5 ]
	local line
	for line in 2 6 7 10 12; do
		[[ "$output" == *"$D/t.bats:$line: "* ]]
	done
	# and the suite's own files keep the rule
	run -0 "$REPO/scripts/check-test-fds.py"
}
