#!/bin/sh
# What the tests need: bats-core, and tmux for the terminal tests (they make their own
# pseudo-terminals with it).  Without --install (what `make check` runs) it only looks and
# installs nothing: a missing bats stops the check, saying what to install; a missing tmux
# is said, and tests/tty.bats skips.  With --install (`make test-deps`) it installs what is
# missing, by whichever installer is there, tried in turn: apt (Debian's package "bats"),
# Homebrew ("bats-core"), pkg ("bats-core", FreeBSD), and for bats, last, npm ("bats").
# TEST_DEPS_BATS, TEST_DEPS_TMUX and TEST_DEPS_ZSH name the commands looked for
# (tests/build.bats).
set -eu
bats=${TEST_DEPS_BATS:-bats}
tmux=${TEST_DEPS_TMUX:-tmux}
zsh=${TEST_DEPS_ZSH:-zsh}
install=0
[ "${1:-}" = --install ] && install=1
as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}
apt_install() {
	command -v apt-get >/dev/null 2>&1 || return 1
	as_root apt-get install -y -qq "$@" >/dev/null 2>&1 ||
		{ as_root apt-get update -qq >/dev/null 2>&1 && as_root apt-get install -y -qq "$@" >/dev/null 2>&1; }
}
# Homebrew installs as the user (it refuses to run as root).
brew_install() {
	command -v brew >/dev/null 2>&1 || return 1
	brew install "$@" >/dev/null 2>&1
}
# ASSUME_ALWAYS_YES also answers pkg's offer to bootstrap itself on a fresh system.
pkg_install() {
	command -v pkg >/dev/null 2>&1 || return 1
	as_root env ASSUME_ALWAYS_YES=yes pkg install -y "$@" >/dev/null 2>&1
}
# install_any APT-NAME BREW-NAME PKG-NAME: the package, by the first installer that works.
install_any() {
	apt_install "$1" || brew_install "$2" || pkg_install "$3"
}
bats_how="apt-get install bats, brew install bats-core, pkg install bats-core or npm install -g bats"
tmux_how="apt-get install tmux, brew install tmux or pkg install tmux"
# What some tests also use, each skipping without it: zsh, fish and bash-completion for
# tests/completions.bats, Python's jsonschema to check every report against
# docs/report.schema.json, Debian's wait-for-it (a real client of GNU timeout's process
# group: tests/group.bats, tests/tty.bats; apt only, no other system packages it).  Said
# when missing; --install tries them, and goes on without.
has_jsonschema() {
	python3 -c 'import jsonschema' 2>/dev/null || /usr/bin/python3 -c 'import jsonschema' 2>/dev/null
}
has_bash_completion() {
	for f in /usr/share/bash-completion/bash_completion /usr/local/share/bash-completion/bash_completion \
		/opt/homebrew/share/bash-completion/bash_completion; do
		[ -f "$f" ] && return 0
	done
	return 1
}
extras_missing() {
	command -v "$zsh" >/dev/null 2>&1 || printf ' %s' "$zsh"
	command -v fish >/dev/null 2>&1 || printf ' fish'
	has_bash_completion || printf ' bash-completion'
	has_jsonschema || printf ' jsonschema'
	command -v wait-for-it >/dev/null 2>&1 || printf ' wait-for-it'
}
if [ "$install" = 0 ]; then
	extras=$(extras_missing)
	[ -z "$extras" ] || echo "missing:$extras (or make test-deps): the tests that use them skip" >&2
	command -v "$tmux" >/dev/null 2>&1 ||
		echo "missing: $tmux ($tmux_how; or make test-deps): tests/tty.bats skips its tests" >&2
	command -v "$bats" >/dev/null 2>&1 && exit 0
	echo "missing: $bats ($bats_how; or make test-deps, which installs it)" >&2
	exit 1
fi
if ! command -v "$bats" >/dev/null 2>&1; then
	echo "bats not found: installing it" >&2
	install_any bats bats-core bats-core ||
		{ command -v npm >/dev/null 2>&1 && npm install -g bats >/dev/null 2>&1; } || {
		echo "could not install bats: install bats-core ($bats_how)" >&2
		exit 1
	}
fi
if ! command -v "$tmux" >/dev/null 2>&1; then
	echo "tmux not found: installing it" >&2
	install_any tmux tmux tmux || {
		echo "could not install tmux (needed by tests/tty.bats): $tmux_how" >&2
		exit 1
	}
fi
for extra in $(extras_missing); do
	echo "$extra not found: installing it" >&2
	case $extra in
	"$zsh" | fish) install_any "$extra" "$extra" "$extra" ;;
	bash-completion) install_any bash-completion bash-completion@2 bash-completion ;;
	jsonschema) install_any python3-jsonschema jsonschema py311-jsonschema ||
		python3 -m pip install -q --user jsonschema >/dev/null 2>&1 ;;
	wait-for-it) apt_install wait-for-it ;;
	esac || echo "could not install $extra: the tests that use it skip" >&2
done
exit 0
