#!/usr/bin/env bats
# The whole process tree (docs/design.md, "The tree on each system"): background children, TERM-ignoring grandchildren,
# setsid escapees, double-forked daemons, odd process names, busy and fork loops, stopped
# processes, the guard, --kill-leftovers, and what is not the command's.
#
# Every process a test starts runs a private copy of sleep or sh under a unique name
# (tN-PID-...), so survivors can be found by name, and teardown ends everything left.  Where a
# test needs its tree set up before the time-out, the command writes "ready" files and the
# test sends SIGALRM to runlimit ("the deadline is now") once they are there.

bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	setup_tree_tests
	SH_BIN=$(private_shell_binary) || SH_BIN=
	export SH_BIN
}

setup() {
	export D=$BATS_TEST_TMPDIR
	# Unique per run as well as per test: a concurrent run must not kill our processes.
	N=t$BATS_TEST_NUMBER-$(($$ % 100000))
}

teardown() {
	[ -z "${RL_PID:-}" ] || kill -KILL "$RL_PID" 2>/dev/null || true
	local name group
	if [ -s "$D/groups" ]; then
		for group in $(cat "$D/groups"); do kill -KILL -- "-$group" 2>/dev/null || true; done
	fi
	for name in "$N-s" "$N-t" "$N-sh" "$N-loop" "$N-cmd" "$N-gnu" "$N-other" "$N-b"; do
		kill_named "$name"
	done
	kill_private
}

# ---- helpers ------------------------------------------------------------------------------

# private_sh NAME: a copy of the shell under a unique name (skips where no shell keeps the
# name of its copy).
private_sh() {
	[ -n "$SH_BIN" ] || return 1
	local path=$BATS_TEST_TMPDIR/$1
	cp "$SH_BIN" "$path"
	printf '%s\n' "$path"
}

# needs_private_sh: skip unless private_sh can work here.
needs_private_sh() {
	[ -n "$SH_BIN" ] || skip "no shell here runs under the name of a copy of it"
}

# no_exe_survivors PATTERN [SECONDS]: wait until no live process runs an executable
# matching PATTERN.
no_exe_survivors() {
	wait_until "${2:-10}" no_exe_pids "$1" ||
		{ echo "survivors running $1: $(exe_pids "$1" | head)" >&2; return 1; }
}
no_exe_pids() { [ -z "$(exe_pids "$1")" ]; }

# gone_within SECONDS NAME: no_survivors bounded in time, not in polls (ps is slow when
# thousands of processes are left).
gone_within() {
	wait_until "$1" no_live "$2" ||
		{ echo "$(survivors "$2" | wc -l) survivors named $2" >&2; return 1; }
}

# kill_private: end every process running one of this test's private executables, fork
# loops included (stopped first, so that a pass catches all they forked; then again).
kill_private() {
	local pids i
	for i in $(seq 50); do
		pids=$(exe_pids "$BATS_TEST_TMPDIR/*")
		[ -n "$pids" ] || return 0
		# shellcheck disable=SC2086
		kill -STOP $pids 2>/dev/null
		# shellcheck disable=SC2086
		kill -KILL $pids 2>/dev/null
	done
	return 0
}

has_exe_pids() { [ -n "$(exe_pids "$1")" ]; }
group_gone() { ! kill -0 -- "-$1" 2>/dev/null; }

# rl ARG...: runlimit in the foreground, output to files, killed after 40 s; sets RL_STATUS
# and RL_ELAPSED.
rl() {
	local t0
	t0=$(now)
	RL_STATUS=0
	bounded 40 "$RUNLIMIT" "$@" >"$D/out" 2>"$D/err" 3>&- || RL_STATUS=$?
	RL_ELAPSED=$(elapsed "$t0")
	echo "runlimit status $RL_STATUS after ${RL_ELAPSED}s; stderr: $(cat "$D/err")" >&2
}

