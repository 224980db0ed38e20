#!/bin/sh
# Check `make install`, `install-links` and `uninstall` into a scratch DESTDIR: exactly the
# binary and the manual land where they belong, the links work, make installcheck passes on
# what was installed, and uninstall removes all.
set -eu
cd "$(dirname "$0")/.."
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
fail() { echo "install-test: $*" >&2; exit 1; }
mode() { m=$(ls -ld "$1") && printf '%s\n' "${m%% *}"; }
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

# The GNU directory variables: mandir is the parent of man1 (as for GNU and the BSDs), and
# the lower-case names work as the upper-case ones do.
rm -rf "${dest:?}"/*
make -s install DESTDIR="$dest" prefix=/usr mandir=/usr/share/man
got=$(listing)
want="./usr/bin/runlimit ./usr/share/man/man1/runlimit.1 "
[ "$got" = "$want" ] || fail "prefix=/usr mandir=/usr/share/man put [$got], expected [$want]"
# make installcheck finds what the same variables installed, and it works
make -s installcheck DESTDIR="$dest" prefix=/usr mandir=/usr/share/man ||
	fail "make installcheck failed on what make install put in $dest"
rm -rf "${dest:?}"/*
make -s install DESTDIR="$dest" PREFIX=/opt/rl MANDIR=/opt/rl/man
got=$(listing)
want="./opt/rl/bin/runlimit ./opt/rl/man/man1/runlimit.1 "
[ "$got" = "$want" ] || fail "MANDIR=/opt/rl/man put [$got], expected [$want]"
rm -rf "${dest:?}"/*
# an old command line that gave MANDIR as the man1 directory itself still works
make -s install DESTDIR="$dest" PREFIX=/opt/rl MANDIR=/opt/rl/share/man/man1 bindir=/opt/x
got=$(listing)
want="./opt/rl/share/man/man1/runlimit.1 ./opt/x/runlimit "
[ "$got" = "$want" ] || fail "MANDIR=.../man1 bindir=/opt/x put [$got], expected [$want]"
rm -rf "${dest:?}"/*
make -s install DESTDIR="$dest" prefix=/usr man1dir=/usr/man/1
got=$(listing)
want="./usr/bin/runlimit ./usr/man/1/runlimit.1 "
[ "$got" = "$want" ] || fail "man1dir=/usr/man/1 put [$got], expected [$want]"
# the modes are set, whatever the umask
rm -rf "${dest:?}"/*
(umask 077 && make -s install DESTDIR="$dest" PREFIX=/usr/local)
[ "$(mode "$dest/usr/local/bin/runlimit")" = -rwxr-xr-x ] || fail "runlimit is not 0755 under umask 077"
[ "$(mode "$dest/usr/local/share/man/man1/runlimit.1")" = -rw-r--r-- ] ||
	fail "the manual is not 0644 under umask 077"

# A link already where a file goes (an old install's, a stow link) is replaced, never
# written through: the file it points to is left as it was.
rm -rf "${dest:?}"/*
mkdir -p "$dest/usr/local/bin" "$dest/usr/local/share/man/man1" "$dest/victim"
echo victim >"$dest/victim/bin"
echo victim >"$dest/victim/man"
chmod 600 "$dest/victim/bin" "$dest/victim/man"
ln -s ../../../victim/bin "$dest/usr/local/bin/runlimit"
ln -s ../../../../../victim/man "$dest/usr/local/share/man/man1/runlimit.1"
mkdir "$dest/victim/dir"
ln -s ../../../victim/dir "$dest/usr/local/bin/timeout"
make -s install install-links DESTDIR="$dest" PREFIX=/usr/local
[ "$(cat "$dest/victim/bin")" = victim ] || fail "install wrote through a link at bin/runlimit"
[ "$(cat "$dest/victim/man")" = victim ] || fail "install wrote through a link at the manual"
[ "$(mode "$dest/victim/bin")" = -rw------- ] || fail "install changed the mode of a link's target"
[ ! -L "$dest/usr/local/bin/runlimit" ] || fail "bin/runlimit is still a link"
[ ! -L "$dest/usr/local/share/man/man1/runlimit.1" ] || fail "the manual is still a link"
[ "$(readlink "$dest/usr/local/bin/timeout")" = runlimit ] || fail "a link to a directory at timeout was not replaced"
[ -z "$(ls "$dest/victim/dir")" ] || fail "install-links put a link inside the directory a link pointed to"
"$dest/usr/local/bin/runlimit" 5 true || fail "the runlimit installed over a link does not run"

# uninstall removes a timeout or nproc link only if it points at runlimit.
rm -f "$dest/usr/local/bin/timeout"
ln -s /usr/bin/gtimeout "$dest/usr/local/bin/timeout"
make -s uninstall DESTDIR="$dest" PREFIX=/usr/local
[ -L "$dest/usr/local/bin/timeout" ] || fail "uninstall removed a timeout link that is not runlimit's"
if [ -e "$dest/usr/local/bin/nproc" ] || [ -L "$dest/usr/local/bin/nproc" ]; then
	fail "uninstall left runlimit's nproc link"
fi
echo "install-test: install, install-links and uninstall are correct"
