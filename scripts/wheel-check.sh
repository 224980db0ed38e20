#!/bin/sh
# Check the release's wheels (scripts/release-check.sh): exactly the three that
# scripts/release.sh writes, each sound as an installer reads it and carrying its platform's
# release binary byte for byte (scripts/wheel.py check), and each the same bytes when built
# again from the same inputs (reproducible).  Then, on Linux x86_64, as a user gets it: the
# x86_64 wheel installed offline with pip into a fresh venv and with --target, the installed
# bin/runlimit the release's binary, `runlimit 1 sleep 5` giving 124, and `python -m runlimit
# --version` answering (when the tree has the package's python/runlimit/__main__.py); the
# aarch64 wheel installed with --target and run under qemu-aarch64 when that is here; and
# `auditwheel show` (PyPI's auditwheel: $AUDITWHEEL, or on PATH, or importable) finding no
# external shared library in either Linux wheel.  With CI=true what cannot be checked here (no
# venv, no auditwheel) fails instead of being skipped.
# Usage: scripts/wheel-check.sh DIR VERSION LINUX_X86_64 LINUX_AARCH64 MACOS_UNIVERSAL
#   (the release's directory, and the binaries unpacked from its archives)
set -eu
cd "$(dirname "$0")/.."
[ "$#" -eq 5 ] || { echo "usage: wheel-check.sh DIR VERSION LINUX_X86_64 LINUX_AARCH64 MACOS_UNIVERSAL" >&2; exit 2; }
dir=$1 version=$2
py=${PYTHON:-python3}
fail() { echo "wheel-check: $*" >&2; exit 1; }
# missing WHAT: fail with CI=true, else say what is not checked.
missing() {
	[ "${CI:-}" != true ] || fail "$1 (CI=true: required)"
	echo "wheel-check: $1: not checked"
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

package=python/runlimit
[ -f "$package/__init__.py" ] || package=-
# The home the release was made for (RELEASE_URL's), which METADATA names: the formula's.
home=$(sed -n 's/^  homepage "\(.*\)"$/\1/p' "$dir/runlimit.rb")
[ -n "$home" ] || fail "runlimit.rb names no homepage"

linux=manylinux_2_17_ARCH.manylinux2014_ARCH.musllinux_1_1_ARCH
x86_wheel=runlimit-$version-py3-none-$(echo "$linux" | sed s/ARCH/x86_64/g).whl
arm_wheel=runlimit-$version-py3-none-$(echo "$linux" | sed s/ARCH/aarch64/g).whl
# 10_12: the x86_64 slice's minimum macOS (release-check.sh's macho-check.py --want).
mac_wheel=runlimit-$version-py3-none-macosx_10_12_universal2.whl
got=$(for f in "$dir"/runlimit-*.whl; do [ -e "$f" ] && echo "${f##*/}"; done | LC_ALL=C sort | tr '\n' ' ')
want=$(printf '%s\n' "$x86_wheel" "$arm_wheel" "$mac_wheel" | LC_ALL=C sort | tr '\n' ' ')
[ "$got" = "$want" ] || fail "the wheels are: $got; expected: $want"

mkdir "$work/again"
for w in "$x86_wheel:$3" "$arm_wheel:$4" "$mac_wheel:$5"; do
	name=${w%%:*} bin=${w#*:}
	if [ "$package" = - ]; then
		"$py" scripts/wheel.py check "$dir/$name" "$bin"
	else
		"$py" scripts/wheel.py check "$dir/$name" "$bin" "$package"
	fi
	platforms=${name#"runlimit-$version-py3-none-"}
	"$py" scripts/wheel.py build "$bin" "${platforms%.whl}" "$package" "$version" "$work/again" \
		--license LICENSE --home "$home" >/dev/null
	cmp -s "$dir/$name" "$work/again/$name" || fail "$name: built again from the same inputs, it differs"
done
echo "wheel-check: the three wheels built again from the same inputs: the same bytes"

# ran BIN WHAT: BIN 1 sleep 5 gives 124 (the time-out's status).
ran() {
	status=0
	"$1" 1 sleep 5 || status=$?
	[ "$status" -eq 124 ] || fail "$2: runlimit 1 sleep 5 exited $status"
}
# module PYTHON WHAT [PYTHONPATH]: PYTHON -m runlimit --version is runlimit's (the package's
# __main__.py execs the binary).
module() {
	if [ ! -f python/runlimit/__main__.py ]; then
		echo "wheel-check: $2: no python/runlimit/__main__.py in the tree: python -m runlimit not checked"
		return 0
	fi
	# (from an empty directory: nothing there to import instead)
	out=$(cd "$work/again" && PYTHONPATH=${3:-} "$1" -m runlimit --version) || fail "$2: python -m runlimit --version failed"
	printf '%s\n' "$out" | head -n 1 | grep -qx "runlimit (runlimit) $version" ||
		fail "$2: python -m runlimit --version said: $out"
	echo "wheel-check: $2: python -m runlimit --version: $(printf '%s\n' "$out" | head -n 1)"
}
if [ "$(uname -sm)" = "Linux x86_64" ]; then
	if "$py" -m venv "$work/venv" >/dev/null 2>&1; then
		pip() { # offline, and without pip's own dependencies' resolution
			PIP_ROOT_USER_ACTION=ignore "$work/venv/bin/python" -m pip -q \
				--disable-pip-version-check install --no-index --no-deps "$@"
		}
		pip "$dir/$x86_wheel" || fail "pip install $x86_wheel into a fresh venv failed"
		cmp -s "$work/venv/bin/runlimit" "$3" || fail "the venv's bin/runlimit is not the release's linux-x86_64 binary"
		ran "$work/venv/bin/runlimit" "venv"
		module "$work/venv/bin/python" "venv"
		echo "wheel-check: $x86_wheel: pip install into a venv: bin/runlimit is the release's, and it times out with 124"
		pip --target "$work/target" "$dir/$x86_wheel" || fail "pip install --target $x86_wheel failed"
		cmp -s "$work/target/bin/runlimit" "$3" || fail "--target's bin/runlimit is not the release's linux-x86_64 binary"
		ran "$work/target/bin/runlimit" "--target"
		# Another interpreter, the package found through PYTHONPATH: it finds the binary.
		module "$py" "--target" "$work/target"
		echo "wheel-check: $x86_wheel: pip install --target: bin/runlimit is the release's, and it times out with 124"
		qemu=$(command -v qemu-aarch64 || command -v qemu-aarch64-static || true)
		if [ "${RELEASE_QEMU:-1}" != 0 ] && [ -n "$qemu" ]; then
			pip --target "$work/arm" --platform manylinux2014_aarch64 --only-binary=:all: "$dir/$arm_wheel" ||
				fail "pip install --target --platform manylinux2014_aarch64 $arm_wheel failed"
			cmp -s "$work/arm/bin/runlimit" "$4" || fail "--target's aarch64 bin/runlimit is not the release's linux-aarch64 binary"
			status=0
			"$qemu" "$work/arm/bin/runlimit" 1 sleep 5 || status=$?
			[ "$status" -eq 124 ] || fail "aarch64 under $qemu: runlimit 1 sleep 5 exited $status"
			echo "wheel-check: $arm_wheel: pip install --target: bin/runlimit is the release's, and under qemu it times out with 124"
		fi
	else
		missing "$py -m venv cannot make a venv (Debian: python3-venv): the wheels are not installed"
	fi
fi

aw=${AUDITWHEEL:-$(command -v auditwheel || true)}
if [ -z "$aw" ] && "$py" -c 'import auditwheel' 2>/dev/null; then
	aw="$py -m auditwheel"
fi
if [ -n "$aw" ]; then
	for name in "$x86_wheel" "$arm_wheel"; do
		# auditwheel wraps its sentences: one line, to grep.
		# shellcheck disable=SC2086 # aw may be a command and its arguments
		out=$($aw show "$dir/$name" 2>&1) || fail "auditwheel show $name failed: $out"
		printf '%s\n' "$out" | tr '\n' ' ' | grep -q 'requires no external shared libraries' ||
			fail "auditwheel show $name: $out"
		echo "wheel-check: $name: auditwheel show: no external shared libraries"
	done
else
	missing "no auditwheel (pip install auditwheel, or AUDITWHEEL=its path): auditwheel show"
fi
echo "wheel-check: the wheels pass"