# start_rl ARG...: runlimit in the background (default INT/QUIT/PIPE); its pid in RL_PID.
start_rl() {
	"$PY" "$TOOLS/dfl.py" "$RUNLIMIT" "$@" >"$D/out" 2>"$D/err" 3>&- &
	RL_PID=$!
}

# ready FILE: wait for a ready file; on failure, show what runlimit's tree was doing.
ready() {
	wait_for_file "$1" 20 && return 0
	ps -A -o pid -o ppid -o pgid -o stat -o args >&2
	return 1
}

# time_out_now: SIGALRM to runlimit (the deadline is now); T0 is when.
time_out_now() {
	T0=$(now)
	kill -ALRM "$RL_PID"
}

# finish_rl [SECONDS]: wait (bounded) for runlimit to end; RL_STATUS, and RL_ELAPSED since T0.
finish_rl() {
	wait_bg "$RL_PID" "${1:-20}" || return 1
	RL_ELAPSED=$(elapsed "$T0")
	RL_STATUS=$BG_STATUS
	RL_PID=
	echo "runlimit status $RL_STATUS after ${RL_ELAPSED}s; stderr: $(cat "$D/err")" >&2
}

# ---- the group ----------------------------------------------------------------------------

@test "background children in the group are gone after a time-out" {
	export S
	S=$(private_sleep "$N-s")
	rl 0.5 sh -c '"$S" 30 & "$S" 30 & echo $$ > "$D/ready"; wait'
	[ "$RL_STATUS" -eq 124 ]
	[ -s "$D/ready" ]
	lt "$RL_ELAPSED" 4
	no_survivors "$N-s" 5
}

# grandchild_killed_after_grace: the command dies of the deadline's TERM (124); its child,
# which ignores it, is KILLed at the end of the -k 0.5 grace, not before; nothing is left.
# (The deadlines of 1 s give the shells time to set their traps, even under a loaded qemu.)
grandchild_killed_after_grace() {
	rl -k 0.5 1 sh -c '(trap "" TERM; exec "$S" 30) & echo $$ > "$D/ready"; wait'
	[ "$RL_STATUS" -eq 124 ]
	[ -s "$D/ready" ]
	lt 1.4 "$RL_ELAPSED"
	lt "$RL_ELAPSED" 5
	no_survivors "$N-s" 5
}

@test "a grandchild that ignores TERM is KILLed after -k 0.5 (124, or 137 if the command ignores it too)" {
	export S
	S=$(private_sleep "$N-s")
	grandchild_killed_after_grace
	# The command ignores TERM as well: it dies of the KILL, 137.
	rm -f "$D/ready"
	rl -k 0.5 1 sh -c 'trap "" TERM; (trap "" TERM; exec "$S" 30) & echo $$ > "$D/ready"; wait'
	[ "$RL_STATUS" -eq 137 ]
	[ -s "$D/ready" ]
	lt "$RL_ELAPSED" 5
	no_survivors "$N-s" 5
}

@test "no subreaper to be had (qemu-user passes none on): the group is the tree, its TERM-ignoring member KILLed after the grace" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	export S
	S=$(private_sleep "$N-s")
	# The child is orphaned where runlimit cannot see it (no subreaper): only the group
	# reaches it, and only after the grace.
	RUNLIMIT=$RUNLIMIT_HOOKS RUNLIMIT_TEST_NO_SUBREAPER=1 grandchild_killed_after_grace
}

@test "a grandchild that ignores TERM is KILLed after the default grace (5 s)" {
	export S
	S=$(private_sleep "$N-s")
	rl 1 sh -c '(trap "" TERM; exec "$S" 30) & echo $$ > "$D/ready"; wait'
	[ "$RL_STATUS" -eq 124 ]
	[ -s "$D/ready" ]
	lt 4 "$RL_ELAPSED"
	lt "$RL_ELAPSED" 15
	no_survivors "$N-s" 5
}

# ---- escapees -----------------------------------------------------------------------------

