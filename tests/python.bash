# The Python API's suite (python/tests) for tests/python.bats and tests/python39.bats, one
# interpreter each, so that the two run side by side in make check: its set-up and helpers.
# shellcheck shell=bash

python_setup_file() {
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
	# shellcheck disable=SC2154 # bats' run sets them
	echo "$output"
	# shellcheck disable=SC2154
	[ "$status" -eq 0 ]
}
