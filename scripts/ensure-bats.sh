#!/bin/sh
# Install what the tests need if it is missing: bats-core (Debian's package first, else the
# npm package "bats") and tmux (the terminal tests make their own pseudo-terminals with it).
set -eu
apt_install() {
	command -v apt-get >/dev/null 2>&1 || return 1
	if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
	$SUDO apt-get install -y -qq "$@" >/dev/null 2>&1 ||
		{ $SUDO apt-get update -qq >/dev/null 2>&1 && $SUDO apt-get install -y -qq "$@" >/dev/null 2>&1; }
}
if ! command -v bats >/dev/null 2>&1; then
	echo "bats not found: installing it" >&2
	apt_install bats || { command -v npm >/dev/null 2>&1 && npm install -g bats >/dev/null 2>&1; } || {
		echo "could not install bats: install bats-core (Debian package 'bats' or 'npm install -g bats')" >&2
		exit 1
	}
fi
if ! command -v tmux >/dev/null 2>&1; then
	echo "tmux not found: installing it" >&2
	apt_install tmux || { echo "could not install tmux (needed by tests/tty.bats)" >&2; exit 1; }
fi
exit 0
