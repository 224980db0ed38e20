#!/usr/bin/env bats
# The escalation as a list of steps (src/escalation.h): -s and -k make two, and the phases,
# the status rules and the nesting arithmetic walk the list, however long.  A third step, in
# the middle, is made by the hooks build (RUNLIMIT_TEST_MIDDLE_STEP_MS: SIGINT, that many ms
# after the first step), since no option asks for one yet.

bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	make_dfl_wrapper
}

setup() {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	F=$BATS_TEST_TMPDIR/report.json
	LOG=$BATS_TEST_TMPDIR/log
	READY=$BATS_TEST_TMPDIR/ready
}

report_is() { "$PY" "$TOOLS/report_is.py" "$@"; }

# sent STDERR: the signals -v says were sent to the command, in order, on one line.
sent() { printf '%s\n' "$1" | sed -n "s/.*: sending signal \([A-Z0-9]*\) to command 'sh'$/\1/p" | awk '{ printf "%s%s", s, $0; s = " " }'; }

# from_now SECONDS: RUNLIMIT_DEADLINE's value for SECONDS from now.
from_now() { awk -v t="$(now)" -v d="$1" 'BEGIN { printf "%.3f", t + d }'; }

# limited MS ARG...: the hooks build, with a middle step MS ms after the first, run with
# ARG... (a limit far off among them) in the background; once the command has written
# $READY, after its traps, a SIGALRM makes the limit come now.  Sets status, stderr, and
# took: the seconds from the SIGALRM to runlimit's end.
limited() {
	local ms=$1 pid t0
	shift
	RUNLIMIT_TEST_MIDDLE_STEP_MS=$ms "$RUNLIMIT_HOOKS" "$@" 2>"$BATS_TEST_TMPDIR/stderr" 3>&- &
	pid=$!
	wait_for_file "$READY"
	t0=$(now)
	kill -ALRM "$pid"
	wait_bg "$pid" 30
	status=$BG_STATUS
	took=$(elapsed "$t0")
	stderr=$(cat "$BATS_TEST_TMPDIR/stderr")
}

# A command that notes each TERM and INT it gets in $LOG, and goes on: only a KILL ends it.
NOTING='trap "echo TERM >>\"\$1\"" TERM; trap "echo INT >>\"\$1\"" INT; echo >"$0"; while :; do sleep 0.05; done'

@test "a middle step: TERM at the limit, INT its delay later, the final KILL the grace after that; 137 with -k" {
	limited 600 -v -k 0.6 --report="$F" 60 sh -c "$NOTING" "$READY" "$LOG"
	echo "status $status after ${took}s; stderr: $stderr; log: $(cat "$LOG")"
	[ "$status" -eq 137 ]
	[ "$(uniq "$LOG")" = "TERM"$'\n'"INT" ]
	[ "$(sent "$stderr")" = "TERM INT KILL" ]
	lt 1.1 "$took"
	report_is "$F" 'd["timed_out"]' 'd["kill_needed"]' 'd["exit_status"] == 137' \
		'[s["signal"] for s in d["signals"] if s["signal"] != "CONT"] == ["TERM", "INT", "KILL"]' \
		'0.55 < d["signals"][-2]["at"] - d["signals"][0]["at"]' \
		'0.55 < d["signals"][-1]["at"] - d["signals"][-2]["at"]'
}

@test "a middle step with the default grace: the KILL after it is still a time-out, 124" {
	limited 300 -v 60 sh -c "$NOTING" "$READY" "$LOG"
	echo "status $status; stderr: $stderr"
	[ "$status" -eq 124 ]
	[ "$(uniq "$LOG")" = "TERM"$'\n'"INT" ]
	[ "$(sent "$stderr")" = "TERM INT KILL" ]
}

@test "a command that ends at the middle step is not KILLed: its own status, 124" {
	limited 300 -v -k 20 60 sh -c 'trap "" TERM; echo >"$0"; exec sleep 30' "$READY"
	echo "status $status; stderr: $stderr"
	[ "$status" -eq 124 ]
	[ "$(sent "$stderr")" = "TERM INT" ]
}

