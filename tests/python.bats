#!/usr/bin/env bats
# The Python API (python/runlimit, docs/python.md; issue 54): its unittest suite
# (python/tests), run against the binary under test through $RUNLIMIT, with python3 and,
# where one can be had, a real Python 3.9 (the oldest the package supports: stock macOS's
# /usr/bin/python3).  Standard library only: nothing is installed.

load helpers

setup_file() {
	# What the build reaches (probe_tree_reach): the Python tests leave out a setsid'd
	# descendant where it reaches the group only, and fail where it should (RUNLIMIT_EXPECT).
	setup_tree_tests
	RUNLIMIT_REACHES_SESSIONS=yes
	if ! reaches_sessions; then
		RUNLIMIT_REACHES_SESSIONS=no
		if expected sessions; then
			RUNLIMIT_REACHES_SESSIONS=yes # the tests then fail, as the build should reach them
		fi
	fi
	export RUNLIMIT_REACHES_SESSIONS
	# Does it count what is left (a process table)?  The page's examples show a build that
	# does, and the tests of the counts expect None where it cannot.
	probe_counts
	RUNLIMIT_COUNTS=$RL_COUNTS
	! expected counts || RUNLIMIT_COUNTS=yes
	export RUNLIMIT_COUNTS
}

# at_least_39 PY: true if PY runs and is Python 3.9 or later.
at_least_39() {
	"$1" -c 'import sys; sys.exit(sys.version_info < (3, 9))' >/dev/null 2>&1
}

# python39: print the path of a Python 3.9 interpreter itself (not a pyenv shim, which may
# refuse a version that is not selected): PYTHON39 if set, python3.9 on PATH, pyenv's.
python39() {
	local py
	for py in "${PYTHON39:-}" "$(command -v python3.9 2>/dev/null)" \
		"${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.9*/bin/python3.9; do
		if [ -z "$py" ] || [ ! -x "$py" ]; then continue; fi
		"$py" -c 'import sys; assert sys.version_info[:2] == (3, 9); print(sys.executable)' \
			2>/dev/null && return 0
	done
	return 1
}

# suite PY: the whole unittest suite under PY, its output shown on failure.
suite() {
	local bin
	bin=$(cd "$(dirname "$RUNLIMIT")" && pwd)/$(basename "$RUNLIMIT")
	cd "$BATS_TEST_DIRNAME/../python" || return 1
	run env RUNLIMIT_BINARY="$bin" PYTHONDONTWRITEBYTECODE=1 \
		"$1" -m unittest discover -s tests -t tests
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "python: the API's tests pass against the binary under test" {
	command -v python3 >/dev/null 2>&1 || skip "no python3"
	at_least_39 python3 || skip "python3 is older than 3.9: $(python3 --version 2>&1)"
	suite python3
}

@test "python: the API's tests pass under a real Python 3.9" {
	local py
	py=$(python39) || skip "no Python 3.9 here (PYTHON39, python3.9 on PATH, pyenv's versions/3.9.*)"
	suite "$py"
}
