#!/usr/bin/env bats
# The budgets' cgroup mechanism (issue 35; src/os/linux_cgroup.c), run by make check-vm as
# root in a VM whose cgroup2 root enables every controller below it: the kernel enforces
# --memory and --max-procs in a cgroup of the run's own, cgroup.kill is the final KILL, and
# nothing runlimit made or moved is left.  As a user without delegation --cgroup=required is
# refused; as a user with a delegated subtree the cgroup is used.  Outside the VM the tests
# skip, saying what is missing (make check's own test of the refusal is tests/budget.bats's
# neighbour, tests/cgroup.bats).  No python in the VM: the report is read with grep.

bats_require_minimum_version 1.5.0

RUNLIMIT=${RUNLIMIT:-$BATS_TEST_DIRNAME/../../runlimit}
load ../helpers
# shellcheck disable=SC2034 # the helpers' tools directory, for tests/vm/
TOOLS=$BATS_TEST_DIRNAME/../tools

CG=/sys/fs/cgroup

setup() {
	export D=$BATS_TEST_TMPDIR
	N=c$BATS_TEST_NUMBER-$(($$ % 100000))
	[ "$(id -u)" = 0 ] || skip "needs root, to make and delegate cgroups"
	[ "$(stat -f -c %T "$CG" 2>/dev/null)" = cgroup2fs ] || skip "no cgroup2 at $CG"
	local c
	for c in memory pids; do
		grep -qw "$c" "$CG/cgroup.subtree_control" 2>/dev/null ||
			skip "cgroup2 at $CG does not enable $c below the root (make check-vm does)"
	done
}

teardown_file() {
	unmount_freezer
}

teardown() {
	thaw_freezer
	kill_named "$N-s"
	# What a failed test left in a cgroup of runlimit's (a fork loop): ended, so that the
	# next tests do not run beside it.
	local d
	for d in "$CG"/runlimit-* "$CG"/deleg-*/runlimit-*; do
		[ ! -f "$d/cgroup.kill" ] || echo 1 >"$d/cgroup.kill" 2>/dev/null || true
	done
	[ -z "${DELEG:-}" ] || rmdir "$DELEG" 2>/dev/null || true
}

# no_cgroup_left DIR: no runlimit-* cgroup under DIR (default: the root).
no_cgroup_left() {
	local left
	left=$(find "${1:-$CG}" -maxdepth 3 -type d -name 'runlimit-*' 2>/dev/null)
	[ -z "$left" ] || { echo "left behind: $left" >&2; return 1; }
}

# field FILE NAME: the report's value of NAME ("cgroup", 124, true), quotes removed.
field() { sed -n "s/.*\"$2\":\"\{0,1\}\([^\",}]*\).*/\1/p" "$1"; }

# delegate: a cgroup below the root handed to uid 65534 as systemd's Delegate= would: the
# directory, its cgroup.procs, cgroup.subtree_control and cgroup.threads.  Into DELEG.
delegate() {
	DELEG=$CG/deleg-$N
	mkdir "$DELEG"
	chown 65534:65534 "$DELEG" "$DELEG/cgroup.procs" "$DELEG/cgroup.subtree_control" \
		"$DELEG/cgroup.threads"
}

# no_procs_in DIR: the cgroup DIR holds no process.
no_procs_in() { [ -z "$(cat "$1/cgroup.procs")" ]; }

# in_cgroup DIR PROGRAM [ARG]...: PROGRAM, moved into the cgroup DIR first, alone there.
in_cgroup() {
	local dir=$1
	shift
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$dir" "$@"
}

@test "--memory ends a tree of four 60 MB processes under 150M through the cgroup: 124, an OOM kill reported, nothing left" {
	local s
	s=$(private_sleep "$N-s")
	# dd's buffer is bs bytes, filled from /dev/zero: 60 MB resident while it waits to
	# write into a pipe nobody reads.
	# shellcheck disable=SC2016
	run bounded 60 "$RUNLIMIT" --report="$D/r.json" --memory=150M -k 2 30 sh -c '
		for i in 1 2 3 4; do dd if=/dev/zero bs=60M count=1 2>/dev/null | "$1" 20 & done
		wait' _ "$s"
	[ "$status" -eq 124 ]
	[ "$(field "$D/r.json" mechanism)" = cgroup ]
	[ "$(field "$D/r.json" timed_out_by)" = memory ]
	[ "$(field "$D/r.json" oom_kills)" -ge 1 ]
	no_survivors "$N-s" 10
	no_cgroup_left
}

