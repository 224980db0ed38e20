#!/usr/bin/env bats
# The command's process group (runlimit.1: DESCRIPTION, COMPATIBILITY; docs/design.md, "The
# guard and the process group"): its id is runlimit's own pid, as under GNU timeout (which
# leads it), so that `kill -SIG -PID` with runlimit's pid reaches the command, as clients of
# GNU timeout expect (`timeout ... & kill -- -$!`, Debian's wait-for-it and its INT trap);
# runlimit itself stays in its caller's group.  Where runlimit leads its group already (a job
# of an interactive shell, setsid, Python's start_new_session) the guard leads the command's
# group, as before, and a signal to runlimit's group reaches runlimit, which passes it on;
# where runlimit was left alone in its caller's group, it stays in it all the same (issue 60).
# A signal another process sends to the command's group starts what it would start sent to
# runlimit: the grace, -k, the status (issue 60: the guard, in the group, passes it on).
# (Ctrl-C typed at wait-for-it in a terminal: tests/tty.bats.)

bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	setup_tree_tests
}

setup() {
	per_test_sleep gr
	mkdir -p "$D/bin"
	ln -s "$(cd "$(dirname "$RUNLIMIT")" && pwd)/$(basename "$RUNLIMIT")" "$D/bin/timeout"
}

teardown() {
	[ -z "${RL:-}" ] || kill -KILL "$RL" 2>/dev/null || true
	kill_named "$N-s"
	# wait-for-it's processes are shells (and timeout) running its copy: found by arguments
	[ -z "${WFI:-}" ] || pkill -KILL -f "$WFI" 2>/dev/null || true
}

# pgid_of PID: its process group (empty once it is gone).
pgid_of() { ps -o pgid= -p "$1" 2>/dev/null | tr -d ' '; }


@test "the command's group id is runlimit's pid; runlimit stays in its caller's group" {
	"$RUNLIMIT" 30 sh -c 'echo "$$ $(ps -o pgid= -p $$)" >"$D/cmd"; exec "$S" 60' 3>&- &
	RL=$!
	wait_for_file "$D/cmd"
	read -r pid pgid <"$D/cmd"
	echo "runlimit $RL, its group $(pgid_of "$RL"); command $pid, its group $pgid; ours $(pgid_of $$)"
	[ "$pgid" = "$RL" ]
	[ "$pid" != "$RL" ]
	# runlimit is where its caller is, not in the command's group
	[ "$(pgid_of "$RL")" = "$(pgid_of $$)" ]
	kill -TERM "$RL"
	wait_bg "$RL" 10
}

@test "as timeout in a script: timeout 30 sleep 100 & kill -TERM -\$! ends it and the command within a second, 143 from wait" {
	# shellcheck disable=SC2016
	run bounded 30 sh -c '
		PATH=$D/bin:$PATH
		timeout 30 "$S" 100 &
		pid=$!
		i=0
		until [ "$(ps -A -o pgid= -o ucomm= | awk -v g="$pid" -v n="$(basename "$S")" \
			"\$1 == g && \$2 == n" )" ] || [ $i -ge 1000 ]; do "$S" 0.01; i=$((i + 1)); done
		start=$(date +%s%N)
		kill -TERM -$pid || echo "kill failed"
		wait $pid
		st=$?
		echo "status $st in $((($(date +%s%N) - start) / 1000000)) ms"' 3>&-
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *"kill failed"* ]]
	[[ "$output" == *"status 143 in "* ]]
	ms=${output##*status 143 in }
	ms=${ms%% ms*}
	[ "$ms" -lt 1000 ]
	no_survivors "$N-s" 5
}

# wfi: Debian's wait-for-it, copied under a name of this test's (so that its processes can be
# found, and ended), run with timeout our link; skips where it is not installed.
wfi_copy() {
	local wfi
	wfi=$(command -v wait-for-it) || skip "no wait-for-it (Debian's package of that name)"
	WFI=$D/bin/$N-wfi
	cp "$wfi" "$WFI"
}

