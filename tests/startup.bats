#!/usr/bin/env bats
# What a start costs, where a test can see it (docs/performance.md, "Start-up of each
# build"): what runlimit does not do at every start any more.  The figures themselves are
# bench/bench.sh's (--builds-only), a benchmark, not a timed test.

bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	PY=$(python3 -c 'import sys; print(sys.executable)')
	export PY
}

setup() {
	export D=$BATS_TEST_TMPDIR
}

@test "a start makes no shared mapping; a failed exec is told apart from the command's own 127" {
	needs_strace
	no_leak_check
	# A MAP_SHARED page did it before: making, forking and tearing it down cost every start
	# some 40 µs.  Now a forked child reports through a pipe, a cloned one in memory.
	strace -f -qq -e trace=mmap,pipe,pipe2 -o "$D/trace" "$RUNLIMIT" 10 true
	cat "$D/trace" >&2
	! grep -q MAP_SHARED "$D/trace" || false
	# A failed exec is still told apart from the command's own 127: runlimit read the child's
	# report (the run's report says so; a child that said it itself would leave "exited").
	run -127 --separate-stderr "$RUNLIMIT" --report="$D/failed.json" 10 /nonexistent/cmd
	[ "$stderr" = "$RUNLIMIT: failed to run command '/nonexistent/cmd': No such file or directory" ]
	grep -q '"outcome": *"not-found"' "$D/failed.json"
	grep -q '"error": *"No such file or directory"' "$D/failed.json"
	run -127 --separate-stderr "$RUNLIMIT" --report="$D/own.json" 10 sh -c 'exit 127'
	[ -z "$stderr" ]
	grep -q '"outcome": *"exited"' "$D/own.json"
}

@test "without two descriptors for the pipe (ulimit -n 4), a failed exec is said once, by runlimit: through a shared page where the child is forked" {
	no_leak_check
	run -127 --separate-stderr "$PY" "$TOOLS/lowfd.py" 4 "$RUNLIMIT" 10 /nonexistent/cmd
	[ "$stderr" = "$RUNLIMIT: failed to run command '/nonexistent/cmd': No such file or directory" ]
	run -126 --separate-stderr "$PY" "$TOOLS/lowfd.py" 4 "$RUNLIMIT" 10 /etc
	[ "$stderr" = "$RUNLIMIT: failed to run command '/etc': Permission denied" ]
	run -0 "$PY" "$TOOLS/lowfd.py" 4 "$RUNLIMIT" 10 true
	needs_strace
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	# Forked (the clone refused, or a system without it): the pipe could not be made; the
	# page was, and runlimit itself said why (its pid wrote).
	strace -f -qq -s 200 -e trace=execve,pipe,pipe2,mmap,write -o "$D/trace" \
		env RUNLIMIT_TEST_CLONE_EINVAL=1 "$PY" "$TOOLS/lowfd.py" 4 \
		"$RUNLIMIT_HOOKS" 10 /nonexistent/cmd 2>/dev/null || true
	grep -q 'MAP_SHARED|MAP_ANONYMOUS' "$D/trace"
	local rl
	rl=$(awk -v rl="execve(\"$RUNLIMIT_HOOKS\"" 'index($0, rl) { print $1; exit }' "$D/trace")
	[ -n "$rl" ]
	grep -q "^$rl .*write(2, .*failed to run command" "$D/trace"
}

# status_reads TRACE: how many reads of /proc/self/status TRACE shows (their text begins
# "Name:", on the read's line or, where strace -f split it, on the line it resumes on).
status_reads() { grep -c '"Name:\\t' "$1" || true; }

@test "a run that ends by itself never reads /proc/self/status; a limit reads it once, through the descriptor opened at the start" {
	needs_strace
	no_leak_check
	[ -r /proc/self/status ] || skip "no /proc/self/status: nothing to read there"
	expected sessions || skip "this build walks no /proc"
	strace -f -qq -e trace=openat,open,read -o "$D/plain" "$RUNLIMIT" 10 true
	[ "$(status_reads "$D/plain")" -eq 0 ]
	# At the deadline the walk asks whether /proc is runlimit's own, once: a setsid escapee,
	# started well before it, is there for the walk to find.
	run -137 strace -f -qq -e trace=openat,open,read -o "$D/limit" "$RUNLIMIT" -s KILL 1 \
		sh -c 'setsid sleep 5 & exec sleep 5'
	[ "$(status_reads "$D/limit")" -eq 1 ]
	# The file was opened at the start, before the command had run a moment: no descriptor
	# needed then (safety.bats 8.4).
	[ "$(grep -c '/proc/self/status' "$D/limit")" -eq 1 ]
}

# clone_lines TRACE: the clone calls TRACE shows (strace -f), one a line.
clone_lines() { grep -E '(^|[[:space:]])(clone|clone3|fork|vfork)\(' "$1" || true; }

@test "the command's child shares runlimit's memory until its exec: cloned with CLONE_VM, never a vfork, and runlimit's pages are not made copy-on-write" {
	needs_strace
	expected sharedchild || skip "this build forks the command's child (the sanitizers cannot follow a shared one; the portable build and machines with no raw system call written fork)"
	strace -f -qq -e trace=clone,clone3,fork,vfork,execve,pipe,pipe2 -o "$D/trace" "$RUNLIMIT" 10 true
	clone_lines "$D/trace" >&2
	# The child that runs true was cloned sharing memory, and nothing suspended runlimit.
	local child
	child=$(awk '/execve\(".*\/true"/ && / = 0$/ { print $1; exit }' "$D/trace")
	[ -n "$child" ]
	clone_lines "$D/trace" | grep -E "CLONE_VM.* = $child\$"
	! grep -q CLONE_VFORK "$D/trace" || false
	# Its report is in the memory it shares: no pipe for it.
	! grep -q pipe "$D/trace" || false
	# Nor is the report lost: a failed exec is said, by runlimit.
	run -127 --separate-stderr "$RUNLIMIT" 10 /nonexistent/cmd
	[ "$stderr" = "$RUNLIMIT: failed to run command '/nonexistent/cmd': No such file or directory" ]
}

