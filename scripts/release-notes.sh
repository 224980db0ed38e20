#!/bin/sh
# Print NEWS.md's entry for VERSION (the lines under its "## VERSION" heading, up to the next
# "## " heading), which make release writes as the release's notes; fail, with one line on
# stderr, when NEWS.md has no entry for VERSION or an empty one.
# Usage: scripts/release-notes.sh VERSION [NEWS.md]
set -eu
version=${1:?usage: release-notes.sh VERSION [NEWS.md]}
news=${2:-$(dirname "$0")/../NEWS.md}
[ -r "$news" ] || { echo "release-notes: no $news" >&2; exit 1; }
notes=$(awk -v v="$version" '
	/^## / { if (inside) exit; inside = ($2 == v) ; next }
	inside' "$news" | sed -e '/./,$!d')
[ -n "$notes" ] || {
	echo "release-notes: NEWS.md has no entry for $version (a \"## $version\" heading and what changed)" >&2
	exit 1
}
printf '%s\n' "$notes"
