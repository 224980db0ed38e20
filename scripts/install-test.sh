#!/bin/sh
# Check `make install`, `install-links` and `uninstall` into a scratch DESTDIR: exactly the
# binary and the manual land where they belong, the links work, and uninstall removes all.
set -eu
cd "$(dirname "$0")/.."
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
fail() { echo "install-test: $*" >&2; exit 1; }
listing() { (cd "$dest" && find . \( -type f -o -type l \) | sort | tr '\n' ' '); }

make -s install DESTDIR="$dest" PREFIX=/usr/local
got=$(listing)
want="./usr/local/bin/runlimit ./usr/local/share/man/man1/runlimit.1 "
[ "$got" = "$want" ] || fail "install put [$got], expected [$want]"
[ -x "$dest/usr/local/bin/runlimit" ] || fail "runlimit is not executable"
"$dest/usr/local/bin/runlimit" 5 true || fail "installed runlimit does not run"

make -s install-links DESTDIR="$dest" PREFIX=/usr/local
[ -L "$dest/usr/local/bin/timeout" ] || fail "install-links made no timeout link"
[ "$(readlink "$dest/usr/local/bin/timeout")" = runlimit ] || fail "timeout does not point at runlimit"
# Messages name the program as invoked (here by its path), quoted as in the C locale.
msg=$(LC_ALL=C "$dest/usr/local/bin/timeout" 1x true 2>&1) && fail "timeout 1x true succeeded"
case $msg in "$dest/usr/local/bin/timeout: invalid time interval '1x'"*) ;;
*) fail "timeout link says: $msg" ;; esac
[ "$(readlink "$dest/usr/local/bin/nproc")" = runlimit ] || fail "install-links made no nproc link"
n=$("$dest/usr/local/bin/nproc") || fail "the nproc link fails"
[ "$n" = "$("$dest/usr/local/bin/runlimit" --nproc)" ] || fail "nproc link says [$n]"
msg=$(LC_ALL=C "$dest/usr/local/bin/nproc" x 2>&1) && fail "nproc x succeeded"
case $msg in "$dest/usr/local/bin/nproc: extra operand 'x'"*) ;; *) fail "nproc link says: $msg" ;; esac

make -s uninstall DESTDIR="$dest" PREFIX=/usr/local
got=$(listing)
[ -z "$got" ] || fail "uninstall left [$got]"
echo "install-test: install, install-links and uninstall are correct"