@test "--memory=150M: a single 60 MB process runs to its end in the cgroup" {
	run bounded 60 "$RUNLIMIT" --report="$D/r.json" --memory=150M 30 sh -c '
		dd if=/dev/zero of=/dev/null bs=60M count=1 2>/dev/null && cat /proc/self/cgroup'
	[ "$status" -eq 0 ]
	[[ "$output" == "0::/runlimit-"* ]]
	[ "$(field "$D/r.json" mechanism)" = cgroup ]
	[ "$(field "$D/r.json" oom_kills)" = 0 ]
	no_cgroup_left
}

@test "--max-procs=50 stops a fork loop through the cgroup (pids.max): 124, nothing left" {
	local s
	s=$(private_sleep "$N-s")
	# shellcheck disable=SC2016
	run bounded 60 "$RUNLIMIT" --report="$D/r.json" --max-procs=50 -k 2 30 sh -c '
		while :; do "$1" 300 & done' _ "$s"
	[ "$status" -eq 124 ]
	[ "$(field "$D/r.json" mechanism)" = cgroup ]
	no_survivors "$N-s" 10
	no_cgroup_left
}

@test "the final KILL is cgroup.kill: a tree forking as fast as it can, TERM ignored, is ended with nothing left" {
	local s
	s=$(private_sleep "$N-s")
	# Four loops each start, as fast as they can, a TERM-ignoring sleep in a session of its
	# own (out of the group); the final KILL is cgroup.kill alone (a hooks build's
	# RUNLIMIT_TEST_CGROUP_KILL_ONLY: no group, no walk), which must end it all.
	# shellcheck disable=SC2016
	# (--max-procs keeps a failure from taking the machine: the loops then go on forking.)
	run bounded 60 env RUNLIMIT_TEST_CGROUP_KILL_ONLY=1 "$RUNLIMIT_HOOKS" --cgroup=required \
		--max-procs=300 -k 0.5 1 sh -c '
		trap "" TERM
		for i in 1 2 3 4; do (while :; do setsid "$1" 300 & done) & done
		wait' _ "$s"
	[ "$status" -eq 137 ]
	no_survivors "$N-s" 10
	no_cgroup_left
}

@test "without a budget no cgroup is made: the command runs in runlimit's own cgroup" {
	run "$RUNLIMIT" 5 cat /proc/self/cgroup
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat /proc/self/cgroup)" ]
}

@test "--cgroup=no keeps the budgets sampled" {
	run "$RUNLIMIT" --report="$D/r.json" --cgroup=no --memory=100M 5 cat /proc/self/cgroup
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat /proc/self/cgroup)" ]
	[ "$(field "$D/r.json" mechanism)" = sampled ]
}

@test "as a user without delegation, --cgroup=required is refused with 125 and the reason; auto samples" {
	needs_other_users
	local pub
	pub=$(public_dir)
	run as_user 65534 "$USER_RL" --cgroup=required --memory=100M 5 true
	[ "$status" -eq 125 ]
	[[ "$output" == *"cannot make a cgroup for the run: "*"Permission denied"* ]]
	run as_user 65534 "$USER_RL" --report="$pub/r.json" --memory=100M 5 true
	[ "$status" -eq 0 ]
	[ "$(field "$pub/r.json" mechanism)" = sampled ]
	rm -rf "$pub"
	other_users_done
	no_cgroup_left
}

@test "as a user with a delegated cgroup, the run's cgroup is made in it, runlimit moved out and back, all undone" {
	needs_other_users
	delegate
	local pub
	pub=$(public_dir)
	run in_cgroup "$DELEG" "$(type -P setpriv)" --reuid=65534 --regid=65534 --clear-groups \
		"$USER_RL" --report="$pub/r.json" --cgroup=required --memory=100M --max-procs=20 5 \
		sh -c 'cat /proc/self/cgroup; cat "$0"/runlimit-*[0-9]/memory.max' "$DELEG"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "0::/deleg-$N/runlimit-"* ]]
	[ "${lines[1]}" = 104857600 ]
	[ "$(field "$pub/r.json" mechanism)" = cgroup ]
	# Undone: no cgroup left, the controllers runlimit enabled disabled again, and the
	# delegated cgroup empty (runlimit went back to it before it ended), so it can go.
	no_cgroup_left "$DELEG"
	[ -z "$(cat "$DELEG/cgroup.subtree_control")" ]
	rmdir "$DELEG"
	DELEG=
	rm -rf "$pub"
	other_users_done
}

