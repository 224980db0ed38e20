#!/usr/bin/env bats
# Signals (runlimit.1, SIGNALS; docs/design.md, "Signals in"): forwarding to the command's group, SIGALRM as the time-out, the grace
# clock, inherited ignores and masks, odd parents, parent death.

bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	make_dfl_wrapper
	make_sigsnap
	# What can be read here: a process's own ignores and mask, with sigsnap (SIGSNAP_SELF),
	# and another's, the caught signals included, with sigsnap_of (SIGSNAP_OTHER); yes or no.
	local f=$BATS_FILE_TMPDIR/snap
	SIGSNAP_SELF=no SIGSNAP_OTHER=no
	if sh -c 'trap "" USR1; exec "$SIGSNAP"' >"$f" 2>/dev/null &&
		in_mask "$(mask_of SigIgn "$f")" "$(kill -l USR1)" &&
		! in_mask "$(mask_of SigIgn "$f")" "$(kill -l USR2)" &&
		"$TOOLS/block_signals" USR1 "$SIGSNAP" >"$f" 2>/dev/null &&
		in_mask "$(mask_of SigBlk "$f")" "$(kill -l USR1)" &&
		! in_mask "$(mask_of SigBlk "$f")" "$(kill -l USR2)"; then
		SIGSNAP_SELF=yes
	fi
	if sigsnap_of $$ >"$f" 2>/dev/null && [ -n "$(mask_of SigCgt "$f")" ]; then
		SIGSNAP_OTHER=yes
	fi
	export SIGSNAP_SELF SIGSNAP_OTHER
}

teardown() {
	[ -z "${RL_PID:-}" ] || kill -KILL "$RL_PID" 2>/dev/null || true
	# Commands write their pid (= their process group) to "ready": end whatever is left of
	# them, if that pid is still one of this test's commands.
	local p
	if [ -s "$BATS_TEST_TMPDIR/ready" ]; then
		p=$(cat "$BATS_TEST_TMPDIR/ready")
		if ps -ww -o args= -p "$p" 2>/dev/null | grep -qF "$BATS_TEST_TMPDIR"; then
			kill -KILL -- "-$p" "$p" 2>/dev/null || true
		fi
	fi
	kill_named "sg-sleep-$BATS_TEST_NUMBER"
	kill_named "sg-grand-$BATS_TEST_NUMBER"
	kill_named "sg-other-$BATS_TEST_NUMBER"
}

# start_rl ARG...: runlimit ARG... in the background with default INT/QUIT/PIPE; its pid in
# RL_PID, its stdout and stderr in $BATS_TEST_TMPDIR/out and err.
start_rl() {
	"$PY" "$TOOLS/dfl.py" "$RUNLIMIT" "$@" \
		>"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
	RL_PID=$!
}

# ready FILE: wait for the command's ready file; on failure, say what runlimit was doing.
ready() {
	wait_for_file "$1" 20 && return 0
	echo "runlimit $RL_PID: $(ps -o pid= -o stat= -o args= -p "$RL_PID" 2>&1)" >&2
	ps -A -o pid= -o ppid= -o pgid= -o stat= -o args= | awk -v p="$RL_PID" '$2 == p || $3 == p' >&2
	echo "stderr: $(cat "$BATS_TEST_TMPDIR/err" 2>/dev/null)" >&2
	return 1
}

# finish_rl [SECONDS]: wait (bounded) for RL_PID to end; its status in RL_STATUS.
finish_rl() {
	wait_bg "$RL_PID" "${1:-15}" || return 1
	RL_STATUS=$BG_STATUS
	RL_PID=
	echo "runlimit status $RL_STATUS; stderr: $(cat "$BATS_TEST_TMPDIR/err" 2>/dev/null)" >&2
}

# lines_at_least N FILE: FILE has N lines or more.
lines_at_least() { [ "$(wc -l <"$2")" -ge "$1" ]; }

block_signals() { "$TOOLS/block_signals" "$@"; }

# bounded30 CMD...: CMD, killed if it runs for more than 30 s (a hung runlimit must fail
# the test, not hang the suite).
bounded30() { bounded 30 "$@"; }

signum() { kill -l "$1"; }

# needs_sigsnap_self, needs_sigsnap_other: skip unless sigsnap can read a process's own
# dispositions here, or another's (setup_file found out).
needs_sigsnap_self() {
	[ "$SIGSNAP_SELF" = yes ] ||
		skip "cannot read a process's ignored and blocked signals here (no /proc/PID/status, no ps sigignore, no python3)"
}
needs_sigsnap_other() {
	[ "$SIGSNAP_OTHER" = yes ] ||
		skip "cannot read another process's signal dispositions here (no /proc/PID/status, no ps sigignore and sigcatch)"
}

# ---- forwarding ---------------------------------------------------------------------------

# forwarded SIG CODE: the command traps SIG, writes it to a marker and exits CODE.
forwarded() {
	local sig=$1 code=$2 d=$BATS_TEST_TMPDIR
	start_rl 30 sh -c "trap 'echo $sig > \"$d/marker\"; exit $code' $sig
		echo \$\$ > '$d/ready'; while :; do sleep 0.05; done"
	ready "$d/ready"
	kill -"$sig" "$RL_PID"
	finish_rl
	[ "$(cat "$d/marker")" = "$sig" ]
	[ "$RL_STATUS" -eq "$code" ]
}

