#!/usr/bin/env bats
# The tree at the limit and --on-timeout (runlimit.1: RUN REPORT's tree_at_limit, -v,
# --on-timeout; docs/design.md, "The supervisor: phases and events"): when a limit runs out
# (or a request to end comes) the command's tree is described before the first signal; when
# a limit runs out, the hook runs before it, bounded by its own limit, never for a request.
# Limits are made to run out by SIGALRM where a test needs the tree complete first.

bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	setup_tree_tests
	local f=$BATS_FILE_TMPDIR/probe.json
	RL_SNAPSHOT=no RL_HOOK_TAIL=no
	"$RUNLIMIT" --report="$f" 0.2 sleep 5 2>/dev/null || true
	if "$PY" "$TOOLS/report_is.py" "$f" 'd["tree_at_limit"]["processes"]' 2>/dev/null; then
		RL_SNAPSHOT=yes
	fi
	"$RUNLIMIT" --report="$f" --report-tail=1K --on-timeout='echo hook-in-tail >&2' 0.2 \
		sleep 5 2>&1 | cat >/dev/null || true
	if "$PY" "$TOOLS/report_is.py" "$f" '"hook-in-tail" in d["output"]["stderr_tail"]["text"]' \
		2>/dev/null; then
		RL_HOOK_TAIL=yes
	fi
	export RL_SNAPSHOT RL_HOOK_TAIL
	echo "# runlimit under test: describes the tree at a limit: $RL_SNAPSHOT;" \
		"the hook's output reaches the report's tail: $RL_HOOK_TAIL" >&3
}

report_is() { "$PY" "$TOOLS/report_is.py" "$@"; }

setup() {
	D=$BATS_TEST_TMPDIR
	F=$D/report.json
	N=al$BATS_TEST_NUMBER-$(($$ % 100000))
	S=$(private_sleep "$N-s")
}

teardown() {
	kill_named "$N-s"
	[ -z "${RL:-}" ] || kill -KILL "$RL" 2>/dev/null || true
}

# needs_snapshot: skip unless this build describes the tree (a process table to read); fail
# where it should (RUNLIMIT_EXPECT: snapshot).
needs_snapshot() {
	[ "$RL_SNAPSHOT" = yes ] && return 0
	if expected snapshot; then
		echo "this build should describe the tree at a limit, but the probe found it does not" >&2
		return 1
	fi
	skip "runlimit cannot describe the command's tree here (no process table)"
}

# start_tree [OPTION]...: runlimit OPTION... 60 tree3.py in the background (RL), its stderr to
# $D/err, once the tree is complete ($D/pids).
start_tree() {
	"$RUNLIMIT" "$@" --report="$F" 60 "$PY" "$TOOLS/tree3.py" "$D" "$S" 2>"$D/err" 3>&- &
	RL=$!
	wait_for_file "$D/pids" 20
}

@test "the snapshot describes a 3-level tree with a daemon, a stopped process and a zombie, and odd arguments" {
	needs_snapshot
	start_tree
	kill -ALRM "$RL"
	wait_bg "$RL"
	[ "$BG_STATUS" -eq 124 ]
	"$PY" "$TOOLS/atlimit_check.py" "$F" "$D/pids" "$S"
}

@test "-v shows the tree on stderr, nested by parent, with states and elapsed times" {
	needs_snapshot
	start_tree -v
	kill -ALRM "$RL"
	wait_bg "$RL"
	cat "$D/err"
	l1=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["l1"])' "$D/pids")
	l2=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["l2"])' "$D/pids")
	l3=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["l3"])' "$D/pids")
	zb=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["zombie"])' "$D/pids")
	st=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["stopped"])' "$D/pids")
	grep -q "the command's tree at SIGALRM: 6 processes$" "$D/err"
	grep -Eq "^  $l1 [SR] [0-9.]+s  .*tree3\.py " "$D/err"
	grep -Eq "^    $l2 [SR] [0-9.]+s  .*python.* -c " "$D/err"
	grep -Eq "^      $l3 [SR] [0-9.]+s  $S 60$" "$D/err" # (R: just exec'd, on a loaded machine)
	grep -Eq "^    $st T [0-9.]+s  $S 62$" "$D/err"
	grep -Eq "^    $zb Z [0-9.]+s  <defunct>$" "$D/err"
	# Before the first signal.
	[ "$(grep -n "tree at" "$D/err" | cut -d: -f1)" -lt "$(grep -n "sending signal" "$D/err" | head -1 | cut -d: -f1)" ]
}

