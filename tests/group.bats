#!/usr/bin/env bats
# The command's process group (runlimit.1: DESCRIPTION, COMPATIBILITY; docs/design.md, "The
# guard and the process group"): its id is runlimit's own pid, as under GNU timeout (which
# leads it), so that `kill -SIG -PID` with runlimit's pid reaches the command, as clients of
# GNU timeout expect (`timeout ... & kill -- -$!`, Debian's wait-for-it and its INT trap);
# runlimit itself stays in its caller's group.  Where runlimit leads its group already (a job
# of an interactive shell, setsid, Python's start_new_session) the guard leads the command's
# group, as before, and a signal to runlimit's group reaches runlimit, which passes it on;
# and where runlimit was left alone in its caller's group, it leads the group it made.
# (Ctrl-C typed at wait-for-it in a terminal: tests/tty.bats.)

bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	setup_tree_tests
}

setup() {
	D=$BATS_TEST_TMPDIR
	N=gr$BATS_TEST_NUMBER-$(($$ % 100000))
	S=$(private_sleep "$N-s")
	export D S
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
	"$RUNLIMIT" 30 sh -c 'echo "$$ $(ps -o pgid= -p $$)" >"$D/cmd"; exec "$S" 60' &
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
		echo "status $st in $((($(date +%s%N) - start) / 1000000)) ms"'
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
	PATH=$D/bin:$PATH "$PY" "$TOOLS/dfl.py" "$WFI" -t 30 127.0.0.1:1 -- true >"$D/out" 2>&1 &
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
	setsid "$RUNLIMIT" 30 sh -c 'echo "$PPID $(ps -o pgid= -p $$)" >"$D/cmd"; exec "$S" 60' &
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

@test "runlimit left alone in its caller's group leads the group it made; the command's is the guard's, and a time-out still ends it" {
	command -v setsid >/dev/null || skip "no setsid"
	# The caller leads a session and its group, starts a child and exits; the child, once its
	# parent is gone (a bounded wait), execs runlimit: the group's last member, which its move
	# would end.
	# shellcheck disable=SC2016
	setsid sh -c 'p=$$
		(i=0; while kill -0 $p 2>/dev/null && [ $i -lt 1000 ]; do "$S" 0.01; i=$((i + 1)); done
		exec "$0" -k 1 1 sh -c "echo \$\$ \$(ps -o pgid= -p \$\$) >\"\$D/cmd\"; exec \"\$S\" 60" \
			2>"$D/err") & echo $! >"$D/rl"' "$RUNLIMIT"
	wait_for_file "$D/cmd"
	local rl pid pgid
	rl=$(cat "$D/rl")
	read -r pid pgid <"$D/cmd"
	echo "runlimit $rl (its group $(pgid_of "$rl")), the command $pid in group $pgid"
	[ "$(pgid_of "$rl")" = "$rl" ]
	[ "$pgid" != "$rl" ]
	[ "$pgid" != "$pid" ]
	wait_for_gone "$rl" 10
	no_survivors "$N-s" 5
	[ ! -s "$D/err" ]
}
