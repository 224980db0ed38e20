#!/usr/bin/env bats
# Safety (docs/design.md, "What is the command's"): runlimit signals only what is the command's, and still reaches all of
# it: another pid namespace's /proc, the command as a group member (not its leader), nested
# time-outs, --kill-leftovers, reaped pids, inherited children and their orphans, no /proc,
# few file descriptors, inherited ignores of TERM/INT/HUP, a long command name.
#
# Each test numbers the defect it covers ("N.M: ...").  Every process a test starts runs a
# private copy of sleep under a unique name (tN-PID-x), so survivors can be found by name, and
# teardown ends everything left.  Where a test needs its tree set up before the time-out, the
# command writes "ready" files and the test sends SIGALRM to runlimit ("the deadline is now").

bats_require_minimum_version 1.5.0

load helpers

GNU_TIMEOUT=${GNU_TIMEOUT:-$(command -v timeout || echo /usr/bin/timeout)}

setup_file() {
	setup_tree_tests
	make_sigsnap
}

setup() {
	export D=$BATS_TEST_TMPDIR RUNLIMIT
	# Unique per run as well as per test: a concurrent run must not kill our processes.
	N=t$BATS_TEST_NUMBER-$(($$ % 100000))
	RL_PID= PUB=
}

teardown() {
	[ -z "${RL_PID:-}" ] || kill -KILL "$RL_PID" 2>/dev/null || true
	local name
	for name in "$N-s" "$N-b" "$N-j" "$N-z" "$N-l"; do
		kill_named "$name"
	done
	kill_private
	other_users_done
	[ -z "${PUB:-}" ] || rm -rf "$PUB"
}

# ---- helpers ------------------------------------------------------------------------------

# kill_private: end every process running one of this test's private executables.
kill_private() {
	local pids
	for _ in $(seq 20); do
		pids=$(exe_pids "$BATS_TEST_TMPDIR/*")
		[ -n "$pids" ] || return 0
		# shellcheck disable=SC2086
		kill -KILL $pids 2>/dev/null
	done
	return 0
}

# timed CMD...: CMD in the foreground (killed after 40 s), output to $D/out and $D/err; sets
# ST (exit status) and EL (seconds taken).
timed() {
	local t0
	t0=$(now)
	ST=0
	bounded 40 "$@" >"$D/out" 2>"$D/err" 3>&- || ST=$?
	EL=$(elapsed "$t0")
	echo "status $ST after ${EL}s; stderr: $(head -c 2000 "$D/err")" >&2
}

# finish PID [SECONDS]: wait (bounded) for the background PID to end; its status in ST.
finish() {
	wait_bg "$1" "${2:-20}" || return 1
	ST=$BG_STATUS
	RL_PID=
	echo "status $ST; stderr: $(head -c 2000 "$D/err" 2>/dev/null)" >&2
}

can_unshare_pid() {
	command -v unshare >/dev/null 2>&1 || return 1
	unshare --pid --fork true 2>/dev/null
}
can_mount_proc() {
	command -v unshare >/dev/null 2>&1 || return 1
	unshare --mount sh -c 'mount -t tmpfs none /proc' 2>/dev/null
}

# ---- 1. another pid namespace's /proc -----------------------------------------------------

@test "1.1: in a new pid namespace (host /proc), a bystander started after runlimit survives its time-out" {
	can_unshare_pid || skip "no unshare(1), or unshare --pid not permitted"
	export S B
	S=$(private_sleep "$N-s")
	B=$(private_sleep "$N-b")
	# Inside the namespace: runlimit's command writes "ready", then a bystander (not
	# runlimit's) starts, then SIGALRM times runlimit out; report its status and whether the
	# bystander lives.  Every wait in there is bounded.
	timed unshare --pid --fork sh -c '
		"$RUNLIMIT" -k 1 30 sh -c "date > \"\$D/ready\"; exec \"\$S\" 30" & rl=$!
		i=0; until [ -s "$D/ready" ] || [ $i -ge 2000 ]; do sleep 0.01; i=$((i + 1)); done
		"$B" 1000 & by=$!
		kill -ALRM $rl
		wait $rl; echo "rl=$?" > "$D/result"
		if kill -0 $by 2>/dev/null; then echo alive; else echo dead; fi >> "$D/result"
		kill -KILL $by 2>/dev/null'
	cat "$D/result" >&2
	[ -s "$D/ready" ]
	grep -qx 'rl=124' "$D/result"
	grep -qx alive "$D/result"
}

@test "1.2: runlimit as pid 1 of a new pid namespace (host /proc) times out promptly" {
	can_unshare_pid || skip "no unshare(1), or unshare --pid not permitted"
	timed unshare --pid --fork "$RUNLIMIT" 0.5 sleep 3
	[ "$ST" -eq 124 ]
	lt "$EL" 2.5
}

# ---- 2. the command is a member of a new group, not its leader ----------------------------

@test "2.1: setsid(1) as the command does not fork away: 124, and no sleep left" {
	S=$(private_sleep "$N-s")
	timed "$RUNLIMIT" 0.5 setsid "$S" 3
	[ "$ST" -eq 124 ]
	lt "$EL" 2.5
	no_survivors "$N-s" 5
}

@test "2.2: the command can call setsid()" {
	timed "$RUNLIMIT" 5 "$PY" -c 'import os; os.setsid()'
	[ "$ST" -eq 0 ]
	[ ! -s "$D/err" ]
}

@test "2.3: the command is not its group's leader; runlimit stays in its caller's group" {
	timed sh -c 'ps -o pgid= -p $$ > "$D/caller"
		exec "$RUNLIMIT" 5 sh -c "echo \$\$ > \"\$D/pid\"; ps -o pgid= -p \$\$ > \"\$D/pgid\"
			ps -o pgid= -p \$PPID > \"\$D/rlpgid\""'
	[ "$ST" -eq 0 ]
	echo "caller pgid $(cat "$D/caller"), runlimit pgid $(cat "$D/rlpgid")," \
		"command pid $(cat "$D/pid") pgid $(cat "$D/pgid")" >&2
	[ "$(cat "$D/pid")" -ne "$(cat "$D/pgid")" ]
	[ "$(cat "$D/rlpgid")" -eq "$(cat "$D/caller")" ]
	[ "$(cat "$D/pgid")" -ne "$(cat "$D/caller")" ]
}

