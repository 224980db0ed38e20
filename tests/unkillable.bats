#!/usr/bin/env bats
# What runlimit does when a process it sent SIGKILL does not die (runlimit.1: the bound;
# docs/design.md, "The supervisor: phases and events", SETTLING): one in an uninterruptible
# wait (a hung mount) keeps its SIGKILL pending until the wait ends.  runlimit waits for it
# at most the settle, 1 s after the final KILL, then returns with the status a death by that
# KILL would give, names what it left on stderr and in the report's alive_after_kill; a
# request to end during the settle ends it at once.  The same for the command, a leftover,
# the --on-timeout hook and --kill-leftovers' KILL.
#
# The stand-in for the hung mount is cgroup v1's freezer (tests/helpers.bash, needs_freezer):
# root only, and where the kernel has one.  Each test makes the limit run out by SIGALRM once
# the process is frozen, and times runlimit from then.

bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	setup_tree_tests
	# Where the build cannot list the tree, it names no leftover (leftover_behind).
	probe_counts
	echo "# runlimit under test: lists the command's tree: $RL_COUNTS" >&3
}

teardown_file() {
	unmount_freezer
}

report_is() { "$PY" "$TOOLS/report_is.py" "$@"; }

setup() {
	per_test_sleep uk
	F=$D/report.json
}

teardown() {
	[ -z "${RL:-}" ] || kill -KILL "$RL" 2>/dev/null || true
	thaw_freezer
	kill_named "$N-s"
}

# start_frozen ARG...: runlimit --report ARG... in the background (RL), its stderr in
# $D/err; then, once $FREEZER holds a frozen process, SIGALRM: the deadline is now, from T0.
start_frozen() {
	"$RUNLIMIT" --report="$F" "$@" 2>"$D/err" 3>&- &
	RL=$!
	wait_until 20 frozen
	T0=$(now)
	kill -ALRM "$RL"
}

# finish_rl SECONDS: wait (bounded) for runlimit; its status in RL_STATUS, the time since
# the SIGALRM in TOOK.
finish_rl() {
	wait_bg "$RL" "$1" || { echo "runlimit still running ${1}s after the limit" >&2; return 1; }
	TOOK=$(elapsed "$T0")
	RL_STATUS=$BG_STATUS
	RL=
}

# took_between LOW HIGH: runlimit returned between LOW and HIGH seconds after the limit.
took_between() {
	lt "$1" "$TOOK" && lt "$TOOK" "$2" ||
		{ echo "runlimit returned ${TOOK}s after the limit, not between $1 and $2" >&2; return 1; }
}

# frozen_pid: the one process in $FREEZER.
frozen_pid() { head -n 1 "$FREEZER/tasks"; }

# left_behind PID [WHO]: stderr names PID (as WHO: "the command", "--on-timeout") among what
# outlived its SIGKILL, and PID is still alive (frozen), so runlimit did not wait for it.
left_behind() {
	grep -Eq "still alive after SIGKILL.*left behind: (.*, )?$1${2:+ \\($2\\)}(,| and|\$)" "$D/err" ||
		{ echo "stderr does not name $1${2:+ ($2)}:" >&2; cat "$D/err" >&2; return 1; }
	kill -0 "$1"
}

# leftover_behind PID: the leftover PID is named (left_behind, and in the report's
# alive_after_kill) where the build lists the tree; elsewhere stderr says that processes of
# the command's group are left, and the report names none.
leftover_behind() {
	if [ "$RL_COUNTS" = yes ] || expected counts; then
		left_behind "$1"
		report_is "$F" "d[\"alive_after_kill\"] == [$1]"
	else
		grep -q "still alive after SIGKILL.*left behind: processes of its group" "$D/err" ||
			{ echo "stderr does not say the group's processes are left:" >&2; cat "$D/err" >&2; return 1; }
		report_is "$F" 'd["alive_after_kill"] == []'
	fi
}

@test "a command that cannot die of SIGKILL holds runlimit no longer than the settle: 137 with -k, named on stderr and in the report" {
	needs_freezer
	start_frozen -k 0.5 60 sh -c "$FREEZE; exit 7"
	pid=$(frozen_pid)
	finish_rl 20
	[ "$RL_STATUS" -eq 137 ]
	# the grace (0.5 s), then the settle (1 s); a loaded machine's margin on top
	took_between 1.4 5
	left_behind "$pid" "the command"
	report_is "$F" 'd["outcome"] == "killed"' 'd["exit_status"] == 137' 'd["kill_needed"]' \
		"d[\"alive_after_kill\"] == [$pid]" 'd["command_signal"] is None' 'd["command_exit"] is None'
}

@test "with the default grace the same run gives 124, and the report says the KILL was needed" {
	needs_freezer
	start_frozen 60 sh -c "$FREEZE; exit 7"
	pid=$(frozen_pid)
	finish_rl 30
	[ "$RL_STATUS" -eq 124 ]
	# the default grace (5 s), then the settle
	took_between 5.9 10
	left_behind "$pid" "the command"
	report_is "$F" 'd["outcome"] == "killed"' 'd["exit_status"] == 124' 'd["kill_needed"]' \
		"d[\"alive_after_kill\"] == [$pid]"
}

