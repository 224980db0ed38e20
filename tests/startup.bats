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

@test "a start makes no shared mapping: the child reports a failed exec through a pipe" {
	needs_strace
	# A MAP_SHARED page did it before: making, forking and tearing it down cost every start
	# some 40 µs.
	strace -f -qq -e trace=mmap,pipe,pipe2 -o "$D/trace" "$RUNLIMIT" 10 true
	cat "$D/trace" >&2
	! grep -q MAP_SHARED "$D/trace" || false
	# A failed exec is still told apart from the command's own 127, by the parent.
	run -127 --separate-stderr "$RUNLIMIT" 10 /nonexistent/cmd
	[ "$stderr" = "$RUNLIMIT: failed to run command '/nonexistent/cmd': No such file or directory" ]
	run -127 --separate-stderr "$RUNLIMIT" 10 sh -c 'exit 127'
	[ -z "$stderr" ]
}

@test "without two descriptors for the pipe (ulimit -n 4), the child says why its exec failed, once" {
	run -127 --separate-stderr "$PY" "$TOOLS/lowfd.py" 4 "$RUNLIMIT" 10 /nonexistent/cmd
	[ "$stderr" = "$RUNLIMIT: failed to run command '/nonexistent/cmd': No such file or directory" ]
	run -126 --separate-stderr "$PY" "$TOOLS/lowfd.py" 4 "$RUNLIMIT" 10 /etc
	[ "$stderr" = "$RUNLIMIT: failed to run command '/etc': Permission denied" ]
	run -0 "$PY" "$TOOLS/lowfd.py" 4 "$RUNLIMIT" 10 true
}

# status_reads TRACE: how many reads of /proc/self/status TRACE shows (their text begins
# "Name:").
status_reads() { grep -c 'read([0-9]*, "Name:' "$1" || true; }

@test "a run that ends by itself never reads /proc/self/status; a limit reads it once, through the descriptor opened at the start" {
	needs_strace
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
