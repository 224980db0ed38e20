#!/usr/bin/env bats
# The wheels' builder, scripts/wheel.py, which needs no release: the same inputs give the same
# bytes, its check refuses a wheel that is not what it should be, and pip installs a wheel's
# binary as bin/runlimit itself, with `python -m runlimit` reaching it.  The binary and the
# Python package here are stand-ins made by the tests (a shell script; a package whose
# __main__.py execs bin/runlimit): scripts/wheel-check.sh checks the release's real wheels.

load helpers

bats_require_minimum_version 1.5.0

setup() {
	REPO=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	D=$BATS_TEST_TMPDIR
	command -v python3 >/dev/null || skip "no python3"
	printf '#!/bin/sh\necho "stand-in runlimit: $*"\n' >"$D/bin"
	chmod 755 "$D/bin"
	mkdir -p "$D/pkg/runlimit/__pycache__"
	echo '__version__ = "0.2.0"' >"$D/pkg/runlimit/__init__.py"
	echo 'stale' >"$D/pkg/runlimit/__pycache__/__init__.cpython-311.pyc"
	cat >"$D/pkg/runlimit/__main__.py" <<-'EOF'
		import os, sys, sysconfig
		here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
		for d in (os.path.join(here, "bin"), sysconfig.get_path("scripts")):
		    b = os.path.join(d, "runlimit")
		    if os.access(b, os.X_OK):
		        os.execv(b, [b] + sys.argv[1:])
		sys.exit("no bin/runlimit")
	EOF
	TAGS=manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_1_x86_64
	W=runlimit-0.2.0-py3-none-$TAGS.whl
}

# build OUTDIR [BINARY]: the stand-ins' wheel into OUTDIR.
build() {
	mkdir -p "$1"
	python3 "$REPO/scripts/wheel.py" build "${2:-$D/bin}" "$TAGS" "$D/pkg/runlimit" 0.2.0 "$1" \
		--license "$REPO/LICENSE"
}

@test "wheel.py: the same inputs give the same bytes, in the layout pip reads" {
	run -0 build "$D/one"
	[ "$output" = "$D/one/$W" ]
	touch -t 200102030405 "$D/bin" "$D/pkg/runlimit/__init__.py"
	chmod 700 "$D/bin"
	build "$D/two"
	cmp "$D/one/$W" "$D/two/$W"
	run -0 python3 "$REPO/scripts/wheel.py" check "$D/one/$W" "$D/bin" "$D/pkg/runlimit"
	run -0 python3 - "$D/one/$W" <<-'EOF'
		import sys, zipfile
		for i in zipfile.ZipFile(sys.argv[1]).infolist():
		    print("%o %s %s" % (i.external_attr >> 16, i.date_time[:3], i.filename))
	EOF
	[ "$output" = "100755 (1980, 1, 1) runlimit-0.2.0.data/scripts/runlimit
100644 (1980, 1, 1) runlimit/__init__.py
100644 (1980, 1, 1) runlimit/__main__.py
100644 (1980, 1, 1) runlimit-0.2.0.dist-info/LICENSE
100644 (1980, 1, 1) runlimit-0.2.0.dist-info/METADATA
100644 (1980, 1, 1) runlimit-0.2.0.dist-info/WHEEL
100644 (1980, 1, 1) runlimit-0.2.0.dist-info/RECORD" ]
}

@test "wheel.py: its check refuses another binary, a file changed, a tag PyPI refuses, a wrong version" {
	build "$D/one"
	printf 'other' >"$D/other"
	run -1 python3 "$REPO/scripts/wheel.py" check "$D/one/$W" "$D/other"
	[[ "$output" == *"runlimit-0.2.0.data/scripts/runlimit is not $D/other" ]]
	# The same entries, one of them changed after RECORD was written.
	python3 - "$D/one/$W" "$D/bad.whl" <<-'EOF'
		import sys, zipfile
		with zipfile.ZipFile(sys.argv[1]) as a, zipfile.ZipFile(sys.argv[2], "w") as b:
		    for i in a.infolist():
		        data = a.read(i)
		        b.writestr(i, data + b"#" if i.filename.endswith("__init__.py") else data)
	EOF
	mv "$D/bad.whl" "$D/$W"
	run -1 python3 "$REPO/scripts/wheel.py" check "$D/$W" "$D/bin"
	[[ "$output" == *"RECORD's line for runlimit/__init__.py does not match it" ]]
	run -1 python3 "$REPO/scripts/wheel.py" build "$D/bin" linux_x86_64 - 0.2.0 "$D"
	[[ "$output" == *"'linux_x86_64' is not a platform tag PyPI takes"* ]]
	run -1 python3 "$REPO/scripts/wheel.py" build "$D/bin" "$TAGS" "$D/pkg/runlimit" 0.3.0 "$D"
	[[ "$output" == *"__version__ 0.2.0, the release is 0.3.0" ]]
}

@test "pip installs the wheel's binary as bin/runlimit, and python -m runlimit execs it" {
	[ "$(uname -sm)" = "Linux x86_64" ] || skip "the wheel's tags are Linux x86_64's"
	python3 -m venv "$D/venv" >/dev/null 2>&1 || skip "python3 -m venv cannot make a venv"
	build "$D/one"
	pip() {
		PIP_ROOT_USER_ACTION=ignore "$D/venv/bin/python" -m pip -q \
			--disable-pip-version-check install --no-index --no-deps "$@"
	}
	pip "$D/one/$W"
	cmp "$D/venv/bin/runlimit" "$D/bin"
	run -0 "$D/venv/bin/runlimit" a b
	[ "$output" = "stand-in runlimit: a b" ]
	cd "$D"
	run -0 "$D/venv/bin/python" -m runlimit c
	[ "$output" = "stand-in runlimit: c" ]
	pip --target "$D/target" "$D/one/$W"
	cmp "$D/target/bin/runlimit" "$D/bin"
	run -0 env PYTHONPATH="$D/target" python3 -m runlimit d
	[ "$output" = "stand-in runlimit: d" ]
}

@test "wheel.py: the metadata says who, where, which Pythons, typed, with an example" {
	touch "$D/pkg/runlimit/py.typed"
	build "$D/one"
	run -0 python3 - "$D/one/$W" <<-'EOF'
		import sys, zipfile
		z = zipfile.ZipFile(sys.argv[1])
		print(z.read("runlimit-0.2.0.dist-info/METADATA").decode())
		print("entry:", *[n for n in z.namelist() if n.endswith("py.typed")])
	EOF
	[[ "$output" == *$'\nAuthor: the runlimit authors\n'* ]]
	for v in 3.9 3.10 3.11 3.12 3.13 3.14; do
		[[ "$output" == *$'\nClassifier: Programming Language :: Python :: '"$v"$'\n'* ]]
	done
	[[ "$output" == *$'\nClassifier: Typing :: Typed\n'* ]]
	[[ "$output" == *$'\nProject-URL: Documentation, '* ]]
	[[ "$output" == *$'\nProject-URL: Issues, '* ]]
	[[ "$output" == *$'\n```python\nimport subprocess\nimport runlimit\n'* ]]
	[[ "$output" == *$'\nentry: runlimit/py.typed'* ]]
}