@test "-v shows at most 20 lines of the tree, then how many more" {
	needs_snapshot
	run -124 "$RUNLIMIT" -v 0.5 sh -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25; do "$0" 30 & done; wait' "$S"
	echo "$output"
	[ "$(printf '%s\n' "$output" | grep -c "^  *[0-9][0-9]* [A-Z] ")" -eq 20 ]
	printf '%s\n' "$output" | grep -q "^  … and 6 more$"
}

@test "a command line is cut: each argument at 256 bytes, all of them at 1 KiB" {
	needs_snapshot
	long=$(printf '%0300d' 0)
	run -124 "$RUNLIMIT" --report="$F" 0.5 "$PY" -c 'import time; time.sleep(30)' "$long" a b \
		"$long" "$long" "$long" "$long" "$long"
	P='d["tree_at_limit"]["processes"][0]["command"]'
	report_is "$F" "$P[3:6] == [\"0\" * 256, \"a\", \"b\"]" "$P[6] == \"0\" * 256" \
		'd["tree_at_limit"]["processes"][0]["command_cut"]' \
		"sum(len(a) + 1 for a in $P) <= 1024" "len($P) == 9 and 0 < len($P[8]) < 256"
	run -124 "$RUNLIMIT" --report="$F" 0.5 "$S" 30
	report_is "$F" 'not d["tree_at_limit"]["processes"][0]["command_cut"]'
}

@test "a process that gave itself a title (setproctitle) is shown by it, as ps shows it" {
	needs_snapshot
	command -v perl >/dev/null || skip "no perl (its \$0 sets the process's title)"
	# A title longer than the arguments runs on over the NUL that ended them: Linux's
	# snapshot, which reads the arguments from the process's memory, must then take them
	# as the kernel gives them (/proc/PID/cmdline) and not cut the title at the old end.
	title="retitled $(printf '%0200d' 0)"
	run -124 "$RUNLIMIT" --report="$F" 0.5 perl -e '$0 = $ARGV[0]; sleep 30' "$title"
	report_is "$F" "d['tree_at_limit']['processes'][0]['command'] == ['$title']"
	run -124 "$RUNLIMIT" --report="$F" 0.5 perl -e '$0 = "short"; sleep 30'
	report_is "$F" "d['tree_at_limit']['processes'][0]['command'] == ['short']"
}

@test "past the cap the processes are counted, not described (a test build's cap of 3)" {
	needs_snapshot
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	RUNLIMIT_TEST_SNAP_MAX=3 run -124 "$RUNLIMIT_HOOKS" --report="$F" 0.5 \
		sh -c '"$0" 30 & "$0" 30 & "$0" 30 & "$0" 30 & "$0" 30 & wait' "$S"
	report_is "$F" 'len(d["tree_at_limit"]["processes"]) == 3' 'd["tree_at_limit"]["omitted"] == 3'
}

@test "a process that ends between the walk and its description is left out, never a failure" {
	needs_snapshot
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	# The test build KILLs the process whose pid is in the file just before it is described,
	# and waits for its parent (sh, in wait) to reap it.
	RUNLIMIT_TEST_SNAP_VANISH=$D/victim run -124 "$RUNLIMIT_HOOKS" --report="$F" 1 \
		sh -c '"$0" 30 & echo $! >"$1.tmp"; mv "$1.tmp" "$1"; "$0" 30 & wait' "$S" "$D/victim"
	local victim
	victim=$(cat "$D/victim")
	report_is "$F" 'd["outcome"] == "timed-out"' 'd["tree_at_limit"]["omitted"] == 0' \
		"$victim not in [p['pid'] for p in d['tree_at_limit']['processes']]" \
		'len(d["tree_at_limit"]["processes"]) == 2'
}