@test "a setsid child survives GNU timeout but not runlimit" {
	needs_session_reach
	export S G
	S=$(private_sleep "$N-s")
	G=$(private_sleep "$N-gnu")
	# Sanity check: GNU timeout only signals its process group.
	if gnu_coreutils "$(command -v timeout)"; then
		timeout 30 sh -c 'setsid sh -c "echo \$\$ > \"\$D/gready\"; exec \"\$G\" 30" & wait' \
			>/dev/null 2>&1 3>&- &
		local gnu=$!
		ready "$D/gready"
		wait_until 10 has_exe "$(cat "$D/gready")" "$G"
		kill -ALRM "$gnu"
		wait_for_gone "$gnu" 10
		wait "$gnu" || true
		has_survivors "$N-gnu"
	fi
	start_rl -k 2 30 sh -c 'setsid sh -c "echo \$\$ > \"\$D/r1\"; exec \"\$S\" 30" & wait'
	ready "$D/r1"
	wait_until 10 has_exe "$(cat "$D/r1")" "$S"
	time_out_now
	finish_rl
	[ "$RL_STATUS" -eq 124 ]
	lt "$RL_ELAPSED" 1.5   # TERM reached it: no need to wait for the KILL
	no_survivors "$N-s" 5
}

@test "a double-forked daemon is gone after a time-out" {
	needs_orphan_adoption
	export S C
	S=$(private_sleep "$N-s")
	C=$(private_sleep "$N-cmd")
	start_rl -k 2 30 sh -c 'setsid sh -c "\"\$S\" 30 & echo \$! > \"\$D/daemon\"" &
		echo $$ > "$D/ready"; exec "$C" 30'
	ready "$D/ready"
	ready "$D/daemon"
	local daemon
	daemon=$(cat "$D/daemon")
	wait_until 10 has_exe "$daemon" "$S"
	# Its parent has exited: runlimit (the subreaper) has adopted it.
	wait_until 10 is_child_of "$daemon" "$RL_PID"
	time_out_now
	finish_rl
	[ "$RL_STATUS" -eq 124 ]
	no_survivors "$N-s" 5
	no_survivors "$N-cmd" 5
}

@test "escapees whose names hold spaces and parentheses are found" {
	needs_session_reach
	needs_private_sh
	export S W1 W2 WSH
	S=$(private_sleep "$N-s")
	# comm is cut to 15 characters: these are found by executable, not by name.
	W1=$D/'a) (b'
	W2=$D/'we ird) (x y) z 1 2 3'
	WSH=$D/'sh) R 1 (c'
	cp "$(command -v sleep)" "$W1"
	cp "$(command -v sleep)" "$W2"
	cp "$SH_BIN" "$WSH"
	# A daemon with an odd name, and a setsid'd shell with an odd name whose children
	# (one odd, one plain) can only be found through it.
	start_rl -k 2 30 sh -c '
		setsid sh -c "echo \$\$ > \"\$D/r1\"; exec \"\$W1\" 30" &
		setsid "$WSH" -c "\"\$S\" 30 & \"\$W2\" 30 & echo \$\$ > \"\$D/r2\"; wait" &
		wait'
	ready "$D/r1"
	ready "$D/r2"
	wait_until 10 has_exe "$(cat "$D/r1")" "$W1"
	wait_until 10 has_survivors "$N-s"
	wait_until 10 has_exe_pids "$W2"
	# Where /proc shows the name (Linux), the odd one is really there to be parsed.
	if [ -r "/proc/$(cat "$D/r2")/comm" ]; then
		[ "$(cat "/proc/$(cat "$D/r2")/comm")" = 'sh) R 1 (c' ]
	fi
	time_out_now
	finish_rl
	[ "$RL_STATUS" -eq 124 ]
	no_exe_survivors "$W1" 5
	no_exe_survivors "$W2" 5
	no_exe_survivors "$WSH" 5
	no_survivors "$N-s" 5
}

