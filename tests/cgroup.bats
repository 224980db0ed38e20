#!/usr/bin/env bats
# --cgroup (issue 35): the budgets' cgroup mechanism where this machine allows one, and the
# refusal or the fallback where it does not.  Which it is depends on the machine (cgroup v2,
# its controllers, root or a delegated subtree), so each test asks runlimit first and checks
# what follows from its answer; the cases that need a cgroup2 hierarchy with the memory and
# pids controllers are tests/vm/budget-cgroup.bats, in make check-vm's VM.

bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	make_dfl_wrapper # PY
}

report_is() { "$PY" "$TOOLS/report_is.py" "$@"; }

setup() {
	export D=$BATS_TEST_TMPDIR
	F=$D/report.json
}

# v2_dir: the directory of this shell's cgroup v2, or nothing (no /proc, no cgroup2).
v2_dir() {
	local path mnt
	path=$(sed -n 's/^0:://p' /proc/self/cgroup 2>/dev/null) || return 0
	[ -n "$path" ] || return 0
	mnt=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo 2>/dev/null)
	[ -n "$mnt" ] || return 0
	printf '%s%s\n' "${mnt%/}" "${path%/}"
}

@test "--cgroup=required with --memory: the run's cgroup, or 125 and one line saying why; auto then samples" {
	# A refused run says only why: RUNLIMIT_DEADLINE, not a time, is not even read (its
	# warning would be a second line).
	run env RUNLIMIT_DEADLINE=garbage "$RUNLIMIT" --report="$F" --cgroup=required --memory=100M 5 true
	if [ "$status" -eq 0 ]; then
		report_is "$F" 'd["budgets"]["mechanism"] == "cgroup"' 'd["budgets"]["oom_kills"] == 0'
		run "$RUNLIMIT" --report="$F" --memory=100M 5 true
		[ "$status" -eq 0 ]
		report_is "$F" 'd["budgets"]["mechanism"] == "cgroup"'
		return
	fi
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *": cannot make a cgroup for the run: "?* ]]
	# Where the controllers are missing (as on a host that keeps memory on cgroup v1), the
	# reason names the controller and the cgroup (a build with cgroups: not the portable).
	local dir
	dir=$(v2_dir)
	if [[ "$output" != *"this system has no cgroups"* ]] && [ -n "$dir" ] &&
		[ -r "$dir/cgroup.controllers" ] &&
		! grep -qw memory "$dir/cgroup.controllers"; then
		[[ "$output" == *"the memory controller is not available in cgroup $dir"* ]]
	fi
	# auto: the budgets are kept all the same, by sampling (where the tree can be listed:
	# the portable build refuses the budgets, and says why).
	run "$RUNLIMIT" --report="$F" --memory=100M 5 true
	if [ "$status" -eq 125 ]; then
		[[ "$output" == *"the budgets cannot be measured here"* ]]
		return
	fi
	[ "$status" -eq 0 ]
	report_is "$F" 'd["budgets"]["mechanism"] == "sampled"' 'd["budgets"]["oom_kills"] is None'
}

@test "--cgroup=no: never a cgroup, the budgets sampled" {
	run "$RUNLIMIT" --report="$F" --cgroup=no --memory=100M 5 true
	[ "$status" -eq 125 ] && skip "the budgets cannot be measured here: $output"
	[ "$status" -eq 0 ]
	report_is "$F" 'd["budgets"]["mechanism"] == "sampled"'
}

@test "no budget: no cgroup, the command in runlimit's own" {
	[ -r /proc/self/cgroup ] || skip "no /proc/self/cgroup here"
	run "$RUNLIMIT" 5 cat /proc/self/cgroup
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat /proc/self/cgroup)" ]
}

@test "--cgroup=required without a budget: the command runs in a cgroup of its own below runlimit's, removed after" {
	[ -r /proc/self/cgroup ] || skip "no /proc/self/cgroup here"
	local dir
	dir=$(v2_dir)
	[ -n "$dir" ] || skip "no cgroup v2 here"
	run "$RUNLIMIT" --cgroup=required 5 cat /proc/self/cgroup
	[ "$status" -eq 125 ] && skip "no cgroup can be made here: $output"
	[ "$status" -eq 0 ]
	local mine
	mine=$(sed -n 's/^0:://p' /proc/self/cgroup)
	[[ "$output" == *"0::${mine%/}/runlimit-"[0-9]* ]]
	local made=${output##*0::}
	# (Only its own: other runs of the suite make theirs beside it meanwhile.)
	[ ! -e "$dir/${made#"${mine%/}"/}" ]
	[ ! -e "$dir/${made#"${mine%/}"/}.supervisor" ]
}

@test "a budget the cgroup cannot measure is measured by sampling beside it, never not at all" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	"$RUNLIMIT" --cgroup=required --cpu-time=10 5 true 2>/dev/null ||
		skip "no cgroup for the run here (the refusal: the first test)"
	local t0 took
	t0=$(now)
	# The hooks build's cgroup says it cannot measure CPU time (1 << USAGE_CPU), as a
	# mechanism that does not know a new budget's figure would.
	RUNLIMIT_TEST_CGROUP_BLIND=4 run -124 bounded 60 "$RUNLIMIT_HOOKS" --report="$F" \
		--cgroup=required --cpu-time=0.3 30 sh -c 'while :; do :; done'
	took=$(elapsed "$t0")
	echo "after ${took}s: $output"
	lt "$took" 15
	report_is "$F" 'd["timed_out_by"] == "cpu-time"' 'd["budgets"]["mechanism"] == "cgroup"' \
		'd["budgets"]["cpu_seconds"] > 0.3'
}

@test "a command that cannot be moved into the run's cgroup does not run: 125, and runlimit says why" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	run "$RUNLIMIT" --cgroup=required 5 true
	[ "$status" -eq 0 ] || skip "no cgroup for the run here: $output"
	# The child gives up before anything of the command runs; runlimit says why once it is
	# reaped (start_exec.c: the child reports, it writes no message).
	run -125 --separate-stderr env RUNLIMIT_TEST_CGROUP_MOVE_REFUSED=1 "$RUNLIMIT_HOOKS" \
		--cgroup=required 5 sh -c ": >'$D/ran'"
	[ "$stderr" = "$RUNLIMIT_HOOKS: cannot move the command into its cgroup: Bad file descriptor" ]
	[ ! -e "$D/ran" ]
}

@test "a command that joins the run's cgroup is forked, never cloned sharing runlimit's memory (an OOM kill there would end runlimit too)" {
	needs_strace
	no_leak_check
	expected sharedchild || skip "this build forks the command's child anyway"
	run "$RUNLIMIT" --cgroup=required 5 true
	[ "$status" -eq 0 ] || skip "no cgroup for the run here: $output"
	strace -f -qq -e trace=clone,clone3,fork,vfork -o "$D/trace" "$RUNLIMIT" --cgroup=required 5 true
	grep -E '(^|[[:space:]])(clone|clone3|fork|vfork)\(' "$D/trace" >&2
	# The guard is still cloned sharing memory; the command's child is not.
	[ "$(grep -c 'CLONE_VM' "$D/trace")" -eq 1 ]
	[ "$(grep -cE '(^|[[:space:]])(clone|clone3|fork|vfork)\(' "$D/trace")" -eq 2 ]
}
