#!/bin/sh
# The Python package's types, as a user's type checker sees them: mypy --strict on the
# package and on a user's script that uses every public name (python/tests/typed_use.py),
# and pyright, strict, on both (python/pyrightconfig.json).  pyright is basedpyright's
# build, which PyPI ships whole (PyPI's "pyright" fetches its code from npm at first use);
# the checks it runs are pyright's own.  Dev-only tools, in a venv of their own,
# .cache/typecheck: --install makes it (.ci/run does); without it, missing tools fail.
set -eu
cd "$(dirname "$0")/.."
venv=.cache/typecheck
if [ "${1:-}" = --install ]; then
	[ -x "$venv/bin/mypy" ] && [ -x "$venv/bin/basedpyright" ] && exit 0
	python3 -m venv "$venv" && "$venv/bin/python" -m pip install -q mypy basedpyright
	exit
fi
if [ ! -x "$venv/bin/mypy" ] || [ ! -x "$venv/bin/basedpyright" ]; then
	echo "typecheck: no mypy and basedpyright in $venv: scripts/typecheck.sh --install" >&2
	exit 1
fi
cd python
"../$venv/bin/mypy" --strict --no-incremental runlimit tests/typed_use.py
"../$venv/bin/basedpyright" -p pyrightconfig.json