@test "busy loops of shell builtins, in the group and setsid'd, are gone after a time-out" {
	needs_private_sh
	export L LOOP='echo $$ > "$1"; while :; do :; done'
	L=$(private_sh "$N-loop")
	# Where runlimit reaches no setsid'd descendant, the loop in the group only, then a skip.
	if reaches_sessions; then
		start_rl -k 1 30 sh -c '"$L" -c "$LOOP" x "$D/r1" & setsid "$L" -c "$LOOP" x "$D/r2" & wait'
		ready "$D/r2"
	else
		start_rl -k 1 30 sh -c '"$L" -c "$LOOP" x "$D/r1" & wait'
	fi
	ready "$D/r1"
	time_out_now
	finish_rl
	[ "$RL_STATUS" -eq 124 ]
	no_survivors "$N-loop" 5
	needs_session_reach "the loop in the group is gone"
}

@test "fork loops, in the group and setsid'd, ignoring TERM: nothing survives the KILL" {
	# Each loop forks sleeps, and every 200 hands over to a new copy of itself (so the one
	# forking is always among the newest processes, the last a walk of the tree reaches).
	# One loop in the group, two setsid'd (each has a fair chance to slip through a walk
	# that does not freeze the tree first).  At most 2000 sleeps a loop, so a failure
	# cannot exhaust the machine.  Each forks 20, says so and spins (builtins only) until
	# "go"; the deadline, whose signal is KILL itself, comes right after "go", while they
	# are forking as fast as they can (with a TERM first, the walk that sends it took long
	# enough on a loaded machine for the loops to reach their cap before the KILL, and the
	# test skipped more often than not).  At nice 19, so that on a small machine they do not
	# starve runlimit (or this test) of CPU.  The hand-overs orphan the new copies: they are
	# found through adoption.
	needs_orphan_adoption
	needs_private_sh
	needs_procs 6100
	export S L C FORK='trap "" TERM; i=$2
		while [ $i -lt 2000 ]; do
			"$S" 30 & i=$((i + 1))
			if [ $i -eq 20 ]; then
				echo $$ > "$1"; until [ -e "$D/go" ]; do :; done
			elif [ $((i % 200)) -eq 0 ]; then
				"$L" -c "$FORK" x "$1" $i & exit 0
			fi
		done
		echo "$i" > "$1.done"; wait'
	S=$(private_sleep "$N-s")
	L=$(private_sh "$N-loop")
	C=$(private_sleep "$N-cmd")
	# The command outlives the loops' hand-overs: it must not end before the deadline.
	start_rl -s KILL 30 sh -c 'nice -n 19 "$L" -c "$FORK" x "$D/r1" 0 &
		setsid nice -n 19 "$L" -c "$FORK" x "$D/r2" 0 &
		setsid nice -n 19 "$L" -c "$FORK" x "$D/r3" 0 & exec "$C" 30'
	ready "$D/r1"
	ready "$D/r2"
	ready "$D/r3"
	cat "$D/r2" "$D/r3" >"$D/groups"   # for teardown: the setsid'd loops' groups
	touch "$D/go"
	time_out_now
	finish_rl
	[ "$RL_STATUS" -eq 137 ]
	gone_within 5 "$N-s"
	gone_within 5 "$N-loop"
	gone_within 5 "$N-cmd"
	# A hand-over can slip past a ps snapshot, not past a group: none is left.
	wait_until 5 group_gone "$(cat "$D/r2")"
	wait_until 5 group_gone "$(cat "$D/r3")"
	# The loops must still have been forking at the KILL, else the freeze was not exercised:
	# on a machine too busy for that (runlimit slowed down, the loops at their cap), skip.
	if [ -e "$D/r1.done" ] || [ -e "$D/r2.done" ] || [ -e "$D/r3.done" ]; then
		skip "a loop reached its cap before the KILL (machine too busy; counts: $(cat "$D"/r*.done 2>/dev/null | tr '\n' ' '))"
	fi
}