@test "Debian's wait-for-it, with timeout ours: an INT to the script alone goes through its trap to the child, no kill: error, nothing left" {
	wfi_copy
	# Port 1 of the loopback: nothing listens, so wait-for-it waits (its child retries each
	# second).  INT and QUIT at their defaults (a shell starts a background job ignoring them).
	PATH=$D/bin:$PATH "$PY" "$TOOLS/dfl.py" "$WFI" -t 30 127.0.0.1:1 -- true >"$D/out" 2>&1 3>&- &
	local script=$! child
	# its child: timeout (runlimit), running wait-for-it --child in the group of timeout's pid
	wait_until 20 wfi_child_running
	child=$WFI_TIMEOUT
	wait_until 20 wfi_trap_set
	kill -INT "$script"
	wait_bg "$script" 10
	cat "$D/out"
	! grep -q 'kill:' "$D/out"
	wait_for_gone "$child" 5
	wait_until 5 wfi_gone
}

@test "where runlimit leads its group (setsid), the guard leads the command's, and a signal to runlimit's group reaches runlimit, which passes it on" {
	command -v setsid >/dev/null || skip "no setsid"
	setsid "$RUNLIMIT" 30 sh -c 'echo "$PPID $(ps -o pgid= -p $$)" >"$D/cmd"; exec "$S" 60' 3>&- &
	wait_for_file "$D/cmd"
	local rl pgid
	read -r rl pgid <"$D/cmd"
	echo "runlimit $rl (its group $(pgid_of "$rl")), the command's group $pgid"
	[ -n "$rl" ]
	[ "$(pgid_of "$rl")" = "$rl" ]
	[ "$pgid" != "$rl" ]
	kill -TERM -- "-$rl"
	wait_for_gone "$rl" 10
	no_survivors "$N-s" 5
}

@test "60.1: runlimit left alone in its caller's group stays in it, and the command's group still has runlimit's pid; a time-out still ends it" {
	command -v setsid >/dev/null || skip "no setsid"
	# The caller leads a session and its group, starts a child and exits; the child, once its
	# parent is gone (a bounded wait), execs runlimit: the group's last member, which a move
	# out of it, even for a moment, would end for good (the terminal's foreground group of a
	# pipeline whose producer has exited: tests/tty.bats).
	# shellcheck disable=SC2016
	setsid sh -c 'p=$$
		echo $p >"$D/home"
		(i=0; while kill -0 $p 2>/dev/null && [ $i -lt 1000 ]; do "$S" 0.01; i=$((i + 1)); done
		exec "$0" -k 1 30 sh -c "echo \$\$ \$(ps -o pgid= -p \$\$) >\"\$D/cmd\"; exec \"\$S\" 60" \
			2>"$D/err") & echo $! >"$D/rl"' "$RUNLIMIT" 3>&-
	wait_for_file "$D/cmd"
	local rl pid pgid
	rl=$(cat "$D/rl")
	read -r pid pgid <"$D/cmd"
	echo "runlimit $rl (its group $(pgid_of "$rl"), its caller's $(cat "$D/home")), the command $pid in group $pgid"
	[ "$(pgid_of "$rl")" = "$(cat "$D/home")" ]
	[ "$pgid" = "$rl" ]
	[ "$pgid" != "$pid" ]
	kill -ALRM "$rl" # the deadline, now
	wait_for_gone "$rl" 10
	no_survivors "$N-s" 5
	[ ! -s "$D/err" ]
}

# ---- issue 60: a signal to the command's group starts what it starts sent to runlimit ----