# ---- 3. nested time-outs (GNU tests/timeout/timeout-group.sh) -----------------------------

# nested OUTER...: OUTER (ALRM 30) around INNER (USR1 25) around cmd.sh, which records USR1
# and ALRM; SIGALRM to the outer one once cmd.sh is ready.  cmd.sh must get USR1 from the
# inner one, and never ALRM.  After USR1 it lingers 0.3 s before it exits 0: dash runs
# pending traps in signal-number order, so an ALRM that came with the USR1 would otherwise
# go unrecorded.  The ALRM waits until the inner tool sleeps too: GNU timeout that gets a
# signal before its fork() has returned (the child may run first and be ready by then) has
# no child pid yet and exits 128+N without passing anything on (seen under load).
nested() {
	export S
	S=$(private_sleep "$N-s")
	cat >"$D/cmd.sh" <<'EOF'
#!/bin/sh
trap 'date > "$D/got-usr1"; done=1' USR1
trap 'date > "$D/got-alrm"' ALRM
echo "$PPID" > "$D/inner"
date > "$D/ready"
while [ -z "${done:-}" ]; do "$S" 0.05; done
"$S" 0.3
exit 0
EOF
	chmod +x "$D/cmd.sh"
	"$PY" "$TOOLS/dfl.py" "$@" "$D/cmd.sh" >"$D/out" 2>"$D/err" 3>&- &
	RL_PID=$!
	wait_for_file "$D/ready" 20
	wait_until 20 sleeping "$(cat "$D/inner")"
	kill -ALRM "$RL_PID"
	finish "$RL_PID" 20
	ls "$D" >&2
	[ -s "$D/got-usr1" ]
	[ ! -e "$D/got-alrm" ]
	[ "$ST" -eq 124 ]
}

@test "3.4: a send reaches each process once: a nested runlimit gets one SIGALRM, not its pid's, its group's and the walk's (strace)" {
	needs_strace
	no_leak_check
	export S
	S=$(private_sleep "$N-s")
	# The outer runlimit and what it starts are traced: every kill() and pidfd signal.  The
	# inner runlimit is of the outer's group: the one kill(-group) is all it gets.  (Before,
	# it was sent the ALRM by its pid, its group and the walk, and took a second one, come
	# after it had acted on the first, as an ALRM in its grace: the final KILL at once, 3.1
	# failing under load.)
	# shellcheck disable=SC2016
	strace -f -o "$D/log" -e trace=kill,pidfd_send_signal "$RUNLIMIT" -s ALRM 30 \
		"$RUNLIMIT" -s USR1 25 sh -c 'trap "exit 0" USR1; echo "$PPID" >"$D/inner"
			while :; do "$S" 0.05; done' 2>/dev/null 3>&- &
	local tracer=$!
	wait_for_file "$D/inner" 20
	wait_until 20 sleeping "$(cat "$D/inner")"
	kill -ALRM "$(pgrep -P "$tracer")"
	wait_bg "$tracer" 20
	grep -E '(kill|pidfd_send_signal)\(.*SIGALRM' "$D/log" >&2 || true
	[ "$BG_STATUS" -eq 124 ]
	[ "$(grep -cE '(kill|pidfd_send_signal)\(.*SIGALRM' "$D/log")" -eq 1 ]
}

gnu_timeout() { "$GNU_TIMEOUT" --version 2>/dev/null | head -n1 | grep -q 'GNU coreutils'; }

@test "3.1: runlimit -s ALRM around runlimit -s USR1: ALRM to the outer one, the command gets USR1, not ALRM" {
	nested "$RUNLIMIT" -s ALRM 30 "$RUNLIMIT" -s USR1 25
}

@test "3.2: runlimit -s ALRM around GNU timeout -s USR1: the command gets USR1, not ALRM" {
	gnu_timeout || skip "no GNU timeout at $GNU_TIMEOUT"
	nested "$RUNLIMIT" -s ALRM 30 "$GNU_TIMEOUT" -s USR1 25
}

@test "3.3: GNU timeout -s ALRM around runlimit -s USR1: the command gets USR1, not ALRM" {
	gnu_timeout || skip "no GNU timeout at $GNU_TIMEOUT"
	nested "$GNU_TIMEOUT" -s ALRM 30 "$RUNLIMIT" -s USR1 25
}

# ---- 4. --kill-leftovers ------------------------------------------------------------------

@test "4.1: --kill-leftovers: the command's own status (0), a TERM-ignoring leftover KILLed by the deadline" {
	export S
	S=$(private_sleep "$N-s")
	timed "$RUNLIMIT" --kill-leftovers 1 sh -c '
		(trap "" TERM; date > "$D/ready"; exec "$S" 81) &
		i=0; until [ -s "$D/ready" ] || [ $i -ge 2000 ]; do sleep 0.01; i=$((i + 1)); done
		exit 0'
	[ -s "$D/ready" ]
	[ "$ST" -eq 0 ]
	lt "$EL" 4
	no_survivors "$N-s" 5
}

# ---- 5. reaped pids are never signalled ---------------------------------------------------