@test "TERM sent to runlimit reaches the command" { forwarded TERM 41; }
@test "INT sent to runlimit reaches the command" { forwarded INT 42; }
@test "HUP sent to runlimit reaches the command" { forwarded HUP 43; }
@test "QUIT sent to runlimit reaches the command" { forwarded QUIT 44; }
@test "USR1 sent to runlimit reaches the command" { forwarded USR1 45; }
@test "USR2 sent to runlimit reaches the command" { forwarded USR2 46; }
@test "PIPE sent to runlimit reaches the command" { forwarded PIPE 47; }
@test "XFSZ sent to runlimit reaches the command" { forwarded XFSZ 48; }

# Fault signals sent by another process are passed on like any other, and the handler is put
# back each time; a real fault inside runlimit still ends it at once (see the next tests).
faults_forwarded() {
	local sig=$1 d=$BATS_TEST_TMPDIR
	# qemu-user takes the fault signals in its own handler before the guest's; under load it
	# once lost a SIGBUS sent by kill (the release gate).  What runlimit does with them is
	# tested on the native builds.
	[ -z "${RUNLIMIT_EMULATED:-}" ] || skip "runlimit runs under $RUNLIMIT_EMULATED, which handles fault signals itself"
	start_rl 30 sh -c "trap 'echo $sig >> \"$d/marker\"' $sig
		echo \$\$ > '$d/ready'; while :; do sleep 0.05; done"
	ready "$d/ready"
	kill -"$sig" "$RL_PID"
	wait_for_file "$d/marker"
	kill -"$sig" "$RL_PID" # again: the handler must be back
	wait_until 10 lines_at_least 2 "$d/marker" || { echo "second $sig never arrived" >&2; return 1; }
	kill -TERM "$RL_PID"
	finish_rl
	[ "$RL_STATUS" -eq 143 ]
	[ "$(sort -u "$d/marker")" = "$sig" ]
}

@test "SEGV sent to runlimit twice reaches the command twice; runlimit lives on" { faults_forwarded SEGV; }
@test "BUS sent to runlimit twice reaches the command twice; runlimit lives on" { faults_forwarded BUS; }
@test "ILL sent to runlimit twice reaches the command twice; runlimit lives on" { faults_forwarded ILL; }
@test "FPE sent to runlimit twice reaches the command twice; runlimit lives on" { faults_forwarded FPE; }

@test "a genuine fault inside runlimit ends it at once (SIGSEGV), and the command with it" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	[ -z "${ASAN_OPTIONS:-}" ] || skip "the sanitizers report faults themselves"
	local d=$BATS_TEST_TMPDIR ps
	ps=$(private_sleep "sg-sleep-$BATS_TEST_NUMBER")
	RUNLIMIT_TEST_FAULT=1 "$PY" "$TOOLS/dfl.py" "$RUNLIMIT_HOOKS" 30 sh -c \
		"echo \$\$ > '$d/ready'; exec '$ps' 30" >"$d/out" 2>"$d/err" 3>&- &
	RL_PID=$!
	ready "$d/ready"
	kill -USR2 "$RL_PID" # the hook: runlimit writes through a null pointer
	finish_rl 10
	[ "$RL_STATUS" -eq $((128 + $(signum SEGV))) ]
	no_survivors "sg-sleep-$BATS_TEST_NUMBER" 5 # the parent-death signal ends the command
}

@test "a signal that reaches the child between its unblock and exec ends the child, not runlimit" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	local d=$BATS_TEST_TMPDIR code
	# The hook: the child sends itself USR1 after its last unblock, where runlimit's handler
	# still runs; it must act as the default would, in the child (which may share runlimit's
	# memory), so the command never runs and runlimit reports a death by USR1 without dying.
	code=$(RUNLIMIT_TEST_CHILD_SIGNAL=1 bounded30 "$PY" -c '
import subprocess, sys
print(subprocess.run(sys.argv[1:]).returncode)' "$RUNLIMIT_HOOKS" 30 sh -c "echo ran > '$d/ran'")
	echo "runlimit: $code" >&2
	[ "$code" -eq $((128 + $(signum USR1))) ]
	[ ! -e "$d/ran" ]
}

@test "a forwarded signal reaches the whole process group (a background grandchild)" {
	local d=$BATS_TEST_TMPDIR
	start_rl 30 sh -c "
		( trap 'echo USR1 > \"$d/gmarker\"; exit 0' USR1
		  echo \$\$ > '$d/gready'; while :; do sleep 0.05; done ) &
		trap 'wait; exit 5' USR1
		echo \$\$ > '$d/ready'; while :; do sleep 0.05; done"
	ready "$d/ready"
	wait_for_file "$d/gready"
	kill -USR1 "$RL_PID"
	finish_rl
	[ "$RL_STATUS" -eq 5 ]
	[ "$(cat "$d/gmarker")" = USR1 ]
}

@test "-v prints a line for a forwarded signal" {
	local d=$BATS_TEST_TMPDIR
	start_rl -v 30 sh -c "trap 'exit 3' USR1; echo \$\$ > '$d/ready'; while :; do sleep 0.05; done"
	ready "$d/ready"
	kill -USR1 "$RL_PID"
	finish_rl
	[ "$RL_STATUS" -eq 3 ]
	grep -qx "$RUNLIMIT: sending signal USR1 to command 'sh'" "$d/err"
}

