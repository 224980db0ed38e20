#!/bin/sh
# Print the path of a zig compiler of the pinned version, installing it into a cache directory
# if needed.  zig is a development tool only (the cross-checks); it never goes into the binary.
# Source of the install: the PyPI package `ziglang` (the official zig release as a wheel), with
# pip into a private directory (--target, so no Python environment is touched).
set -eu
want=0.15.2
if command -v zig >/dev/null 2>&1 && [ "$(zig version 2>/dev/null)" = "$want" ]; then
	command -v zig
	exit 0
fi
cache=${ZIG_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/runlimit-zig-$want}
zig=$cache/ziglang/zig
if [ -x "$zig" ] && [ "$("$zig" version 2>/dev/null)" = "$want" ]; then
	echo "$zig"
	exit 0
fi
py=${PYTHON:-$(command -v python3 || true)}
if [ -z "$py" ] || ! "$py" -m pip --version >/dev/null 2>&1; then
	echo "zig.sh: zig $want is missing and pip is not installed to fetch it;" >&2
	echo "  install pip (Debian: apt-get install python3-pip), or put zig $want on PATH" >&2
	exit 1
fi
echo "zig.sh: installing zig $want into $cache (PyPI package ziglang==$want)" >&2
rm -rf "$cache"
mkdir -p "$cache"
PIP_ROOT_USER_ACTION=ignore "$py" -m pip install --quiet --disable-pip-version-check --no-deps --target "$cache" \
	"ziglang==$want" >&2 || {
	echo "zig.sh: pip could not fetch ziglang==$want (no registry access?)" >&2
	rm -rf "$cache"
	exit 1
}
"$zig" version >/dev/null
echo "$zig"