@test "a child stopped before its exec does not hold off the deadline: runlimit runs on, times out, and the child dies" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	# A vfork would hold runlimit until the child's exec: a stop there (or an exec stalled on
	# a network file system) would hold off the deadline for good.  Cloned or forked, both.
	local t0 hook pid
	for hook in RUNLIMIT_TEST_CHILD_STOP RUNLIMIT_TEST_CLONE_EINVAL; do
		t0=$(now)
		run -124 bounded 30 env RUNLIMIT_TEST_CHILD_STOP=1 "$hook=1" "$RUNLIMIT_HOOKS" \
			--report="$D/report.json" 1 sh -c ": >'$D/ran'"
		lt "$(elapsed "$t0")" 10
		[ ! -e "$D/ran" ]
		# ... and the child is gone, dead of the time-out's TERM.
		pid=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["pid"])' "$D/report.json")
		! kill -0 "$pid" 2>/dev/null || false
		grep -q '"command_signal": *"TERM"' "$D/report.json"
	done
}

@test "where the clone is refused (qemu-user refuses it), the child is forked: the command runs, a failed exec is said once" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	export RUNLIMIT_TEST_CLONE_EINVAL=1
	run -3 --separate-stderr "$RUNLIMIT_HOOKS" 10 sh -c 'exit 3'
	[ -z "$stderr" ]
	run -127 --separate-stderr "$RUNLIMIT_HOOKS" 10 /nonexistent/cmd
	[ "$stderr" = "$RUNLIMIT_HOOKS: failed to run command '/nonexistent/cmd': No such file or directory" ]
	needs_strace
	no_leak_check
	strace -f -qq -e trace=clone,clone3,fork,vfork -o "$D/trace" "$RUNLIMIT_HOOKS" 10 true
	clone_lines "$D/trace" >&2
	! clone_lines "$D/trace" | grep -q CLONE_VM || false
	[ "$(clone_lines "$D/trace" | wc -l)" -eq 2 ]
}

@test "on a kernel before 5.16, whose core dumps end every process that shares the memory, the child is forked" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	needs_strace
	expected sharedchild || skip "this build forks the command's child anyway"
	local release
	for release in 5.15.0 5.16.0; do
		strace -f -qq -e trace=clone,clone3,fork,vfork -o "$D/trace-$release" \
			env RUNLIMIT_TEST_KERNEL_RELEASE=$release "$RUNLIMIT_HOOKS" 10 true
		clone_lines "$D/trace-$release" >&2
	done
	# The guard is cloned sharing memory on both; the command's child only from 5.16.
	[ "$(clone_lines "$D/trace-5.15.0" | grep -c CLONE_VM)" -eq 1 ]
	[ "$(clone_lines "$D/trace-5.16.0" | grep -c CLONE_VM)" -eq 2 ]
}

@test "a run's start allocates nothing: a limit's environment for the command is no malloc (no brk, no mmap more than a run with no limit)" {
	needs_strace
	no_leak_check
	# RUNLIMIT_DEADLINE is set for the command only where there is a limit (10); with none
	# (0) the environment is runlimit's own.  A first malloc would show as brk or mmap in
	# runlimit's own process (no -f: the command's are its own): with musl, and glibc
	# dynamic; glibc's static start-up has made its heap already, whatever runlimit does.
	strace -qq -e trace=brk,mmap -o "$D/none" "$RUNLIMIT" 0 true
	strace -qq -e trace=brk,mmap -o "$D/limit" "$RUNLIMIT" 10 true
	cat "$D/none" "$D/limit" >&2
	[ "$(grep -c . "$D/limit")" -eq "$(grep -c . "$D/none")" ]
	# ... and the environment is the command's all the same, a long one too (past the room).
	run -0 "$RUNLIMIT" 10 sh -c 'echo "${RUNLIMIT_DEADLINE:+set}"'
	[ "$output" = set ]
	run -0 env $(seq -f 'RL_MANY_%g=x' 300) "$RUNLIMIT" 10 sh -c 'echo "${RUNLIMIT_DEADLINE:+set} $RL_MANY_300"'
	[ "$output" = "set x" ]
}

# big_statics BINARY: "SIZE NAME" for each object of BINARY's static data (data or bss) of
# 16 KiB or more, from nm (nothing where nm cannot say sizes).
big_statics() {
	nm -S "$1" 2>/dev/null | awk '$3 ~ /^[bBdD]$/ {
		n = 0
		for (i = 1; i <= length($2); i++) n = n * 16 + index("0123456789abcdef", substr($2, i, 1)) - 1
		if (n >= 16384) print n, $4 }'
}

@test "runlimit's static data holds no big buffer but the children's stacks: the variables a start touches lie on few pages" {
	command -v nm >/dev/null || skip "no nm here"
	nm -S "$RUNLIMIT" >/dev/null 2>&1 || skip "this nm cannot say sizes, or the binary is stripped"
	big_statics "$RUNLIMIT" >&2
	# The relay's 2 MiB, the report's 64 KiB and two others lay between variables every
	# start touches, each a page fault more (docs/performance.md): now malloc'd, or on the
	# stack, when used.  The stacks are the cloned guard's and child's (os/linux*.c) and
	# glibc's table of thread keys.
	[ -z "$(big_statics "$RUNLIMIT" | grep -vwE 'child_stack|guard_stack|__pthread_keys')" ]
}
