#!/bin/sh
# Check what scripts/release.sh made (the end of make release): the checksums, every archive's
# contents, each binary's kind with file(1) (architecture, static-pie, Mach-O universal), the
# macOS slices' minimum versions and ad-hoc signatures (scripts/macho-check.py), the wheels
# (scripts/wheel-check.sh: their contents, reproducible, installed with pip and run), the release
# notes (NEWS.md's entry for the version), the formula's syntax (ruby -c, when ruby is here),
# and then the binaries that can run here: the whole test suite against linux-x86_64, and
# against linux-aarch64 under qemu-user (qemu-aarch64) when it is installed.
# RELEASE_TESTS=0 skips the suites; RELEASE_QEMU=0 the aarch64 one.
# Usage: scripts/release-check.sh [DIR]   (default release/)
set -eu
cd "$(dirname "$0")/.."
dir=${1:-release}
case $dir in /*) ;; *) dir=$PWD/$dir ;; esac
version=$(sed -n 's/^#define RUNLIMIT_VERSION "\(.*\)"$/\1/p' src/cli.h)
fail() { echo "release-check: $*" >&2; exit 1; }

echo "release-check: the checksums"
(cd "$dir" && sha256sum -c SHA256SUMS) || fail "SHA256SUMS does not match"
for f in "$dir"/runlimit-*.tar.gz "$dir"/runlimit-*.whl "$dir"/runlimit.rb; do
	grep -q " ${f##*/}\$" "$dir/SHA256SUMS" || fail "SHA256SUMS lacks ${f##*/}"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work" # the suites run the binaries as other users too
# want PLATFORM PATTERN: the archive's binary, as file(1) describes it, matches PATTERN.
want() {
	name=runlimit-$version-$1
	[ -f "$dir/$name.tar.gz" ] || fail "no $name.tar.gz"
	tar -xzf "$dir/$name.tar.gz" -C "$work"
	outside=$(tar -tzf "$dir/$name.tar.gz" | grep -v "^$name/" || true)
	[ -z "$outside" ] || fail "$name.tar.gz holds files outside $name/: $outside"
	[ -x "$work/$name/runlimit" ] || fail "$name/runlimit is not executable"
	got=$(cd "$work/$name" && find . ! -type d | LC_ALL=C sort | tr '\n' ' ')
	[ "$got" = "./LICENSE ./README.md ./completions/_runlimit ./completions/runlimit.bash ./completions/runlimit.fish ./report.schema.json ./runlimit ./runlimit.1 " ] ||
		fail "$name.tar.gz holds: $got"
	cmp -s "$work/$name/runlimit.1" man/runlimit.1 || fail "$name's manual is not man/runlimit.1"
	cmp -s "$work/$name/report.schema.json" docs/report.schema.json || fail "$name's schema is not docs/report.schema.json"
	for c in runlimit.bash _runlimit runlimit.fish; do
		cmp -s "$work/$name/completions/$c" "completions/$c" || fail "$name's completions/$c is not the tree's"
	done
	# file(1) 5.4x separates the slices of a universal binary with a literal "\012- ".
	desc=$(file -b "$work/$name/runlimit" | sed 's/\\012- //g')
	printf '%s\n' "$desc" | grep -Eq "$2" || fail "$name/runlimit is: $desc"
	printf 'release-check: %s/runlimit: %s\n' "$name" "$desc"
}
# static-pie: static, and loaded at a random address (file(1) 5.39 and later say it so)
want linux-x86_64 '^ELF 64-bit LSB pie executable, x86-64, .*static-pie linked.*, stripped$'
want linux-aarch64 '^ELF 64-bit LSB pie executable, ARM aarch64, .*static-pie linked.*, stripped$'
want freebsd-x86_64 '^ELF 64-bit LSB executable, x86-64, .*FreeBSD.*, stripped$'
want freebsd-aarch64 '^ELF 64-bit LSB executable, ARM aarch64, .*FreeBSD.*, stripped$'
want macos-universal '^Mach-O universal binary with 2 architectures: \[x86_64:Mach-O 64-bit x86_64 executable.*\] ?\[arm64:Mach-O 64-bit arm64 executable'
"${PYTHON:-python3}" scripts/macho-check.py "$work/runlimit-$version-macos-universal/runlimit" \
	--want x86_64:10.12 --want arm64:11.0

notes=$(scripts/release-notes.sh "$version") || fail "NEWS.md has no entry for $version"
[ "$(cat "$dir/NOTES.md" 2>/dev/null)" = "$notes" ] || fail "NOTES.md is not NEWS.md's entry for $version"
echo "release-check: NOTES.md: NEWS.md's entry for $version"

# The source tarball is make dist's (make distcheck checks it on its own).
tar -tzf "$dir/runlimit-$version.tar.gz" | grep -qx "runlimit-$version/src/main.c" ||
	fail "runlimit-$version.tar.gz is not the source tarball"
grep -q "sha256 \"$(sha256sum "$dir/runlimit-$version.tar.gz" | cut -d' ' -f1)\"" "$dir/runlimit.rb" ||
	fail "runlimit.rb does not carry the source tarball's checksum"
if command -v ruby >/dev/null 2>&1; then
	ruby -c "$dir/runlimit.rb" >/dev/null || fail "runlimit.rb does not parse"
	echo "release-check: runlimit.rb: ruby -c: syntax OK"
else
	echo "release-check: no ruby here: the formula's syntax is not checked"
fi

x86=$work/runlimit-$version-linux-x86_64/runlimit
arm=$work/runlimit-$version-linux-aarch64/runlimit
scripts/wheel-check.sh "$dir" "$version" "$x86" "$arm" "$work/runlimit-$version-macos-universal/runlimit"
if [ "$(uname -sm)" = "Linux x86_64" ]; then
	"$x86" --version | grep -q "^runlimit (runlimit) $version\$" || fail "linux-x86_64 --version"
	status=0
	"$x86" 1 sleep 10 || status=$?
	[ "$status" -eq 124 ] || fail "linux-x86_64: runlimit 1 sleep 10 exited $status"
fi
if [ "${RELEASE_TESTS:-1}" = 0 ]; then
	echo "release-check: RELEASE_TESTS=0: the suites are not run"
	exit 0
fi
if [ "$(uname -sm)" = "Linux x86_64" ]; then
	# RELEASE_X86_FILES: a part of the suite (CI: most of it runs under qemu against the
	# aarch64 binary, built from the same sources with the same libc).
	echo "release-check: ${RELEASE_X86_FILES:+a part of }the suite against linux-x86_64"
	BATS_FILES=${RELEASE_X86_FILES:-} RUNLIMIT_LIBC=musl make -s check RUNLIMIT="$x86"
fi
qemu=$(command -v qemu-aarch64 || command -v qemu-aarch64-static || true)
if [ "${RELEASE_QEMU:-1}" != 0 ] && [ -n "$qemu" ] && [ "$(uname -s)" = Linux ]; then
	# The tests run "$RUNLIMIT": a small native program that becomes qemu running the
	# aarch64 binary, in the same process (the same pid) and with its own argv[0] passed on
	# (-0), so that a link to it named timeout is timeout, and runlimit's messages name what
	# the tests ran.  Tests that trace runlimit with strace skip (RUNLIMIT_EMULATED): they
	# would trace qemu.  qemu-user passes no PR_SET_CHILD_SUBREAPER on, so the binary's
	# tree there is its process group (EXPECT: what the tests may take for granted).
	cat >"$work/emulate.c" <<-'EOF'
		#include <stdio.h>
		#include <stdlib.h>
		#include <unistd.h>
		int main(int argc, char **argv)
		{
			char **args = calloc((size_t)argc + 4, sizeof *args);
			if (!args)
				return 125;
			args[0] = QEMU;
			args[1] = "-0";
			args[2] = argv[0];
			args[3] = TARGET;
			for (int i = 1; i < argc; i++)
				args[i + 3] = argv[i];
			execv(QEMU, args);
			perror(QEMU);
			return 126;
		}
	EOF
	${CC:-cc} -O2 -DQEMU="\"$qemu\"" -DTARGET="\"$arm\"" -o "$work/runlimit" "$work/emulate.c" ||
		fail "cannot build the qemu launcher"
	"$work/runlimit" --version | grep -q "^runlimit (runlimit) $version\$" || fail "linux-aarch64 --version under qemu"
	# RELEASE_AARCH64_FILES: the suite without its slowest files (CI's time: under qemu they
	# take minutes of timing and trees, which the native gates run in full).
	echo "release-check: ${RELEASE_AARCH64_FILES:+most of }the suite against linux-aarch64 under $qemu"
	BATS_FILES=${RELEASE_AARCH64_FILES:-} RUNLIMIT_LIBC=musl RUNLIMIT_EMULATED=qemu \
		make -s check RUNLIMIT="$work/runlimit" EXPECT="readback splice peercred"
else
	echo "release-check: no qemu-aarch64 here (Debian: qemu-user): linux-aarch64 is not run"
fi
echo "release-check: all checks passed"
