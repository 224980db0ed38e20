#!/usr/bin/env bats
# The Python API (python/runlimit, docs/python.md; issue 54): its unittest suite
# (python/tests), run against the binary under test through $RUNLIMIT, with python3; a
# real Python 3.9, the oldest the package supports (stock macOS's /usr/bin/python3), runs
# it in tests/python39.bats, beside this one.  Standard library only: nothing is installed.

load helpers
load python

setup_file() {
	python_setup_file
}

@test "python: the API's tests pass against the binary under test" {
	command -v python3 >/dev/null 2>&1 || skip "no python3"
	at_least_39 python3 || skip "python3 is older than 3.9: $(python3 --version 2>&1)"
	suite python3
}
