#!/bin/sh
# May make release fill DIR?  Only if DIR is absent, an empty directory, or a previous
# release: a SHA256SUMS and nothing but regular files named as a release's (runlimit-*.tar.gz,
# runlimit-*.whl, runlimit.rb, SHA256SUMS, NOTES.md).  Anything else (a source tree, a home
# directory) is refused with one line on stderr and status 1, for make release empties DIR.
# Usage: scripts/release-dir.sh DIR
set -eu
dir=${1:?usage: release-dir.sh DIR}
refuse() { echo "release: RELEASE_DIR=$dir $1: not emptied (give an empty or new directory, or a previous release's)" >&2; exit 1; }
[ -e "$dir" ] || [ -L "$dir" ] || exit 0
[ -d "$dir" ] || refuse "is not a directory"
found=0
for f in "$dir"/* "$dir"/.[!.]* "$dir"/..?*; do
	[ -e "$f" ] || [ -L "$f" ] || continue # an unmatched pattern
	found=1
	name=${f##*/}
	case $name in
	runlimit-*.tar.gz | runlimit-*.whl | runlimit.rb | SHA256SUMS | NOTES.md) ;;
	*) refuse "holds $name, which is no release file" ;;
	esac
	if [ -L "$f" ] || [ ! -f "$f" ]; then
		refuse "holds $name, which is not a regular file"
	fi
done
[ "$found" = 0 ] || [ -f "$dir/SHA256SUMS" ] || refuse "has no SHA256SUMS, so is no previous release"
