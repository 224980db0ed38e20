#!/bin/sh
# Check a source tarball the way a user of it would (make distcheck): unpack it in a fresh
# directory, build, run a real time-out, run `make check`, install into a DESTDIR (with the
# links), run `make installcheck` against what is installed, uninstall, then `make clean`.
# It fails when the tarball holds what it should not (a build output, .git), lacks what the
# build or the tests need (they fail), when the installed runlimit fails installcheck, when
# uninstall leaves a file in the DESTDIR, or when the tree after `make clean` is not the
# tarball's.
# Usage: scripts/distcheck.sh runlimit-VERSION.tar.gz
set -eu
tarball=${1:?usage: distcheck.sh runlimit-VERSION.tar.gz}
case $tarball in /*) ;; *) tarball=$PWD/$tarball ;; esac
name=$(basename "$tarball" .tar.gz)
version=${name#runlimit-}
make=${MAKE:-make}
fail() { echo "distcheck: $*" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/distcheck.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/src"
tar -xzf "$tarball" -C "$work/src"
[ "$(ls "$work/src")" = "$name" ] || fail "$tarball does not unpack into one directory $name/"
src=$work/src/$name
# Every file with its checksum, and every directory: a build or a test that changes a packed
# file, or leaves an empty directory behind, shows.
listing() { (cd "$src" && find . -type d | LC_ALL=C sort && find . ! -type d -exec cksum {} + | LC_ALL=C sort -k 3); }
listing >"$work/packed"

# Nothing that is built or belongs to the repository only.
bad=$(awk '{ print $NF }' "$work/packed" |
	grep -E '^\./(\.git(/|$)|\.ci(/|$)|\.github(/|$)|debian(/|$)|runlimit$|runlimit-|\.build-flags)|\.o$|/run-unit' || true)
[ -z "$bad" ] || fail "the tarball holds what it should not: $bad"
for f in Makefile LICENSE README.md man/runlimit.1 src/main.c tests/helpers.bash scripts/run-bats.sh; do
	grep -q " \./$f\$" "$work/packed" || fail "the tarball lacks $f"
done

cd "$src"
echo "distcheck: building $name in $src"
"$make" -s
got=$(./runlimit --version | sed -n '1s/.* //p')
[ "$got" = "$version" ] || fail "the tarball is $version but runlimit --version says $got"
status=0
./runlimit 1 sleep 10 || status=$?
[ "$status" -eq 124 ] || fail "runlimit 1 sleep 10 exited $status, not 124"

echo "distcheck: make check"
"$make" check

echo "distcheck: install and uninstall into a DESTDIR"
dest=$work/dest
"$make" -s install DESTDIR="$dest" PREFIX=/usr/local
"$make" -s install-links DESTDIR="$dest" PREFIX=/usr/local
for f in bin/runlimit bin/timeout bin/nproc share/man/man1/runlimit.1 \
	share/bash-completion/completions/runlimit share/zsh/site-functions/_runlimit \
	share/fish/vendor_completions.d/runlimit.fish; do
	[ -e "$dest/usr/local/$f" ] || fail "make install did not install $f"
done
"$make" -s installcheck DESTDIR="$dest" PREFIX=/usr/local || fail "make installcheck failed"
"$make" -s uninstall DESTDIR="$dest" PREFIX=/usr/local
left=$(cd "$dest" && find . ! -type d)
[ -z "$left" ] || fail "make uninstall left: $left"

echo "distcheck: make clean gives back the tarball's tree"
"$make" -s clean
listing >"$work/after"
if ! cmp -s "$work/packed" "$work/after"; then
	echo "distcheck: after make clean, the tree differs from the tarball (< packed, > left):" >&2
	diff "$work/packed" "$work/after" >&2 || true
	exit 1
fi
echo "distcheck: $name is ready for distribution"