@test "watchers that fork as soon as another process of the tree dies: nothing survives" {
	# In a setsid'd subtree: X1..X4 each hold a FIFO open, then 500 sleeps, then W1..W4,
	# each blocked reading its FIFO, fork new sleeps the moment their X dies.  A walk that
	# sends KILL in pid order reaches the Xs first and the Ws last: unless the tree is
	# stopped first, new sleeps are born during the walk, after its scan.  (The Ws at a
	# higher priority where allowed, so that they react at once.)  Each W says it is ready
	# once its open of the FIFO has returned, so once its X has the FIFO open too.
	needs_session_reach
	needs_private_sh
	needs_procs 600
	export S L TREE='trap "" TERM
		for k in 1 2 3 4; do "$S" 30 > "$D/fifo$k" & done
		i=0; while [ $i -lt 500 ]; do "$S" 30 & i=$((i + 1)); done
		for k in 1 2 3 4; do nice -n -10 "$L" -c "$WATCHER" x $k 2>/dev/null & done
		wait'
	export WATCHER='exec < "$D/fifo$1"; echo $$ > "$D/watcher$1"; read x
		"$S" 30 & "$S" 30 & "$S" 30 & wait'
	S=$(private_sleep "$N-s")
	L=$(private_sh "$N-sh")
	mkfifo "$D/fifo1" "$D/fifo2" "$D/fifo3" "$D/fifo4"
	start_rl -k 0.2 30 sh -c 'setsid "$L" -c "$TREE" & wait'
	local k
	for k in 1 2 3 4; do
		ready "$D/watcher$k"
	done
	time_out_now
	finish_rl
	[ "$RL_STATUS" -eq 124 ]
	no_survivors "$N-s" 5
	no_survivors "$N-sh" 5
}

@test "processes that stopped themselves, in the group and setsid'd, are gone after a time-out" {
	needs_private_sh
	export S L STOPPER='echo $$ > "$1"; kill -STOP $$; exec "$S" 30'
	S=$(private_sleep "$N-s")
	L=$(private_sh "$N-sh")
	# Where runlimit reaches no setsid'd descendant, the one in the group only, then a skip.
	if reaches_sessions; then
		start_rl -k 10 30 sh -c '"$L" -c "$STOPPER" x "$D/r1" & setsid "$L" -c "$STOPPER" x "$D/r2" & wait'
		ready "$D/r2"
		wait_until 10 is_stopped "$(cat "$D/r2")"
	else
		start_rl -k 10 30 sh -c '"$L" -c "$STOPPER" x "$D/r1" & wait'
	fi
	ready "$D/r1"
	wait_until 10 is_stopped "$(cat "$D/r1")"
	time_out_now
	finish_rl
	[ "$RL_STATUS" -eq 124 ]
	# TERM and CONT ended them: runlimit did not wait for the KILL 10 s later.
	lt "$RL_ELAPSED" 5
	no_survivors "$N-sh" 5
	no_survivors "$N-s" 5
	needs_session_reach "the stopped process in the group is gone"
}

# ---- runlimit killed outright: the guard --------------------------------------------------

@test "runlimit SIGKILLed: the rest of the command's group gets the -s signal (the guard)" {
	needs_private_sh
	export S L
	S=$(private_sleep "$N-s")
	L=$(private_sh "$N-sh")
	# The command (sh) gets USR1 from its parent-death signal; the grandchild and the sleep
	# in its group can only get it from the guard.
	export GRAND='trap "echo USR1 > \"\$D/marker\"; exit 0" USR1
		echo ok > "$D/gready"; while :; do sleep 0.05; done'
	start_rl -s USR1 30 sh -c '"$L" -c "$GRAND" & "$S" 30 & echo $$ > "$D/ready"; wait'
	ready "$D/ready"
	ready "$D/gready"
	wait_until 10 has_survivors "$N-s"
	kill -KILL "$RL_PID"
	T0=$(now)
	finish_rl
	[ "$RL_STATUS" -eq 137 ]
	wait_for_file "$D/marker" 5
	[ "$(cat "$D/marker")" = USR1 ]
	no_survivors "$N-s" 5
}