@test "5.1: runlimit never kill()s a pid it has reaped (strace)" {
	needs_strace
	no_leak_check
	# The command ignores TERM: it needs the final KILL.  The wrapper shell records the pid
	# that becomes runlimit's.
	timed strace -f -e trace=kill,wait4,waitid -o "$D/log" \
		sh -c 'echo $$ > "$D/rlpid"; exec "$RUNLIMIT" -k 0.5 2 sh -c "trap \"\" TERM; while :; do sleep 0.05; done"'
	[ "$ST" -eq 137 ]
	local rl
	rl=$(cat "$D/rlpid")
	# runlimit's reaps: wait4 returning an exit or death status, or waitid (without WNOWAIT)
	# reporting CLD_EXITED/KILLED/DUMPED; then any kill() of such a pid (or its group).
	awk -v rl="$rl" '
		$1 != rl { next }
		/wait4/ && /WIFEXITED|WIFSIGNALED/ && match($0, /= [0-9]+$/) {
			p = substr($0, RSTART + 2) + 0
			if (p > 0) { reaped[p] = NR; print "reaped " p > "/dev/stderr" }
			next
		}
		/waitid/ && /CLD_(EXITED|KILLED|DUMPED)/ && !/WNOWAIT/ && match($0, /si_pid=[0-9]+/) {
			p = substr($0, RSTART + 7, RLENGTH - 7) + 0
			if (p > 0) { reaped[p] = NR; print "reaped " p > "/dev/stderr" }
			next
		}
		/ kill\(-?[0-9]+/ {
			match($0, / kill\(-?[0-9]+/)
			p = substr($0, RSTART + 6, RLENGTH - 6) + 0
			if (p < 0) p = -p
			if (p > 1 && (p in reaped)) { print "after its reap: " $0; bad = 1 }
		}
		END { exit bad }' "$D/log"
}

# ---- 6. what runlimit inherited is not the command's --------------------------------------

@test "6.1: an orphan of a child runlimit inherited from its shell survives the time-out" {
	local Z B
	Z=$(private_sleep "$N-z")
	B=$(private_sleep "$N-b")
	export Z B
	timed sh -c '( "$Z" 0.5; "$B" 201 & echo $! > "$D/b"; exit 0 ) & exec "$RUNLIMIT" 2 sleep 5'
	[ "$ST" -eq 124 ]
	[ -s "$D/b" ]
	local b
	b=$(cat "$D/b")
	ps -o pid= -o stat= -o ucomm= -p "$b" >&2 || true
	kill -0 "$b"
	[ "$(ps -o stat= -p "$b" | cut -c1)" != Z ]
	has_survivors "$N-b"
}

@test "6.2: 900 background jobs runlimit inherited from its shell all survive its time-out" {
	needs_procs 1000
	export J
	J=$(private_sleep "$N-j")
	timed sh -c 'for i in $(seq 900); do "$J" 300 & done; exec "$RUNLIMIT" 0.5 sleep 5'
	[ "$ST" -eq 124 ]
	# Each job may still be execing its sleep; none of them may be gone.
	if ! wait_until 15 count_is "$N-j" 900; then
		echo "$(survivors "$N-j" | wc -l) of 900 jobs left" >&2
		return 1
	fi
}

# ---- 7. no /proc --------------------------------------------------------------------------

@test "7.1: with an empty /proc, a time-out and --kill-leftovers end promptly" {
	can_mount_proc || skip "cannot mount over /proc in a new mount namespace"
	# ASan's run-time itself needs /proc (make check SANITIZE=1 sets ASAN_OPTIONS).
	[ -z "${ASAN_OPTIONS:-}" ] || skip "the sanitizers' run-time cannot work without /proc"
	timed unshare --mount sh -c 'mount -t tmpfs none /proc && exec "$RUNLIMIT" 0.5 sleep 5'
	[ "$ST" -eq 124 ]
	lt "$EL" 2
	timed unshare --mount sh -c 'mount -t tmpfs none /proc && exec "$RUNLIMIT" --kill-leftovers 10 true'
	[ "$ST" -eq 0 ]
	lt "$EL" 2
}

@test "7.2: with an unreadable /proc, a time-out and --kill-leftovers end promptly" {
	can_mount_proc || skip "cannot mount over /proc in a new mount namespace"
	# ASan's run-time itself needs /proc (make check SANITIZE=1 sets ASAN_OPTIONS).
	[ -z "${ASAN_OPTIONS:-}" ] || skip "the sanitizers' run-time cannot work without /proc"
	command -v setpriv >/dev/null || skip "no setpriv(1) to drop capabilities"
	# A mode-000 /proc, and runlimit without capabilities (root could still read it).
	unshare --mount sh -c 'mount -t tmpfs -o mode=000 none /proc &&
		exec setpriv --inh-caps=-all --bounding-set=-all sh -c "! ls /proc"' >/dev/null 2>&1 ||
		skip "cannot make /proc unreadable (mount -o mode=000 + setpriv)"
	timed unshare --mount sh -c 'mount -t tmpfs -o mode=000 none /proc &&
		exec setpriv --inh-caps=-all --bounding-set=-all "$RUNLIMIT" 0.5 sleep 5'
	[ "$ST" -eq 124 ]
	lt "$EL" 2
	timed unshare --mount sh -c 'mount -t tmpfs -o mode=000 none /proc &&
		exec setpriv --inh-caps=-all --bounding-set=-all "$RUNLIMIT" --kill-leftovers 10 true'
	[ "$ST" -eq 0 ]
	lt "$EL" 2
}

# ---- 8. few file descriptors --------------------------------------------------------------

lowfd() { timed "$PY" "$TOOLS/lowfd.py" "$@"; }

@test "8.1: with 4, 5 and 6 file descriptors, a command runs (0) and times out (124)" {
	local n
	for n in 4 5 6; do
		echo "ulimit -n $n:" >&2
		lowfd "$n" "$RUNLIMIT" 1 true
		[ "$ST" -eq 0 ]
		lowfd "$n" "$RUNLIMIT" 0.5 sleep 5
		[ "$ST" -eq 124 ]
		lt "$EL" 4
	done
}

@test "8.1b: with no descriptor for its self-pipe (ulimit -n 4), a signal that comes just before a wait still ends it" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	# Where the wait cannot swap the signal mask itself (poll: the portable build, macOS), a
	# test build starts each wait 0.1 s after unblocking the signals: the command's SIGCHLD
	# comes in between.  Without a self-pipe to note it, a poll would sleep on to the deadline.
	RUNLIMIT_TEST_WAIT_LATE=1 lowfd 4 "$RUNLIMIT_HOOKS" 20 sh -c 'exit 3'
	[ "$ST" -eq 3 ]
	lt "$EL" 5
	RUNLIMIT_TEST_WAIT_LATE=1 lowfd 4 "$RUNLIMIT_HOOKS" -k 20 0.5 sleep 10
	[ "$ST" -eq 124 ]
	lt "$EL" 5
}

@test "8.2: with 7 file descriptors, a setsid escapee is still found and KILLed" {
	needs_session_reach
	export S L
	S=$(private_sleep "$N-s")
	L=$(private_sleep "$N-l")
	# dash saves a redirected fd above 9 before it runs the command, which fails under 7
	# fds: tee writes the ready file.
	"$PY" "$TOOLS/lowfd.py" 7 "$RUNLIMIT" -k 0.5 30 sh -c \
		'setsid "$S" 100 & trap "" TERM; date | tee "$D/ready"; while :; do "$L" 0.05; done' \
		>"$D/out" 2>"$D/err" 3>&- &
	RL_PID=$!
	wait_for_file "$D/ready" 20
	wait_until 10 has_survivors "$N-s"
	kill -ALRM "$RL_PID"
	finish "$RL_PID" 20
	[ "$ST" -eq 137 ]
	no_survivors "$N-s" 5
}

# escapee_tree SECONDS: the command (a shell) starts a TERM-ignoring escapee ($S, setsid'd)
# and dies of the deadline's TERM, so the escapee is left to the grace of SECONDS; runlimit
# in the background (RL_PID), the tree up (the escapee runs), stderr to $D/err.  What comes
# before runlimit ("$@", if any) runs it: lowfd.py N.  mkdir and setsid need no descriptor.
escapee_tree() {
	local grace=$1
	shift
	export S
	S=$(private_sleep "$N-s")
	"$@" "$RUNLIMIT" -k "$grace" 30 sh -c \
		'setsid sh -c "trap \"\" TERM; exec \"\$S\" 100" & mkdir "$D/ready"; wait' \
		</dev/null >"$D/out" 2>"$D/err" 3>&- &
	RL_PID=$!
	wait_until 20 test -d "$D/ready"
	wait_until 10 has_survivors "$N-s"
}

@test "8.3: with 4 file descriptors (ulimit -n 4), a TERM-ignoring setsid escapee is still KILLed, and nothing is said" {
	needs_session_reach
	export S L
	S=$(private_sleep "$N-s")
	L=$(private_sleep "$N-l")
	# One descriptor is left to runlimit: the final KILL's walk takes it for the pidfd of the
	# process it reads, and must read without it rather than take the process for gone.
	"$PY" "$TOOLS/lowfd.py" 4 "$RUNLIMIT" -k 0.5 30 sh -c \
		'trap "" TERM; setsid "$S" 100 & mkdir "$D/ready"; while :; do "$L" 0.05; done' \
		>"$D/out" 2>"$D/err" 3>&- &
	RL_PID=$!
	wait_until 20 test -d "$D/ready"
	wait_until 10 has_survivors "$N-s"
	kill -ALRM "$RL_PID"
	finish "$RL_PID" 20
	[ "$ST" -eq 137 ]
	no_survivors "$N-s" 5
	[ ! -s "$D/err" ] # the walk was whole: nothing to say
}

@test "8.4: no descriptor left to a live run (prlimit --nofile=3:3): the escapee is still KILLed after the grace, and stderr says the TERM may have missed some" {
	command -v prlimit >/dev/null 2>&1 || skip "no prlimit(1) to lower a running process's limits"
	needs_session_reach
	no_leak_check
	escapee_tree 1
	# Not one descriptor can be opened now (0, 1 and 2 are open): what is left of the tree
	# must not be taken for gone when the command has died.
	prlimit --pid "$RL_PID" --nofile=3:3
	local t0
	t0=$(now)
	kill -ALRM "$RL_PID"
	finish "$RL_PID" 20
	[ "$ST" -eq 124 ]
	no_survivors "$N-s" 5
	# It waited for the escapee until the grace's KILL.
	lt 0.9 "$(elapsed "$t0")"
	grep -q "^$RUNLIMIT: out of file descriptors: the command's tree could not be read in full; processes of it may not have been sent signal TERM\$" "$D/err"
	! grep -q "could not be verified" "$D/err" || false # its own list still told what was left
}

@test "8.5: no descriptor left and none held from the start (ulimit -n 10, then 3): the tree is not taken for gone, and stderr says it could not be verified" {
	command -v prlimit >/dev/null 2>&1 || skip "no prlimit(1) to lower a running process's limits"
	needs_session_reach
	no_leak_check
	# With a small limit from the start, runlimit keeps no descriptor on its children list.
	escapee_tree 1 "$PY" "$TOOLS/lowfd.py" 10
	prlimit --pid "$RL_PID" --nofile=3:3
	local t0
	t0=$(now)
	kill -ALRM "$RL_PID"
	finish "$RL_PID" 20
	[ "$ST" -eq 124 ]
	# Not knowing what is left, it waited for the grace, and says what it could not do.
	lt 0.9 "$(elapsed "$t0")"
	grep -q "^$RUNLIMIT: out of file descriptors: the command's tree could not be read in full; processes of it may not have been sent signal TERM\$" "$D/err"
	grep -q "^$RUNLIMIT: out of file descriptors: the command's tree could not be verified; processes of it may still be alive\$" "$D/err"
}

# ---- 9. TERM, INT and HUP inherited ignored -----------------------------------------------

# ignored_reaches SIG STATUS: runlimit started with INT and HUP ignored; SIG to it ends the
# command, and runlimit dies of SIG (STATUS as bash reports it).
ignored_reaches() {
	export S
	S=$(private_sleep "$N-s")
	sh -c 'trap "" INT HUP; exec "$RUNLIMIT" 30 "$S" 100' >"$D/out" 2>"$D/err" 3>&- &
	RL_PID=$!
	wait_until 20 has_survivors "$N-s"
	kill -"$1" "$RL_PID"
	finish "$RL_PID" 10
	[ "$ST" -eq "$2" ]
	no_survivors "$N-s" 5
}

@test "9.1: INT reaches the command although the caller ignored it" {
	ignored_reaches INT 130
}

@test "9.2: HUP reaches the command although the caller ignored it" {
	ignored_reaches HUP 129
}

@test "9.3: the command starts with TERM, INT and HUP at their defaults; other ignores stay" {
	# The check itself: sigsnap sees an ignore where there is one.
	sh -c 'trap "" USR1; exec "$SIGSNAP"' >"$D/probe" 2>&1 &&
		in_mask "$(mask_of SigIgn "$D/probe")" "$(kill -l USR1)" ||
		skip "cannot read a process's ignored signals here: $(cat "$D/probe")"
	timed sh -c 'trap "" INT HUP TERM USR1; exec "$RUNLIMIT" 5 "$SIGSNAP"'
	[ "$ST" -eq 0 ]
	local mask
	mask=$(mask_of SigIgn "$D/out")
	echo "SigIgn $mask" >&2
	[ -n "$mask" ]
	not_in_mask "$mask" "$(kill -l HUP)"
	not_in_mask "$mask" "$(kill -l INT)"
	not_in_mask "$mask" "$(kill -l TERM)"
	in_mask "$mask" "$(kill -l USR1)"
}

# ---- 10. a long command name --------------------------------------------------------------

@test "10.1: a 5,000-character command name: one whole message line, with the reason" {
	local name
	name=$(printf 'x%.0s' $(seq 5000))
	timed "$RUNLIMIT" 1 "$name"
	[ "$(wc -l <"$D/err")" -eq 1 ]
	grep -qF "$name" "$D/err"
	# glibc's execvp says ENAMETOOLONG for a name over NAME_MAX (GNU timeout: 126, "File
	# name too long"); a PATH search of its own may say ENOENT (127).  Either way, whole.
	case $ST in
	127) grep -q ': No such file or directory$' "$D/err" ;;
	126) grep -q "${name}.: [A-Z][a-z ]*\$" "$D/err" ;;
	*) false ;;
	esac
}