@test "SIGALRM from outside counts as the time-out: TERM to the command, status 124" {
	local d=$BATS_TEST_TMPDIR
	start_rl 30 sh -c "trap 'echo TERM > \"$d/marker\"; exit 0' TERM
		echo \$\$ > '$d/ready'; while :; do sleep 0.05; done"
	ready "$d/ready"
	kill -ALRM "$RL_PID"
	finish_rl
	[ "$RL_STATUS" -eq 124 ]
	[ "$(cat "$d/marker")" = TERM ]
}

# ---- the grace clock and KILL -------------------------------------------------------------

@test "a forwarded TERM starts the grace clock even with DURATION 0: KILL, 137" {
	local d=$BATS_TEST_TMPDIR ps t0
	ps=$(private_sleep "sg-sleep-$BATS_TEST_NUMBER")
	start_rl -k 0.5 0 sh -c "trap '' TERM; echo \$\$ > '$d/ready'; '$ps' 10"
	ready "$d/ready"
	t0=$(now)
	kill -TERM "$RL_PID"
	finish_rl 10
	lt "$(elapsed "$t0")" 3
	[ "$RL_STATUS" -eq 137 ]
	no_survivors "sg-sleep-$BATS_TEST_NUMBER" 5
}

@test "KILL escalation reaches a grandchild that ignores TERM" {
	local d=$BATS_TEST_TMPDIR ps t0
	ps=$(private_sleep "sg-grand-$BATS_TEST_NUMBER")
	t0=$(now)
	# sh dies of TERM at the deadline; its child ignores TERM and needs the KILL.
	run -124 "$RUNLIMIT" -k 0.5 1 sh -c "(trap '' TERM; exec '$ps' 30 >/dev/null 2>&1 3>&-) &
		echo \$\$ > '$d/ready'; wait"
	[ -s "$d/ready" ]
	lt "$(elapsed "$t0")" 5
	no_survivors "sg-grand-$BATS_TEST_NUMBER" 3
}

# ---- SIGALRM during a grace: the final KILL now -------------------------------------------

# GNU timeout, once its first signal went out with -k, takes a SIGALRM as the end of the
# grace: the KILL at once.  runlimit does so in whatever grace runs (a limit's, a request's,
# a cancel's, the caller's death's, the leftovers'), as the grace's own end would: the KILL
# to the tree, its reason "grace", kill_needed, the status that KILL gives.  Every grace
# here is far longer than the 3 s runlimit is given after the SIGALRM.

report_is() { "$PY" "$TOOLS/report_is.py" "$@"; }

# sent FILE SIGNAL:REASON...: the report FILE lists these signals, SIGCONT aside, with these
# reasons, in this order.
sent() {
	local f=$1 p want=
	shift
	for p in "$@"; do want="$want('${p%%:*}', '${p#*:}'), "; done
	report_is "$f" "[(s['signal'], s['reason']) for s in d['signals'] if s['signal'] != 'CONT'] == [$want]"
}

# start_rl_term_blocked ARG...: start_rl, with SIGTERM blocked in runlimit's caller, so in the
# command from its first instruction: a time-out's TERM stays pending in it, however late
# it starts (no trap to set before a short limit).
start_rl_term_blocked() {
	"$TOOLS/block_signals" TERM "$PY" "$TOOLS/dfl.py" "$RUNLIMIT" "$@" \
		>"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
	RL_PID=$!
}

# grace_runs [ERR]: wait until runlimit's -v (its stderr: ERR, default $BATS_TEST_TMPDIR/err)
# has said that its first signal went out: the grace runs from then.  (-v speaks as it
# sends, and runlimit takes a signal only after the action that sent it.)
grace_runs() {
	local err=${1:-$BATS_TEST_TMPDIR/err}
	wait_until 20 grep -q "sending signal [A-Z]* to command" "$err" ||
		{ echo "stderr: $(cat "$err")" >&2; return 1; }
}

# alarm_ends_grace: once the grace runs, SIGALRM to runlimit, which must then end within 3 s;
# its status in RL_STATUS, the seconds from the SIGALRM to its end in TOOK.
alarm_ends_grace() {
	local t0
	grace_runs || return 1
	t0=$(now)
	kill -ALRM "$RL_PID"
	finish_rl 6 || return 1
	TOOK=$(elapsed "$t0")
	echo "runlimit ended ${TOOK}s after the SIGALRM" >&2
	lt "$TOOK" 3
}

@test "SIGALRM after a forwarded TERM, in -k's grace: the KILL at once, as GNU timeout's (137); the report a request, then the grace's KILL" {
	local d=$BATS_TEST_TMPDIR ps
	ps=$(private_sleep "sg-sleep-$BATS_TEST_NUMBER")
	start_rl -v -k 30 --report="$d/r.json" 60 sh -c "trap '' TERM; echo \$\$ > '$d/ready'; exec '$ps' 60"
	ready "$d/ready"
	kill -TERM "$RL_PID"
	alarm_ends_grace
	[ "$RL_STATUS" -eq 137 ]
	no_survivors "sg-sleep-$BATS_TEST_NUMBER" 5
	report_is "$d/r.json" 'd["outcome"] == "interrupted"' 'd["kill_needed"]' 'not d["timed_out"]'
	sent "$d/r.json" TERM:forwarded KILL:grace
}

@test "SIGALRM in a time-out's grace (-k 30): the KILL at once, 137" {
	local d=$BATS_TEST_TMPDIR ps
	ps=$(private_sleep "sg-sleep-$BATS_TEST_NUMBER")
	start_rl_term_blocked -v -k 30 --report="$d/r.json" 0.2 "$ps" 60
	alarm_ends_grace
	[ "$RL_STATUS" -eq 137 ]
	no_survivors "sg-sleep-$BATS_TEST_NUMBER" 5
	report_is "$d/r.json" 'd["outcome"] == "killed"' 'd["timed_out_by"] == "deadline"' 'd["kill_needed"]'
	sent "$d/r.json" TERM:deadline KILL:grace
}

