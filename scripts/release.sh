#!/bin/sh
# Build a release into release/ (make release): the source tarball (scripts/dist.sh), one
# archive of a prebuilt, stripped binary per platform with the manual, the shell completions
# and the report's JSON schema, a wheel per Linux and macOS binary (scripts/wheel.py), the
# Homebrew formula for the source tarball, SHA256SUMS, and NOTES.md, the release's notes:
# NEWS.md's entry for the version (scripts/release-notes.sh; no entry, no release).  The
# binaries are cross-built with zig (scripts/zig.sh):
#   linux-x86_64, linux-aarch64   static-pie (static, and position-independent so that the
#                                 kernel randomises where it loads), musl
#   freebsd-x86_64, -aarch64      FreeBSD's libc
#   macos-universal               arm64 (macOS 11, the first on Apple silicon) and x86_64
#                                 (macOS 10.12, the first with clock_gettime) joined with
#                                 llvm-lipo; every slice ad-hoc signed by the linker
# The Makefile passes the source lists and flags (make release).  Then scripts/release-check.sh
# checks what was made.  RELEASE_URL: where the release's files will be downloaded from (for
# the formula); RELEASE_TAG, when set (the workflow's tag), must be v and the version.
# RELEASE_DIR (default release/) is emptied only if it is empty or a previous release
# (scripts/release-dir.sh); everything is made apart first, so a failed build leaves it as it was.
set -eu
cd "$(dirname "$0")/.."
: "${LINUX_SRCS:?run by make release}" "${FREEBSD_SRCS:?}" "${DARWIN_SRCS:?}" "${FEATURES:?}" "${WARN:?}"
FEATURES_FreeBSD=${FEATURES_FreeBSD:-}
version=$(sed -n 's/^#define RUNLIMIT_VERSION "\(.*\)"$/\1/p' src/cli.h)
[ -n "$version" ] || { echo "release.sh: no RUNLIMIT_VERSION in src/cli.h" >&2; exit 1; }
if [ -n "${RELEASE_TAG:-}" ] && [ "$RELEASE_TAG" != "v$version" ]; then
	echo "release.sh: the tag is $RELEASE_TAG but the version is $version (src/cli.h)" >&2
	exit 1
