#!/bin/sh
# Build runlimit with the flags distributions and users build it with, each under gcc and
# clang, warnings as errors: LTO as Ubuntu's dpkg-buildflags gives it (-O2 -flto=auto
# -ffat-lto-objects; clang: -flto), -O3, -Os, and Debian's hardening (hardening=+all: PIE,
# relro, bind-now, fortify, the stack protector), linked dynamically as a Debian package is.
# A warning any of them raises (an optimiser's "may be used uninitialized") fails it.  Each
# build goes to a throw-away BIN (runlimit-m-N), run once with --version, and is removed after;
# the hardened ones are also checked for what the flags promise (file, readelf).  The gcc and
# the clang build of a set run side by side.  Compiling is the check: no test suite runs.
set -eu
cd "$(dirname "$0")/.."
make=${MAKE:-make}
fail() { echo "build-matrix: $*" >&2; exit 1; }
command -v dpkg-buildflags >/dev/null 2>&1 ||
	fail "no dpkg-buildflags, for Debian's hardening flags (apt-get install dpkg-dev)"
hflags() { DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get "$1"; }
H_CFLAGS=$(hflags CFLAGS) H_CPPFLAGS=$(hflags CPPFLAGS) H_LDFLAGS=$(hflags LDFLAGS)

logs=$(mktemp -d)
n=0
cleanup() {
	i=1
	while [ "$i" -le "$n" ]; do
		rm -f "runlimit-m-$i" ".build-flags-runlimit-m-$i"
		i=$((i + 1))
	done
	rm -rf "$logs"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

# build N CC CFLAGS CPPFLAGS LDFLAGS STATIC: one build, its output in $logs/N
build() {
	"$make" -s BIN="runlimit-m-$1" CC="$2" CFLAGS="$3" CPPFLAGS="$4" LDFLAGS="$5" STATIC="$6" \
		WERROR=1 "runlimit-m-$1" >"$logs/$1" 2>&1 &&
		"./runlimit-m-$1" --version >>"$logs/$1" 2>&1
}

# pair NAME CFLAGS CPPFLAGS LDFLAGS STATIC [CLANG-CFLAGS CLANG-LDFLAGS]: gcc and clang at once
failed=0
pair() {
	start=$(date +%s)
	g=$((n + 1)) c=$((n + 2)) n=$((n + 2))
	build "$g" gcc "$2" "$3" "$4" "$5" &
	gpid=$!
	build "$c" clang "${6:-$2}" "$3" "${7:-$4}" "$5" &
	cpid=$!
	for b in "$g:gcc:$gpid" "$c:clang:$cpid"; do
		i=${b%%:*} pid=${b##*:} cc=${b#*:} cc=${cc%%:*}
		if wait "$pid"; then
			echo "build-matrix: $1 with $cc: ok"
		else
			echo "build-matrix: $1 with $cc FAILED:" >&2
			cat "$logs/$i" >&2
			failed=$((failed + 1))
		fi
	done
	echo "build-matrix: $1: $(($(date +%s) - start)) s"
}

pair lto '-O2 -g -flto=auto -ffat-lto-objects' '' '-flto=auto' '' '-O2 -g -flto' '-flto'
pair O3 '-O3' '' '' ''
pair Os '-Os' '' '' ''
pair hardening "$H_CFLAGS" "$H_CPPFLAGS" "$H_LDFLAGS" 0
[ "$failed" -eq 0 ] || fail "$failed of $n builds failed"

# What hardening=+all promises, in the binaries (the last pair): a position-independent
# executable, relocations read-only after start-up (relro) and bound at once (bind-now), the
# stack protector, and fortified calls.
for i in $((n - 1)) "$n"; do
	f=runlimit-m-$i
	file -b "$f" | grep -q 'pie executable' || fail "the hardened $f is not PIE: $(file -b "$f")"
	LC_ALL=C readelf -lW "$f" | grep -q GNU_RELRO || fail "the hardened $f has no relro segment"
	LC_ALL=C readelf -dW "$f" | grep -Eq 'BIND_NOW|FLAGS_1.* NOW' || fail "the hardened $f is not bind-now"
	syms=$(LC_ALL=C readelf -sW --dyn-syms "$f")
	echo "$syms" | grep -q __stack_chk_fail || fail "the hardened $f has no stack protector"
	echo "$syms" | grep -v __stack_chk | grep -q '__[a-z0-9_]*_chk' || fail "the hardened $f calls no fortified function"
done
echo "build-matrix: $n builds (gcc and clang: lto, O3, Os, hardening) are warning-free"