@test "SIGALRM in a time-out's default grace (no -k): the KILL at once, and 124 as at the grace's end" {
	local d=$BATS_TEST_TMPDIR ps
	ps=$(private_sleep "sg-sleep-$BATS_TEST_NUMBER")
	start_rl_term_blocked -v --report="$d/r.json" 0.2 "$ps" 60
	alarm_ends_grace
	[ "$RL_STATUS" -eq 124 ]
	no_survivors "sg-sleep-$BATS_TEST_NUMBER" 5
	report_is "$d/r.json" 'd["kill_needed"]' 'd["exit_status"] == 124'
	sent "$d/r.json" TERM:deadline KILL:grace
}

@test "SIGINT then SIGALRM sent back to back (the Python package's kill()): the request, then the KILL at once; 20 runs" {
	local d=$BATS_TEST_TMPDIR i=0 t0 took slowest=0
	while [ "$i" -lt 20 ]; do
		i=$((i + 1))
		rm -f "$d/ready" "$d/r.json"
		start_rl -k 30 --report="$d/r.json" 60 sh -c "trap 'echo INT >>\"$d/log\"' INT
			trap 'echo TERM >>\"$d/log\"' TERM; echo \$\$ > '$d/ready'; while :; do sleep 0.05; done"
		ready "$d/ready"
		t0=$(now)
		# No pause: runlimit takes the signals that came in number order, INT (2) first.
		kill -INT "$RL_PID"
		kill -ALRM "$RL_PID"
		finish_rl 6
		took=$(elapsed "$t0")
		echo "run $i: ended ${took}s after the INT" >&2
		lt "$took" 3
		if lt "$slowest" "$took"; then slowest=$took; fi
		[ "$RL_STATUS" -eq 137 ]
		report_is "$d/r.json" 'd["outcome"] == "interrupted"' 'd["kill_needed"]' 'not d["timed_out"]'
		sent "$d/r.json" INT:forwarded KILL:grace
	done
	echo "slowest of 20: ${slowest}s" >&2
}

@test "SIGALRM while leftovers have their grace (--kill-leftovers -k 30): the KILL at once; the status stays the command's" {
	local d=$BATS_TEST_TMPDIR ps
	ps=$(private_sleep "sg-left-$BATS_TEST_NUMBER")
	start_rl -v -k 30 --kill-leftovers --report="$d/r.json" 60 sh -c "trap '' TERM; '$ps' 300 & exit 3"
	alarm_ends_grace
	[ "$RL_STATUS" -eq 3 ]
	no_survivors "sg-left-$BATS_TEST_NUMBER" 5
	report_is "$d/r.json" 'd["outcome"] == "exited"' 'd["kill_needed"]' 'not d["timed_out"]'
	sent "$d/r.json" TERM:leftovers KILL:grace
}

@test "SIGALRM in a cancel's grace: the KILL at once; the cancel returns" {
	local d=$BATS_TEST_TMPDIR ps cancel
	export RUNLIMIT_DIR=$d/names
	ps=$(private_sleep "sg-sleep-$BATS_TEST_NUMBER")
	start_rl -v -k 30 --name=alrm --report="$d/r.json" 60 sh -c "trap '' TERM; echo \$\$ > '$d/ready'; exec '$ps' 60"
	ready "$d/ready"
	"$RUNLIMIT" --cancel=alrm >"$d/cancel" 2>&1 3>&- &
	cancel=$!
	alarm_ends_grace
	[ "$RL_STATUS" -eq 137 ]
	wait_bg "$cancel" 10
	echo "the cancel: $BG_STATUS, $(cat "$d/cancel")" >&2
	[ "$BG_STATUS" -eq 0 ]
	no_survivors "sg-sleep-$BATS_TEST_NUMBER" 5
	report_is "$d/r.json" 'd["cancelled"]' 'd["kill_needed"]' 'not d["timed_out"]'
	sent "$d/r.json" TERM:cancel KILL:grace
}

@test "SIGALRM in the grace that the caller's death started (--die-with-parent): the KILL at once" {
	local d=$BATS_TEST_TMPDIR ps caller t0
	ps=$(private_sleep "sg-sleep-$BATS_TEST_NUMBER")
	# The caller: runlimit in the background, its pid in $d/rl, then a wait.
	cat >"$d/caller.sh" <<'EOS'
"$1" --die-with-parent -v -k 30 --report="$2/r.json" 60 \
	sh -c 'trap "" TERM; echo $$ >"$0/ready"; exec "$1" 60' "$2" "$3" 2>"$2/err" &
echo $! >"$2/rl"
wait
EOS
	sh "$d/caller.sh" "$RUNLIMIT" "$d" "$ps" 3>&- &
	caller=$!
	ready "$d/ready"
	RL_PID=$(cat "$d/rl")
	kill -KILL "$caller"
	wait "$caller" 2>/dev/null || true
	grace_runs
	t0=$(now)
	kill -ALRM "$RL_PID"
	wait_for_gone "$RL_PID" 6
	echo "runlimit ended $(elapsed "$t0")s after the SIGALRM" >&2
	lt "$(elapsed "$t0")" 3
	RL_PID=
	no_survivors "sg-sleep-$BATS_TEST_NUMBER" 5
	report_is "$d/r.json" 'd["parent_gone"]' 'd["kill_needed"]' 'd["exit_status"] == 137'
	sent "$d/r.json" TERM:parent KILL:grace
}

