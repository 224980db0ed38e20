#!/bin/sh
# Check `make install`, `install-links` and `uninstall` into a scratch DESTDIR: exactly the
# binary, the manual and the shell completions land where they belong, the links work, make
# installcheck passes on what was installed, and uninstall removes all.
set -eu
cd "$(dirname "$0")/.."
dest=$(mktemp -d)
writer=$(mktemp)
trap 'rm -rf "$dest" "$writer"' EXIT
fail() { echo "install-test: $*" >&2; exit 1; }
mode() { m=$(ls -ld "$1") && printf '%s\n' "${m%% *}"; }
listing() { (cd "$dest" && find . \( -type f -o -type l \) | sort | tr '\n' ' '); }
# sorted PATH...: the PATHs as listing prints them.
sorted() { printf '%s\n' "$@" | sort | tr '\n' ' '; }
# comps DATAROOTDIR: where the bash, zsh and fish completions go under DATAROOTDIR.
comps() {
	echo "$1/bash-completion/completions/runlimit $1/zsh/site-functions/_runlimit" \
		"$1/fish/vendor_completions.d/runlimit.fish"
}

make -s install DESTDIR="$dest" PREFIX=/usr/local
got=$(listing)
# shellcheck disable=SC2046 # comps gives three paths
want=$(sorted ./usr/local/bin/runlimit ./usr/local/share/man/man1/runlimit.1 $(comps ./usr/local/share))
[ "$got" = "$want" ] || fail "install put [$got], expected [$want]"
[ -x "$dest/usr/local/bin/runlimit" ] || fail "runlimit is not executable"
for f in bash-completion/completions/runlimit:runlimit.bash zsh/site-functions/_runlimit:_runlimit \
	fish/vendor_completions.d/runlimit.fish:runlimit.fish; do
	cmp -s "completions/${f#*:}" "$dest/usr/local/share/${f%%:*}" ||
		fail "share/${f%%:*} is not completions/${f#*:}"
done
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
# shellcheck disable=SC2046
want=$(sorted ./usr/bin/runlimit ./usr/share/man/man1/runlimit.1 $(comps ./usr/share))
[ "$got" = "$want" ] || fail "prefix=/usr mandir=/usr/share/man put [$got], expected [$want]"
# make installcheck finds what the same variables installed, and it works
make -s installcheck DESTDIR="$dest" prefix=/usr mandir=/usr/share/man ||
	fail "make installcheck failed on what make install put in $dest"
rm -rf "${dest:?}"/*
make -s install DESTDIR="$dest" PREFIX=/opt/rl MANDIR=/opt/rl/man
got=$(listing)
# shellcheck disable=SC2046
want=$(sorted ./opt/rl/bin/runlimit ./opt/rl/man/man1/runlimit.1 $(comps ./opt/rl/share))
[ "$got" = "$want" ] || fail "MANDIR=/opt/rl/man put [$got], expected [$want]"
rm -rf "${dest:?}"/*
# an old command line that gave MANDIR as the man1 directory itself still works
make -s install DESTDIR="$dest" PREFIX=/opt/rl MANDIR=/opt/rl/share/man/man1 bindir=/opt/x
got=$(listing)
# shellcheck disable=SC2046
want=$(sorted ./opt/rl/share/man/man1/runlimit.1 ./opt/x/runlimit $(comps ./opt/rl/share))
[ "$got" = "$want" ] || fail "MANDIR=.../man1 bindir=/opt/x put [$got], expected [$want]"
rm -rf "${dest:?}"/*
# datarootdir moves the completions (man1dir given, not the manual) ...
make -s install DESTDIR="$dest" prefix=/usr man1dir=/usr/man/1 datarootdir=/usr/lib/data
got=$(listing)
# shellcheck disable=SC2046
want=$(sorted ./usr/bin/runlimit ./usr/man/1/runlimit.1 $(comps ./usr/lib/data))
[ "$got" = "$want" ] || fail "man1dir=/usr/man/1 datarootdir=/usr/lib/data put [$got], expected [$want]"
# ... and each has a variable of its own (Homebrew's bash place is etc/bash_completion.d)
rm -rf "${dest:?}"/*
make -s install DESTDIR="$dest" prefix=/usr bashcompdir=/etc/bash_completion.d \
	zshcompdir=/usr/share/zsh/vendor-completions fishcompdir=/usr/share/fish/completions
got=$(listing)
want=$(sorted ./usr/bin/runlimit ./usr/share/man/man1/runlimit.1 ./etc/bash_completion.d/runlimit \
	./usr/share/zsh/vendor-completions/_runlimit ./usr/share/fish/completions/runlimit.fish)
[ "$got" = "$want" ] || fail "bashcompdir, zshcompdir and fishcompdir put [$got], expected [$want]"
make -s uninstall DESTDIR="$dest" prefix=/usr bashcompdir=/etc/bash_completion.d \
	zshcompdir=/usr/share/zsh/vendor-completions fishcompdir=/usr/share/fish/completions
got=$(listing)
[ -z "$got" ] || fail "uninstall with bashcompdir, zshcompdir and fishcompdir left [$got]"
# the modes are set, whatever the umask
rm -rf "${dest:?}"/*
(umask 077 && make -s install DESTDIR="$dest" PREFIX=/usr/local)
[ "$(mode "$dest/usr/local/bin/runlimit")" = -rwxr-xr-x ] || fail "runlimit is not 0755 under umask 077"
[ "$(mode "$dest/usr/local/share/man/man1/runlimit.1")" = -rw-r--r-- ] ||
	fail "the manual is not 0644 under umask 077"
for f in $(comps "$dest/usr/local/share"); do
	[ "$(mode "$f")" = -rw-r--r-- ] || fail "$f is not 0644 under umask 077"
done

# A link already where a file goes (an old install's, a stow link) is replaced, never
# written through: the file it points to is left as it was.  GNU install replaces it
# itself, so the install here is one that writes through a link, as cp does (BSD
# install, an INSTALL=cp): only make install's own removal saves the file.
# shellcheck disable=SC2016 # the script's own $1...
printf '#!/bin/sh\n[ "$1" = -m ] && cat "$3" >"$4" && chmod "$2" "$4"\n' >"$writer"
chmod 755 "$writer"
# victim F: the file a link at usr/local/F points to
victim() { echo "$dest/victim/$(echo "$1" | tr / _)"; }
rm -rf "${dest:?}"/*
mkdir -p "$dest/victim"
files="bin/runlimit share/man/man1/runlimit.1 $(comps share)"
for f in $files; do
	mkdir -p "$dest/usr/local/$(dirname "$f")"
	echo victim >"$(victim "$f")"
	chmod 600 "$(victim "$f")"
	# a relative link, as stow makes: a ../ for each directory below $dest
	up=$(dirname "usr/local/$f" | sed 's|[^/][^/]*|..|g')
	ln -s "$up/victim/$(basename "$(victim "$f")")" "$dest/usr/local/$f"
	[ "$(cat "$dest/usr/local/$f")" = victim ] || fail "the test's link at $f is wrong"
done
mkdir "$dest/victim/dir"
ln -s ../../../victim/dir "$dest/usr/local/bin/timeout"
make -s install install-links DESTDIR="$dest" PREFIX=/usr/local INSTALL="$writer"
for f in $files; do
	[ "$(cat "$(victim "$f")")" = victim ] || fail "install wrote through a link at $f"
	[ "$(mode "$(victim "$f")")" = -rw------- ] ||
		fail "install changed the mode of the file a link at $f points to"
	[ ! -L "$dest/usr/local/$f" ] || fail "$f is still a link"
done
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
