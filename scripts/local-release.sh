#!/bin/sh
# A release of this build for this system alone, laid out as make release lays one out
# (runlimit-VERSION-PLATFORM.tar.gz holding runlimit-VERSION-PLATFORM/runlimit, and
# SHA256SUMS): for the GitHub Action (action.yml) to install on every push, from
# file://DIR, where no published release can be had yet (.github/workflows/ci.yml).
# Usage: scripts/local-release.sh DIR [BINARY]   (BINARY: ./runlimit by default)
# Prints the version (what the action's version input takes).
set -eu
dir=${1:?usage: scripts/local-release.sh DIR [BINARY]}
bin=${2:-./runlimit}
fail() { echo "local-release: $*" >&2; exit 1; }
[ -x "$bin" ] || fail "no runlimit at $bin (make first)"
version=$("$bin" --version | sed -n '1s/^runlimit (runlimit) //p')
[ -n "$version" ] || fail "$bin --version does not say a version"
case $(uname -s)/$(uname -m) in
Linux/x86_64) platform=linux-x86_64 ;;
Linux/aarch64 | Linux/arm64) platform=linux-aarch64 ;;
Darwin/*) platform=macos-universal ;;
FreeBSD/amd64) platform=freebsd-x86_64 ;;
FreeBSD/arm64 | FreeBSD/aarch64) platform=freebsd-aarch64 ;;
*) fail "no release platform for $(uname -s) on $(uname -m)" ;;
esac
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
name=runlimit-$version-$platform
mkdir -p "$stage/$name" "$dir"
cp "$bin" "$stage/$name/runlimit"
cp man/runlimit.1 LICENSE README.md docs/report.schema.json "$stage/$name/"
mkdir "$stage/$name/completions"
cp completions/runlimit.bash completions/_runlimit completions/runlimit.fish "$stage/$name/completions/"
tar -C "$stage" -cf - "$name" | gzip -n >"$dir/$name.tar.gz"
cd "$dir"
if command -v sha256sum >/dev/null 2>&1; then
	sha256sum "$name.tar.gz" >SHA256SUMS
else
	shasum -a 256 "$name.tar.gz" >SHA256SUMS
fi
echo "$version"
