# Shared by every tests/*.bats file.  Waits are bounded loops on files or pids, never a bare
# sleep; bounds are generous enough for a loaded 2-core machine.
# shellcheck shell=bash

RUNLIMIT=${RUNLIMIT:-$BATS_TEST_DIRNAME/../runlimit}
export LC_ALL=C

# Seconds (fractional) on a monotonic-enough clock, for elapsed-time assertions.
now() { date +%s.%N; }

# elapsed START: seconds since START (from now), printed with 3 decimals.
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }

# lt A B: true if A < B (floating point).
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# wait_for_file PATH [SECONDS]: wait until PATH exists and is non-empty (default 10 s).
wait_for_file() {
	local path=$1 limit=${2:-10} i=0
	while [ ! -s "$path" ]; do
		i=$((i + 1))
		[ "$i" -le $((limit * 100)) ] || { echo "timed out waiting for $path" >&2; return 1; }
		sleep 0.01
	done
}

# wait_for_gone PID [SECONDS]: wait until no process has PID (zombies count as gone).
wait_for_gone() {
	local pid=$1 limit=${2:-10} i=0
	while kill -0 "$pid" 2>/dev/null; do
		[ "$(ps -o stat= -p "$pid" 2>/dev/null | cut -c1)" = Z ] && return 0
		i=$((i + 1))
		[ "$i" -le $((limit * 100)) ] || { echo "pid $pid still alive" >&2; return 1; }
		sleep 0.01
	done
}

# private_sleep NAME: a copy of sleep under a unique name, to find survivors by name.
private_sleep() {
	local path=$BATS_TEST_TMPDIR/$1
	cp "$(command -v sleep)" "$path"
	printf '%s\n' "$path"
}

# survivors NAME: pids of live (non-zombie) processes whose command name is NAME.
survivors() {
	ps -eo pid=,stat=,comm= | awk -v n="$1" '$3 == n && $2 !~ /^Z/ { print $1 }'
}

# no_survivors NAME [SECONDS]: wait until no live process is called NAME.  The bound is in
# seconds of wall time (a ps can take long when thousands of processes exist).
no_survivors() {
	local name=$1 limit=${2:-10} end
	end=$(($(date +%s) + limit))
	while [ -n "$(survivors "$name")" ]; do
		if [ "$(date +%s)" -ge "$end" ]; then
			echo "survivors named $name: $(survivors "$name")" >&2
			return 1
		fi
		sleep 0.01
	done
}

# kill_named NAME: clean-up after a test, whatever it left.
kill_named() {
	local p
	for p in $(survivors "$1"); do kill -KILL "$p" 2>/dev/null || true; done
}

# make_dfl_wrapper: in a setup_file, write $BATS_FILE_TMPDIR/dfl.py (dfl.py PROG ARG...: exec
# PROG with INT, QUIT and PIPE at their defaults; a background job of a non-interactive shell
# starts with INT and QUIT ignored, which runlimit would rightly honour, and python ignores
# PIPE) and export PY, the python interpreter itself (pyenv shims are slow bash scripts).
make_dfl_wrapper() {
	cat >"$BATS_FILE_TMPDIR/dfl.py" <<'EOF'
import os, signal, sys
for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGPIPE):
    signal.signal(s, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])
EOF
	PY=$(python3 -c 'import sys; print(sys.executable)')
	export PY
}
