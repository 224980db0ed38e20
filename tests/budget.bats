#!/usr/bin/env bats
# The budgets (--memory, --max-procs, --cpu-time): limits on the whole tree, each handled as
# the deadline when exceeded (124, the report and -v name the budget), measured here by the
# sampled mechanism (the tree read every --budget-interval).  Real processes throughout:
# python children that hold memory or spin, a shell that forks as fast as it can.  The cgroup
# mechanism has tests of its own, where a cgroup can be made.

bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	setup_tree_tests
	# Can this build measure the tree at all?  The portable back end has no process table and
	# refuses the budgets (tested below, as such).
	RL_BUDGETS=no
	if "$RUNLIMIT" --max-procs=1000 10 true 2>/dev/null; then
		RL_BUDGETS=yes
	fi
	export RL_BUDGETS
	echo "# measures the tree for the budgets: $RL_BUDGETS" >&3
}

report_is() { "$PY" "$TOOLS/report_is.py" "$@"; }

setup() {
	export D=$BATS_TEST_TMPDIR
	F=$D/report.json
	N=bu$BATS_TEST_NUMBER-$(($$ % 100000))
}

teardown() {
	kill_named "$N-s"
	kill_named "$N-sh"
}

# needs_budgets: skip unless the budgets can be measured here; fails where the build should
# (expected budgets).
needs_budgets() {
	[ "$RL_BUDGETS" = yes ] && return 0
	if expected budgets; then
		echo "this build should measure the tree for the budgets, but refused them" >&2
		return 1
	fi
	skip "the budgets cannot be measured here (no process table)"
}

# ready_count DIR N: N processes of hog.py hold their memory.
ready_count() { [ "$(ls "$1" | grep -c '^ready\.[0-9]*$')" -ge "$2" ]; }

# ---- memory ---------------------------------------------------------------------------------

@test "--memory: four processes of 60M each are ended under a 150M budget (124, memory)" {
	needs_budgets
	mkdir "$D/h"
	local t0
	t0=$(now)
	run -124 "$RUNLIMIT" -v --report="$F" --memory=150M 60 "$PY" "$TOOLS/hog.py" "$D/h" 4 60 30
	# Ended by the budget, long before their 30 s of sleep or the deadline.
	lt "$(elapsed "$t0")" 25
	report_is "$F" 'd["timed_out_by"] == "memory"' 'd["outcome"] == "timed-out"' \
		'd["budgets"]["mechanism"] == "sampled"' \
		'd["budgets"]["memory_limit_bytes"] == 150 * 1024 * 1024' \
		'd["budgets"]["memory_peak_bytes"] > 150 * 1024 * 1024' \
		'd["budgets"]["procs_peak"] >= 2' 'd["budgets"]["max_procs"] is None' \
		'd["budgets"]["cpu_time_limit_seconds"] is None' \
		'd["budgets"]["cpu_seconds"] > 0' \
		'[s["reason"] for s in d["signals"]][0] == "memory"' \
		'd["tree_at_limit"]["reason"] == "memory"'
	# -v says which budget, by how much, and the signal.
	[[ $output =~ memory\ [0-9.]+[KMG]\ over\ the\ 150M\ budget:\ sending\ signal\ TERM\ to\ command ]]
}

@test "--memory: one process of 60M under the same 150M budget runs to its end" {
	needs_budgets
	mkdir "$D/h"
	run -0 "$RUNLIMIT" --report="$F" --memory=150M 60 "$PY" "$TOOLS/hog.py" "$D/h" 1 60 2
	ready_count "$D/h" 1
	# Its memory was seen, under the budget, all along.
	report_is "$F" 'd["timed_out_by"] is None' 'd["budgets"]["mechanism"] == "sampled"' \
		'60 * 1024 * 1024 < d["budgets"]["memory_peak_bytes"] <= 150 * 1024 * 1024' \
		'd["budgets"]["procs_peak"] == 1'
}

# ---- processes ------------------------------------------------------------------------------

@test "--max-procs=50 stops a fork loop, and nothing of it is left" {
	needs_budgets
	needs_procs 500
	local S t0
	S=$(private_sleep "$N-s")
	t0=$(now)
	# At most 400 sleeps of 20 s, so that a failure cannot exhaust the machine; forked as fast
	# as the shell can.
	run -124 "$RUNLIMIT" -v --report="$F" --max-procs=50 60 sh -c \
		'i=0; while [ $i -lt 400 ]; do "$0" 20 & i=$((i + 1)); done; wait' "$S"
	lt "$(elapsed "$t0")" 15
	no_survivors "$N-s" 10
	report_is "$F" 'd["timed_out_by"] == "procs"' 'd["budgets"]["max_procs"] == 50' \
		'd["budgets"]["procs_peak"] > 50' 'd["left_running"] in (0, None)'
	[[ $output =~ procs\ [0-9]+\ over\ the\ 50\ budget:\ sending\ signal\ TERM\ to\ command\ .*sh ]]
}

