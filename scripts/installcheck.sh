#!/bin/sh
# A smoke test of an installed runlimit (make installcheck), for package builds and anyone
# after `make install`: plain POSIX sh and the base utilities, nothing else (no bats, no
# python).  It checks what a user meets first: a time-out gives 124 after the duration, not
# before; a command that ignores TERM is KILLed after an explicit -k, and runlimit then exits
# 137 (the manual's EXIT STATUS); --version prints the version; invoked through a link named
# timeout it is timeout (its --help lists GNU's options only); and the manual is installed.
# Usage: scripts/installcheck.sh RUNLIMIT [VERSION [MANUAL]]
set -eu
rl=${1:?usage: installcheck.sh RUNLIMIT [VERSION [MANUAL]]}
version=${2:-}
manual=${3:-}
fail() { echo "installcheck: $*" >&2; exit 1; }
if [ ! -x "$rl" ] || [ -d "$rl" ]; then fail "no runlimit installed at $rl"; fi
case $rl in /*) ;; *) rl=$PWD/$rl ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/installcheck.XXXXXX")
pid=
cleanup() {
	[ -z "$pid" ] || kill -KILL "$pid" 2>/dev/null || :
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
# A short pause between two looks at a file (sleep takes a fraction where it can).
pause() { sleep 0.1 2>/dev/null || sleep 1; }
# wait_for SECONDS FILE: until FILE exists, at most about SECONDS
wait_for() {
	end=$(($(date +%s) + $1))
	while [ ! -e "$2" ]; do
		[ "$(date +%s)" -le "$end" ] || return 1
		pause
	done
}

# --version: its first line names the program and the version.
first=$("$rl" --version | sed -n 1p)
case $first in "runlimit (runlimit) "[0-9]*) ;; *) fail "--version says: $first" ;; esac
[ -z "$version" ] || [ "$first" = "runlimit (runlimit) $version" ] ||
	fail "--version says [$first], not version $version"

# A time-out: 124, no sooner than the duration, and well before the command's end.
start=$(date +%s)
status=0
"$rl" 1 sleep 30 || status=$?
took=$(($(date +%s) - start))
[ "$status" -eq 124 ] || fail "runlimit 1 sleep 30 exited $status, not 124"
if [ "$took" -lt 1 ] || [ "$took" -gt 10 ]; then fail "runlimit 1 sleep 30 took $took s, not 1 to 10"; fi

# A command that ignores TERM: the KILL of an explicit -k ends it, and runlimit exits 137.
# The limit is made to run out (SIGALRM, which counts as the deadline) only once the command
# says it ignores TERM, so a slow start cannot make it die of the TERM instead.
# shellcheck disable=SC2016 # $1 is the command's own
"$rl" -k 1 60 sh -c 'trap "" TERM; : >"$1"; while :; do sleep 1; done' sh "$work/ready" &
pid=$!
wait_for 20 "$work/ready" || fail "the TERM-ignoring command did not start in 20 s"
start=$(date +%s)
kill -ALRM "$pid"
status=0
wait "$pid" || status=$?
pid=
took=$(($(date +%s) - start))
[ "$status" -eq 137 ] || fail "a command that ignores TERM, with -k 1: runlimit exited $status, not 137"
[ "$took" -le 10 ] || fail "a command that ignores TERM, with -k 1, took $took s to end"

# The name timeout: GNU's usage and options only (runlimit's --help describes --cancel=NAME).
mkdir "$work/bin"
ln -s "$rl" "$work/bin/timeout"
help=$("$work/bin/timeout" --help) || fail "timeout --help failed"
case $(echo "$help" | sed -n 1p) in
"Usage: $work/bin/timeout [OPTION] DURATION COMMAND"*) ;;
*) fail "invoked as timeout, --help begins: $(echo "$help" | sed -n 1p)" ;;
esac
case $help in *--cancel=NAME*) fail "invoked as timeout, --help lists runlimit's own options" ;; esac
status=0
"$work/bin/timeout" 1 sleep 30 || status=$?
[ "$status" -eq 124 ] || fail "timeout 1 sleep 30 exited $status, not 124"

[ -z "$manual" ] || [ -s "$manual" ] || fail "no manual installed at $manual"
echo "installcheck: $rl works (a time-out, a TERM-ignoring command KILLed, --version, the timeout name)"
