#!/bin/sh
# Build the Debian package (debian/) as a packager would, and check it: dpkg-buildpackage
# -us -uc -b in a copy of the source (what make dist packs, plus debian/), so the work tree
# stays clean and the .deb lands in a scratch directory; lintian with no error and no warning
# (info and pedantic tags are allowed); dpkg -i; the installed runlimit passes installcheck
# (a time-out gives 124, the manual is there, ...); nothing but runlimit, its manual, its
# docs and lintian overrides installed (no timeout link: coreutils has it); dpkg --purge leaves nothing behind.
#
# By default the package's own test step is skipped (DEB_BUILD_OPTIONS=nocheck and the
# nocheck build profile): CI's check gate runs the whole suite on the same sources already.
# --check runs it (dh_auto_test: make check, offline), with BATS_FILES from the environment
# if set (a part of the suite, scripts/run-bats.sh).
# Needs dpkg-dev, debhelper and lintian, and root (or sudo) for dpkg -i; it refuses to run
# where a runlimit package is installed already, which it would replace and then remove.
# Usage: scripts/deb-check.sh [--check]
set -eu
cd "$(dirname "$0")/.."
fail() { echo "deb-check: $*" >&2; exit 1; }
tests=0
case ${1:-} in --check) tests=1 ;; '') ;; *) fail "usage: deb-check.sh [--check]" ;; esac
for tool in dpkg-buildpackage:dpkg-dev dh:debhelper lintian:lintian; do
	command -v "${tool%%:*}" >/dev/null 2>&1 || fail "no ${tool%%:*} (apt-get install ${tool#*:})"
done
as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}
pkg_installed() { dpkg-query -W -f '${Status}' runlimit 2>/dev/null | grep -q 'ok installed'; }

# The package's version follows the program's: a release that bumps RUNLIMIT_VERSION needs a
# debian/changelog entry too.
version=$(sed -n 's/^#define RUNLIMIT_VERSION "\(.*\)"$/\1/p' src/cli.h)
debversion=$(dpkg-parsechangelog -S Version)
[ "${debversion%-*}" = "$version" ] ||
	fail "debian/changelog is at $debversion but src/cli.h at $version: add an entry (dch -v $version-1)"
pkg_installed && fail "a runlimit package is installed here already: remove it first (dpkg -r runlimit)"

work=$(mktemp -d "${TMPDIR:-/tmp}/deb-check.XXXXXX")
installed=0
cleanup() {
	[ "$installed" = 0 ] || as_root dpkg --purge runlimit >/dev/null 2>&1 || :
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
now() { date +%s; }

start=$(now)
DIST_DIR=$work scripts/dist.sh >/dev/null
tar -xzf "$work/runlimit-$version.tar.gz" -C "$work"
src=$work/runlimit-$version
[ ! -e "$src/debian" ] || fail "the source tarball holds a debian/ of its own"
cp -R debian "$src/"
if [ "$tests" = 1 ]; then
	opts=${DEB_BUILD_OPTIONS:-} profile=
	echo "deb-check: dpkg-buildpackage with its tests (make check${BATS_FILES:+, BATS_FILES=$BATS_FILES})"
else
	opts="nocheck ${DEB_BUILD_OPTIONS:-}" profile=-Pnocheck
	echo "deb-check: dpkg-buildpackage, nocheck (the check gate runs the suite)"
fi
# shellcheck disable=SC2086 # $profile: an option or none
if ! (cd "$src" && DEB_BUILD_OPTIONS=$opts dpkg-buildpackage -us -uc -b $profile) >"$work/build.log" 2>&1; then
	cat "$work/build.log" >&2
	fail "dpkg-buildpackage failed"
fi
[ "$tests" = 0 ] || grep -E '^bats: ' "$work/build.log" || fail "the build ran no bats test"
arch=$(dpkg --print-architecture)
deb=$work/runlimit_${debversion}_$arch.deb
changes=$work/runlimit_${debversion}_$arch.changes
if [ ! -f "$deb" ] || [ ! -f "$changes" ]; then fail "no $(basename "$deb") or its .changes after the build"; fi
echo "deb-check: built $(basename "$deb") in $(($(now) - start)) s"

start=$(now)
status=0
lint=$(lintian --fail-on error,warning -I "$changes" 2>&1) || status=$?
echo "$lint" | grep -v '^running with root privileges' || :
[ "$status" -eq 0 ] || fail "lintian found an error or a warning (or failed: $status)"
echo "deb-check: lintian: no error, no warning ($(($(now) - start)) s)"

start=$(now)
as_root dpkg -i "$deb" >/dev/null
installed=1
files=$(dpkg -L runlimit | while IFS= read -r f; do [ -d "$f" ] || echo "$f"; done | LC_ALL=C sort)
want="/usr/bin/runlimit
/usr/share/bash-completion/completions/runlimit
/usr/share/doc/runlimit/README.md.gz
/usr/share/doc/runlimit/changelog.Debian.gz
/usr/share/doc/runlimit/copyright
/usr/share/fish/vendor_completions.d/runlimit.fish
/usr/share/man/man1/runlimit.1.gz
/usr/share/zsh/site-functions/_runlimit"
[ "$files" = "$want" ] || fail "the package installs [$files], expected [$want]"
file -L /usr/bin/runlimit | grep -q 'dynamically linked' || fail "the packaged runlimit is not linked dynamically"
sh scripts/installcheck.sh /usr/bin/runlimit "$version" /usr/share/man/man1/runlimit.1.gz
as_root dpkg --purge runlimit >/dev/null
installed=0
[ ! -e /usr/bin/runlimit ] || fail "dpkg --purge left /usr/bin/runlimit"
! pkg_installed || fail "runlimit is still installed after dpkg --purge"
echo "deb-check: installed, checked and purged in $(($(now) - start)) s"
echo "deb-check: runlimit $debversion builds, is lintian-clean, installs and runs"