# ---- --kill-leftovers, and what runlimit does not wait for --------------------------------

# returns_at_once CMD...: CMD (a runlimit whose command prints "hi" and leaves a process
# called $N-s) run under $(...), as a caller reading its stdout to the end does: it returns
# within ${AT_ONCE:-3} s, with 0 and "hi", and nothing called $N-s is left.
returns_at_once() {
	local out st=0 t0
	t0=$(now)
	out=$("$@" 3>&-) || st=$?
	echo "status $st after $(elapsed "$t0")s: $out" >&2
	lt "$(elapsed "$t0")" "${AT_ONCE:-3}"
	[ "$st" -eq 0 ]
	[ "$out" = hi ]
	no_survivors "$N-s" 5
}

@test "--kill-leftovers: a background leftover holding stdout is ended, runlimit returns at once" {
	export S
	S=$(private_sleep "$N-s")
	returns_at_once "$RUNLIMIT" --kill-leftovers 10 sh -c '"$S" 30 & echo hi'
}

@test "--kill-leftovers with a guard that runs late: the leftover's end is seen at once" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	# The guard (forked, as where the clone is refused) runs 0.3 s late, after runlimit
	# has moved it out of the command's group, while the leftover takes 1 s to end after
	# its TERM.  Where the group is all runlimit can go by (the portable build), a guard
	# that put itself back then looked like a leftover alive until the end of the grace.
	# The grace is 30 s, so anything well short of it is "at once" on a loaded machine.  The
	# leftover's sleep is started before its trap is set and before it says it is ready: a
	# sleep forked after the TERM, or still holding the shell's trap when the TERM came,
	# would rightly be alive until the KILL.
	export S D
	S=$(private_sleep "$N-s")
	AT_ONCE=12 returns_at_once env RUNLIMIT_TEST_CLONE_EINVAL=1 RUNLIMIT_TEST_GUARD_LATE=1 \
		"$RUNLIMIT_HOOKS" -k 30 --kill-leftovers 60 sh -c '
		sh -c '\''"$S" 30 & trap "\"\$S\" 1; exit 0" TERM; : >"$D/trapped"; wait'\'' &
		n=0; while [ ! -e "$D/trapped" ] && [ "$n" -lt 500 ]; do "$S" 0.01; n=$((n + 1)); done
		echo hi'
}

@test "--kill-leftovers: a setsid'd leftover holding stdout is ended too" {
	# The command exits once the leftover has its own session: an orphan by then.
	needs_orphan_adoption
	export S
	S=$(private_sleep "$N-s")
	returns_at_once "$RUNLIMIT" --kill-leftovers 10 sh -c 'setsid sh -c "echo x > \"\$D/left\"; exec \"\$S\" 30" &
		i=0; until [ -s "$D/left" ] || [ $i -ge 2000 ]; do sleep 0.01; i=$((i + 1)); done
		echo hi'
}

@test "without --kill-leftovers: runlimit returns at once and leaves the leftover alone" {
	export S
	S=$(private_sleep "$N-s")
	rl 10 sh -c '"$S" 30 & echo hi'
	[ "$RL_STATUS" -eq 0 ]
	[ "$(cat "$D/out")" = hi ]
	lt "$RL_ELAPSED" 3
	wait_until 10 has_survivors "$N-s"
	# Still there a moment later (runlimit has exited; nothing else would kill it).
	local p
	p=$(survivors "$N-s")
	if wait_for_gone "$p" 1 2>/dev/null; then false; fi
}