# group_signal_ends SIG DURATION: runlimit -k 1 DURATION on a command that ignores SIG, SIG
# sent by this shell to the group with runlimit's pid (`kill -SIG -- -PID`, as GNU's clients
# do): the grace and -k follow, as GNU's timeout (a member of the group) gives them: 137 after
# about 1 s, well before any deadline.
group_signal_ends() {
	local sig=$1 rl t0 took
	rm -f "$D/ready"
	# shellcheck disable=SC2016
	"$RUNLIMIT" -k 1 "$2" sh -c 'trap "" "$1"; : >"$D/ready"; "$S" 30; exit 3' _ "$sig" 3>&- &
	rl=$!
	wait_until 10 test -e "$D/ready"
	t0=$(now)
	kill -"$sig" -- "-$rl"
	wait_bg "$rl" 10 || { echo "$sig to the group, -k 1 $2: still running after 10 s" >&2; return 1; }
	took=$(elapsed "$t0")
	echo "$sig to the group, -k 1 $2: status $BG_STATUS after $took s"
	[ "$BG_STATUS" -eq 137 ] && lt 0.9 "$took" && lt "$took" 6 && no_survivors "$N-s" 5
}

@test "60.2: TERM, INT or HUP sent to the command's group by runlimit's pid starts the grace: -k's KILL follows, 137, with a limit or none" {
	group_signal_ends TERM 12
	group_signal_ends INT 12
	group_signal_ends HUP 12
	group_signal_ends TERM 0
}

@test "60.2: a signal runlimit passes on (USR1, RTMIN+1), sent to the command's group, is passed on as if runlimit had it; runlimit's own is never passed back to it" {
	# sent to the group: -v says it was passed on, once (the command, trapping it, goes on)
	local sig said
	for sig in USR1 RTMIN+1; do
		# (a real-time signal where the shell has them, but not under an emulator, whose
		# mapping of them is its own; runlimit names it in its libc's numbering: musl's
		# RTMIN is glibc's RTMIN+1)
		[ "$sig" = USR1 ] || { kill -l RTMIN >/dev/null 2>&1 && [ -z "${RUNLIMIT_EMULATED:-}" ]; } ||
			continue
		rm -f "$D/ready" "$D/got"
		# shellcheck disable=SC2016
		"$RUNLIMIT" -v 30 sh -c 'trap ": >\"\$D/got\"" "$1"; : >"$D/ready"; while :; do "$S" 0.05; done' \
			_ "$sig" 2>"$D/err" 3>&- &
		RL=$!
		wait_until 10 test -e "$D/ready"
		kill -"$sig" -- "-$RL"
		wait_until 10 test -e "$D/got"
		said="sending signal ${sig%+1}(\+1)? "
		[ "$sig" != USR1 ] || said="sending signal USR1 "
		wait_until 10 grep -qE "$said" "$D/err"
		kill -TERM "$RL"
		wait_bg "$RL" 10
		cat "$D/err"
		[ "$(grep -cE "$said" "$D/err")" -eq 1 ]
	done
	# sent to runlimit: passed on to the group once, the guard in it passing nothing back
	# (which would have it passed on again, and again, for as long as the command lived)
	rm -f "$D/ready" "$D/got"
	# shellcheck disable=SC2016
	"$RUNLIMIT" -v 30 sh -c 'trap ": >\"\$D/got\"" USR1; : >"$D/ready"; while :; do "$S" 0.05; done' \
		2>"$D/err" 3>&- &
	RL=$!
	wait_until 10 test -e "$D/ready"
	kill -USR1 "$RL"
	wait_until 10 test -e "$D/got"
	kill -TERM "$RL"
	wait_bg "$RL" 10
	cat "$D/err"
	[ "$(grep -c 'sending signal USR1' "$D/err")" -eq 1 ]
}

# out_of_home TRAP: a caller that leads its own group (its first words: TRAP) runs the hooks
# build of runlimit as a member, which stays out of that group 3 s after the command's fork;
# once it is out, in the group it made (its own pid), RL and HOME_GROUP are their pids.
out_of_home() {
	# shellcheck disable=SC2016
	setsid sh -c "$1"' echo $$ >"$D/home"
		RUNLIMIT_TEST_GROUP_WINDOW_MS=3000 "$0" 30 "$S" 60 & echo $! >"$D/rl"; wait' \
		"$RUNLIMIT_HOOKS" 3>&- &
	wait_for_file "$D/rl"
	wait_for_file "$D/home"
	RL=$(cat "$D/rl") HOME_GROUP=$(cat "$D/home")
	wait_until 10 eval '[ "$(pgid_of "$RL")" = "$RL" ]'
}