# ---- inherited dispositions and masks -----------------------------------------------------

# The commands below save their dispositions with sigsnap (helpers.bash) before they go on:
# a child inherits what is ignored and blocked.  Where it cannot read them (setup_file says),
# a test checks all the rest, then skips, saying so.

@test "inherited INT ignore (bash trap '' INT): still caught and forwarded; the command gets INT at its default" {
	local d=$BATS_TEST_TMPDIR ps
	ps=$(private_sleep "sg-sleep-$BATS_TEST_NUMBER")
	bash -c 'trap "" INT; exec "$@"' _ "$RUNLIMIT" -v 30 sh -c \
		"'$SIGSNAP' '$d/status'; echo \$\$ > '$d/ready'; exec '$ps' 30" \
		>"$d/out" 2>"$d/err" 3>&- &
	RL_PID=$!
	ready "$d/ready"
	if [ "$SIGSNAP_OTHER" = yes ]; then
		sigsnap_of "$RL_PID" >"$d/rl"
		in_mask "$(mask_of SigCgt "$d/rl")" "$(signum INT)" # runlimit catches INT
	fi
	kill -INT "$RL_PID"
	finish_rl
	[ "$RL_STATUS" -eq 130 ]   # the command died of it, and so did runlimit
	grep -q 'sending signal INT' "$d/err"
	no_survivors "sg-sleep-$BATS_TEST_NUMBER" 3
	needs_sigsnap_self
	not_in_mask "$(mask_of SigIgn "$d/status")" "$(signum INT)"
	needs_sigsnap_other
}

@test "a shell background job's INT/QUIT ignores: INT is forwarded all the same, QUIT stays ignored" {
	needs_sigsnap_self
	local d=$BATS_TEST_TMPDIR ps
	# Does this shell ignore INT and QUIT in its background jobs (job control off)?
	sh -c '"$1" "$2"' _ "$SIGSNAP" "$d/probe" 3>&- &
	wait "$!"
	in_mask "$(mask_of SigIgn "$d/probe")" "$(signum INT)" &&
		in_mask "$(mask_of SigIgn "$d/probe")" "$(signum QUIT)" ||
		skip "this shell does not ignore INT and QUIT in background jobs"
	ps=$(private_sleep "sg-sleep-$BATS_TEST_NUMBER")
	"$RUNLIMIT" -v 30 sh -c "'$SIGSNAP' '$d/status'; echo \$\$ > '$d/ready'; exec '$ps' 30" \
		>"$d/out" 2>"$d/err" 3>&- &
	RL_PID=$!
	ready "$d/ready"
	if [ "$SIGSNAP_OTHER" = yes ]; then
		sigsnap_of "$RL_PID" >"$d/rl"
		in_mask "$(mask_of SigIgn "$d/rl")" "$(signum QUIT)" # runlimit itself ignores QUIT
	fi
	kill -QUIT "$RL_PID"
	kill -INT "$RL_PID"
	finish_rl
	[ "$RL_STATUS" -eq 130 ]
	not_in_mask "$(mask_of SigIgn "$d/status")" "$(signum INT)"
	in_mask "$(mask_of SigIgn "$d/status")" "$(signum QUIT)"
	[ "$(grep -c 'sending signal QUIT' "$d/err")" -eq 0 ]
	grep -q 'sending signal INT' "$d/err"
	needs_sigsnap_other
}

@test "nohup: HUP is still forwarded, and the command starts with it at its default" {
	local d=$BATS_TEST_TMPDIR ps
	ps=$(private_sleep "sg-sleep-$BATS_TEST_NUMBER")
	# The command sends HUP to runlimit (its parent), which passes it back to the command.
	run -129 --separate-stderr bounded30 nohup "$RUNLIMIT" -v 5 sh -c \
		"'$SIGSNAP' '$d/status'; kill -HUP \$PPID; exec '$ps' 10" </dev/null
	printf '%s\n' "$stderr" | grep -q 'sending signal HUP'
	needs_sigsnap_self
	not_in_mask "$(mask_of SigIgn "$d/status")" "$(signum HUP)"
}

@test "runlimit 1h nohup cmd: the way to keep a command immune to hangups" {
	needs_sigsnap_self
	local d=$BATS_TEST_TMPDIR
	run -0 --separate-stderr bounded30 "$RUNLIMIT" 5 nohup "$SIGSNAP" "$d/status" </dev/null
	in_mask "$(mask_of SigIgn "$d/status")" "$(signum HUP)"
}

@test "inherited TERM and ALRM ignores are not passed on, and the time-out works" {
	local d=$BATS_TEST_TMPDIR t0
	t0=$(now)
	# (4 s: room for python to start and save its snapshot on a loaded machine)
	run -124 bounded30 bash -c 'trap "" TERM ALRM; exec "$@"' _ "$RUNLIMIT" 4 sh -c \
		"'$SIGSNAP' '$d/status'; sleep 60"
	lt "$(elapsed "$t0")" 15
	needs_sigsnap_self
	not_in_mask "$(mask_of SigIgn "$d/status")" "$(signum TERM)"
	not_in_mask "$(mask_of SigIgn "$d/status")" "$(signum ALRM)"
}

