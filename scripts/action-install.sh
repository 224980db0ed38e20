#!/bin/sh
# The GitHub Action's install (action.yml): download the release archive of runlimit for this
# runner's system and architecture, check it against the release's SHA256SUMS, unpack it and
# put its directory on PATH (the file $GITHUB_PATH names).  POSIX sh, curl (wget if no curl).
# Environment (the action's inputs, and what GitHub sets):
#   RUNLIMIT_VERSION        X.Y.Z (a leading v is taken), or latest (the default)
#   RUNLIMIT_TIMEOUT_ALIAS  true: links named timeout and gtimeout beside runlimit; false:
#                           none; empty: true on macOS (which has no timeout), else false
#   RUNLIMIT_RELEASE_URL    where one release's files are (its SHA256SUMS and archives), as a
#                           URL (file:// too); default: the GitHub release of the version
#   RUNNER_OS, RUNNER_ARCH  Linux, macOS; X64, ARM64 (uname when unset)
#   RUNNER_TEMP             where it is unpacked (default $TMPDIR, /tmp)
#   GITHUB_PATH, GITHUB_OUTPUT   the directory to add to PATH; the outputs version and path
# Any failure is one line on stderr and status 1.
set -eu
repo=https://github.com/runlimit/runlimit/releases
die() { echo "runlimit action: $*" >&2; exit 1; }

version=${RUNLIMIT_VERSION:-latest}
version=${version#v}
case $version in
latest) ;;
[0-9]*.[0-9]*.[0-9]*) case $version in *[!0-9.]*) die "version '$version' is not X.Y.Z or latest" ;; esac ;;
*) die "version '$version' is not X.Y.Z or latest" ;;
esac

os=${RUNNER_OS:-$(uname -s)}
arch=${RUNNER_ARCH:-$(uname -m)}
case $os/$arch in
Linux/X64 | Linux/x86_64 | Linux/amd64) platform=linux-x86_64 ;;
Linux/ARM64 | Linux/aarch64 | Linux/arm64) platform=linux-aarch64 ;;
macOS/X64 | macOS/ARM64 | Darwin/x86_64 | Darwin/arm64) platform=macos-universal os=macOS ;;
FreeBSD/amd64 | FreeBSD/x86_64) platform=freebsd-x86_64 ;;
FreeBSD/arm64 | FreeBSD/aarch64) platform=freebsd-aarch64 ;;
*) die "no release binary for $os on $arch (there are: Linux X64 and ARM64, macOS, FreeBSD x86_64 and aarch64)" ;;
esac

alias=${RUNLIMIT_TIMEOUT_ALIAS:-}
case $alias in
'') if [ "$os" = macOS ]; then alias=true; else alias=false; fi ;;
true | false) ;;
*) die "timeout-alias '$alias' is not true or false" ;;
esac

# fetch URL FILE: FILE is what URL holds, or the script ends saying what could not be had.
fetch() {
	if command -v curl >/dev/null 2>&1; then
		curl -fsSL --retry 3 -o "$2" "$1" 2>/dev/null || die "could not download $1"
	elif command -v wget >/dev/null 2>&1; then
		wget -q -O "$2" "$1" || die "could not download $1 (wget)"
	else
		die "neither curl nor wget is installed"
	fi
}
# sha256 FILE: its SHA-256, in hex.
sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | cut -d' ' -f1
	elif command -v sha256 >/dev/null 2>&1; then
		sha256 -q "$1"
	else
		die "no sha256sum, shasum or sha256 to check the archive with"
	fi
}

if [ -n "${RUNLIMIT_RELEASE_URL:-}" ]; then
	base=${RUNLIMIT_RELEASE_URL%/}
elif [ "$version" = latest ]; then
	base=$repo/latest/download
else
	base=$repo/download/v$version
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fetch "$base/SHA256SUMS" "$work/SHA256SUMS"
# The archive's line: runlimit-VERSION-PLATFORM.tar.gz (latest: whatever version it is).
line=$(awk -v v="$version" -v p="$platform" '{
	name = $2
	sub(/^\*/, "", name)
	suffix = "-" p ".tar.gz"
	if (v != "latest")
		ok = (name == "runlimit-" v suffix)
	else
		ok = (index(name, "runlimit-") == 1 && length(name) > length(suffix) + 9 &&
		      substr(name, length(name) - length(suffix) + 1) == suffix)
	if (ok) { print $1, name; exit }
}' "$work/SHA256SUMS")
[ -n "$line" ] || die "the release at $base has no $platform archive for version $version in its SHA256SUMS"
want=${line%% *}
name=${line#* }
version=${name#runlimit-}
version=${version%-"$platform".tar.gz}
case $version in *[!0-9.]* | '') die "$name in $base/SHA256SUMS names no version X.Y.Z" ;; esac
# latest: the files of that very release, whatever is published meanwhile
[ -n "${RUNLIMIT_RELEASE_URL:-}" ] || base=$repo/download/v$version

fetch "$base/$name" "$work/$name"
got=$(sha256 "$work/$name")
[ "$got" = "$want" ] || die "$name does not match SHA256SUMS (sha256 $got, listed $want): not installed"

dest=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/runlimit-action/$version
rm -rf "$dest"
mkdir -p "$dest/bin"
tar -xzf "$work/$name" -C "$work" || die "could not unpack $name"
dir=$work/runlimit-$version-$platform
[ -f "$dir/runlimit" ] || die "$name holds no runlimit-$version-$platform/runlimit"
cp "$dir/runlimit" "$dest/bin/runlimit"
chmod 755 "$dest/bin/runlimit"
mkdir -p "$dest/share/man/man1"
[ ! -f "$dir/runlimit.1" ] || cp "$dir/runlimit.1" "$dest/share/man/man1/"
if [ "$alias" = true ]; then
	ln -s runlimit "$dest/bin/timeout"
	ln -s runlimit "$dest/bin/gtimeout"
fi
said=$("$dest/bin/runlimit" --version 2>&1 | head -n 1) || true
[ "$said" = "runlimit (runlimit) $version" ] ||
	die "the installed runlimit does not run here: '$said' to --version"

if [ -n "${GITHUB_PATH:-}" ]; then
	echo "$dest/bin" >>"$GITHUB_PATH"
else
	echo "runlimit action: no GITHUB_PATH: add $dest/bin to PATH yourself" >&2
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
	printf 'version=%s\npath=%s\n' "$version" "$dest/bin/runlimit" >>"$GITHUB_OUTPUT"
fi
echo "runlimit $version ($platform) in $dest/bin$([ "$alias" = false ] || echo ', with timeout and gtimeout')"
