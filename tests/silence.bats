#!/usr/bin/env bats
# --no-output-timeout (runlimit.1; docs/design.md, "The relay"): a run whose command and everything it started write
# nothing to stdout or stderr for the limit times out as at the deadline.  Any byte counts;
# a slow reader's time never counts as silence; the limit runs while the command lives.

bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	setup_tree_tests
}

setup() {
	export D=$BATS_TEST_TMPDIR RUNLIMIT
	N=q$BATS_TEST_NUMBER-$(($$ % 100000))
	export S
	S=$(private_sleep "$N-s")
}

teardown() {
	kill_named "$N-s"
}

# timed ARG...: runlimit ARG... with stdout and stderr through pipes (as a CI runner has
# them); sets status and secs, and out to what came out of both.
timed() {
	local t0
	t0=$(now)
	out=$( (bounded 60 "$RUNLIMIT" "$@" 2>&1; echo "rc=$?") | cat)
	secs=$(elapsed "$t0")
	status=${out##*rc=}
	out=${out%rc=*}
}

@test "a command printing every 0.1 s outlives a 3 s no-output limit" {
	# (3 s, not 1: on a loaded machine a fork and a 0.1 s sleep once took more than 1 s)
	timed --no-output-timeout=3 60 sh -c 'i=0; while [ $i -lt 45 ]; do echo $i; "$S" 0.1; i=$((i + 1)); done'
	echo "status $status after $secs s" >&2
	[ "$status" = 0 ]
	lt 4.4 "$secs"
	[[ "$out" == *44* ]]
}

@test "a silent command is ended at about 1 s: 124" {
	timed --no-output-timeout=1 30 sh -c 'echo started; exec "$S" 30'
	[ "$status" = 124 ]
	lt 0.95 "$secs"
	lt "$secs" 5
	[[ "$out" == started* ]]
}

@test "output on stderr alone counts" {
	# 2 s of silence allowed, 4 s of writes every 0.1 s: a loaded machine's stall is no gap
	timed --no-output-timeout=2 30 sh -c 'i=0; while [ $i -lt 40 ]; do echo $i >&2; "$S" 0.1; i=$((i + 1)); done'
	echo "status $status after $secs s" >&2
	[ "$status" = 0 ]
	lt 3.9 "$secs"
}

@test "a carriage-return progress line without a newline counts" {
	# 2 s of silence allowed, 4 s of writes every 0.1 s: a loaded machine's stall is no gap
	timed --no-output-timeout=2 30 sh -c 'i=0; while [ $i -lt 40 ]; do printf "\r%d%%" $i; "$S" 0.1; i=$((i + 1)); done'
	echo "status $status after $secs s" >&2
	[ "$status" = 0 ]
	lt 3.9 "$secs"
}

@test "output from a grandchild counts: the whole tree's output is watched" {
	timed --no-output-timeout=1 30 sh -c 'sh -c '\''i=0; while [ $i -lt 20 ]; do echo $i; "$S" 0.1; i=$((i + 1)); done'\'' & wait'
	[ "$status" = 0 ]
	lt 1.9 "$secs"
}

@test "a silent command that ignores TERM: KILL after the grace, 137" {
	timed -k 0.5 --no-output-timeout=2 30 sh -c 'trap "" TERM; "$S" 30'
	[ "$status" = 137 ]
	lt "$secs" 10
}

@test "-p: the command's own status after a no-output time-out" {
	timed -p --no-output-timeout=0.5 30 "$S" 30
	[ "$status" = 143 ]
}

@test "-v names the limit that ran out" {
	timed -v --no-output-timeout=0.3 30 "$S" 30
	[ "$status" = 124 ]
	[[ "$out" == *"no output for 0.3s: sending signal TERM to command"* ]]
}

@test "the deadline still applies: whichever limit runs out first" {
	timed -v --no-output-timeout=20 0.5 sh -c 'while :; do echo x; "$S" 0.1; done'
	[ "$status" = 124 ]
	lt "$secs" 10
	[[ "$out" != *"no output"* ]]
}

@test "a reader that stops reading for 3 s under a 1 s limit: no time-out and no loss" {
	head -c 2000000 /dev/urandom >"$D/want"
	# The command writes 2 MB at once: far more than the pipes hold, so it blocks behind
	# the reader, which is no silence of the command's.
	bounded 60 "$RUNLIMIT" --no-output-timeout=1 30 cat "$D/want" |
		(sleep 3; cat) >"$D/got"
	[ "${PIPESTATUS[0]}" = 0 ]
	cmp "$D/got" "$D/want"
}

@test "a regular file on stdout: its growth counts as output" {
	bounded 60 "$RUNLIMIT" --no-output-timeout=1 30 sh -c 'i=0; while [ $i -lt 25 ]; do echo $i; "$S" 0.1; i=$((i + 1)); done' >"$D/out"
	[ "$(tail -n 1 "$D/out")" = 24 ]
}

@test "a regular file on stdout and stderr that stops growing: 124" {
	local t0 rc=0
	t0=$(now)
	bounded 60 "$RUNLIMIT" --no-output-timeout=0.5 30 sh -c 'echo a; exec "$S" 30' >"$D/out" 2>&1 || rc=$?
	[ "$rc" = 124 ]
	lt "$(elapsed "$t0")" 5
	[ "$(cat "$D/out")" = a ]
}

@test "a pipe stays a pipe and a file a file under --no-output-timeout" {
	local probe='[ -p /dev/stdout ] && echo pipe; [ -f /dev/stdout ] && echo file; :'
	[ "$("$RUNLIMIT" --no-output-timeout=5 10 sh -c "$probe" | cat)" = pipe ]
	"$RUNLIMIT" --no-output-timeout=5 10 sh -c "$probe" >"$D/f"
	[ "$(cat "$D/f")" = file ]
}

@test "the limit is the command's: a silent leftover after its exit is no time-out" {
	# (1 s of silence allowed before the exit, 0.1 s after the output, a margin for a loaded
	# machine; then 3 s of a silent leftover, three times the limit, in the output grace)
	timed --no-output-timeout=1 --output-grace=3 30 sh -c '"$S" 60 & echo hi; "$S" 0.1'
	[ "$status" = 0 ]
	[[ "$out" == hi* ]]
	# and no busy wait through the grace for a limit that no longer applies
	local cpu TIMEFORMAT=%U+%S
	cpu=$( { time "$RUNLIMIT" --no-output-timeout=0.3 --output-grace=1.5 30 \
		sh -c '"$S" 60 & echo hi' | cat >/dev/null; } 2>&1)
	lt "$(awk "BEGIN { print $cpu }")" 0.5
}

@test "without --output-grace the relay's grace is 1 s" {
	timed --no-output-timeout=20 30 sh -c '"$S" 60 & echo hi'
	[ "$status" = 0 ]
	lt 0.9 "$secs"
	lt "$secs" 5
	has_survivors "$N-s" # the grace ends the wait, not the leftover
}

@test "--no-output-timeout=0 sets no limit and relays nothing" {
	timed --no-output-timeout=0 30 sh -c '"$S" 2 & exec "$S" 1.2'
	[ "$status" = 0 ]
	lt 1.9 "$secs" # nothing relayed: the caller waited for the leftover, as without it
}

@test "the report says which limit ran out" {
	local r=$TOOLS/report_is.py
	run -124 bounded 60 "$RUNLIMIT" --report="$D/r.json" --no-output-timeout=0.3 30 "$S" 30
	"$PY" "$r" "$D/r.json" 'd["timed_out_by"] == "no-output"' \
		'd["no_output_timeout_seconds"] == 0.3' 'd["signals"][0]["reason"] == "no-output"'
	run -124 bounded 60 "$RUNLIMIT" --report="$D/r2.json" --no-output-timeout=20 0.3 "$S" 30
	"$PY" "$r" "$D/r2.json" 'd["timed_out_by"] == "deadline"'
	run -0 bounded 60 "$RUNLIMIT" --report="$D/r3.json" 10 true
	"$PY" "$r" "$D/r3.json" 'd["timed_out_by"] is None' 'd["no_output_timeout_seconds"] is None'
}

@test "--no-output-timeout with a bad interval: 125 and the value named" {
	run -125 --separate-stderr "$RUNLIMIT" --no-output-timeout=quiet 10 true
	[[ "$stderr" == *"invalid time interval 'quiet'"* ]]
}