@test "10.2: a 3,000-character missing path: 127, the whole path and the reason" {
	local comp path
	comp=$(printf 'y%.0s' $(seq 200))
	path=$D/missing
	for _ in $(seq 15); do path=$path/$comp; done
	timed "$RUNLIMIT" 1 "$path"
	[ "$ST" -eq 127 ]
	[ "$(wc -l <"$D/err")" -eq 1 ]
	grep -qF "$path" "$D/err"
	grep -q ': No such file or directory$' "$D/err"
}

# ---- 11. runlimit as PID 1 of a pid namespace --------------------------------------------

# can_enter_pid_ns: unshare(1) may make a pid namespace with its own /proc, and nsenter(1)
# exists to enter one.
can_enter_pid_ns() {
	command -v unshare >/dev/null 2>&1 && command -v nsenter >/dev/null 2>&1 &&
		unshare --pid --fork --mount-proc true 2>/dev/null
}

# child_of PID: the pids of PID's children.
child_of() { ps -A -o pid= -o ppid= | awk -v p="$1" '$2 == p { print $1 }'; }

# report_field FILE KEY: a member of the run report.
report_field() {
	"$PY" "$TOOLS/report_is.py" "$1"
	"$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}

@test "11.1: as PID 1 of a pid namespace, a process entered from outside and orphaned there is never signalled; the command's setsid'd descendants still are" {
	can_enter_pid_ns || skip "no unshare(1) or nsenter(1), or no pid namespace with its own /proc allowed here"
	export O E
	O=$(private_sleep "$N-o")
	E=$(private_sleep "$N-e")
	# Each shell notes a TERM and goes on waiting for its sleeper, which ignores TERM.
	cat >"$D/own.sh" <<'EOS'
trap 'echo term >> "$D/own-term"' TERM
(trap "" TERM; exec "$O" 300) &
wait $!; wait $!
EOS
	sed -e 's/own-term/entered-term/' -e 's/"\$O"/"$E"/' "$D/own.sh" >"$D/entered.sh"
	# The command leaves a setsid'd descendant and dies of the deadline's TERM.
	unshare --pid --fork --mount-proc "$RUNLIMIT" --report="$D/r.json" -k 2 30 \
		sh -c 'setsid sh "$D/own.sh" & wait' </dev/null >"$D/out" 2>"$D/err" 3>&- &
	RL_PID=$!
	wait_until 20 has_survivors "$N-o"
	local rl ent
	rl=$(child_of "$RL_PID")
	[ -n "$rl" ]
	# A process entered into the namespace (as docker exec does) whose parent exits there:
	# runlimit, its PID 1, adopts it.
	nsenter -t "$rl" -p sh -c 'sh "$D/entered.sh" & exit 0' </dev/null >/dev/null 2>&1 3>&-
	wait_until 20 has_survivors "$N-e"
	ent=$(ps -o ppid= -p "$(survivors "$N-e")" | tr -d ' ')
	wait_until 10 is_child_of "$ent" "$rl"
	local t0
	t0=$(now)
	kill -ALRM "$rl"
	finish "$RL_PID" 30
	[ "$ST" -eq 124 ]
	# Not signalled at the deadline (it ends with the namespace, when runlimit exits)...
	[ ! -e "$D/entered-term" ]
	needs_session_reach "the entered process was not signalled"
	# ...while the command's setsid'd descendant got the TERM, and its TERM-ignoring child
	# the grace, then the KILL.
	[ -s "$D/own-term" ]
	lt 1.8 "$(elapsed "$t0")"
	# The run's targets: the command, its setsid'd shell and that one's sleeper; neither the
	# entered shell nor its sleeper (TERM or KILL).
	cat "$D/r.json" >&2
	[ "$(report_field "$D/r.json" ended)" -eq 3 ]
	[ "$(report_field "$D/r.json" alive_at_command_exit)" -eq 2 ]
}

# ---- issue 19: trust ----------------------------------------------------------------------

# group_of PID: PID's process group.
group_of() { ps -o pgid= -p "$1" | tr -d ' '; }
not_stopped() { ! is_stopped "$1"; }

# stop_reached PID: the group's stop has reached PID: it is stopped, or it is parked in
# vfork (state D) behind a child that the stop caught before its exec, and stops once that
# child has run, after the SIGCONT.  (A shell's loop of sleeps is in vfork now and then.)
stop_reached() {
	is_stopped "$1" && return 0
	[ "$(ps -o stat= -p "$1" 2>/dev/null | cut -c1)" = D ] || return 1
	local c
	for c in $(ps -A -o pid= -o ppid= | awk -v p="$1" '$2 == p { print $1 }'); do
		is_stopped "$c" && return 0
	done
	return 1
}

# settled PID: PID (runlimit) sleeps with no SIGCHLD pending: it has taken in every state
# change of its children so far.  Where /proc/PID/status is missing, sleeping is all.
settled() {
	sleeping "$1" || return 1
	[ -r "/proc/$1/status" ] || return 0
	local chld pnd shd
	chld=$(kill -l CHLD)
	pnd=$(awk '$1 == "SigPnd:" { print $2 }' "/proc/$1/status")
	shd=$(awk '$1 == "ShdPnd:" { print $2 }' "/proc/$1/status")
	not_in_mask "$pnd" "$chld" && not_in_mask "$shd" "$chld"
}

# guard_of CMD: the guard of runlimit $RL_PID, whose command is CMD: its other child in CMD's
# group (which has runlimit's pid as its id, or the guard's where runlimit leads its own).
guard_of() {
	ps -A -o pid= -o ppid= -o pgid= |
		awk -v rl="$RL_PID" -v c="$1" -v g="$(group_of "$1")" '$2 == rl && $1 != c && $3 == g { print $1; exit }'
}

# stop_and_continue_group CMD: kill -STOP the whole group of the command CMD (the guard in
# it too), let runlimit ($RL_PID) take the stops in, then kill -CONT the group.
stop_and_continue_group() {
	local cmd=$1 pgid guard
	pgid=$(group_of "$cmd")
	guard=$(guard_of "$cmd")
	[ -n "$pgid" ] && [ "$pgid" != "$cmd" ] || { echo "$cmd leads its group ($pgid)" >&2; return 1; }
	[ -n "$guard" ] || { echo "no guard in the group $pgid of $cmd" >&2; return 1; }
	kill -STOP -"$pgid"
	wait_until 10 is_stopped "$guard" || return 1
	wait_until 10 stop_reached "$cmd" || return 1
	wait_until 10 settled "$RL_PID" || return 1
	kill -CONT -"$pgid"
	wait_until 10 not_stopped "$guard" || return 1
	wait_until 10 settled "$RL_PID"
}

@test "19.3: after kill -STOP/-CONT of its group, a daemon the command left in the group survives a normal exit" {
	export S
	S=$(private_sleep "$N-s")
	"$RUNLIMIT" 30 sh -c '"$S" 300 & echo $! > "$D/daemon"; echo $$ > "$D/cmd"
		i=0; until [ -e "$D/go" ] || [ $i -ge 3000 ]; do sleep 0.01; i=$((i + 1)); done; exit 0' \
		</dev/null >"$D/out" 2>"$D/err" 3>&- &
	RL_PID=$!
	wait_for_file "$D/daemon"
	wait_for_file "$D/cmd"
	local cmd daemon guard
	cmd=$(cat "$D/cmd") daemon=$(cat "$D/daemon")
	guard=$(guard_of "$cmd")
	stop_and_continue_group "$cmd"
	touch "$D/go"
	finish "$RL_PID"
	[ "$ST" -eq 0 ]
	# A guard left behind would get its parent-death signal now and TERM the group.
	wait_for_gone "$guard" 10
	if wait_for_gone "$daemon" 2 2>/dev/null; then
		echo "the daemon $daemon was killed after runlimit returned" >&2
		return 1
	fi
}

@test "19.3: after kill -STOP/-CONT of its group, a forwarded USR1 still reaches the whole group" {
	cat >"$D/member.sh" <<'EOS'
trap 'echo member >> "$D/got"' USR1
echo $$ > "$D/member"
while :; do sleep 0.05; done
EOS
	cat >"$D/cmd.sh" <<'EOS'
trap 'echo command >> "$D/got"' USR1
sh "$D/member.sh" &
echo $$ > "$D/cmd"
while :; do sleep 0.05; done
EOS
	"$RUNLIMIT" 30 sh "$D/cmd.sh" </dev/null >"$D/out" 2>"$D/err" 3>&- &
	RL_PID=$!
	wait_for_file "$D/member"
	wait_for_file "$D/cmd"
	stop_and_continue_group "$(cat "$D/cmd")"
	kill -USR1 "$RL_PID"
	local ok=0
	wait_until 10 grep -qx member "$D/got" || ok=$?
	echo "got: $(cat "$D/got" 2>/dev/null)" >&2
	kill -TERM "$RL_PID"
	finish "$RL_PID"
	[ "$ok" -eq 0 ]
}

@test "19.3: with the group alone to go by (no /proc), a stopped and continued group still has its TERM-ignoring member KILLed" {
	export S
	S=$(private_sleep "$N-s")
	cat >"$D/cmd.sh" <<'EOS'
(trap "" TERM; exec "$S" 300) &
echo $! > "$D/member"
echo $$ > "$D/cmd"
while :; do sleep 0.05; done
EOS
	# An empty /proc makes a Linux build rely on the group alone; where /proc cannot be
	# covered (or the sanitizers need it), the build's own means are tested.
	local run_rl=("$RUNLIMIT")
	if can_mount_proc && [ -z "${ASAN_OPTIONS:-}" ]; then
		run_rl=(unshare --mount sh -c 'mount -t tmpfs none /proc && exec "$RUNLIMIT" "$@"' _)
	fi
	"${run_rl[@]}" -k 1 30 sh "$D/cmd.sh" </dev/null >"$D/out" 2>"$D/err" 3>&- &
	RL_PID=$!
	wait_for_file "$D/member"
	wait_for_file "$D/cmd"
	stop_and_continue_group "$(cat "$D/cmd")"
	kill -ALRM "$RL_PID"
	finish "$RL_PID" 20
	[ "$ST" -eq 124 ]
	no_survivors "$N-s" 10
}

@test "19.5: the deadline's signal comes before any walk of the tree; with --report after one only (strace)" {
	needs_strace
	[ -r "/proc/$$/stat" ] || skip "no /proc: no tree walk to come before the signal"
	no_leak_check
	# runlimit alone is traced, not its children: its opens of /proc/PID/stat and of the
	# children lists (the walk) and its kill()s.  Without what shows the tree at the limit
	# (the report, -v, --on-timeout), nothing is walked before the signal; as timeout, -v
	# shows none either.
	local how first_term first_walk
	for how in plain timeout-v report; do
		case $how in
		plain) timed strace -o "$D/log" -e trace=openat,open,kill "$RUNLIMIT" 0.3 \
			sh -c 'sleep 5 & sleep 5 & wait' ;;
		timeout-v) ln -sf "$RUNLIMIT" "$D/timeout"
			timed strace -o "$D/log" -e trace=openat,open,kill "$D/timeout" -v 0.3 \
			sh -c 'sleep 5 & sleep 5 & wait' ;;
		report) timed strace -o "$D/log" -e trace=openat,open,kill "$RUNLIMIT" --report="$D/r.json" \
			0.3 sh -c 'sleep 5 & sleep 5 & wait' ;;
		esac
		[ "$ST" -eq 124 ]
		first_term=$(grep -n 'kill(-\{0,1\}[0-9]*, SIGTERM)' "$D/log" | head -n 1 | cut -d: -f1)
		[ -n "$first_term" ]
		# (runlimit's own children list, held open from the start, is not a walk)
		first_walk=$(grep -nE '"/proc/[0-9]+/(stat|task/[0-9]+/children)"' "$D/log" | head -n 1 | cut -d: -f1)
		echo "$how: first TERM at line $first_term, first walk at line ${first_walk:-none}" >&2
		if [ "$how" != report ]; then
			[ -z "$first_walk" ] || [ "$first_term" -lt "$first_walk" ]
			continue
		fi
		# The report's tree at the limit is taken before the signal (issue 34), by one walk:
		# no process's stat is read twice before it.  (A build without a walk, the portable
		# one, describes no tree: it says so.)
		head -n "$first_term" "$D/log" | grep -oE '"/proc/[0-9]+/stat"' | sort | uniq -d >"$D/twice"
		[ ! -s "$D/twice" ]
		if [ -n "$first_walk" ] || expected snapshot; then
			"$PY" "$TOOLS/report_is.py" "$D/r.json" 'len(d["tree_at_limit"]["processes"]) >= 3'
		else
			"$PY" "$TOOLS/report_is.py" "$D/r.json" 'd["tree_at_limit"]["unavailable"]'
		fi
	done
}