@test "--max-procs counts every child of a process with a thousand of them" {
	needs_budgets
	needs_procs 1100
	# A children file of /proc gives a page at most in one read: the measure must read on,
	# and not take a short read for the end (which saw some 700 of the 1,000 here).
	local S t0
	S=$(private_sleep "$N-s")
	t0=$(now)
	run -124 "$RUNLIMIT" --report="$F" --max-procs=900 --budget-interval=0.05 120 sh -c \
		'i=0; while [ $i -lt 1000 ]; do "$0" 60 & i=$((i + 1)); done; wait' "$S"
	report_is "$F" 'd["timed_out_by"] == "procs"' 'd["budgets"]["procs_peak"] > 900'
	lt "$(elapsed "$t0")" 100
	no_survivors "$N-s" 20
}

@test "--max-procs: a tree that stays within it runs to its end" {
	needs_budgets
	run -0 "$RUNLIMIT" --report="$F" --max-procs=5 --budget-interval=0.02 30 \
		sh -c 'sleep 1 & sleep 1 & wait'
	report_is "$F" 'd["timed_out_by"] is None' '2 <= d["budgets"]["procs_peak"] <= 5'
}

@test "--max-procs under a small descriptor limit, after many processes came and went" {
	needs_budgets
	needs_procs 100
	# Where the measure holds each process's files open between measures (Linux), those of
	# the ended must be closed and at most a share of the limit held: 150 short-lived
	# processes first, each seen by a measure or two, would otherwise fill a table of 64
	# descriptors, and the 31 processes after them would go unmeasured.
	local S
	S=$(private_sleep "$N-s")
	run -124 sh -c 'ulimit -n 64 && exec "$0" --report="$1" --max-procs=20 \
		--budget-interval=0.01 60 sh -c "$2" "$3"' "$RUNLIMIT" "$F" \
		'i=0; while [ $i -lt 150 ]; do "$0" 0.02; i=$((i + 1)); done
		i=0; while [ $i -lt 30 ]; do "$0" 20 & i=$((i + 1)); done; wait' "$S"
	report_is "$F" 'd["timed_out_by"] == "procs"' 'd["budgets"]["procs_peak"] > 20'
	no_survivors "$N-s" 10
}

# ---- CPU time -------------------------------------------------------------------------------

@test "--cpu-time=1s ends two busy children after about one CPU second in total (both counted)" {
	needs_budgets
	run -124 "$RUNLIMIT" -v --report="$F" --cpu-time=1s 60 "$PY" "$TOOLS/spin.py" 2 30
	# The tree's CPU time at the end is the budget and what one interval adds (two CPUs
	# busy: 0.2 s); each child alone had used well under the second when they were ended,
	# which only counting both makes happen (the snapshot at the limit says what each used).
	report_is "$F" 'd["timed_out_by"] == "cpu-time"' \
		'd["budgets"]["cpu_time_limit_seconds"] == 1' \
		'1 <= d["budgets"]["cpu_seconds"] < 2' \
		'len([p for p in d["tree_at_limit"]["processes"] if p["ppid"] == d["pid"]]) == 2' \
		'all(p["cpu_seconds"] < 1 for p in d["tree_at_limit"]["processes"])'
	[[ $output =~ cpu-time\ 1\.[0-9]+s\ over\ the\ 1s\ budget:\ sending\ signal\ TERM ]]
}

@test "--cpu-time: the CPU time of children already ended counts (the dead included)" {
	needs_budgets
	# Ten children in turn, each spinning for 0.3 s of CPU and exiting: never more than one
	# alive, and none near the budget alone; together they exceed it.
	run -124 "$RUNLIMIT" --report="$F" --cpu-time=1s 60 sh -c \
		'i=0; while [ $i -lt 10 ]; do "$0" "$1" 1 0.3; i=$((i + 1)); done' "$PY" "$TOOLS/spin.py"
	report_is "$F" 'd["timed_out_by"] == "cpu-time"' 'd["budgets"]["cpu_seconds"] >= 1'
}

@test "--cpu-time: the CPU time of orphans runlimit collected counts too" {
	needs_budgets
	needs_orphan_adoption
	# Ten in turn, each orphaned at once (its subshell exits), spinning for 0.3 s of CPU and
	# collected by runlimit, the reaper of the tree's orphans: their time is runlimit's
	# children's.
	run -124 "$RUNLIMIT" --report="$F" --cpu-time=1s 60 sh -c \
		'i=0; while [ $i -lt 10 ]; do ("$0" "$1" 1 0.3 &); sleep 0.4; i=$((i + 1)); done' \
		"$PY" "$TOOLS/spin.py"
	report_is "$F" 'd["timed_out_by"] == "cpu-time"' 'd["budgets"]["cpu_seconds"] >= 1'
}