@test "more than 1,000 processes: 1,000 are described and the rest counted" {
	needs_snapshot
	needs_procs 1100
	"$RUNLIMIT" -k 10 --report="$F" 120 sh -c 'i=0; while [ $i -lt 1004 ]; do "$0" 120 & i=$((i + 1)); done; echo ready >"$1"; wait' "$S" "$D/ready" 3>&- &
	RL=$!
	wait_for_file "$D/ready" 60
	wait_until 30 count_is "$N-s" 1004
	kill -ALRM "$RL"
	wait_bg "$RL" 60
	[ "$BG_STATUS" -eq 124 ]
	report_is "$F" 'len(d["tree_at_limit"]["processes"]) == 1000' 'd["tree_at_limit"]["omitted"] == 5'
	no_survivors "$N-s" 20
}

@test "where the tree cannot be described the report says so" {
	[ "$RL_SNAPSHOT" = no ] || skip "this build describes the tree (the test above)"
	run -124 "$RUNLIMIT" --report="$F" 0.2 "$S" 5
	report_is "$F" 'd["tree_at_limit"]["processes"] is None' 'd["tree_at_limit"]["unavailable"]' \
		'd["tree_at_limit"]["reason"] == "deadline"'
}

@test "no limit ran out and no request came: tree_at_limit and on_timeout are null" {
	run -0 "$RUNLIMIT" --report="$F" --on-timeout='touch "$0"' 5 true
	report_is "$F" 'd["tree_at_limit"] is None' 'd["on_timeout"] is None'
}

# past T0 SECONDS: true once SECONDS have passed since T0 (now's).
past() { ! lt "$(elapsed "$1")" "$2"; }

@test "at the deadline the tree is read ahead of it, and the report says when (a test build's lead of 1 s)" {
	needs_snapshot
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	RUNLIMIT_TEST_SNAP_LEAD_MS=1000 run -124 "$RUNLIMIT_HOOKS" --report="$F" 3 "$S" 60
	report_is "$F" 'd["tree_at_limit"]["reason"] == "deadline"' \
		'1.9 <= d["tree_at_limit"]["at"] < 2.9' "d['tree_at_limit']['processes'][0]['command'] == ['$S', '60']"
}

@test "with --on-timeout the tree is read when the limit runs out, not ahead: the hook sees it as the limit finds it" {
	needs_snapshot
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	RUNLIMIT_TEST_SNAP_LEAD_MS=1000 run -124 "$RUNLIMIT_HOOKS" --on-timeout=true --report="$F" 3 "$S" 60
	report_is "$F" 'd["tree_at_limit"]["at"] >= 2.95'
}

@test "a command that ends between the reading ahead and the deadline: its own status, and no tree_at_limit" {
	needs_snapshot
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	# Read ahead at 2 s, the command's end at 4, the deadline at 6.
	RUNLIMIT_TEST_SNAP_LEAD_MS=4000 run -0 "$RUNLIMIT_HOOKS" -v --report="$F" 6 "$S" 4
	report_is "$F" 'd["tree_at_limit"] is None' 'd["outcome"] != "timed-out"'
	[[ "$output" != *"tree at"* ]]
}

@test "the no-output limit: the tree is read ahead of it, and again once output came meanwhile (a test build's lead of 2 s)" {
	needs_snapshot
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	# Silence would end at 4 s: read ahead at 2.  Output at 3 moves the end to 7: read ahead
	# again at 5, when the command has become $S, and the limit runs out at 7.
	RUNLIMIT_TEST_SNAP_LEAD_MS=2000 run -124 "$RUNLIMIT_HOOKS" --report="$F" \
		--no-output-timeout=4 60 sh -c 'sleep 3; echo out; exec "$0" 60' "$S"
	[ "$output" = out ]
	report_is "$F" 'd["tree_at_limit"]["reason"] == "no-output"' \
		'4.9 <= d["tree_at_limit"]["at"] < 6.9' "d['tree_at_limit']['processes'][0]['command'] == ['$S', '60']"
}