@test "-s USR1 inherited as ignored: not ignored in the command, the time-out works" {
	local d=$BATS_TEST_TMPDIR
	run -124 bounded30 bash -c 'trap "" USR1; exec "$@"' _ "$RUNLIMIT" -s USR1 4 sh -c \
		"'$SIGSNAP' '$d/status'; sleep 60"
	needs_sigsnap_self
	not_in_mask "$(mask_of SigIgn "$d/status")" "$(signum USR1)"
}

@test "the inherited signal mask reaches the command, less ALRM and CHLD (as GNU 9.5 and later)" {
	needs_sigsnap_self
	local want got
	# the baseline: INT and USR1 blocked alone, without runlimit
	want=$(block_signals INT,USR1 "$SIGSNAP" | grep SigBlk)
	got=$(bounded30 "$TOOLS/block_signals" INT,USR1,ALRM,CHLD "$RUNLIMIT" 5 "$SIGSNAP" |
		grep SigBlk)
	echo "want $want, got $got" >&2
	in_mask "$(printf '%s\n' "$want" | awk '{ print $2 }')" "$(signum USR1)"
	[ "$got" = "$want" ]
}

@test "with INT, USR1, ALRM, CHLD blocked, the time-out still works (124)" {
	local d=$BATS_TEST_TMPDIR t0
	# The baseline: INT and USR1 blocked, without runlimit (the command gets ALRM and CHLD
	# unblocked).  (sigsnap saves, then sleeps; 4 s leave a loaded machine room to start
	# python and save before the time-out.)
	block_signals INT,USR1 "$SIGSNAP" "$d/want"
	t0=$(now)
	run -124 bounded30 "$TOOLS/block_signals" INT,USR1,ALRM,CHLD "$RUNLIMIT" 4 \
		"$SIGSNAP" "$d/status" 60
	lt "$(elapsed "$t0")" 15
	needs_sigsnap_self
	in_mask "$(mask_of SigBlk "$d/want")" "$(signum USR1)"
	[ "$(mask_of SigBlk "$d/status")" = "$(mask_of SigBlk "$d/want")" ]
}

@test "with TERM blocked (inherited), the time-out escalates to KILL: 137" {
	local t0
	t0=$(now)
	run -137 bounded30 "$TOOLS/block_signals" TERM,ALRM,CHLD "$RUNLIMIT" -k 0.5 0.3 sleep 10
	lt "$(elapsed "$t0")" 5
}

@test "a parent that ignores SIGCHLD: the command's status, and time-outs work" {
	local ign='import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])'
	run -7 bounded30 "$PY" -c "$ign" "$RUNLIMIT" 5 sh -c 'exit 7'
	run -124 bounded30 "$PY" -c "$ign" "$RUNLIMIT" 0.3 sleep 10
	run -0 bounded30 "$PY" -c "$ign" "$RUNLIMIT" 5 sh -c 'sleep 0.2 & wait'
}

@test "an unrelated child already present when runlimit starts does not change the status" {
	local ps
	ps=$(private_sleep "sg-other-$BATS_TEST_NUMBER")
	# One child has exited (a zombie runlimit inherits), one exits while the command runs.
	run -7 bounded30 "$PY" -c 'import os, sys
if os.fork() == 0:
    os._exit(9)
if os.fork() == 0:
    os.execv(sys.argv[1], [sys.argv[1], "0.2"])
os.execv(sys.argv[2], sys.argv[2:])' "$ps" "$RUNLIMIT" 5 sh -c 'sleep 0.6; exit 7'
	run -124 bounded30 "$PY" -c 'import os, sys
if os.fork() == 0:
    os._exit(0)
os.execv(sys.argv[1], sys.argv[1:])' "$RUNLIMIT" 0.3 sleep 10
}

# ---- odd stderr, PID 1, parent death ------------------------------------------------------

@test "-v with stderr a pipe nobody reads: still 124, and no command left running" {
	local ps
	ps=$(private_sleep "sg-sleep-$BATS_TEST_NUMBER")
	# With SIGPIPE at its default (restore_signals) and inherited as ignored.
	run -0 bounded30 "$PY" -c 'import os, subprocess, sys
for restore in (True, False):
    r, w = os.pipe()
    os.close(r)
    p = subprocess.run([sys.argv[1], "-v", "0.2", sys.argv[2], "10"], stderr=w,
                       restore_signals=restore, timeout=20)
    os.close(w)
    print(restore, p.returncode)
    if p.returncode != 124:
        sys.exit(1)' "$RUNLIMIT" "$ps"
	no_survivors "sg-sleep-$BATS_TEST_NUMBER" 5
}

