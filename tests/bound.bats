#!/usr/bin/env bats
# The bound (docs/design.md, "The bound"), as a property: whatever the options and whatever
# the command does, runlimit returns no later than DURATION + the kill grace + the output
# grace (+ a margin for a loaded machine) after it started, and when it returns after a limit
# ran out or a request to end, nothing of the command's tree is left running.
#
# tests/tools/bound.py draws the cases (RUNLIMIT_BOUND_CASES, default 200) from a seed
# (RUNLIMIT_BOUND_SEED, else a random one), runs them several at a time and checks each; a
# failure prints the seed, the case and the command line that replays it alone.  What the
# build under test cannot reach by its own account (a setsid'd or orphaned descendant, by
# probe_tree_reach) may survive; what it should reach (RUNLIMIT_EXPECT) must not.  Where a
# cgroup v1 freezer can be had (root; tests/helpers.bash, freezer_mount), some cases draw a
# command or a leftover that cannot die of SIGKILL (frozen, as in an uninterruptible wait):
# runlimit then returns within the settle more, and names it.

bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	# Without python3 there is no generator: the test says so (below), by capability.
	if command -v python3 >/dev/null 2>&1; then
		setup_tree_tests
	fi
	# Marks every process and the directory of this run, for teardown.
	RUNLIMIT_BOUND_RUN_ID=bats$(($$ % 100000))
	export RUNLIMIT_BOUND_RUN_ID
	# The freezer cgroup the cases that draw a process that cannot die freeze it in.
	local mnt
	if mnt=$(freezer_mount); then
		RUNLIMIT_BOUND_FREEZER=$mnt/rlb$RUNLIMIT_BOUND_RUN_ID
		mkdir -p "$RUNLIMIT_BOUND_FREEZER" && export RUNLIMIT_BOUND_FREEZER
	fi
}

teardown_file() {
	[ -z "${RUNLIMIT_BOUND_FREEZER:-}" ] || rmdir "$RUNLIMIT_BOUND_FREEZER" 2>/dev/null || true
	unmount_freezer
}

teardown() {
	# The generator ends what its cases started, on a failure too; this is for the generator
	# itself killed (by bounded, below).
	[ -z "${PY:-}" ] || "$PY" "$TOOLS/bound.py" --cleanup || true
}

# bound_caps: what the runlimit under test reaches besides its process group, in the words
# of bound.py --caps; fails where RUNLIMIT_EXPECT says the build should reach more.
bound_caps() {
	local caps=none
	if reaches_sessions; then
		caps=sessions
		if [ "${RL_ADOPTS_ORPHANS:-unknown}" != no ]; then
			caps=sessions,orphans
		elif expected orphans; then
			echo "this build should adopt orphaned descendants, but the probe found it does not" >&2
			return 1
		fi
	elif expected sessions; then
		echo "this build should reach setsid'd descendants, but the probe found it does not" >&2
		return 1
	fi
	echo "$caps"
}

@test "random options, commands and callers: runlimit returns within the bound and leaves nothing running" {
	[ -n "${PY:-}" ] || skip "no python3 to run the generator (tests/tools/bound.py)"
	needs_procs 200
	# Under an emulator every process is several times slower: fewer cases, the same checks.
	[ -z "${RUNLIMIT_EMULATED:-}" ] || export RUNLIMIT_BOUND_CASES=${RUNLIMIT_BOUND_CASES:-40}
	local caps
	caps=$(bound_caps)
	# Far more than the run takes (about 40 s for 200 cases, each case bounded): a hung
	# generator fails the test instead of hanging the suite.
	run bounded 900 "$PY" "$TOOLS/bound.py" --caps "$caps" --runlimit "$RUNLIMIT"
	# The seed and the summary in the TAP output of every run, passed or not.
	printf '%s\n' "$output" | grep '^# bound: ' >&3 || true
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
}