@test "a command that ends after the tree was read ahead: a SIGALRM while its leftovers have the grace ends it, and describes no tree" {
	needs_snapshot
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	# Read ahead at 3 s (a lead of 2 s before the deadline of 5), sh's end at 3.5 leaves $S
	# (TERM ignored) with the grace; SIGALRM then, before the deadline.  Once the first
	# signal went out a SIGALRM is the grace's end, not a limit (runlimit.1, SIGNALS): the
	# KILL at once, the command's status, and no tree at a limit, least of all the reading
	# ahead, of a command gone.
	RUNLIMIT_TEST_SNAP_LEAD_MS=2000 "$RUNLIMIT_HOOKS" --kill-leftovers -k 20 --report="$F" 5 \
		sh -c 'echo $$ >"$1.tmp"; mv "$1.tmp" "$1"; (trap "" TERM; exec "$0" 60) & sleep 3.5' \
		"$S" "$D/sh" 2>"$D/err" 3>&- &
	RL=$!
	wait_for_file "$D/sh" 10
	local sh
	sh=$(cat "$D/sh")
	reaped() { ! kill -0 "$1" 2>/dev/null; }
	wait_until 10 reaped "$sh"
	local t0
	t0=$(now)
	kill -ALRM "$RL"
	wait_bg "$RL" 30
	lt "$(elapsed "$t0")" 3
	[ "$BG_STATUS" -eq 0 ]
	report_is "$F" 'd["tree_at_limit"] is None' 'not d["timed_out"]' 'd["kill_needed"]'
	no_survivors "$N-s" 5
}

@test "a reading ahead that is stale when the deadline passes (runlimit was stopped meanwhile) is read again" {
	needs_snapshot
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	mkfifo "$D/go"
	# Read ahead at 2 s (sh waits on the fifo); runlimit is stopped at 2.4 s, the command
	# becomes $S meanwhile, and runlimit is let go at 4.2 s, past the deadline of 3 s: the
	# reading ahead is 1.8 s old or more, past the lead and its slack (1.5 s).
	local t0
	t0=$(now)
	RUNLIMIT_TEST_SNAP_LEAD_MS=1000 "$RUNLIMIT_HOOKS" --report="$F" 3 \
		sh -c 'read -r x <"$1"; exec "$0" 60' "$S" "$D/go" 3>&- &
	RL=$!
	wait_until 10 past "$t0" 2.4
	kill -STOP "$RL"
	echo go >"$D/go"
	wait_until 10 count_is "$N-s" 1
	wait_until 10 past "$t0" 4.2
	kill -CONT "$RL"
	wait_bg "$RL"
	[ "$BG_STATUS" -eq 124 ]
	report_is "$F" "d['tree_at_limit']['processes'][0]['command'] == ['$S', '60']" \
		'd["tree_at_limit"]["at"] >= 3.0'
}

