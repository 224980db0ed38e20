#!/usr/bin/env bats
# Nested limits (the manual, NESTED LIMITS): the command gets RUNLIMIT_DEADLINE; a runlimit
# started with it times out early enough, by its reserve, that its grace, its KILL and its
# report come before the outer limit fires; --no-inherit; --remaining.  Real nested runs of
# the binary under test, every wait bounded.

bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	make_dfl_wrapper
}

setup() {
	F=$BATS_TEST_TMPDIR/inner.json
	G=$BATS_TEST_TMPDIR/outer.json
	TRAPPED=$BATS_TEST_TMPDIR/trapped
}

report_is() { "$PY" "$TOOLS/report_is.py" "$@"; }

# at SECONDS: the wall clock SECONDS from now, as RUNLIMIT_DEADLINE is written.
at() { awk -v t="$(now)" -v d="$1" 'BEGIN { printf "%.3f", t + d }'; }

# near A B TOLERANCE: |A - B| <= TOLERANCE, said on failure.
near() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }' ||
		{ echo "$1 is not within $3 of $2" >&2; return 1; }
}

# A command that ignores TERM (and says so in $TRAPPED once it does), then sleeps 30 s.
STUBBORN='trap "" TERM; : >"$1"; exec sleep 30'

@test "an outer 4s limit around an inner 60s one with -k 1: the inner times out first, writes its report, and the outer passes its 137 on" {
	local t0 took
	t0=$(now)
	run bounded 30 "$RUNLIMIT" --report="$G" 4 \
		"$RUNLIMIT" -k 1 --report="$F" 60 sh -c "$STUBBORN" _ "$TRAPPED"
	took=$(elapsed "$t0")
	echo "status $status after ${took}s"
	[ -e "$TRAPPED" ]
	[ "$status" -eq 137 ]
	lt "$took" 4
	# The inner's reserve is its grace and 1 s: it fired about 2 s in, KILLed 1 s later.
	report_is "$F" 'd["outcome"] == "killed"' 'd["timed_out"]' 'd["kill_needed"]' \
		'd["exit_status"] == 137' 'd["deadline_inherited"]["shortened"] is True' \
		'd["deadline_inherited"]["reserve_seconds"] == 2' '1.0 < d["signals"][0]["at"] < 2.1'
	report_is "$G" 'd["outcome"] == "exited"' 'not d["timed_out"]' 'd["command_exit"] == 137' \
		'd["deadline_inherited"] is None'
}

@test "a grace that would outlast the outer deadline is cut to end a second before it" {
	local t0 took
	t0=$(now)
	# --reserve=2 with the default 5 s grace: the inner fires 2 s before the outer's deadline,
	# and its KILL must still come before it.
	run bounded 30 "$RUNLIMIT" --report="$G" 4 \
		"$RUNLIMIT" --reserve=2 --report="$F" 60 sh -c "$STUBBORN" _ "$TRAPPED"
	took=$(elapsed "$t0")
	echo "status $status after ${took}s"
	[ -e "$TRAPPED" ]
	[ "$status" -eq 124 ]
	lt "$took" 4
	report_is "$F" 'd["timed_out"]' 'd["kill_needed"]' 'd["exit_status"] == 124' \
		'd["deadline_inherited"]["reserve_seconds"] == 2' \
		'[s["signal"] for s in d["signals"]] == ["TERM", "CONT", "KILL"]' \
		'd["signals"][2]["at"] - d["signals"][0]["at"] < 1.5'
	report_is "$G" 'not d["timed_out"]' 'd["command_exit"] == 124'
}

@test "--no-inherit: the old order, the outer limit ends the inner run" {
	run bounded 30 "$RUNLIMIT" -k 1 --report="$G" 2 \
		"$RUNLIMIT" --no-inherit -k 1 --report="$F" 60 sh -c "$STUBBORN" _ "$TRAPPED"
	echo "status $status"
	[ "$status" -eq 124 ] || [ "$status" -eq 137 ]
	report_is "$G" 'd["timed_out"]'
	# The inner run was not timed out: it was killed with no report, or passed the outer's
	# TERM on and ended by it.
	[ ! -e "$F" ] || report_is "$F" 'not d["timed_out"]' 'd["deadline_inherited"] is None'
}

@test "the command gets RUNLIMIT_DEADLINE: the deadline, in seconds since the epoch to the millisecond" {
	local t0 t1
	t0=$(now)
	run "$RUNLIMIT" 30 sh -c 'printf "%s\n" "$RUNLIMIT_DEADLINE"'
	t1=$(now)
	[ "$status" -eq 0 ]
	[[ $output =~ ^[0-9]+\.[0-9][0-9][0-9]$ ]]
	lt "$(awk -v t="$t0" 'BEGIN { printf "%.3f", t + 30 - 0.1 }')" "$output"
	lt "$output" "$(awk -v t="$t1" 'BEGIN { printf "%.3f", t + 30 + 0.1 }')"
	# No limit, none inherited: none passed on.
	run "$RUNLIMIT" 0 sh -c 'printf "%s\n" "${RUNLIMIT_DEADLINE-unset}"'
	[ "$output" = unset ]
}