@test "the command's own status is kept: its TERM trap's 42, and 3 despite leftovers" {
	export S
	S=$(private_sleep "$N-s")
	rl 10 sh -c 'trap "exit 42" TERM; kill -TERM $$; "$S" 30'
	[ "$RL_STATUS" -eq 42 ]
	lt "$RL_ELAPSED" 3
	no_survivors "$N-s" 5
	rl --kill-leftovers 10 sh -c '"$S" 30 & exit 3'
	[ "$RL_STATUS" -eq 3 ]
	no_survivors "$N-s" 5
	# A leftover that ignores TERM dies of the KILL: still the command's 3.
	rl --kill-leftovers -k 0.5 10 sh -c '(trap "" TERM; exec "$S" 30) & exit 3'
	[ "$RL_STATUS" -eq 3 ]
	lt "$RL_ELAPSED" 5
	no_survivors "$N-s" 5
}

@test "after a time-out, runlimit returns as soon as the tree is gone, not after the grace" {
	export S
	S=$(private_sleep "$N-s")
	# A setsid'd child as well where runlimit reaches those; else the process group only.
	if reaches_sessions; then
		rl -k 10 0.2 sh -c '"$S" 30 & setsid "$S" 30 & wait'
	else
		rl -k 10 0.2 sh -c '"$S" 30 & "$S" 30 & wait'
	fi
	[ "$RL_STATUS" -eq 124 ]
	lt "$RL_ELAPSED" 3
	no_survivors "$N-s" 5
	needs_session_reach "the group is gone at once"
}

@test "a child runlimit inherited from its parent (not the command's) is not killed" {
	export S
	S=$(private_sleep "$N-s")
	local other
	other=$(private_sleep "$N-other")
	# python forks a private sleep, waits until it runs (the close-on-exec pipe's end of
	# file), then becomes runlimit.
	"$PY" -c 'import os, sys
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    os.execv(sys.argv[1], [sys.argv[1], "30"])
os.close(w)
os.read(r, 1)
os.close(r)
open(sys.argv[2], "w").write(str(pid))
os.execv(sys.argv[3], sys.argv[3:])' "$other" "$D/other" "$RUNLIMIT" -k 1 0.3 \
		sh -c '"$S" 30 & echo $$ > "$D/ready"; wait' >"$D/out" 2>"$D/err" 3>&- &
	RL_PID=$!
	T0=$(now)
	finish_rl
	[ "$RL_STATUS" -eq 124 ]
	[ -s "$D/ready" ]
	no_survivors "$N-s" 5
	# The inherited child outlived the tree kill (and runlimit).
	has_exe "$(cat "$D/other")" "$other"
	[ "$(survivors "$N-other")" = "$(cat "$D/other")" ]
}

@test "a process that keeps sending SIGCONT to another cannot hold the freeze open" {
	# A setsid'd loop forks sleeps; another setsid'd loop keeps continuing it, so it runs
	# again after the freeze's SIGSTOP (for 15 s or so, unless stopped for good).  runlimit
	# must still stop, KILL and return, promptly.
	needs_session_reach
	needs_private_sh
	export S L
	S=$(private_sleep "$N-s")
	L=$(private_sh "$N-loop")
	rl -s KILL 1 sh -c '
		setsid "$L" -c "i=0; while [ \$i -lt 5000 ]; do \"\$S\" 30 & \"\$S\" 0.002; i=\$((i + 1)); done" &
		setsid "$L" -c "while :; do kill -CONT $! 2>/dev/null; done" &
		wait'
	[ "$RL_STATUS" -eq 137 ]
	lt "$RL_ELAPSED" 10
	no_survivors "$N-s" 5
	no_survivors "$N-loop" 5
}

@test "2,000 TERM-ignoring processes, half setsid'd, 50 of them forking: none left after the KILL" {
	needs_session_reach
	local maxu pidmax
	maxu=$(ulimit -u)
	[ "$maxu" = unlimited ] || [ "$maxu" -ge 4000 ] || skip "a process limit of $maxu is too low for 2,000"
	pidmax=$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 99999)
	[ "$pidmax" -ge 8000 ] || skip "a pid_max of $pidmax is too low for 2,000"
	cat >"$D/build.py" <<'PYEOF'
