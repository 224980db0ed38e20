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
	no_leak_check
	# A MAP_SHARED page did it before: making, forking and tearing it down cost every start
	# some 40 µs.
	strace -f -qq -e trace=mmap,pipe,pipe2 -o "$D/trace" "$RUNLIMIT" 10 true
	cat "$D/trace" >&2
	! grep -q MAP_SHARED "$D/trace" || false
	# A failed exec is still told apart from the command's own 127: runlimit read the pipe
	# (the report says so; a child that said it itself would leave it "exited").
	run -127 --separate-stderr "$RUNLIMIT" --report="$D/failed.json" 10 /nonexistent/cmd
	[ "$stderr" = "$RUNLIMIT: failed to run command '/nonexistent/cmd': No such file or directory" ]
	grep -q '"outcome": *"not-found"' "$D/failed.json"
	grep -q '"error": *"No such file or directory"' "$D/failed.json"
	run -127 --separate-stderr "$RUNLIMIT" --report="$D/own.json" 10 sh -c 'exit 127'
	[ -z "$stderr" ]
	grep -q '"outcome": *"exited"' "$D/own.json"
}

@test "without two descriptors for the pipe (ulimit -n 4), a failed exec comes back through a shared page, said once" {
	no_leak_check
	run -127 --separate-stderr "$PY" "$TOOLS/lowfd.py" 4 "$RUNLIMIT" 10 /nonexistent/cmd
	[ "$stderr" = "$RUNLIMIT: failed to run command '/nonexistent/cmd': No such file or directory" ]
	run -126 --separate-stderr "$PY" "$TOOLS/lowfd.py" 4 "$RUNLIMIT" 10 /etc
	[ "$stderr" = "$RUNLIMIT: failed to run command '/etc': Permission denied" ]
	run -0 "$PY" "$TOOLS/lowfd.py" 4 "$RUNLIMIT" 10 true
	needs_strace
	# The pipe could not be made; the page was, and runlimit itself said why (its pid wrote).
	strace -f -qq -s 200 -e trace=execve,pipe,pipe2,mmap,write -o "$D/trace" "$PY" "$TOOLS/lowfd.py" 4 \
		"$RUNLIMIT" 10 /nonexistent/cmd 2>/dev/null || true
	grep -q 'MAP_SHARED|MAP_ANONYMOUS' "$D/trace"
	local rl
	rl=$(awk -v rl="execve(\"$RUNLIMIT\"" 'index($0, rl) { print $1; exit }' "$D/trace")
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
