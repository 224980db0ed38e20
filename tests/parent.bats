#!/usr/bin/env bats
# --die-with-parent (runlimit.1; docs/design.md, "The caller's death"; issue 61): when the
# process that started runlimit ends, by any signal, the run ends as a cancel does (the -s
# signal, the grace, the final KILL, the settle) and its report says so; never while that
# process lives; one already gone ends the run before the command starts.  Without the
# option the run outlives its caller, as GNU's does.  (From Python, where every run asks
# for it, and a run started by a thread that ended: python/tests/test_handle.py.)

bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	setup_tree_tests
}

setup() {
	per_test_sleep pa
	# caller.sh RUNLIMIT DURATION OPTION...: the user's script: runlimit OPTION... -k 1
	# DURATION on a tree (a child that ignores TERM, one that called setsid where the build
	# reaches such, a plain one) in the background, its pid in $D/rl, then a wait.
	SETSID=
	if reaches_sessions && command -v setsid >/dev/null; then SETSID=setsid; fi
	cat >"$D/caller.sh" <<EOS
rl=\$1 dur=\$2
shift 2
"\$rl" --report="\$D/r.json" "\$@" -k 1 "\$dur" sh -c 'trap "" TERM; "\$S" 100 & $SETSID "\$S" 101 & "\$S" 102' &
echo \$! >"\$D/rl"
wait
EOS
}

teardown() {
	[ -z "${CALLER:-}" ] || kill -KILL "$CALLER" 2>/dev/null || true
	kill_named "$N-s"
}

# start_caller DURATION OPTION...: caller.sh in the background; CALLER, RL: its pid and
# runlimit's, once the tree is up.
start_caller() {
	sh "$D/caller.sh" "$RUNLIMIT" "$@" 3>&- &
	CALLER=$!
	wait_for_file "$D/rl"
	RL=$(cat "$D/rl")
	wait_until 10 count_is "$N-s" 3
}

@test "61: --die-with-parent: the caller KILLed or TERMed, nothing of the run is left within the grace and the settle, and the report says why" {
	local sig t0
	for sig in KILL TERM; do
		rm -f "$D/rl" "$D/r.json"
		start_caller 60 --die-with-parent
		t0=$(now)
		kill -"$sig" "$CALLER"
		wait_for_gone "$RL" 10
		no_survivors "$N-s" 5
		echo "$sig: gone in $(elapsed "$t0") s"
		lt "$(elapsed "$t0")" 6
		"$PY" "$TOOLS/report_is.py" "$D/r.json" 'd["parent_gone"] is True' \
			'd["cancelled"] is False' '"parent" in [s["reason"] for s in d["signals"]]'
	done
}

@test "61: without --die-with-parent the run outlives its caller, as GNU's does" {
	start_caller 3
	kill -KILL "$CALLER"
	wait_for_gone "$CALLER" 5
	kill -0 "$RL" # the caller is gone, the run goes on
	wait_for_gone "$RL" 15
	"$PY" "$TOOLS/report_is.py" "$D/r.json" 'd["parent_gone"] is False' 'd["timed_out"] is True'
	no_survivors "$N-s" 5
}

@test "61: a caller that lives is never taken for gone: the run ends by its limit" {
	start_caller 1 --die-with-parent
	wait_for_gone "$RL" 15
	kill -0 "$CALLER" 2>/dev/null || wait "$CALLER" || true
	"$PY" "$TOOLS/report_is.py" "$D/r.json" 'd["parent_gone"] is False' 'd["timed_out"] is True'
}

@test "61: a caller that ended before runlimit watched it ends the run at once: the command never starts" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	# The hooks build holds between reading its parent's pid and watching it, until $D/read
	# is gone: the caller exits in between.
	# shellcheck disable=SC2016
	sh -c 'RUNLIMIT_TEST_PARENT_READ="$D/read" "$0" -v --report="$D/r.json" --die-with-parent 30 \
		sh -c ": >\"\$D/ran\"" 2>"$D/err" & echo $! >"$D/rl"
		i=0; until [ -e "$D/read" ] || [ $i -ge 1000 ]; do "$S" 0.01; i=$((i + 1)); done' \
		"$RUNLIMIT_HOOKS" 3>&-
	local rl
	rl=$(cat "$D/rl")
	rm -f "$D/read"
	wait_for_gone "$rl" 10
	cat "$D/err"
	[ ! -e "$D/ran" ]
	grep -q 'the process that started this one has ended: not running ' "$D/err"
	"$PY" "$TOOLS/report_is.py" "$D/r.json" 'd["parent_gone"] is True' 'd["pid"] is None'
}