@test "a delegated cgroup holding other processes: required refused (they are not runlimit's to move), auto samples" {
	needs_other_users
	delegate
	local s
	s=$(private_sleep "$N-s")
	in_cgroup "$DELEG" "$s" 300 3>&- &
	local other=$!
	wait_until 10 grep -q . "$DELEG/cgroup.procs"
	run in_cgroup "$DELEG" "$(type -P setpriv)" --reuid=65534 --regid=65534 --clear-groups \
		"$USER_RL" --cgroup=required --memory=100M 5 true
	[ "$status" -eq 125 ]
	[[ "$output" == *"holds other processes than runlimit"* ]]
	run in_cgroup "$DELEG" "$(type -P setpriv)" --reuid=65534 --regid=65534 --clear-groups \
		"$USER_RL" --memory=100M 5 cat /proc/self/cgroup
	[ "$status" -eq 0 ]
	[ "$output" = "0::/deleg-$N" ]
	no_cgroup_left "$DELEG"
	[ -z "$(cat "$DELEG/cgroup.subtree_control")" ]
	kill_named "$N-s"
	wait "$other" || true
	wait_until 10 no_procs_in "$DELEG"
	other_users_done
}

@test "leftovers of a command that exited are let be, as without a cgroup, and the cgroup still goes" {
	local s
	s=$(private_sleep "$N-s")
	# shellcheck disable=SC2016
	run bounded 30 "$RUNLIMIT" --memory=100M 10 sh -c '"$1" 300 >/dev/null 2>&1 & echo $!' _ "$s"
	[ "$status" -eq 0 ]
	local left=$output
	has_survivors "$N-s"
	[ "$(cat "/proc/$left/cgroup")" = "$(cat /proc/self/cgroup)" ]
	no_cgroup_left
	kill "$left"
}

@test "a budget's KILL through the cgroup, of a leftover that cannot die: runlimit returns 1 s after the KILL (the settle), names it, and the cgroup still goes" {
	needs_freezer
	local s kill_at wall pid
	s=$(private_sleep "$N-s")
	# A child of the command freezes itself (a stand-in for an uninterruptible wait: it keeps
	# SIGKILL pending); the command then forks past --max-procs.  The budget ends the run:
	# TERM, the grace, cgroup.kill, which the frozen child cannot die of.  Its output goes to
	# files and bats' descriptor 3 is closed: the frozen child holds what it inherited until
	# teardown thaws it, and a pipe's reader (bats' run, bats itself) would wait for it.
	# shellcheck disable=SC2016
	local status=0
	bounded 60 "$RUNLIMIT" --report="$D/r.json" --cgroup=required --max-procs=20 -k 0.5 30 \
		sh -c 'sh -c "$0" &
		i=0; while [ $i -lt 2000 ] && ! grep -q FROZEN "$FREEZER/freezer.state"; do
			"$1" 0.01; i=$((i + 1)); done
		while :; do "$1" 300 & done' "$FREEZE" "$s" >"$D/out" 2>"$D/err" 3>&- || status=$?
	pid=$(head -n 1 "$FREEZER/tasks")
	[ "$status" -eq 124 ]
	[ "$(field "$D/r.json" mechanism)" = cgroup ]
	grep -q "still alive after SIGKILL.*left behind: $pid\$" "$D/err"
	grep -q "\"alive_after_kill\":\[$pid\]" "$D/r.json"
	# the settle, not the settle and the cgroup's own wait of 2 s more after it
	kill_at=$(sed -n 's/.*{"at":\([0-9.]*\),"signal":"KILL".*/\1/p' "$D/r.json")
	wall=$(field "$D/r.json" wall_seconds)
	lt "$wall" "$(awk -v k="$kill_at" 'BEGIN { print k + 2.2 }')" ||
		{ echo "returned $wall s after its start, its KILL at $kill_at s" >&2; return 1; }
	kill -0 "$pid"
	thaw_freezer
	no_survivors "$N-s" 10
	no_cgroup_left
}

@test "runlimit KILLed: the guard ends the run's whole cgroup, what left the group and the session too (issue 61)" {
	local s rl
	s=$(private_sleep "$N-s")
	# shellcheck disable=SC2016
	"$RUNLIMIT" --cgroup=required --max-procs=100 60 sh -c '
		setsid "$1" 300 & "$1" 301 & : >"$D/up"; wait' _ "$s" 3>&- &
	rl=$!
	wait_until 10 test -e "$D/up"
	wait_until 10 count_is "$N-s" 2
	kill -KILL "$rl"
	no_survivors "$N-s" 10
	# the run's cgroup, empty, is left (runlimit, which removes it, is gone): removed here
	local d
	for d in "$CG"/runlimit-*; do [ "$d" = "$CG/runlimit-*" ] || rmdir "$d" 2>/dev/null || true; done
}