fi
url=${RELEASE_URL:-https://github.com/runlimit/runlimit/releases/download/v$version}
home=${url%%/releases/download/*}
out=${RELEASE_DIR:-release}
scripts/release-dir.sh "$out"
notes=$(scripts/release-notes.sh "$version")
lipo=${LIPO:-$(command -v llvm-lipo || command -v lipo ||
	find /usr/bin /usr/local/bin -name 'llvm-lipo-[0-9]*' 2>/dev/null | sort -V | tail -n 1)}
[ -n "$lipo" ] || { echo "release.sh: llvm-lipo is missing (Debian: apt-get install llvm)" >&2; exit 1; }
zig=$(scripts/zig.sh)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
new=$work/release
mkdir "$new"

echo "release.sh: runlimit $version into $out/"
DIST_DIR=$new scripts/dist.sh >/dev/null
printf '%s\n' "$notes" >"$new/NOTES.md"

# cc TARGET OUTPUT FEATURES SOURCES...: one stripped binary for TARGET.
cc() {
	target=$1 output=$2 feat=$3
	shift 3
	echo "release.sh: zig cc -target $target"
	# shellcheck disable=SC2086 # FEATURES and WARN are lists of flags
	"$zig" cc -target "$target" -std=c11 $feat $WARN -O2 -s -o "$output" "$@" -lm
}
# macos TARGET OUTPUT: one macOS slice, stripped and ad-hoc signed.  zig's linker signs an
# arm64 slice by itself, and an x86_64 one only when given entitlements, which `zig cc`
# cannot pass on: so both slices are linked by `zig build-exe`, with an empty set.
macos() {
	echo "release.sh: zig build-exe -target $1"
	# shellcheck disable=SC2086
	"$zig" build-exe -target "$1" -O ReleaseFast -fstrip -lc --name runlimit \
		--entitlements "$work/entitlements.plist" -femit-bin="$2" \
		-cflags -std=c11 $FEATURES $WARN -O2 -- $DARWIN_SRCS -lm
}
cat >"$work/entitlements.plist" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict/>
</plist>
EOF
# shellcheck disable=SC2086 # the source lists are lists
{
	# (zig cc takes -static-pie and links plain static: these three flags make static-pie)
	cc x86_64-linux-musl "$work/linux-x86_64" "$FEATURES" -fPIE -pie -static $LINUX_SRCS
	cc aarch64-linux-musl "$work/linux-aarch64" "$FEATURES" -fPIE -pie -static $LINUX_SRCS
	cc x86_64-freebsd "$work/freebsd-x86_64" "$FEATURES_FreeBSD" $FREEBSD_SRCS
	cc aarch64-freebsd "$work/freebsd-aarch64" "$FEATURES_FreeBSD" $FREEBSD_SRCS
	macos aarch64-macos.11.0 "$work/macos-arm64"
	macos x86_64-macos.10.12 "$work/macos-x86_64"
}
"$lipo" -create -output "$work/macos-universal" "$work/macos-arm64" "$work/macos-x86_64"

for platform in linux-x86_64 linux-aarch64 freebsd-x86_64 freebsd-aarch64 macos-universal; do
	dir=$work/runlimit-$version-$platform
	mkdir -p "$dir"
	cp "$work/$platform" "$dir/runlimit"
	chmod 755 "$dir/runlimit"
	cp man/runlimit.1 LICENSE README.md docs/report.schema.json "$dir/"
	mkdir "$dir/completions"
	cp completions/runlimit.bash completions/_runlimit completions/runlimit.fish "$dir/completions/"
	chmod 755 "$dir/completions"
	chmod 644 "$dir/runlimit.1" "$dir/LICENSE" "$dir/README.md" "$dir/report.schema.json" \
		"$dir/completions/"*
	epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
	if tar --version 2>/dev/null | grep -q 'GNU tar'; then
		tar -C "$work" --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
			--format=ustar -cf "$work/out.tar" "runlimit-$version-$platform"
	else
		COPYFILE_DISABLE=1 tar -C "$work" -cf "$work/out.tar" "runlimit-$version-$platform"
	fi
	gzip -n -9 <"$work/out.tar" >"$new/runlimit-$version-$platform.tar.gz"
done

# The wheels (scripts/wheel.py), for pip install runlimit: each puts the release's binary itself
# on PATH (runlimit-VERSION.data/scripts/runlimit) beside the Python package python/runlimit.
# One static musl binary is both manylinux (it needs no glibc; 2_17 for both architectures,
# the first manylinux with aarch64, and its other name 2014, which pips older than PEP 600
# read) and musllinux.
# universal2 takes the lower of its slices' minimum macOS, x86_64's 10.12: x86_64 Macs from
# 10.12 on accept it, and every arm64 Mac runs macOS 11 or later, arm64's minimum
# (scripts/release-check.sh checks both minimums).  No wheel for FreeBSD, which PyPI has no
# tag for, and no source distribution, which would need a C compiler at pip install.
package=python/runlimit
if [ ! -f "$package/__init__.py" ]; then
	echo "release.sh: no $package: the wheels carry the binary but no Python package" >&2
	package=-
fi
for w in linux-x86_64:manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_1_x86_64 \
	linux-aarch64:manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64 \
	macos-universal:macosx_10_12_universal2; do
	"${PYTHON:-python3}" scripts/wheel.py build "$work/${w%%:*}" "${w#*:}" "$package" "$version" \
		"$new" --license LICENSE --home "$home" >/dev/null
done

# The formula: the template's URL and checksum replaced by this release's.
sum=$(sha256sum "$new/runlimit-$version.tar.gz" | cut -d' ' -f1)
sed -e "s|^  homepage \".*\"|  homepage \"$home\"|" \
	-e "s|^  url \".*\"|  url \"$url/runlimit-$version.tar.gz\"|" \
	-e "s|^  sha256 \".*\"|  sha256 \"$sum\"|" scripts/homebrew/runlimit.rb >"$new/runlimit.rb"

(cd "$new" && sha256sum runlimit-*.tar.gz runlimit-*.whl runlimit.rb >SHA256SUMS)
# Into RELEASE_DIR (checked above: it holds nothing but a previous release's files).
mkdir -p "$out"
find "$out" -mindepth 1 -maxdepth 1 -type f -exec rm -f {} +
cp "$new"/* "$out"/
ls -l "$out"