@test "a nested runlimit 0 keeps the outer deadline, less its reserve, and passes that on" {
	local d
	d=$(at 30)
	run env RUNLIMIT_DEADLINE="$d" "$RUNLIMIT" --report="$F" 0 \
		sh -c 'printf "%s\n" "$RUNLIMIT_DEADLINE"'
	[ "$status" -eq 0 ]
	near "$output" "$(awk -v d="$d" 'BEGIN { printf "%.3f", d - 6 }')" 0.0011
	report_is "$F" "abs(at(d['deadline_inherited']['deadline']) - $d) < 0.0005" \
		'd["deadline_inherited"]["reserve_seconds"] == 6' 'd["deadline_inherited"]["shortened"]'
	# Through a real outer run too.
	run "$RUNLIMIT" 30 "$RUNLIMIT" 0 sh -c 'printf "%s\n" "$RUNLIMIT_DEADLINE"'
	[ "$status" -eq 0 ]
	near "$output" "$(at 24)" 0.5
	# --no-inherit: the outer deadline is still the command's, unchanged; or its own, earlier.
	run env RUNLIMIT_DEADLINE="$d" "$RUNLIMIT" --no-inherit 0 sh -c 'printf "%s\n" "$RUNLIMIT_DEADLINE"'
	[ "$output" = "$d" ]
	run env RUNLIMIT_DEADLINE="$d" "$RUNLIMIT" --no-inherit 10 sh -c 'printf "%s\n" "$RUNLIMIT_DEADLINE"'
	near "$output" "$(at 10)" 0.5
}

@test "an invalid RUNLIMIT_DEADLINE is ignored with a warning naming it, never a failure; an empty one is none" {
	run --separate-stderr env RUNLIMIT_DEADLINE=soon "$RUNLIMIT" --report="$F" 5 \
		sh -c 'printf "%s\n" "$RUNLIMIT_DEADLINE"'
	[ "$status" -eq 0 ]
	[ "$stderr" = "runlimit: ignoring RUNLIMIT_DEADLINE='soon': not a time in seconds since the epoch" ] ||
		[ "$stderr" = "$RUNLIMIT: ignoring RUNLIMIT_DEADLINE='soon': not a time in seconds since the epoch" ]
	near "$output" "$(at 5)" 0.5 # its own deadline replaces it
	report_is "$F" 'd["deadline_inherited"] is None' 'not d["timed_out"]'
	# Nothing of its own to pass on: the bad value is not passed on either.
	run --separate-stderr env RUNLIMIT_DEADLINE=-1 "$RUNLIMIT" 0 sh -c 'printf "%s\n" "${RUNLIMIT_DEADLINE-unset}"'
	[ "$status" -eq 0 ]
	[ "$output" = unset ]
	[[ $stderr == *"ignoring RUNLIMIT_DEADLINE='-1'"* ]]
	run --separate-stderr env RUNLIMIT_DEADLINE= "$RUNLIMIT" 0 sh -c 'printf "%s\n" "${RUNLIMIT_DEADLINE-unset}"'
	[ "$status" -eq 0 ] && [ "$output" = unset ] && [ -z "$stderr" ]
	# --no-inherit does not read it: no warning.
	run --separate-stderr env RUNLIMIT_DEADLINE=soon "$RUNLIMIT" --no-inherit 5 true
	[ "$status" -eq 0 ] && [ -z "$stderr" ]
}

@test "-v says when the inherited deadline shortens the limit, and when it has passed" {
	run --separate-stderr env RUNLIMIT_DEADLINE="$(at 20)" "$RUNLIMIT" -v 60 true
	[ "$status" -eq 0 ]
	[[ $stderr =~ RUNLIMIT_DEADLINE,\ 1[89]\.[0-9]{3}s\ away,\ less\ a\ reserve\ of\ 6\.000s,\ shortens\ the\ time\ limit\ to\ 1[34]\.[0-9]{3}s$ ]]
	# Not without -v, nor when its own limit comes first.
	run --separate-stderr env RUNLIMIT_DEADLINE="$(at 20)" "$RUNLIMIT" 60 true
	[ -z "$stderr" ]
	run --separate-stderr env RUNLIMIT_DEADLINE="$(at 20)" "$RUNLIMIT" -v 5 true
	[ -z "$stderr" ]
	# Less than the reserve left: it times out at once.
	local t0
	t0=$(now)
	run --separate-stderr env RUNLIMIT_DEADLINE="$(at 3)" "$RUNLIMIT" -v --report="$F" 60 sleep 30
	[ "$status" -eq 124 ]
	lt "$(elapsed "$t0")" 2
	[[ $stderr == *"less a reserve of 6.000s, has passed: timing out at once"* ]]
	report_is "$F" 'd["timed_out"]' 'd["deadline_inherited"]["shortened"]'
}