@test "--on-timeout runs before the first signal and sees the live tree, with its environment" {
	run -124 "$RUNLIMIT" --name="$N" --report="$F" --on-timeout='
		ps -o pid= -o stat= -p "$RUNLIMIT_PID" >"'"$D"'/ps"
		env | grep "^RUNLIMIT_" | sort >"'"$D"'/env"' 0.5 sh -c '"$0" 30 & wait' "$S"
	cat "$D/ps" "$D/env"
	pid=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$F")
	# Alive, not a zombie, when the hook looked: no signal had gone out yet.
	awk -v p="$pid" '$1 == p && $2 !~ /^Z/ { ok = 1 } END { exit !ok }' "$D/ps"
	grep -qx "RUNLIMIT_PID=$pid" "$D/env"
	grep -qx "RUNLIMIT_REASON=deadline" "$D/env"
	grep -qx "RUNLIMIT_NAME=$N" "$D/env"
	grep -Eqx "RUNLIMIT_PGID=[0-9]+" "$D/env"
	grep -q "^RUNLIMIT_PIDS=" "$D/env"
	if [ "$RL_SNAPSHOT" = yes ]; then
		pids=$(sed -n 's/^RUNLIMIT_PIDS=//p' "$D/env")
		case " $pids " in *" $pid "*) ;; *) false ;; esac
		[ "$(echo "$pids" | wc -w)" -eq 2 ]
	fi
	report_is "$F" 'd["on_timeout"]["exit_status"] == 0' 'd["on_timeout"]["killed"] is None' \
		'd["on_timeout"]["reason"] == "deadline"' \
		'd["on_timeout"]["at"] + d["on_timeout"]["seconds"] <= d["signals"][0]["at"]'
}

@test "--on-timeout's output goes to stderr, and into the report's tail where stderr is relayed" {
	run -124 --separate-stderr "$RUNLIMIT" --on-timeout='echo hook-out; echo hook-err >&2' 0.3 "$S" 30
	[ -z "$output" ]
	printf '%s\n' "$stderr" | grep -qx hook-out
	printf '%s\n' "$stderr" | grep -qx hook-err
	if [ "$RL_HOOK_TAIL" = no ]; then
		expected hooktail && { echo "the hook's output should reach the tail" >&2; return 1; }
		skip "the hook's output reached stderr; this system cannot put it in the tail (no reopen of a pipe)"
	fi
	"$RUNLIMIT" --report="$F" --report-tail=1K --on-timeout='echo hook-out >&2' 0.3 \
		sh -c 'echo before >&2; exec "$0" 30' "$S" 2>&1 | cat >"$D/err"
	grep -qx hook-out "$D/err"
	report_is "$F" 'd["output"]["stderr_tail"]["text"] == "before\nhook-out\n"'
}

@test "a hook that hangs is KILLed at --on-timeout-limit with what it started, and the run ends within the bound" {
	t0=$(now)
	run -124 "$RUNLIMIT" -k 1 --report="$F" --on-timeout-limit=0.5 \
		--on-timeout='"'"$S"'" 60 & echo $! >"'"$D"'/child"; "'"$S"'" 60' 0.5 "$S" 30
	took=$(elapsed "$t0")
	echo "took $took"
	lt "$took" 6 # 0.5 + 0.5 + 1, and room for a loaded machine
	report_is "$F" 'd["on_timeout"]["killed"] == "limit"' 'd["on_timeout"]["signal"] == "KILL"' \
		'0.5 <= d["on_timeout"]["seconds"] < 3' 'd["on_timeout"]["exit_status"] is None' \
		'd["signals"][0]["at"] >= d["on_timeout"]["at"] + 0.5'
	wait_for_gone "$(cat "$D/child")" 5
	no_survivors "$N-s"
}

@test "a hook that exits while runlimit is collecting its children leaves nothing in its group (a test build collects late)" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	# The command ends while the hook runs; the hook waits for that end, leaves a sleep in its
	# group and exits while runlimit, woken by the command's end, is late to collect it.  With
	# no subreaper, only the KILL of the hook's group ends that sleep.
	RUNLIMIT_TEST_NO_SUBREAPER=1 RUNLIMIT_TEST_COLLECT_LATE_MS=1000 run -124 "$RUNLIMIT_HOOKS" \
		--report="$F" --on-timeout-limit=8 --on-timeout='touch "'"$D"'/hook"
			while kill -0 "$RUNLIMIT_PID" 2>/dev/null &&
				[ "$(ps -o stat= -p "$RUNLIMIT_PID" | cut -c1)" != Z ]; do sleep 0.01; done
			"'"$S"'" 60 >/dev/null 2>&1 & echo $! >"'"$D"'/child"' \
		0.5 sh -c 'until [ -e "$1" ]; do sleep 0.01; done; exit 3' sh "$D/hook"
	echo "status $status: $output"
	wait_for_file "$D/child"
	wait_for_gone "$(cat "$D/child")" 5
	report_is "$F" 'd["on_timeout"]["exit_status"] == 0'
}