@test "-v with stderr a full pipe nobody reads: the line is dropped, the signal still goes out" {
	# The command fills the caller's pipe, then waits; runlimit's -v line cannot be written.
	# Blocking on it would hold back the TERM for good (issue 31: the bound).
	local ps
	ps=$(private_sleep "sg-full-$BATS_TEST_NUMBER")
	run -0 bounded30 "$PY" -c 'import subprocess, sys, time
for redir in ("2>&1", ">&2"):
    t = time.time()
    p = subprocess.Popen(["sh", "-c", "exec \"$0\" -v -k 0.5 1 sh -c \"head -c 200000 /dev/zero; exec \\\"$1\\\" 30\" \"$1\" " + redir,
                          sys.argv[1], sys.argv[2]], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        rc = p.wait(timeout=15)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = "hung"
    print(redir, rc, round(time.time() - t, 2))
    p.stdout.close()
    if rc != 124:
        sys.exit(1)' "$RUNLIMIT" "$ps"
	no_survivors "sg-full-$BATS_TEST_NUMBER" 5
}

@test "-v into a closed pipe: runlimit's own SIGPIPE is swallowed, never forwarded" {
	local d=$BATS_TEST_TMPDIR
	# The command records every PIPE it gets (its own stderr is not the closed pipe); TERM
	# (forwarded, announced by -v into the closed pipe) ends it after a moment, so a PIPE
	# forwarded after it would be seen.
	run -0 bounded30 "$PY" -c 'import os, signal, subprocess, sys, time
r, w = os.pipe()
os.close(r)
d = sys.argv[2]
p = subprocess.Popen([sys.argv[1], "-v", "20", "sh", "-c",
    "exec 2>/dev/null; trap \"echo PIPE >> %s/pipes\" PIPE; trap \"sleep 0.5; exit 7\" TERM; echo > %s/ready; "
    "while :; do sleep 0.05; done" % (d, d)], stderr=w)
os.close(w)
for _ in range(2000):
    if os.path.exists(d + "/ready"):
        break
    time.sleep(0.01)
p.send_signal(signal.SIGTERM)
print(p.wait(timeout=20))' "$RUNLIMIT" "$d"
	[ "$output" = 7 ]
	[ ! -e "$d/pipes" ]
}

@test "19.4: -v to a stderr past the file-size limit: runlimit's own SIGXFSZ is swallowed, never forwarded" {
	local d=$BATS_TEST_TMPDIR
	# stderr: a file already past RLIMIT_FSIZE (bash counts ulimit -f in KiB), so every -v
	# line fails with EFBIG and raises SIGXFSZ in runlimit.  The command notes every TERM
	# and XFSZ it gets and goes on until the grace's KILL: it must see the deadline's TERM,
	# and no XFSZ at all (its own stderr is elsewhere: it must not raise its own).
	head -c 200000 /dev/zero >"$d/big"
	export d RUNLIMIT
	run bounded30 "$PY" "$TOOLS/dfl.py" /bin/bash -c 'ulimit -f 100 &&
		"$RUNLIMIT" -v -k 1 2 sh -c "exec 2>/dev/null
			trap \"echo TERM >> \$d/got\" TERM
			trap \"echo XFSZ >> \$d/got\" XFSZ
			while :; do sleep 0.05; done" 2>>"$d/big"; echo "status $?"'
	echo "got: $(sort "$d/got" 2>/dev/null | uniq -c); output: $output" >&2
	[ "$output" = "status 137" ]
	grep -qx TERM "$d/got"
	[ "$(grep -c XFSZ "$d/got")" -eq 0 ]
	[ "$(wc -c <"$d/big")" -eq 200000 ]
}

@test "as PID 1 of a new pid namespace: time-out 124, normal exit 0" {
	unshare --pid --fork --mount-proc true 2>/dev/null || skip "unshare --pid does not work here"
	local t0
	t0=$(now)
	run -124 bounded30 unshare --pid --fork --mount-proc "$RUNLIMIT" 0.3 sleep 10
	lt "$(elapsed "$t0")" 5
	run -0 bounded30 unshare --pid --fork --mount-proc "$RUNLIMIT" 5 true
	run -3 bounded30 unshare --pid --fork --mount-proc "$RUNLIMIT" 5 sh -c 'exit 3'
}

@test "runlimit killed outright: the command dies too (parent-death signal)" {
	local ps
	ps=$(private_sleep "sg-sleep-$BATS_TEST_NUMBER")
	start_rl 30 "$ps" 30
	wait_until 10 has_survivors "sg-sleep-$BATS_TEST_NUMBER"
	kill -KILL "$RL_PID"
	finish_rl
	[ "$RL_STATUS" -eq 137 ]
	no_survivors "sg-sleep-$BATS_TEST_NUMBER" 5
}

@test "runlimit killed outright: the command gets the -s signal" {
	local d=$BATS_TEST_TMPDIR
	start_rl -s USR1 30 sh -c "trap 'echo USR1 > \"$d/marker\"; exit 0' USR1
		echo \$\$ > '$d/ready'; while :; do sleep 0.05; done"
	ready "$d/ready"
	kill -KILL "$RL_PID"
	finish_rl
	wait_for_file "$d/marker" 5
	[ "$(cat "$d/marker")" = USR1 ]
}

@test "runlimit waits with no timer slack; the command keeps the caller's" {
	[ -r /proc/self/timerslack_ns ] || skip "no /proc/PID/timerslack_ns (no timer slack to set)"
	want=$(cat /proc/self/timerslack_ns)
	run -0 "$RUNLIMIT" 10 sh -c 'cat /proc/self/timerslack_ns
		cat /proc/$PPID/timerslack_ns 2>/dev/null || echo refused'
	[ "${lines[0]}" = "$want" ]
	# Another process's slack is readable only with CAP_SYS_NICE.
	[ "${lines[1]}" = refused ] && skip "cannot read runlimit's timer slack without CAP_SYS_NICE"
	# A build that waits without setting the slack (poll back end) leaves the caller's.
	[ "${lines[1]}" = "$want" ] && [ "$want" != 1 ] &&
		skip "runlimit keeps its caller's timer slack ($want ns): this build does not set it"
	[ "${lines[1]}" = 1 ]
}

# alarm_while_draining SIG: -s KILL --kill-leftovers, the command gone and a TERM-ignoring
# leftover being given its grace; runlimit is stopped, sent ALRM and SIG, and continued, so
# that where its wait takes the signals that came together in one pass (a self-pipe build)
# it takes both at once.  Its -v lines are then in $BATS_TEST_TMPDIR/err.
alarm_while_draining() {
	local d=$BATS_TEST_TMPDIR ps
	ps=$(private_sleep "sg-left-$BATS_TEST_NUMBER")
	start_rl -v -s KILL -k 30 --kill-leftovers 60 sh -c "trap '' TERM; '$ps' 300 & exit 0"
	wait_until 10 grep -q "sending signal TERM" "$d/err"
	kill -STOP "$RL_PID"
	wait_until 10 is_stopped "$RL_PID"
	kill -ALRM "$RL_PID"
	kill -"$1" "$RL_PID"
	kill -CONT "$RL_PID"
	finish_rl
	no_survivors "sg-left-$BATS_TEST_NUMBER" 5
}

@test "a request taken with the alarm's final KILL is still passed on to the leftovers" {
	# Where each wait takes one signal (ppoll), the lowest first, the run ends at the alarm
	# before a higher one (VTALRM, TERM) is taken: nothing to see.
	alarm_while_draining VTALRM
	grep -q "sending signal VTALRM" "$BATS_TEST_TMPDIR/err" ||
		skip "this build takes one signal per wait: the alarm's KILL ends the run first"
	alarm_while_draining TERM
	[ "$(grep -c "sending signal TERM" "$BATS_TEST_TMPDIR/err")" -eq 2 ]
	grep -A9 "sending signal KILL" "$BATS_TEST_TMPDIR/err" | grep -q "sending signal TERM"
}

@test "a command that stops itself stops runlimit; the deadline continues both, even when runlimit stops after its timer woke" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	# runlimit in a process group of its own, as a job-control shell starts it (a group with a
	# parent in the session: the stop is not discarded).  The test build stops runlimit 1 s
	# late, after its timer's wake at the 0.5 s deadline: that timer's first SIGCONT finds
	# runlimit running, and only one sent again continues it (else it stays stopped for good).
	run "$PY" - "$RUNLIMIT_HOOKS" <<-'EOF'
		import os, signal, subprocess, sys, time
		env = dict(os.environ, RUNLIMIT_TEST_STOP_LATE_MS="1000")
		p = subprocess.Popen([sys.argv[1], "-k", "2", "0.5", "sh", "-c", "kill -TSTP $$; exit 3"],
		                     env=env, preexec_fn=os.setpgrp)
		t0 = time.monotonic()
		stopped = []
		def hung(sig, frame):
		    os.killpg(p.pid, signal.SIGKILL)
		    print("stopped=%s hung" % bool(stopped))
		    sys.exit(1)
		signal.signal(signal.SIGALRM, hung)
		signal.alarm(10)
		while True:
		    pid, st = os.waitpid(p.pid, os.WUNTRACED)
		    if os.WIFSTOPPED(st):
		        stopped.append(time.monotonic() - t0)
		        continue
		    print("stopped=%s status=%d in %.1f s" % (bool(stopped), os.waitstatus_to_exitcode(st),
		                                              time.monotonic() - t0))
		    print("stopped at %.1f s" % stopped[0] if stopped else "never stopped")
		    sys.exit(0)
	EOF
	echo "$output"
	[ "$status" -eq 0 ]
	# The stop lasts only until the timer's next SIGCONT (5 ms): the waiting parent may not
	# see it.  That it came, 1 s late, shows in the time: the deadline is 0.5 s.
	[[ "${lines[0]}" == "stopped="*" status=124 in "* ]]
	"$PY" -c 'import sys; t = float(sys.argv[1]); sys.exit(not (0.9 <= t < 4))' \
		"$(echo "${lines[0]}" | awk '{print $4}')"
}

