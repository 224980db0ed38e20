#!/bin/sh
# Print the path of a zig compiler of the pinned version, installing it into a cache directory
# if needed.  zig is a development tool only (the cross-checks); it never goes into the binary.
# Source of the install: the PyPI package `ziglang` (the official zig release as a wheel), with
# pip into a private directory (--target, so no Python environment is touched), pinned by
# version and by the SHA-256 of each system's wheel (pip --require-hashes: a wheel whose hash
# is not listed here is refused).  The hashes are PyPI's for ziglang 0.15.2; a new version
# takes its own (https://pypi.org/simple/ziglang/ lists them).
set -eu
want=0.15.2
hashes='
acae2a9ce67ed249ad68d42c21bc73b5f9d51a33ba5ea42f609f78683e8d9bb7 macosx_12_0_arm64
47af4f85e3e59bd672126cc026d3a01b516cad24b9a9ea075abfe8532f4c6bc1 macosx_12_0_x86_64
806316453d1ede7174ed3fefb8e5348154629089c3bb5fe812dfd0e172fac130 manylinux_2_12_x86_64
edc0aa60ec964a4cf462d40f68d7de242ddf37fd9a80f2afaee6397059463230 manylinux_2_17_aarch64
04eb9c4135ef431487b920c73312cd3a5e754019839024eeed3521772d1585a2 manylinux_2_12_i686
ad43a4692311512ab55cc918596c814ff44fb811b1299fa9a57cc4e2bf315c6b manylinux_2_17_armv7l
85faefbd4cfe420de92aaa8f8300bec2b9afe8d1f1d8c5abf71bf92754682536 manylinux_2_17_ppc64le
978ebcc3c6c9624cbc999dd8dcb65427e7474650d9709a889aace8e325705ce2 manylinux_2_17_s390x
d3fe40825e18238e986b305cbf3a4d93a50461b893339e31c81b0d6c73f33937 manylinux_2_31_riscv64
'
if command -v zig >/dev/null 2>&1 && [ "$(zig version 2>/dev/null)" = "$want" ]; then
	command -v zig
	exit 0
fi
# (-pinned: a directory that only a hash-checked install fills; an older unchecked one is left be)
cache=${ZIG_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/runlimit-zig-$want-pinned}
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
req=$cache.requirements.txt
{
	printf 'ziglang==%s' "$want"
	printf '%s\n' "$hashes" | while read -r sum _; do
		[ -z "$sum" ] || printf ' --hash=sha256:%s' "$sum"
	done
	echo
} >"$req"
PIP_ROOT_USER_ACTION=ignore "$py" -m pip install --quiet --disable-pip-version-check --no-deps \
	--require-hashes --only-binary :all: --target "$cache" -r "$req" >&2 || {
	echo "zig.sh: pip could not fetch ziglang==$want with a pinned hash (no registry access, or a wheel whose SHA-256 is not zig.sh's)" >&2
	rm -rf "$cache" "$req"
	exit 1
}
rm -f "$req"
"$zig" version >/dev/null
echo "$zig"