@test "19.6: a final KILL short of memory still reaches every process, and the report counts none left" {
	command -v prlimit >/dev/null || skip "no prlimit(1) to limit runlimit's memory"
	[ -r "/proc/$$/status" ] || skip "no /proc/PID/status to read runlimit's size from"
	[ -z "${ASAN_OPTIONS:-}" ] || skip "the sanitizers reserve more address space than any limit"
	needs_session_reach
	needs_procs 2200
	export S
	S=$(private_sleep "$N-s")
	# 2,000 TERM-ignoring children that left the session: the final KILL must walk them all.
	cat >"$D/cmd.sh" <<'EOS'
trap "" TERM
i=0; while [ $i -lt 2000 ]; do setsid "$S" 300 & i=$((i + 1)); done
echo ready > "$D/ready"
wait
EOS
	"$RUNLIMIT" --report="$D/r.json" -k 1 60 sh "$D/cmd.sh" </dev/null >"$D/out" 2>"$D/err" 3>&- &
	RL_PID=$!
	wait_for_file "$D/ready" 60
	# From now on runlimit may map 100 KiB more than it has: its walks run out of memory.
	local size
	size=$(awk '$1 == "VmSize:" { print $2 }' "/proc/$RL_PID/status")
	prlimit --pid "$RL_PID" --as=$(((size + 100) * 1024)):
	kill -ALRM "$RL_PID"
	finish "$RL_PID" 40
	[ "$ST" -eq 137 ]
	no_survivors "$N-s" 20
	"$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["left_running"]); sys.exit(d["left_running"] != 0)' "$D/r.json"
}