import ctypes, os, signal, sys, time
n, name, ready = int(sys.argv[1]), sys.argv[2].encode(), sys.argv[3]
libc = ctypes.CDLL(None)
def named():
    if sys.platform.startswith("linux"):
        libc.prctl(15, ctypes.c_char_p(name), 0, 0, 0)  # PR_SET_NAME
signal.signal(signal.SIGTERM, signal.SIG_IGN)
named()
for k in range(1, n):
    if os.fork() == 0:
        if k % 2:
            os.setsid()
        if k <= 50:  # loops forking a short-lived child every 50 ms
            while True:
                c = os.fork()
                if c == 0:
                    os._exit(0)
                os.waitpid(c, 0)
                time.sleep(0.05)
        while True:
            signal.pause()
with open(ready, "w") as f:
    f.write("ok\n")
while True:
    signal.pause()
PYEOF
	start_rl -s KILL -k 0 60 "$PY" "$D/build.py" 2000 "$N-b" "$D/ready"
	wait_for_file "$D/ready" 60
	time_out_now
	finish_rl 60
	[ "$RL_STATUS" -eq 137 ]
	gone_within 10 "$N-b"
}

@test "after the final KILL, runlimit collects the dead of the tree itself, not leaving them to init" {
	needs_strace
	[ -z "${ASAN_OPTIONS:-}" ] || skip "the sanitizers' leak check cannot run under strace"
	needs_orphan_adoption
	local S
	S=$(private_sleep "$N-s")
	# 20 children of the command, orphans runlimit adopts once it dies: all KILLed together.
	# The deadline leaves a loaded machine time to start them all (the ready file says so).
	S=$S D=$D strace -e trace=wait4,waitid -o "$D/trace" "$RUNLIMIT" -s KILL -k 0 3 sh -c '
		i=0; while [ $i -lt 20 ]; do "$S" 100 & i=$((i + 1)); done
		: > "$D/ready"; exec "$S" 101' || true
	[ -e "$D/ready" ]
	no_survivors "$N-s"
	# the command and its 20 children, each collected by runlimit (wait4 or waitid returning
	# a pid, not WNOWAIT's look)
	got=$(grep -v WNOWAIT "$D/trace" | grep -Ec '^(wait4|waitid)\(.*\) = [1-9][0-9]*$|si_pid=[1-9].*\) = 0$')
	[ "$got" -ge 21 ] || { echo "collected $got, of 21; the trace:"; cat "$D/trace"; return 1; }
}

# A process KILLed with much memory takes the kernel milliseconds to tear down (its pages
# freed before it becomes a zombie): the command is reaped long before.  Two paths to the
# final KILL: the command reaped while its leftover has the grace (it dies of the TERM, its
# child ignores it), and the command reaped after the KILL (both ignore the TERM).
@test "after the final KILL, runlimit waits for what it KILLed to die: a child slow to tear down is not left alive" {
	needs_orphan_adoption
	command -v python3 >/dev/null || skip "no python3 to hold the memory"
	local trap pid rl
	for trap in "" "trap '' TERM"; do
		rm -f "$D/pid"
		D=$D "$RUNLIMIT" -k 0.2 60 sh -c "$trap"'
			python3 -c "
import os, signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
held = bytearray(512 << 20)
open(os.environ[\"D\"] + \"/pid.new\", \"w\").write(str(os.getpid()))
os.rename(os.environ[\"D\"] + \"/pid.new\", os.environ[\"D\"] + \"/pid\")
time.sleep(100)" &
			exec sleep 100' 3>&- &
		rl=$!
		wait_for_file "$D/pid" 30
		pid=$(cat "$D/pid")
		kill -TERM "$rl"
		wait "$rl" || true
		# right away: the process runlimit KILLed is gone (collected by runlimit), not dying
		! kill -0 "$pid" 2>/dev/null ||
			{ echo "with '$trap': pid $pid still there after runlimit returned" >&2; return 1; }
	done
}