@test "a caller that ignores SIGCONT: runlimit still learns it was continued, fg resumes the command, which keeps the ignore" {
	# runlimit in a group of its own (a job); the command stops itself, runlimit stops too;
	# a SIGCONT to runlimit's group (what fg sends) must continue the command as well.
	run "$PY" - "$RUNLIMIT" "$PY" <<-'EOF'
		import os, signal, subprocess, sys, time
		signal.signal(signal.SIGCONT, signal.SIG_IGN)  # inherited through exec
		probe = "import signal; print(signal.getsignal(signal.SIGCONT) == signal.SIG_IGN)"
		p = subprocess.Popen([sys.argv[1], "20", "sh", "-c", 'kill -TSTP $$; "$0" -c "$1"; exit 7',
		                      sys.argv[2], probe], preexec_fn=os.setpgrp)
		def hung(sig, frame):
		    os.killpg(p.pid, signal.SIGKILL)
		    print("hung")
		    sys.exit(1)
		signal.signal(signal.SIGALRM, hung)
		signal.alarm(15)
		pid, st = os.waitpid(p.pid, os.WUNTRACED)
		if not os.WIFSTOPPED(st):
		    print("runlimit did not stop: %d" % st)
		    sys.exit(1)
		t0 = time.monotonic()
		os.killpg(p.pid, signal.SIGCONT)
		pid, st = os.waitpid(p.pid, 0)
		print("status=%d in %.1f s" % (os.waitstatus_to_exitcode(st), time.monotonic() - t0))
	EOF
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = True ]
	[[ "${lines[1]}" == "status=7 in "[0-4].* ]]
}