@test "19.7: one process too few for the guard: the command still runs and is timed out, and stderr says what is lost" {
	needs_other_users
	# qemu-user runs a thread of its own beside the program, which takes one of the three.
	[ -z "${RUNLIMIT_EMULATED:-}" ] || skip "runlimit runs under $RUNLIMIT_EMULATED, whose own thread counts against ulimit -u"
	export S USER_RL
	# The sleep where that user can run it.
	PUB=$(public_dir)
	S=$PUB/$N-s
	cp "$(command -v sleep)" "$S"
	chmod 755 "$S"
	# A uid of its own, so that no other test's processes count against its ulimit -u: the
	# shell, runlimit and the command take all three.
	run --separate-stderr as_user 65532 bash -c 'ulimit -u 3; "$USER_RL" 5 /bin/echo x; echo "status $?"'
	echo "stderr: $stderr" >&2
	[ "$output" = "$(printf 'x\nstatus 0')" ]
	[ "$stderr" = "$USER_RL: cannot start the guard (Resource temporarily unavailable): the command leads its own process group, where setsid fails" ]
	run --separate-stderr as_user 65532 bash -c 'ulimit -u 3; "$USER_RL" 0.3 "$S" 10; echo "status $?"'
	[ "$output" = "status 124" ]
	run --separate-stderr as_user 65532 bash -c 'ulimit -u 3; "$USER_RL" -k 0.3 2 sh -c "trap \"\" TERM; exec \"\$S\" 10"; echo "status $?"'
	[ "$output" = "status 137" ]
	no_survivors "$N-s" 5
}