@test "a hook that fails is reported and changes nothing else" {
	run -124 "$RUNLIMIT" --report="$D/with.json" --on-timeout='exit 7' 0.3 "$S" 30
	run -124 "$RUNLIMIT" --report="$D/without.json" 0.3 "$S" 30
	report_is "$D/with.json" 'd["on_timeout"]["exit_status"] == 7' 'd["on_timeout"]["killed"] is None' \
		'd["outcome"] == "timed-out"' 'd["timed_out_by"] == "deadline"'
	"$PY" -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
keys = ("outcome", "exit_status", "timed_out", "timed_out_by", "kill_needed", "command_signal", "left_running")
assert [a[k] for k in keys] == [b[k] for k in keys], (a, b)
assert [(s["signal"], s["target"], s["reason"]) for s in a["signals"]] == \
       [(s["signal"], s["target"], s["reason"]) for s in b["signals"]], (a, b)' "$D/with.json" "$D/without.json"
}

@test "a TERM sent to runlimit takes the snapshot but does not run the hook" {
	"$RUNLIMIT" --report="$F" --on-timeout='touch "'"$D"'/ran"' 60 sh -c 'echo $$ >"$1"; exec "$0" 30' "$S" "$D/up" 3>&- &
	RL=$!
	wait_for_file "$D/up"
	kill -TERM "$RL"
	wait_bg "$RL"
	[ "$BG_STATUS" -eq 143 ]
	[ ! -e "$D/ran" ]
	report_is "$F" 'd["on_timeout"] is None' 'd["tree_at_limit"]["reason"] == "forwarded"'
	[ "$RL_SNAPSHOT" = no ] || report_is "$F" 'len(d["tree_at_limit"]["processes"]) == 1'
}

@test "a --cancel does not run the hook" {
	"$RUNLIMIT" --name="$N" --report="$F" --on-timeout='touch "'"$D"'/ran"' 60 sh -c 'echo $$ >"$1"; exec "$0" 30' "$S" "$D/up" 3>&- &
	RL=$!
	wait_for_file "$D/up"
	run -0 "$RUNLIMIT" --cancel="$N"
	wait_bg "$RL"
	[ ! -e "$D/ran" ]
	report_is "$F" 'd["on_timeout"] is None' 'd["cancelled"]' 'd["tree_at_limit"]["reason"] == "cancel"'
}

@test "a TERM while the hook runs KILLs the hook and ends the run at once" {
	"$RUNLIMIT" -k 1 --report="$F" --on-timeout='echo $$ >"'"$D"'/hook"; exec "'"$S"'" 60' 0.3 "$S" 30 3>&- &
	RL=$!
	wait_for_file "$D/hook"
	t0=$(now)
	kill -TERM "$RL"
	wait_bg "$RL"
	lt "$(elapsed "$t0")" 3
	report_is "$F" 'd["on_timeout"]["killed"] == "request"' 'd["timed_out"]' \
		'[s["reason"] for s in d["signals"]][:1] == ["forwarded"]'
	wait_for_gone "$(cat "$D/hook")" 5
	no_survivors "$N-s"
}

@test "under an inherited deadline the default reserve holds the hook's limit too" {
	deadline=$(($(date +%s) + 60)).000
	RUNLIMIT_DEADLINE=$deadline run -0 --separate-stderr "$RUNLIMIT" -v -k 1 --report="$F" \
		--on-timeout=true --on-timeout-limit=2 600 true
	echo "$stderr"
	report_is "$F" 'd["deadline_inherited"]["reserve_seconds"] == 4'
	RUNLIMIT_DEADLINE=$deadline run -0 "$RUNLIMIT" -k 1 --report="$F" 600 true
	report_is "$F" 'd["deadline_inherited"]["reserve_seconds"] == 2'
}
