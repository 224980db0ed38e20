# Shared by the tests of tests/vm/ (after tests/helpers.bash): what make check-vm's VM has
# (scripts/check-vm.sh: cgroup v2 at /sys/fs/cgroup, every controller enabled below the
# root, the tests run as root in the root cgroup, RUNLIMIT_VM=1) and how a test sets up the
# cgroups it needs there.  Outside the VM a test that needs what the host lacks skips,
# saying what; in the VM it fails instead.
# shellcheck shell=bash

CG=/sys/fs/cgroup

# in_vm: this is check-vm's VM, where what the tests need is there by construction.
in_vm() { [ "${RUNLIMIT_VM:-}" = 1 ]; }

# needs_controllers NAME...: the cgroup2 root enables each controller NAME for the cgroups
# below it, and this is root (who may make cgroups there).
needs_controllers() {
	local c missing=
	for c in "$@"; do
		grep -qw "$c" "$CG/cgroup.subtree_control" 2>/dev/null || missing="$missing $c"
	done
	if [ -n "$missing" ]; then
		in_vm && { echo "the VM's cgroup2 root does not enable:$missing" >&2; return 1; }
		skip "cgroup2 at $CG does not enable$missing below the root (make check-vm has them)"
	fi
	[ "$(id -u)" = 0 ] && [ -w "$CG/cgroup.procs" ] && return 0
	in_vm && { echo "the VM's tests should run as root in the root cgroup" >&2; return 1; }
	skip "needs root, to make cgroups below $CG"
}

# delegate_subtree UID DIR: make cgroup DIR (under $CG) a subtree delegated to UID, as a
# service manager delegates one (cgroup v2's "Delegation Containment"): DIR and its
# cgroup.procs, cgroup.threads and cgroup.subtree_control owned by UID, with a leaf,
# DIR/leaf, to start the user's processes in (DIR itself may then enable controllers for
# its children).  The user may make cgroups below DIR, enable the controllers DIR has, and
# move its processes between them.  remove_cgroup DIR removes it all again.
delegate_subtree() {
	local uid=$1 dir=$2
	mkdir "$dir" "$dir/leaf"
	chown "$uid:$uid" "$dir" "$dir/cgroup.procs" "$dir/cgroup.threads" \
		"$dir/cgroup.subtree_control" "$dir/leaf" "$dir/leaf/cgroup.procs" \
		"$dir/leaf/cgroup.threads"
}

# in_cgroup DIR PROGRAM [ARG]...: PROGRAM started in cgroup DIR (by root).
in_cgroup() {
	local dir=$1
	shift
	# shellcheck disable=SC2016
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$dir" "$@"
}

# remove_cgroup DIR: DIR and the cgroups below it, deepest first, once their processes are
# gone (cgroup.kill, where the kernel has it, ends them; then a bounded wait).
remove_cgroup() {
	local dir=$1
	[ -d "$dir" ] || return 0
	[ ! -w "$dir/cgroup.kill" ] || echo 1 >"$dir/cgroup.kill"
	wait_until 10 cgroup_empty "$dir" || true
	find "$dir" -depth -type d -exec rmdir {} \; 2>/dev/null || true
	[ ! -d "$dir" ]
}

# cgroup_empty DIR: no process is in DIR or below it.
cgroup_empty() { grep -q '^populated 0$' "$1/cgroup.events"; }