@test "19.8: a system that refuses the guard's clone (qemu-user does): the guard is forked, and the command's setsid works" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	# The command itself (the shell, then python in its place) is in a group it does not
	# lead, so its own setsid succeeds; without a guard it would lead it and setsid fail.
	export PY
	run --separate-stderr env RUNLIMIT_TEST_CLONE_EINVAL=1 "$RUNLIMIT_HOOKS" 10 sh -c \
		'echo $$; ps -o pgid= -p $$; exec "$PY" -c "import os; os.setsid(); print(\"setsid ok\")"'
	echo "stdout: $output" >&2
	echo "stderr: $stderr" >&2
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(echo "${lines[1]}" | tr -d ' ')" != "${lines[0]}" ]
	[ "${lines[2]}" = "setsid ok" ]
}

@test "19.9: runlimit closes none of the descriptors it was given (0, 1, 2), however it ends (strace)" {
	needs_strace
	[ -z "${ASAN_OPTIONS:-}" ] || skip "the sanitizers' leak check cannot run under strace"
	# runlimit's own process only (no -f): the command's set-up of 0-2 is the command's.
	local o
	for o in "" --output-grace=1 --report="$D/r.json" --name="$N"; do
		RUNLIMIT_DIR=$D/names strace -o "$D/trace" -e trace=close,dup2,dup3 \
			"$RUNLIMIT" ${o:+"$o"} 10 true </dev/null | cat
		RUNLIMIT_DIR=$D/names strace -o "$D/trace2" -e trace=close,dup2,dup3 \
			"$RUNLIMIT" ${o:+"$o"} 0.1 sleep 10 </dev/null | cat
		if grep -E '^(close\(|dup[23]\([0-9]+, )[012][,)]' "$D/trace" "$D/trace2"; then
			echo "with '$o', runlimit closed or replaced a descriptor of its caller's" >&2
			return 1
		fi
	done
}