@test "60.2: a signal sent to runlimit's caller's group while runlimit is out of it, at the command's fork, reaches runlimit all the same (the guard, still there, passes it on)" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	command -v setsid >/dev/null || skip "no setsid"
	# The caller ignores TERM; the TERM sent to its group comes while runlimit is out of it.
	out_of_home 'trap "" TERM;'
	local rl=$RL home=$HOME_GROUP
	kill -TERM -- "-$home"
	# (and the TERM came while it was: else this test shows nothing)
	[ "$(pgid_of "$rl")" = "$rl" ]
	# back in home, the command forked: it gets the TERM, and the run ends
	wait_until 10 eval '[ "$(pgid_of "$rl")" = "$home" ]' || [ -z "$(pgid_of "$rl")" ]
	wait_for_gone "$rl" 10
	no_survivors "$N-s" 5
}

@test "60.2: a command that signals its own group (kill 0) is not taken for a request: it ends, or goes on, as without runlimit" {
	# HUP to its own group, which it ignores: it goes on, no grace, no KILL
	# shellcheck disable=SC2016
	run -0 --separate-stderr "$RUNLIMIT" -v 30 sh -c 'trap "" HUP; kill -HUP 0; "$S" 1; echo survived'
	[ "$output" = survived ]
	[ -z "$stderr" ]
	# a shell's `trap 'kill 0' EXIT`: the command dies of its own TERM, 143, and runlimit
	# does not (the report says signalled, nothing forwarded)
	# shellcheck disable=SC2016
	run -143 "$RUNLIMIT" --report="$D/r.json" 30 sh -c 'trap "kill 0" EXIT; true'
	"$PY" "$TOOLS/report_is.py" "$D/r.json" 'd["outcome"] == "signalled"' 'd["exit_status"] == 143'
}

@test "60.2: the --on-timeout hook may signal the command's group (RUNLIMIT_PGID): not a request, the hook runs to its end and the -s signal follows" {
	# The command sets its trap, then says so; the hook waits for that, signals the group and
	# exits.  Twice: the second time the guard looks at the sender 0.5 s late (the hooks
	# build), when the hook has ended and been reaped: its signal is still the hook's.
	local rl late
	for late in 0 500; do
		rm -f "$D/ready" "$D/dumped"
		rl=$RUNLIMIT
		[ "$late" = 0 ] || { [ -x "${RUNLIMIT_HOOKS:-}" ] && rl=$RUNLIMIT_HOOKS; } || continue
		# (the hook ends once the command has dumped: its TERM, which follows the hook, would
		# otherwise end the shell before it ran its trap)
		# shellcheck disable=SC2016
		run -124 --separate-stderr env RUNLIMIT_TEST_RELAY_LATE_MS="$late" "$rl" -v -k 5 \
			--on-timeout='i=0; until [ -e "$D/ready" ] || [ $i -ge 1000 ]; do "$S" 0.01; i=$((i + 1)); done
				kill -QUIT -$RUNLIMIT_PGID
				i=0; until [ -e "$D/dumped" ] || [ $i -ge 1000 ]; do "$S" 0.01; i=$((i + 1)); done
				echo hook-done >&2' 0.5 \
			sh -c 'trap ": >\"\$D/dumped\"" QUIT; : >"$D/ready"; while :; do "$S" 0.05; done; exit 7'
		echo "late $late: $stderr"
		[[ "$stderr" == *hook-done* ]]
		[ -e "$D/dumped" ]
		[[ "$stderr" == *"sending signal TERM"* ]]
		[[ "$stderr" != *"sending signal QUIT"* ]]
	done
}