@test "a nested run's reserve counts the middle step's delay" {
	local plain middle
	# An outer deadline 30 s away shortens a 60 s limit, by the reserve, which -v shows.
	run --separate-stderr env RUNLIMIT_DEADLINE="$(from_now 30)" "$RUNLIMIT_HOOKS" -v -k 1 60 true
	plain=$(printf '%s\n' "$stderr" | sed -n 's/.*less a reserve of \([0-9.]*\)s.*/\1/p')
	run --separate-stderr env RUNLIMIT_TEST_MIDDLE_STEP_MS=700 RUNLIMIT_DEADLINE="$(from_now 30)" \
		"$RUNLIMIT_HOOKS" -v -k 1 60 true
	middle=$(printf '%s\n' "$stderr" | sed -n 's/.*less a reserve of \([0-9.]*\)s.*/\1/p')
	echo "reserve $plain without the middle step, $middle with it"
	[ -n "$plain" ] && [ -n "$middle" ]
	[ "$(awk -v a="$plain" -v b="$middle" 'BEGIN { printf "%.3f", b - a }')" = 0.700 ]
}

@test "steps that do not fit before an outer deadline are skipped: the final KILL comes in time" {
	local t0 took
	t0=$(now)
	# --reserve=2 with -k 5 and a 3 s middle step: the limit comes 2 s before the outer
	# deadline, the final KILL is due 1 s before it, and the INT does not fit between.
	RUNLIMIT_TEST_MIDDLE_STEP_MS=3000 RUNLIMIT_DEADLINE="$(from_now 4)" \
		run --separate-stderr bounded 30 "$RUNLIMIT_HOOKS" -v -k 5 --reserve=2 60 sh -c "$NOTING" "$READY" "$LOG"
	took=$(elapsed "$t0")
	echo "status $status after ${took}s; stderr: $stderr"
	[ "$status" -eq 137 ]
	[ "$(uniq "$LOG")" = TERM ]
	[ "$(sent "$stderr")" = "TERM KILL" ]
	lt 2.5 "$took"
	lt "$took" 4
}

@test "a cancel walks the steps too, and the end it announces counts the middle step" {
	export RUNLIMIT_DIR=$BATS_TEST_TMPDIR/names
	RUNLIMIT_TEST_MIDDLE_STEP_MS=500 "$RUNLIMIT_HOOKS" --name=steps --report="$F" 60 \
		sh -c "$NOTING" "$READY" "$LOG" 3>&- &
	local run=$!
	wait_for_file "$READY"
	# The protocol by hand (named_wire.h), to read the end the run announces: "cancel
	# TERM, with a final KILL 3 s after the step before it".
	run -0 "$PY" "$TOOLS/cancel_by_hand.py" "$RUNLIMIT_DIR/steps.sock" 15 3000000000 2
	echo "$output"
	[[ "${lines[0]}" == "ok "* ]]
	[ "${lines[1]}" = ended ]
	# the INT 0.5 s after the TERM, the KILL 3 s after that, and the settle's 1 s: 4.5 s,
	# where the grace alone would be 1.5 s
	[ "${lines[0]#ok }" -ge 4000000000 ]
	wait_bg "$run"
	[ "$(uniq "$LOG")" = "TERM"$'\n'"INT" ]
	report_is "$F" 'd["cancelled"]' \
		'[s["signal"] for s in d["signals"] if s["signal"] != "CONT"] == ["TERM", "INT", "KILL"]' \
		'0.45 < d["signals"][-2]["at"] - d["signals"][0]["at"]' \
		'2.9 < d["signals"][-1]["at"] - d["signals"][-2]["at"]'
}

@test "a SIGALRM in the grace skips the steps still due: the final KILL at once, 137 with -k" {
	local pid t0 took stderr
	# A middle step 20 s after the TERM, the KILL 30 s after that; the first SIGALRM is the
	# limit, the second (once the command has noted the TERM) the grace's end.
	RUNLIMIT_TEST_MIDDLE_STEP_MS=20000 "$RUNLIMIT_HOOKS" -v -k 30 --report="$F" 60 \
		sh -c "$NOTING" "$READY" "$LOG" 2>"$BATS_TEST_TMPDIR/stderr" 3>&- &
	pid=$!
	wait_for_file "$READY"
	kill -ALRM "$pid"
	wait_for_file "$LOG"
	t0=$(now)
	kill -ALRM "$pid"
	wait_bg "$pid" 10
	took=$(elapsed "$t0")
	stderr=$(cat "$BATS_TEST_TMPDIR/stderr")
	echo "status $BG_STATUS after ${took}s; stderr: $stderr; log: $(cat "$LOG")"
	[ "$BG_STATUS" -eq 137 ]
	lt "$took" 3
	[ "$(uniq "$LOG")" = TERM ]
	[ "$(sent "$stderr")" = "TERM KILL" ]
	report_is "$F" 'd["timed_out_by"] == "alarm"' 'd["kill_needed"]' \
		'[(s["signal"], s["reason"]) for s in d["signals"] if s["signal"] != "CONT"] == [("TERM", "alarm"), ("KILL", "grace")]'
}
