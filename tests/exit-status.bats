#!/usr/bin/env bats
# Exit status (runlimit.1, EXIT STATUS): what runlimit returns in each situation, and how it returns it
# (a normal exit, or dying of a signal), checked through python3 where a shell cannot tell.

bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	# The interpreter itself, not a wrapper script (pyenv shims are slow bash scripts).
	PY=$(python3 -c 'import sys; print(sys.executable)')
	export PY
}

# drive READY SIG CMD...: run drive.py; sets RESULT ("exit N", "signal N", ...) and SECS.
drive() {
	local line
	line=$("$PY" "$TOOLS/drive.py" "$@" 2>"$BATS_TEST_TMPDIR/drive.err" | tail -n 1)
	RESULT=${line% *}
	SECS=${line##* }
	echo "drive: $line" >&2
	cat "$BATS_TEST_TMPDIR/drive.err" >&2
}

teardown() {
	kill_named "el$BATS_TEST_NUMBER-$(($$ % 100000))"
	kill_named "es$BATS_TEST_NUMBER-$(($$ % 100000))"
}

# ---- the command's own exit status --------------------------------------------------------

@test "command exit status 0, 1 and 42 pass through" {
	for n in 0 1 42; do
		run -"$n" --separate-stderr "$RUNLIMIT" 5 sh -c "exit $n"
		[ -z "$stderr" ]
	done
}

@test "command's own 124, 125, 126, 127 pass through, with no 'failed to run' message" {
	for n in 124 125 126 127; do
		run -"$n" --separate-stderr "$RUNLIMIT" 5 sh -c "exit $n"
		[ -z "$stderr" ]
	done
}

@test "command's own 126/127 are not mistaken for exec failures (python sees a plain exit)" {
	drive - - "$RUNLIMIT" 5 sh -c 'exit 127'
	[ "$RESULT" = "exit 127" ]
	[ "$(grep -c 'failed to run' "$BATS_TEST_TMPDIR/drive.err")" -eq 0 ]
}

# ---- time-outs ----------------------------------------------------------------------------

@test "time-out: 124, promptly" {
	local t0
	t0=$(now)
	run -124 --separate-stderr "$RUNLIMIT" 0.2 sleep 10
	lt "$(elapsed "$t0")" 3
	[ -z "$stderr" ]
}

# The commands that trap TERM get 1 s to set their trap: a shell started under a loaded
# qemu (the release gate) took longer than 0.2 s, and died of the TERM before its trap.
@test "time-out where the command traps TERM and exits 0: 124" {
	run -124 "$RUNLIMIT" 1 sh -c 'trap "exit 0" TERM; while :; do sleep 0.05; done'
}

@test "time-out needing KILL (-k 0.5): 137, a normal exit (python sees 137, not -9)" {
	local ps
	ps=$(private_sleep "es$BATS_TEST_NUMBER-$(($$ % 100000))")
	drive - - "$RUNLIMIT" -k 0.5 1 sh -c "trap '' TERM; $ps 10"
	[ "$RESULT" = "exit 137" ]
	lt "$SECS" 5
	no_survivors "es$BATS_TEST_NUMBER-$(($$ % 100000))" 5
}

# grace_case NAME ARG...: runlimit ARG... in the background, through drive.py (python tells
# an exit from a death); its result line ends up in $BATS_TEST_TMPDIR/NAME.out.
grace_case() {
	local name=$1
	shift
	"$PY" "$TOOLS/drive.py" - - "$@" 2>&1 3>&- | tail -n 1 >"$BATS_TEST_TMPDIR/$name.out" 3>&- &
}

# result_is NAME WANT: the result of grace_case NAME is WANT ("exit 124"), whatever it took.
result_is() {
	local line
	line=$(cat "$BATS_TEST_TMPDIR/$1.out")
	echo "$1: $line" >&2
	[ "${line% *}" = "$2" ]
}

@test "one status for every time-out: the default grace's KILL gives 124 (the report: kill_needed); -k, -p: 137" {
	local ps d=$BATS_TEST_TMPDIR
	ps=$(private_sleep "es$BATS_TEST_NUMBER-$(($$ % 100000))")
	mkdir "$d/bin"
	ln -s "$(cd "$(dirname "$RUNLIMIT")" && pwd)/$(basename "$RUNLIMIT")" "$d/bin/timeout"
	# The command ignores TERM: only the KILL after the grace (5 s by default) ends it.  The
	# cases run side by side, so that the default grace is waited for once; their limits
	# come after 2 s, by when each shell has set its trap, five starting at once on a loaded
	# machine.
	local cmd=(sh -c "trap '' TERM; exec '$ps' 30")
	grace_case default "$RUNLIMIT" --report="$d/default.json" 2 "${cmd[@]}"
	grace_case silent "$RUNLIMIT" --report="$d/silent.json" --no-output-timeout=2 30 "${cmd[@]}"
	grace_case timeout "$d/bin/timeout" 2 "${cmd[@]}"
	grace_case preserve "$RUNLIMIT" -p 2 "${cmd[@]}"
	grace_case explicit "$RUNLIMIT" --report="$d/explicit.json" -k 5 2 "${cmd[@]}"
	wait
	result_is default "exit 124"
	result_is silent "exit 124"
	result_is timeout "exit 124"
	result_is preserve "exit 137"
	result_is explicit "exit 137"
	local r=$TOOLS/report_is.py
	"$PY" "$r" "$d/default.json" 'd["outcome"] == "killed"' 'd["exit_status"] == 124' \
		'd["kill_needed"] is True' 'd["command_signal"] == "KILL"' 'd["timed_out_by"] == "deadline"' \
		'[(s["signal"], s["reason"]) for s in d["signals"]][-1] == ("KILL", "grace")'
	"$PY" "$r" "$d/silent.json" 'd["outcome"] == "killed"' 'd["exit_status"] == 124' \
		'd["kill_needed"] is True' 'd["timed_out_by"] == "no-output"'
	"$PY" "$r" "$d/explicit.json" 'd["exit_status"] == 137' 'd["kill_needed"] is True'
	no_survivors "es$BATS_TEST_NUMBER-$(($$ % 100000))" 5
}

@test "a cancel that needed the KILL keeps its rule (a request, not a limit): 137, the report says so" {
	local ps d=$BATS_TEST_TMPDIR
	ps=$(private_sleep "es$BATS_TEST_NUMBER-$(($$ % 100000))")
	export RUNLIMIT_DIR=$d/names
	"$RUNLIMIT" --report="$d/r.json" --name=es-cancel 30 sh -c \
		"trap '' TERM; echo r > '$d/ready'; exec '$ps' 30" 3>&- &
	local pid=$!
	wait_for_file "$d/ready"
	run -0 bounded 30 "$RUNLIMIT" --cancel=es-cancel -k 0.3
	wait_bg "$pid" 30
	[ "$BG_STATUS" -eq 137 ]
	"$PY" "$TOOLS/report_is.py" "$d/r.json" 'd["cancelled"] is True' 'd["exit_status"] == 137' \
		'd["timed_out"] is False' 'd["kill_needed"] is True'
	no_survivors "es$BATS_TEST_NUMBER-$(($$ % 100000))" 5
}

@test "-s KILL: 137, a normal exit" {
	drive - - "$RUNLIMIT" -s KILL 0.2 sleep 10
	[ "$RESULT" = "exit 137" ]
	lt "$SECS" 5
}

@test "-s 0: the command runs past the deadline, and the status is 124 when it ends" {
	local m=$BATS_TEST_TMPDIR/finished
	run -124 "$RUNLIMIT" -s 0 0.2 sh -c "sleep 0.8; echo yes > '$m'"
	[ "$(cat "$m")" = yes ]
}

# ---- --preserve-status --------------------------------------------------------------------

@test "--preserve-status: 143 when TERM killed the command" {
	drive - - "$RUNLIMIT" --preserve-status 0.2 sleep 10
	[ "$RESULT" = "exit 143" ]
}

@test "--preserve-status: the command's own code when it trapped TERM and exited 5" {
	run -5 "$RUNLIMIT" -p 1 sh -c 'trap "exit 5" TERM; while :; do sleep 0.05; done'
}

@test "--preserve-status: 137 after KILL escalation" {
	drive - - "$RUNLIMIT" -p -k 0.5 1 sh -c 'trap "" TERM; sleep 10'
	[ "$RESULT" = "exit 137" ]
	lt "$SECS" 5
}

@test "-s INT -p: 130" {
	drive - - "$RUNLIMIT" -s INT -p 0.2 sleep 10
	[ "$RESULT" = "exit 130" ]
}

# ---- the command dies of a signal ---------------------------------------------------------

@test "command killed by a TERM nobody sent to runlimit: runlimit exits 143 (python: +143)" {
	drive - - "$RUNLIMIT" 10 sh -c 'kill -TERM $$'
	[ "$RESULT" = "exit 143" ]
}

@test "command crashed with SEGV: runlimit exits 139 (python: +139)" {
	ulimit -c 0
	drive - - "$RUNLIMIT" 10 sh -c 'kill -SEGV $$'
	[ "$RESULT" = "exit 139" ]
}

@test "command killed by KILL from elsewhere: runlimit exits 137 (python: +137)" {
	drive - - "$RUNLIMIT" 10 sh -c 'kill -KILL $$'
	[ "$RESULT" = "exit 137" ]
}

@test "external TERM forwarded, command dies of it: runlimit dies of TERM (python -15)" {
	local r=$BATS_TEST_TMPDIR/ready
	drive "$r" TERM "$RUNLIMIT" 30 sh -c "echo r > '$r'; exec sleep 30"
	[ "$RESULT" = "signal 15" ]
	lt "$SECS" 5
}

@test "external INT forwarded, command dies of it: runlimit dies of INT (python -2)" {
	local r=$BATS_TEST_TMPDIR/ready
	drive "$r" INT "$RUNLIMIT" 30 sh -c "echo r > '$r'; exec sleep 30"
	[ "$RESULT" = "signal 2" ]
	lt "$SECS" 5
}

@test "external TERM forwarded: a calling bash sees 143" {
	local r=$BATS_TEST_TMPDIR/ready pid rc=0
	"$RUNLIMIT" 30 sh -c "echo r > '$r'; exec sleep 30" 3>&- &
	pid=$!
	wait_for_file "$r"
	kill -TERM "$pid"
	wait_for_gone "$pid" 10
	wait "$pid" || rc=$?
	[ "$rc" -eq 143 ]
}

@test "external TERM, command traps it and exits 0: status 0 (not a time-out)" {
	local r=$BATS_TEST_TMPDIR/ready
	drive "$r" TERM "$RUNLIMIT" 30 sh -c \
		"trap 'exit 0' TERM; echo r > '$r'; while :; do sleep 0.05; done"
	[ "$RESULT" = "exit 0" ]
}

# Can a crashing process dump core here (core_pattern, limits, container)?  Probe first.
core_dumps_work() {
	(cd "$BATS_TEST_TMPDIR/probe" && ulimit -c unlimited &&
		"$PY" -c 'import os, subprocess
p = subprocess.Popen(["sh", "-c", "kill -SEGV $$"])
_, st = os.waitpid(p.pid, 0)
raise SystemExit(0 if os.WCOREDUMP(st) else 1)')
}

@test "'dumped core' message when the command dumps core" {
	mkdir -p "$BATS_TEST_TMPDIR/probe" "$BATS_TEST_TMPDIR/run"
	core_dumps_work || skip "no core dumps on this machine (core_pattern: $(cat /proc/sys/kernel/core_pattern 2>/dev/null || echo "?"))"
	cd "$BATS_TEST_TMPDIR/run"
	ulimit -c unlimited
	run -139 --separate-stderr "$RUNLIMIT" 10 sh -c 'kill -SEGV $$'
	[ "$stderr" = "$RUNLIMIT: the monitored command dumped core" ]
}

@test "runlimit re-raising a forwarded QUIT does not dump core itself" {
	mkdir -p "$BATS_TEST_TMPDIR/probe" "$BATS_TEST_TMPDIR/rl" "$BATS_TEST_TMPDIR/cmd"
	core_dumps_work || skip "no core dumps on this machine (core_pattern: $(cat /proc/sys/kernel/core_pattern 2>/dev/null || echo "?"))"
	local r=$BATS_TEST_TMPDIR/ready
	cd "$BATS_TEST_TMPDIR/rl"
	ulimit -c unlimited
	# The command dumps core in its own directory; runlimit's directory must stay empty.
	drive "$r" QUIT "$RUNLIMIT" 30 sh -c "cd '$BATS_TEST_TMPDIR/cmd' && echo r > '$r' && exec sleep 30"
	[ "$RESULT" = "signal 3" ]    # no "+core"
	[ -z "$(ls "$BATS_TEST_TMPDIR/rl")" ]
}

# ---- exec failures ------------------------------------------------------------------------

@test "126 for a directory: failed to run command '/etc': Permission denied" {
	run -126 --separate-stderr "$RUNLIMIT" 5 /etc
	[ "$stderr" = "$RUNLIMIT: failed to run command '/etc': Permission denied" ]
}

@test "126 for a non-executable file" {
	local f=$BATS_TEST_TMPDIR/noexec
	printf 'exit 0\n' >"$f"
	chmod 644 "$f"
	run -126 --separate-stderr "$RUNLIMIT" 5 "$f"
	[ "$stderr" = "$RUNLIMIT: failed to run command '$f': Permission denied" ]
}

@test "126 for ENOTDIR" {
	run -126 --separate-stderr "$RUNLIMIT" 5 /etc/passwd/x
	[ "$stderr" = "$RUNLIMIT: failed to run command '/etc/passwd/x': Not a directory" ]
}

@test "127 for a missing command, on PATH and by path" {
	run -127 --separate-stderr "$RUNLIMIT" 5 no-such-command-runlimit-test
	[ "$stderr" = "$RUNLIMIT: failed to run command 'no-such-command-runlimit-test': No such file or directory" ]
	run -127 --separate-stderr "$RUNLIMIT" 5 /nonexistent/cmd
	[ "$stderr" = "$RUNLIMIT: failed to run command '/nonexistent/cmd': No such file or directory" ]
}

@test "127 for an empty command name" {
	run -127 --separate-stderr "$RUNLIMIT" 5 ""
	[ "$stderr" = "$RUNLIMIT: failed to run command '': No such file or directory" ]
}

@test "127 for a script whose #! interpreter does not exist" {
	local f=$BATS_TEST_TMPDIR/badshebang
	printf '#!/nonexistent/interpreter\nexit 0\n' >"$f"
	chmod 755 "$f"
	run -127 --separate-stderr "$RUNLIMIT" 5 "$f"
	[ "$stderr" = "$RUNLIMIT: failed to run command '$f': No such file or directory" ]
}

@test "a script without #! runs through the shell" {
	local f=$BATS_TEST_TMPDIR/noshebang
	printf 'echo hello from a script\nexit 0\n' >"$f"
	chmod 755 "$f"
	run -0 --separate-stderr "$RUNLIMIT" 5 "$f"
	[ "$output" = "hello from a script" ]
	[ -z "$stderr" ]
}

@test "a script without #! runs through the shell with a long argument list" {
	# 20,000 arguments: the child's stack must hold the argument vector twice over (a
	# vfork-style child on a fixed 64 KB stack died of SIGSEGV); each arrives whole.
	local f=$BATS_TEST_TMPDIR/noshebang-args
	printf 'echo "$# $1 $20000"\n' >"$f"
	chmod 755 "$f"
	run -0 --separate-stderr "$RUNLIMIT" 30 "$f" $(seq 20000)
	[ "$output" = "20000 1 20000" ]
	[ -z "$stderr" ]
}

# ---- the search of PATH (runlimit's own, as glibc's execvp searches, on every libc) ------

# path_dirs: three directories under the test's, a b c, made empty.
path_dirs() { mkdir -p "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b" "$BATS_TEST_TMPDIR/c"; }

@test "PATH: a directory where the name may not be run is passed over for one where it can; 126 if none can" {
	path_dirs
	local a=$BATS_TEST_TMPDIR/a b=$BATS_TEST_TMPDIR/b
	printf '#!/bin/sh\necho from a\n' >"$a/rl-cmd"
	chmod 644 "$a/rl-cmd"
	printf '#!/bin/sh\necho from b\n' >"$b/rl-cmd"
	chmod 755 "$b/rl-cmd"
	run -0 --separate-stderr env PATH=$a:$b:$PATH "$RUNLIMIT" 5 rl-cmd
	[ "$output" = "from b" ]
	# Found, but nowhere runnable: Permission denied, not "No such file".
	run -126 --separate-stderr env PATH=$a:$PATH "$RUNLIMIT" 5 rl-cmd
	[ "$stderr" = "$RUNLIMIT: failed to run command 'rl-cmd': Permission denied" ]
}

@test "PATH: an empty entry is the current directory; an entry that is a file is passed over" {
	path_dirs
	local c=$BATS_TEST_TMPDIR/c
	printf '#!/bin/sh\necho from here\n' >"$c/rl-here"
	chmod 755 "$c/rl-here"
	cd "$c"
	run -0 --separate-stderr env PATH=/etc/passwd::/nonexistent "$RUNLIMIT" 5 rl-here
	[ "$output" = "from here" ]
	run -0 --separate-stderr env PATH=/etc/passwd:/nonexistent: "$RUNLIMIT" 5 rl-here
	[ "$output" = "from here" ]
	run -127 --separate-stderr env PATH=/etc/passwd:/nonexistent "$RUNLIMIT" 5 rl-here
	[ "$stderr" = "$RUNLIMIT: failed to run command 'rl-here': No such file or directory" ]
}

@test "PATH: a failure other than not found or not allowed ends the search (a symbolic link loop)" {
	path_dirs
	local a=$BATS_TEST_TMPDIR/a b=$BATS_TEST_TMPDIR/b
	ln -s rl-loop "$a/rl-loop"
	printf '#!/bin/sh\necho from b\n' >"$b/rl-loop"
	chmod 755 "$b/rl-loop"
	run -126 --separate-stderr env PATH=$a:$b "$RUNLIMIT" 5 rl-loop
	[ -z "$output" ]
	# ELOOP, in the C library's words (glibc's "Too many levels of symbolic links").
	[[ "$stderr" == "$RUNLIMIT: failed to run command 'rl-loop': "* ]]
	[[ "$stderr" != *"No such file"* && "$stderr" != *"Permission denied"* ]]
}

@test "PATH unset: the search is in /bin and /usr/bin, as glibc's, not in the current directory" {
	path_dirs
	local c=$BATS_TEST_TMPDIR/c
	printf '#!/bin/sh\necho from here\n' >"$c/rl-here"
	chmod 755 "$c/rl-here"
	cd "$c"
	run -0 --separate-stderr env -u PATH "$RUNLIMIT" 5 sh -c 'echo ran'
	[ "$output" = ran ]
	run -127 --separate-stderr env -u PATH "$RUNLIMIT" 5 rl-here
	[ "$stderr" = "$RUNLIMIT: failed to run command 'rl-here': No such file or directory" ]
}

@test "PATH: a script without #! found on PATH runs through the shell, with its arguments" {
	path_dirs
	local a=$BATS_TEST_TMPDIR/a
	printf 'echo "$0 $# $1 $2"\n' >"$a/rl-noshebang"
	chmod 755 "$a/rl-noshebang"
	run -0 --separate-stderr env PATH=$a:$PATH "$RUNLIMIT" 5 rl-noshebang x 'y z'
	[ "$output" = "$a/rl-noshebang 2 x y z" ]
	[ -z "$stderr" ]
}

# ---- leftovers ----------------------------------------------------------------------------

@test "the status is the command's, not a leftover background child's; returns promptly" {
	local ps t0
	ps=$(private_sleep "el$BATS_TEST_NUMBER-$(($$ % 100000))")
	t0=$(now)
	run -3 "$RUNLIMIT" 30 sh -c "'$ps' 30 >/dev/null 2>&1 3>&- & exit 3"
	lt "$(elapsed "$t0")" 5
	# The leftover was left alone (no --kill-leftovers).
	[ -n "$(survivors "el$BATS_TEST_NUMBER-$(($$ % 100000))")" ]
}