@test "--remaining: the seconds left under RUNLIMIT_DEADLINE, less --reserve; 1 and nothing printed without one" {
	run "$RUNLIMIT" 30 "$RUNLIMIT" --remaining
	[ "$status" -eq 0 ]
	[[ $output =~ ^[0-9]+\.[0-9]$ ]]
	lt 28 "$output" && lt "$output" 30.01
	run "$RUNLIMIT" 30 "$RUNLIMIT" --remaining --reserve=10
	[ "$status" -eq 0 ]
	lt 18 "$output" && lt "$output" 20.01
	# What it prints is a DURATION.
	run "$RUNLIMIT" 30 sh -c '"$1" "$("$1" --remaining)" sh -c "exit 7"' _ "$RUNLIMIT"
	[ "$status" -eq 7 ]
	run --separate-stderr "$RUNLIMIT" --remaining
	[ "$status" -eq 1 ] && [ -z "$output" ] && [ -z "$stderr" ]
	run --separate-stderr env RUNLIMIT_DEADLINE="$(at -1)" "$RUNLIMIT" --remaining
	[ "$status" -eq 1 ] && [ -z "$output" ]
	run --separate-stderr env RUNLIMIT_DEADLINE="$(at 5)" "$RUNLIMIT" --remaining --reserve=6
	[ "$status" -eq 1 ] && [ -z "$output" ]
	run --separate-stderr env RUNLIMIT_DEADLINE=soon "$RUNLIMIT" --remaining
	[ "$status" -eq 1 ] && [ -z "$output" ]
	[[ $stderr == *"ignoring RUNLIMIT_DEADLINE='soon'"* ]]
	run "$RUNLIMIT" --remaining 5
	[ "$status" -eq 125 ]
	run "$RUNLIMIT" --remaining --list
	[ "$status" -eq 125 ]
}

@test "as timeout, RUNLIMIT_DEADLINE is honoured too" {
	ln -s "$RUNLIMIT" "$BATS_TEST_TMPDIR/timeout"
	local t0
	t0=$(now)
	run env RUNLIMIT_DEADLINE="$(at 3)" "$BATS_TEST_TMPDIR/timeout" -k 1 60 sleep 30
	[ "$status" -eq 124 ]
	lt "$(elapsed "$t0")" 2.5
}

@test "--list and --cancel do not read RUNLIMIT_DEADLINE" {
	export RUNLIMIT_DIR=$BATS_TEST_TMPDIR/names
	mkdir -m 700 "$RUNLIMIT_DIR"
	run --separate-stderr env RUNLIMIT_DEADLINE=soon "$RUNLIMIT" --list
	[ "$status" -eq 0 ] && [ -z "$stderr" ]
	run --separate-stderr env RUNLIMIT_DEADLINE=soon "$RUNLIMIT" --cancel=none --marker-ttl=0
	[ "$status" -eq 2 ]
	[[ $stderr != *RUNLIMIT_DEADLINE* ]]
}

@test "a named run: --list --json tells the deadline it took from RUNLIMIT_DEADLINE" {
	export RUNLIMIT_DIR=$BATS_TEST_TMPDIR/names
	mkdir -m 700 "$RUNLIMIT_DIR"
	local d p
	d=$(at 30)
	RUNLIMIT_DEADLINE=$d "$RUNLIMIT" --name=nest 60 sleep 60 </dev/null >/dev/null 2>&1 3>&- &
	p=$!
	wait_until 10 test -S "$RUNLIMIT_DIR/nest.sock"
	run bounded 20 "$RUNLIMIT" --list --json
	bounded 20 "$RUNLIMIT" --cancel=nest
	wait_bg "$p"
	[ "$status" -eq 0 ]
	# 30 s less the reserve, 6 s (the deadline is cut to milliseconds)
	D=$d "$PY" -c 'import calendar, json, os, sys, time
secs, frac = json.loads(sys.argv[1])["deadline"].rstrip("Z").split(".")
t = calendar.timegm(time.strptime(secs, "%Y-%m-%dT%H:%M:%S")) + float("0." + frac)
sys.exit("deadline %.3f, not %s - 6" % (t, os.environ["D"]) if abs(t - float(os.environ["D"]) + 6) > 0.01 else 0)' "$output"
}

@test "the suite itself runs with no inherited deadline (tests/helpers.bash)" {
	run env RUNLIMIT_DEADLINE="$(at 60)" bash -c \
		'BATS_TEST_DIRNAME=$1; . "$1/helpers.bash"; printf "%s\n" "${RUNLIMIT_DEADLINE-unset}"' \
		_ "$BATS_TEST_DIRNAME"
	[ "$output" = unset ]
}
