#!/usr/bin/env bats
# Run by make check-vm (scripts/check-vm.sh), as root in a VM whose kernel has cgroup v2 with
# every controller enabled below the root: what the budgets' cgroup path counts on, and the
# tree's handling on a second, real kernel.  Outside that VM (RUNLIMIT_VM unset) a test that
# needs what the host lacks skips, saying what; in the VM it fails instead.  The files of
# tests/vm/ are not in make check's list (scripts/run-bats.sh takes tests/*.bats).

bats_require_minimum_version 1.5.0

RUNLIMIT=${RUNLIMIT:-$BATS_TEST_DIRNAME/../../runlimit}
load ../helpers
# shellcheck disable=SC2034 # the helpers' tools directory, for tests/vm/
TOOLS=$BATS_TEST_DIRNAME/../tools

setup_file() {
	make_setsid_standin
}

setup() {
	export D=$BATS_TEST_TMPDIR
	N=v$BATS_TEST_NUMBER-$(($$ % 100000))
}

teardown() {
	kill_named "$N-s"
	kill_named "$N-d"
}

CG=/sys/fs/cgroup

# in_vm: this is check-vm's VM, where what the tests need is there by construction.
in_vm() { [ "${RUNLIMIT_VM:-}" = 1 ]; }

# needs_controllers NAME...: the cgroup2 root enables each controller NAME for the cgroups
# below it; skip where it does not, fail in the VM.
needs_controllers() {
	local c missing=
	for c in "$@"; do
		grep -qw "$c" "$CG/cgroup.subtree_control" 2>/dev/null || missing="$missing $c"
	done
	[ -n "$missing" ] || return 0
	if in_vm; then
		echo "the VM's cgroup2 root does not enable:$missing" >&2
		return 1
	fi
	skip "cgroup2 at $CG does not enable$missing below the root (make check-vm has them)"
}

@test "cgroup v2 is mounted at /sys/fs/cgroup with the memory and pids controllers enabled below the root" {
	needs_controllers memory pids
	[ "$(stat -f -c %T "$CG")" = cgroup2fs ]
	# A cgroup made below the root has the files the budgets use.
	local cg=$CG/check-vm-$$
	mkdir "$cg"
	local have=0
	[ -f "$cg/memory.max" ] && [ -f "$cg/pids.max" ] && [ -f "$cg/memory.events" ] &&
		[ -f "$cg/cgroup.kill" ] && [ -f "$cg/cgroup.events" ] && have=1
	rmdir "$cg"
	[ "$have" = 1 ]
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
	# shellcheck disable=SC2016
	run bounded 60 "$RUNLIMIT" -k 2 1 sh -c '"$1" 300 & setsid "$2" 300 & wait' _ "$s" "$d"
	[ "$status" -eq 124 ]
	no_survivors "$N-s" 5
	no_survivors "$N-d" 5
}