@test "--cpu-time=1s: a sleeping tree outlives it" {
	needs_budgets
	local t0
	t0=$(now)
	run -0 "$RUNLIMIT" --report="$F" --cpu-time=1s --budget-interval=0.02 30 \
		sh -c 'sleep 2 & sleep 2 & wait'
	lt 1.9 "$(elapsed "$t0")"
	report_is "$F" 'd["timed_out_by"] is None' 'd["budgets"]["cpu_seconds"] < 1'
}

# ---- with the rest of the run ---------------------------------------------------------------

@test "a budget's end is a limit's: the hook is told the budget, -k's KILL gives 137" {
	needs_budgets
	needs_procs 100
	# The hook says why (RUNLIMIT_REASON); the tree ignores TERM, so -k's KILL ends it.
	run -137 "$RUNLIMIT" --report="$F" -k 0.5 --max-procs=3 \
		--on-timeout='echo "$RUNLIMIT_REASON" > "$D/why"' 30 \
		sh -c 'trap "" TERM; sleep 20 & sleep 20 & sleep 20 & sleep 20 & wait'
	[ "$(cat "$D/why")" = procs ]
	report_is "$F" 'd["timed_out_by"] == "procs"' 'd["kill_needed"]' \
		'd["on_timeout"]["reason"] == "procs"'
}

@test "without a budget the report has no budgets and nothing is measured" {
	run -0 "$RUNLIMIT" --report="$F" 10 true
	report_is "$F" '"budgets" not in d'
}

@test "--cgroup=no keeps the sampled mechanism" {
	needs_budgets
	run -0 "$RUNLIMIT" --report="$F" --cgroup=no --memory=1G 10 true
	report_is "$F" 'd["budgets"]["mechanism"] == "sampled"' \
		'd["budgets"]["memory_limit_bytes"] == 1024 ** 3'
}

@test "without a budget, no periodic wake-up; with one, a measure every interval (strace)" {
	needs_strace
	needs_budgets
	[ -z "${ASAN_OPTIONS:-}" ] || skip "the sanitizers' leak check cannot run under strace"
	# runlimit's own waits (the guard and the command are not traced without -f).
	strace -e trace=ppoll,poll,pselect6,select,epoll_wait,epoll_pwait -o "$D/none" \
		"$RUNLIMIT" 10 sleep 1
	strace -e trace=ppoll,poll,pselect6,select,epoll_wait,epoll_pwait -o "$D/some" \
		"$RUNLIMIT" --max-procs=100 --budget-interval=0.05 10 sleep 1
	local none some
	none=$(grep -c -e 'poll' -e 'select' "$D/none")
	some=$(grep -c -e 'poll' -e 'select' "$D/some")
	echo "waits without a budget: $none; with one every 0.05 s for 1 s: $some"
	[ "$none" -le 3 ]
	[ "$some" -ge 8 ]
}

@test "the budgets where they cannot be measured: refused with 125 and the reason" {
	[ "$RL_BUDGETS" = no ] || skip "this build measures the tree"
	run -125 "$RUNLIMIT" --memory=1G 10 true
	[[ $output == *"budgets cannot be measured here"* ]]
}

# ---- bad values -----------------------------------------------------------------------------

@test "bad budget values: a one-line error naming the value, 125" {
	local arg
	for arg in --memory=0 --memory=12X --memory=-1 --memory=1.5.0G --memory=99999999T \
		--memory= --max-procs=0 --max-procs=-3 --max-procs=1.5 --max-procs=x \
		--max-procs=99999999999999999999 --cpu-time=0 --cpu-time=-1 --cpu-time=abc \
		--budget-interval=0 --budget-interval=0.0001 --budget-interval=x --cgroup=maybe \
		--cgroup=; do
		run -125 "$RUNLIMIT" "$arg" 10 true
		[ "${#lines[@]}" -eq 2 ] || { echo "$arg: $output"; false; }
		[[ ${lines[0]} == *"${arg#*=}"* ]] || { echo "$arg: $output"; false; }
		[[ ${lines[1]} == "Try "* ]] || { echo "$arg: $output"; false; }
	done
}

@test "budget values: the sizes and durations that are accepted" {
	local arg
	for arg in --memory=4096 --memory=64K --memory=64k --memory=1.5G --memory=2GiB \
		--memory=1T --memory=10MB --max-procs=1 --cpu-time=0.5 --cpu-time=2m \
		--budget-interval=0.001 --budget-interval=1 --cgroup=auto --cgroup=no; do
		run "$RUNLIMIT" "$arg" 10 true
		[ "$status" -eq 0 ] || [ "$RL_BUDGETS" = no ] || { echo "$arg: $output"; false; }
	done
}