# kill_pending PID: SIGKILL is pending for PID (Linux's /proc/PID/status: SigPnd or ShdPnd,
# bit 8).
kill_pending() {
	local mask
	for mask in $(awk '$1 == "SigPnd:" || $1 == "ShdPnd:" { print $2 }' "/proc/$1/status"); do
		in_mask "$mask" 9 && return 0
	done
	return 1
}

@test "a TERM that comes during the settle ends it at once" {
	needs_freezer
	[ -r /proc/self/status ] || skip "no /proc/PID/status to see the pending SIGKILL"
	start_frozen -k 0.2 60 sh -c "$FREEZE; exit 7"
	pid=$(frozen_pid)
	# the final KILL went out (0.2 s after the limit): runlimit now waits for it to die
	wait_until 10 kill_pending "$pid"
	T0=$(now)
	kill -TERM "$RL"
	finish_rl 20
	[ "$RL_STATUS" -eq 137 ]
	# at once, not at the end of the 1 s settle
	took_between 0 0.8
	left_behind "$pid" "the command"
	report_is "$F" "d[\"alive_after_kill\"] == [$pid]"
}

@test "a SIGALRM after a request's final KILL, while the command cannot die of it, changes nothing: still the request's end, not a time-out" {
	needs_freezer
	[ -r /proc/self/status ] || skip "no /proc/PID/status to see the pending SIGKILL"
	"$RUNLIMIT" --report="$F" -k 0.2 60 sh -c "$FREEZE; exit 7" 2>"$D/err" 3>&- &
	RL=$!
	wait_until 20 frozen
	pid=$(frozen_pid)
	kill -TERM "$RL"
	# the grace's KILL went out (0.2 s after the TERM): runlimit waits for it to take
	wait_until 10 kill_pending "$pid"
	T0=$(now)
	kill -ALRM "$RL"
	finish_rl 20
	[ "$RL_STATUS" -eq 137 ]
	left_behind "$pid" "the command"
	report_is "$F" 'd["outcome"] == "interrupted"' 'not d["timed_out"]' 'd["kill_needed"]' \
		'[(s["signal"], s["reason"]) for s in d["signals"] if s["signal"] != "CONT"] == [("TERM", "forwarded"), ("KILL", "grace")]'
}

@test "a leftover that cannot die: the command's status stands, the leftover is named" {
	needs_freezer
	# the command starts a leftover that freezes, and waits (bounded) until it has
	start_frozen -k 0.3 60 sh -c '
		sh -c "$0" &
		i=0; while [ $i -lt 2000 ] && ! grep -q FROZEN "$FREEZER/freezer.state"; do
			"$S" 0.01; i=$((i + 1)); done
		exec "$S" 60' "$FREEZE"
	pid=$(frozen_pid)
	finish_rl 20
	# the command died of the TERM: 124; its leftover got the grace, the KILL, the settle
	[ "$RL_STATUS" -eq 124 ]
	took_between 1.2 5
	leftover_behind "$pid"
	! grep -q "(the command)" "$D/err"
	report_is "$F" 'd["outcome"] == "timed-out"' 'd["command_signal"] == "TERM"'
}

@test "--kill-leftovers: a leftover that cannot die holds runlimit no longer than the settle, and the status stays the command's" {
	needs_freezer
	"$RUNLIMIT" --report="$F" --kill-leftovers -k 0.3 60 sh -c '
		sh -c "$0" &
		i=0; while [ $i -lt 2000 ] && ! grep -q FROZEN "$FREEZER/freezer.state"; do
			"$S" 0.01; i=$((i + 1)); done
		exit 3' "$FREEZE" 2>"$D/err" 3>&- &
	RL=$!
	wait_until 20 frozen
	T0=$(now)
	pid=$(frozen_pid)
	finish_rl 20
	[ "$RL_STATUS" -eq 3 ]
	# the grace (0.3 s), the KILL, the settle (1 s)
	took_between 1.2 5
	leftover_behind "$pid"
	report_is "$F" 'd["exit_status"] == 3'
}

@test "an --on-timeout hook that cannot die of its KILL is waited for no longer than the settle, and named" {
	needs_freezer
	# the hook is the one frozen: it starts at the limit, once the command runs
	"$RUNLIMIT" --report="$F" --on-timeout="$FREEZE; exit 0" --on-timeout-limit=1 -k 0.3 60 \
		sh -c ': >"$D/started"; exec "$S" 60' 2>"$D/err" 3>&- &
	RL=$!
	wait_until 20 test -e "$D/started"
	T0=$(now)
	kill -ALRM "$RL"
	wait_until 20 frozen
	pid=$(frozen_pid)
	finish_rl 20
	[ "$RL_STATUS" -eq 124 ]
	# the hook's limit (1 s), its KILL, the settle (1 s from that KILL)
	took_between 1.9 6
	left_behind "$pid" "--on-timeout"
	report_is "$F" 'd["on_timeout"]["killed"] == "limit"' "d[\"alive_after_kill\"] == [$pid]"
}

@test "what dies of the final KILL is not named: the report's alive_after_kill is empty" {
	start_rl_plain() { "$RUNLIMIT" --report="$F" -k 0.2 2 sh -c "trap '' TERM; \"\$S\" 60" 2>"$D/err"; }
	run start_rl_plain
	[ "$status" -eq 137 ]
	! grep -q "still alive after SIGKILL" "$D/err"
	report_is "$F" 'd["alive_after_kill"] == []' 'd["kill_needed"]'
}
