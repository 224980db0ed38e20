#!/bin/sh
# Install bats-core if it is missing: Debian's package first, else the npm package "bats".
set -eu
command -v bats >/dev/null 2>&1 && exit 0
echo "bats not found: installing it" >&2
if command -v apt-get >/dev/null 2>&1; then
	if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
	if $SUDO apt-get install -y -qq bats >/dev/null 2>&1 ||
		{ $SUDO apt-get update -qq >/dev/null 2>&1 && $SUDO apt-get install -y -qq bats >/dev/null 2>&1; }; then
		exit 0
	fi
fi
if command -v npm >/dev/null 2>&1 && npm install -g bats >/dev/null 2>&1; then
	exit 0
fi
echo "could not install bats: install bats-core (Debian package 'bats' or 'npm install -g bats')" >&2
exit 1
