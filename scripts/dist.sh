#!/bin/sh
# Pack the source tarball, runlimit-VERSION.tar.gz, into the current directory (make dist).
# It holds what git tracks, as it is in the work tree, less what only the repository needs
# (.ci/, .github/, .gitignore) and debian/: what is needed to build, test and install, and no
# build output.  debian/ is the Debian packaging (scripts/deb-check.sh): a distribution adds
# its own around this tarball, which its 3.0 (quilt) source format takes as the upstream
# .orig.tar.gz, and a debian/ inside that would only be in its way.  A file that exists but
# was never added is not packed, which `make distcheck` then finds missing.  VERSION is the
# one `runlimit --version` prints (src/cli.h).
# The same tree packs to the same bytes with GNU tar: names sorted, owner 0, modes without
# the umask's say, and every mtime the last commit's (SOURCE_DATE_EPOCH, when set, wins).
set -eu
cd "$(dirname "$0")/.."
version=$(sed -n 's/^#define RUNLIMIT_VERSION "\(.*\)"$/\1/p' src/cli.h)
[ -n "$version" ] || { echo "dist.sh: no RUNLIMIT_VERSION in src/cli.h" >&2; exit 1; }
git rev-parse --git-dir >/dev/null 2>&1 ||
	{ echo "dist.sh: not a git checkout: the tarball is made of the files git tracks" >&2; exit 1; }
name=runlimit-$version
out=${DIST_DIR:-.}/$name.tar.gz
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"
# Tracked files that are in the work tree (a deletion not yet committed is not packed).
git ls-files -z | tr '\0' '\n' | grep -Ev '^(\.ci/|\.github/|debian/|\.gitignore$)' |
	while IFS= read -r f; do
		[ -e "$f" ] || continue
		mkdir -p "$stage/$name/$(dirname "$f")"
		cp -p "$f" "$stage/$name/$f"
	done
# (tar into a file first: in a pipeline its failure would go unseen)
if tar --version 2>/dev/null | grep -q 'GNU tar'; then
	tar -C "$stage" --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
		--mode='u+rwX,go+rX,go-w' --format=ustar -cf "$stage/out.tar" "$name"
else
	COPYFILE_DISABLE=1 tar -C "$stage" -cf "$stage/out.tar" "$name" # no AppleDouble files
fi
gzip -n -9 <"$stage/out.tar" >"$out.tmp"
mv "$out.tmp" "$out"
echo "$out"
