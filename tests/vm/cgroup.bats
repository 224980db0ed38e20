#!/usr/bin/env bats
# Run by make check-vm (scripts/check-vm.sh), as root in a VM whose kernel has cgroup v2 with
# every controller enabled below the root: what the budgets' cgroup path counts on (the
# controllers, the files, a subtree delegated to a user), and the tree's handling on a
# second, real kernel.  Outside that VM (RUNLIMIT_VM unset) a test that needs what the host
# lacks skips, saying what; in the VM it fails instead.  The files of tests/vm/ are not in
# make check's list (scripts/run-bats.sh takes tests/*.bats).

bats_require_minimum_version 1.5.0

RUNLIMIT=${RUNLIMIT:-$BATS_TEST_DIRNAME/../../runlimit}
load ../helpers
load vm
# shellcheck disable=SC2034 # the helpers' tools directory, for tests/vm/
TOOLS=$BATS_TEST_DIRNAME/../tools

setup_file() {
	make_setsid_standin
}

setup() {
	export D=$BATS_TEST_TMPDIR
	N=v$BATS_TEST_NUMBER-$(($$ % 100000))
	TEST_CG=$CG/check-vm-$N
}

teardown() {
	kill_named "$N-s"
	kill_named "$N-d"
	remove_cgroup "$TEST_CG" || true
	other_users_done
}

@test "cgroup v2 is mounted at /sys/fs/cgroup with the memory and pids controllers enabled below the root" {
	needs_controllers memory pids
	[ "$(stat -f -c %T "$CG")" = cgroup2fs ]
	# A cgroup made below the root has the files the budgets use.
	mkdir "$TEST_CG"
	local f
	for f in memory.max memory.peak memory.events pids.max pids.peak cgroup.kill cgroup.events; do
		[ -f "$TEST_CG/$f" ] || { echo "no $f in a new cgroup" >&2; return 1; }
	done
}

@test "a time-out in the VM: runlimit 0.5 sleep 3 exits 124 after about half a second" {
	local t0
	t0=$(now)
	run bounded 30 "$RUNLIMIT" 0.5 sleep 3
	[ "$status" -eq 124 ]
	lt "$(elapsed "$t0")" 2.5
}

@test "a tree with a setsid'd daemon is ended at the time-out, nothing left" {
	local s d
	s=$(private_sleep "$N-s")
	d=$(private_sleep "$N-d")
	# Their output elsewhere: a survivor holding run's pipe would hold up the test.
	# shellcheck disable=SC2016
	run bounded 60 "$RUNLIMIT" -k 2 1 sh -c '"$1" 300 >/dev/null 2>&1 &
		setsid "$2" 300 >/dev/null 2>&1 & wait' _ "$s" "$d"
	[ "$status" -eq 124 ]
	no_survivors "$N-s" 5
	no_survivors "$N-d" 5
}

@test "the kernel enforces a cgroup's memory.max: a process over it is OOM-killed, and memory.events counts it" {
	needs_controllers memory
	command -v python3 >/dev/null || skip "no python3 to fill the memory"
	mkdir "$TEST_CG"
	echo 16M >"$TEST_CG/memory.max"
	echo 0 >"$TEST_CG/memory.swap.max" 2>/dev/null || true
	# 64 MB written: more than the cgroup may hold.
	run in_cgroup "$TEST_CG" python3 -c 'x = b"x" * (64 << 20)'
	[ "$status" -ne 0 ]
	grep -q '^oom_kill [1-9]' "$TEST_CG/memory.events"
}

@test "a subtree delegated to uid 65534: the user makes a cgroup with memory and pids controllers and moves into it" {
	needs_controllers memory pids
	needs_other_users
	delegate_subtree 65534 "$TEST_CG"
	# As the user, started in the delegated leaf: enable the controllers for the subtree,
	# make a cgroup, set its limits and move there.
	# shellcheck disable=SC2016
	run in_cgroup "$TEST_CG/leaf" setpriv --reuid=65534 --regid=65534 --clear-groups sh -c '
		echo "+memory +pids" >"$0/cgroup.subtree_control" &&
		mkdir "$0/run" && echo 64M >"$0/run/memory.max" && echo 20 >"$0/run/pids.max" &&
		echo $$ >"$0/run/cgroup.procs" && cat /proc/self/cgroup' "$TEST_CG"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "0::/${TEST_CG#"$CG"/}/run" ]
	# Outside its subtree the user may not move a process.
	# shellcheck disable=SC2016
	run in_cgroup "$TEST_CG/leaf" setpriv --reuid=65534 --regid=65534 --clear-groups sh -c \
		'echo $$ >"$0/cgroup.procs"' "$CG"
	[ "$status" -ne 0 ]
}

@test "as uid 65534, outside any delegated subtree, runlimit runs and times out (124)" {
	needs_other_users
	run bounded 30 setpriv --reuid=65534 --regid=65534 --clear-groups "$USER_RL" 0.5 sleep 3
	[ "$status" -eq 124 ]
}