@test "60.2: a command that leaves the group at once (setsid) leaves it to the guard first: kill -- -PID still reaches runlimit" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	command -v setsid >/dev/null || skip "no setsid"
	# runlimit back in its caller's group 0.5 s after the fork (the hooks build): the command
	# must not have left its group empty meanwhile
	# shellcheck disable=SC2016
	RUNLIMIT_TEST_GROUP_WINDOW_MS=500 "$RUNLIMIT_HOOKS" -k 1 30 setsid sh -c \
		'trap "" TERM; : >"$D/ready"; exec "$S" 60' 3>&- &
	RL=$!
	wait_until 10 test -e "$D/ready"
	# once runlimit is back in its caller's group (in the command's, it would get the TERM)
	wait_until 10 eval '[ "$(pgid_of "$RL")" = "$(pgid_of $$)" ]'
	local t0
	t0=$(now)
	kill -TERM -- "-$RL"
	wait_bg "$RL" 10
	echo "status $BG_STATUS after $(elapsed "$t0") s"
	[ "$BG_STATUS" -eq 137 ]
	no_survivors "$N-s" 5
}

@test "60.2: a signal sent both to runlimit and to the guard (pkill, killall, kill -1) is one request, not two" {
	# shellcheck disable=SC2016
	"$RUNLIMIT" -v -k 20 30 sh -c 'trap "" TERM VTALRM; echo $$ >"$D/cmd"; exec "$S" 60' 2>"$D/err" 3>&- &
	RL=$!
	wait_for_file "$D/cmd"
	local cmd guard
	cmd=$(cat "$D/cmd")
	guard=$(pgrep -P "$RL" | grep -vx "$cmd")
	[ -n "$guard" ]
	kill -TERM "$RL"
	wait_until 10 grep -q 'sending signal TERM' "$D/err"
	kill -TERM "$guard"
	# a mark after it, passed on by the guard too, which takes the lower signal first, as
	# runlimit does: once the mark is passed on, the TERM has been taken
	kill -VTALRM "$guard"
	wait_until 10 grep -q 'sending signal VTALRM' "$D/err"
	kill -KILL "$RL" "$cmd" 2>/dev/null || true
	cat "$D/err"
	[ "$(grep -c 'sending signal TERM' "$D/err")" -eq 1 ]
}

@test "60.1: a KILL sent to the caller's group while runlimit is out of it, at the command's fork, ends runlimit and the command as it would have in the group" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	command -v setsid >/dev/null || skip "no setsid"
	out_of_home ''
	local rl=$RL home=$HOME_GROUP
	kill -KILL -- "-$home"
	[ "$(pgid_of "$rl")" = "$rl" ] # (it came while runlimit was out)
	wait_for_gone "$rl" 10
	no_survivors "$N-s" 5
}

@test "60.2: a command's own kill 0 is its own even when the guard looks after it was reaped: no request, the status its own" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	# The guard looks 0.5 s late (the hooks build): the shell that sent TERM to its own
	# group on its way out is gone, and reaped, by then; runlimit is still there for the
	# leftover (--kill-leftovers, which ignores the TERM: 2 s of grace).
	# shellcheck disable=SC2016
	run -143 env RUNLIMIT_TEST_RELAY_LATE_MS=500 "$RUNLIMIT_HOOKS" --report="$D/r.json" \
		--kill-leftovers -k 2 30 sh -c 'trap "kill 0" EXIT; (trap "" TERM; : >"$D/lo"; exec "$S" 30) &
			i=0; until [ -e "$D/lo" ] || [ $i -ge 1000 ]; do "$S" 0.01; i=$((i + 1)); done'
	"$PY" "$TOOLS/report_is.py" "$D/r.json" 'd["outcome"] == "signalled"' \
		'"forwarded" not in [s["reason"] for s in d["signals"]]'
	no_survivors "$N-s" 5
}
