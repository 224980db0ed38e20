#!/usr/bin/env bats
# The Python API's unittest suite under a real Python 3.9, the oldest the package supports
# (stock macOS's /usr/bin/python3), where one can be had: tests/python.bats runs it under
# python3.  Standard library only: nothing is installed.

load helpers
load python

setup_file() {
	python_setup_file
}

@test "python: the API's tests pass under a real Python 3.9" {
	local py
	py=$(python39) || skip "no Python 3.9 here (PYTHON39, python3.9 on PATH, pyenv's versions/3.9.*)"
	suite "$py"
}