@test "19.10: started with 0, 1 and 2 closed, runlimit opens nothing there: the command finds them closed" {
	# A named run's lock and socket, the relay's pipes and the report's file would take the
	# lowest numbers free; the relay then took the socket for stderr and waited on it.
	# (Not under bats' run, which gives the command its own stdout and stderr.)
	local want st=0
	export RUNLIMIT_DIR=$D/names
	want=$(printf '0 closed\n1 closed\n2 closed')
	bounded 20 "$RUNLIMIT" --name="$N" --output-grace=1 --report="$D/r.json" 10 \
		"$PY" "$TOOLS/stdfds.py" 3>"$D/fds" <&- >&- 2>&- || st=$?
	[ "$st" -eq 0 ]
	[ "$(cat "$D/fds")" = "$want" ]
	"$PY" "$TOOLS/report_is.py" "$D/r.json" 'd["outcome"] == "exited"'
	# a time-out, -v with nowhere to write, and the same without --name
	bounded 20 "$RUNLIMIT" -v --name="$N" --no-output-timeout=8 3 sh -c \
		'"$1" "$2"; exec "$3" 10' _ "$PY" "$TOOLS/stdfds.py" "$(private_sleep "$N-s")" \
		3>"$D/fds2" <&- >&- 2>&- || st=$?
	[ "$st" -eq 124 ]
	[ "$(cat "$D/fds2")" = "$want" ]
	st=0
	bounded 20 "$RUNLIMIT" --output-grace=1 10 "$PY" "$TOOLS/stdfds.py" 3>"$D/fds3" \
		<&- >&- 2>&- || st=$?
	[ "$st" -eq 0 ]
	[ "$(cat "$D/fds3")" = "$want" ]
}

@test "19.10: a report or --list for a standard descriptor runlimit was started without fails as for a closed one" {
	"$RUNLIMIT" --report=/dev/stdout 10 true >&- 2>"$D/err"
	[ "$(cat "$D/err")" = "$RUNLIMIT: cannot write the report to '/dev/stdout': Bad file descriptor" ]
	export RUNLIMIT_DIR=$D/names
	"$RUNLIMIT" --name="$N" 30 "$(private_sleep "$N-s")" 60 3>&- &
	wait_until 10 test -S "$RUNLIMIT_DIR/$N.sock"
	run -0 "$RUNLIMIT" --list
	[[ "$output" == "$N"* ]]
	local st=0
	"$RUNLIMIT" --list >&- 2>"$D/err" || st=$?
	[ "$st" -eq 125 ]
	[ "$(cat "$D/err")" = "$RUNLIMIT: write error: Bad file descriptor" ]
	if [ -w /dev/full ]; then
		st=0
		"$RUNLIMIT" --list >/dev/full 2>"$D/err" || st=$?
		[ "$st" -eq 125 ]
		[ "$(cat "$D/err")" = "$RUNLIMIT: write error: No space left on device" ]
	fi
	run -0 "$RUNLIMIT" --cancel="$N"
}

@test "19.11: runlimit sets no processor affinity, its own or the guard's (the command's would stay narrow when its cpuset grows) (strace)" {
	needs_strace
	no_leak_check
	# Since Linux 6.2 any sched_setaffinity leaves a "requested" mask that fork and exec
	# carry: a command started under it keeps to it when its cpuset grows.
	timed strace -f -o "$D/log" -e trace=sched_setaffinity "$RUNLIMIT" 5 sh -c 'sleep 0.1 & wait'
	[ "$ST" -eq 0 ]
	! grep -q 'sched_setaffinity(' "$D/log"
}
