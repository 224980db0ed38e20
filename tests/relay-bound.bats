#!/usr/bin/env bats
# The output relay against callers that misbehave (docs/design.md, "The relay" and "The
# bound"): a caller that never reads never holds runlimit past the deadline + the kill grace +
# the output grace, what could not be relayed is dropped and counted; a reader that has gone
# makes the command's next write fail as without the relay; writes of at most PIPE_BUF bytes
# stay whole when other processes write to the caller's pipe too; Ctrl-C once the command is
# done ends the run and stops a typed loop.

bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	make_dfl_wrapper
	head -c 100000 /dev/urandom >"$BATS_FILE_TMPDIR/random"
}

setup() {
	export D=$BATS_TEST_TMPDIR RUNLIMIT
	N=rb$BATS_TEST_NUMBER-$(($$ % 100000))
	export S Y
	S=$(private_sleep "$N-s")
	Y=$BATS_TEST_TMPDIR/$N-y
	cp "$(command -v yes)" "$Y"
	R=$TOOLS/report_is.py
}

teardown() {
	kill_named "$N-s"
	kill_named "$N-y"
	[ -z "${SOCK:-}" ] || tmux -L "$SOCK" kill-server 2>/dev/null || true
}

# Every relay option, each with a short output grace (--report-tail needs --report: every
# run here has one, in $D/r.json).
RELAY_OPTS=("--output-grace=0.5" "--no-output-timeout=30 --output-grace=0.5"
	"--report-tail=1K --output-grace=0.5")

# never_read [--merge | --err FILE] ARG...: runlimit --report=$D/r.json ARG... with stdout
# and stderr on pipes nobody reads (tools/noread.py; --merge: one pipe, 2>&1); sets rc (-N:
# runlimit died of signal N), secs, and out, what its stdout's pipe held at the end.  Fails
# if runlimit was still running after 60 s.
never_read() {
	local flags=() line
	case $1 in
	--merge) flags=(--merge); shift ;;
	--err) flags=(--err "$2"); shift 2 ;;
	esac
	line=$("$PY" "$TOOLS/noread.py" ${flags[@]+"${flags[@]}"} 60 "$RUNLIMIT" \
		--report="$D/r.json" "$@")
	echo "runlimit $*: $line" >&2
	read -r rc secs out _ <<<"$line"
	[ "$rc" != hung ]
}

# ---- 1: a caller that never reads -----------------------------------------------------------

@test "a time-out while the caller reads nothing: 124 within the bound, the rest dropped and counted" {
	local merge opt
	for merge in "" --merge; do
		for opt in "${RELAY_OPTS[@]}"; do
			# shellcheck disable=SC2086
			never_read $merge $opt -k 1 1 sh -c 'yes | head -c 2000000'
			[ "$rc" = 124 ]
			lt "$secs" 5.5 # 1 s, a kill grace of 1 s, an output grace of 0.5 s, a margin
			# What reached the caller is what the report says was relayed, no more.
			"$PY" "$R" "$D/r.json" 'd["output"]["stdout_dropped"] > 0' \
				"d['output']['stdout_bytes'] - d['output']['stdout_dropped'] == $out"
			if [ -z "$merge" ]; then
				"$PY" "$R" "$D/r.json" 'd["output"]["stderr_dropped"] == 0' \
					'd["output"]["stderr_bytes"] == 0'
			else
				"$PY" "$R" "$D/r.json" 'd["output"]["stderr_dropped"] is None'
			fi
		done
	done
}

@test "a time-out while the caller reads nothing, the tree ignoring TERM, or -f: still within the bound" {
	local opt
	for opt in "${RELAY_OPTS[@]}"; do
		# The writers ignore TERM: the grace's KILL, then the output grace.
		# shellcheck disable=SC2086
		never_read $opt -k 1 1 sh -c 'trap "" TERM; yes | head -c 2000000'
		[ "$rc" = 137 ]
		lt "$secs" 5.5
		"$PY" "$R" "$D/r.json" 'd["output"]["stdout_dropped"] > 0'
		# -f: only the shell is signalled; yes and head, left blocked on the relay's full
		# pipe, hold it through the output grace, then get EPIPE.
		# shellcheck disable=SC2086
		never_read $opt -f -k 1 1 sh -c 'yes | head -c 2000000'
		[ "$rc" = 124 ]
		lt "$secs" 5.5
	done
}

@test "--report-tail into a full pipe nobody reads, the command KILLed: its end is seen, never a spin" {
	# tee(2) says EAGAIN for a full caller even when runlimit's pipe has reached its end;
	# before, the relay took that for "no room" and polled the ended pipe for good, at 100 %
	# CPU (found by bound.bats, seed 356617829 case 129).  Ten tries: it was a race.
	run -0 bounded 120 "$PY" -c 'import os, subprocess, sys, time
env = dict(os.environ)
for i in range(10):
    t = time.time()
    p = subprocess.Popen([sys.argv[1], "-s", "KILL", "-k", "0.34", "--output-grace=0.3",
                          "--no-output-timeout=0.1", "--report=" + os.environ["D"] + "/r.json",
                          "--report-tail=64K", "1", "sh", "-c",
                          "head -c 65536 /dev/zero >&2; exec \"$0\" 30", sys.argv[2]],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        rc = p.wait(timeout=8)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        print("try", i, "hung")
        sys.exit(1)
    p.stdout.close()
    print("try", i, rc, round(time.time() - t, 2))' "$RUNLIMIT" "$S"
	echo "$output" >&2
	no_survivors "$N-s" 5
}

@test "a command that exits by itself, its output unread: relayed until the deadline, then the output grace" {
	local opt
	for opt in "${RELAY_OPTS[@]}"; do
		# 100 kB: more than the caller's pipe holds, little enough that the command writes
		# it all (into runlimit's pipe) and exits.  What it wrote is owed to the caller until
		# the deadline (2 s); then it has the output grace, and is dropped.
		# shellcheck disable=SC2086,SC2016
		never_read $opt 2 sh -c 'cat "$1"; exit 3' _ "$BATS_FILE_TMPDIR/random"
		[ "$rc" = 3 ]
		lt 1.9 "$secs"
		lt "$secs" 5.5
		"$PY" "$R" "$D/r.json" 'd["output"]["stdout_bytes"] == 100000' \
			"d['output']['stdout_dropped'] == 100000 - $out" "$out < 100000" \
			'd["outcome"] == "exited"'
	done
}

@test "a leftover writing without end to a caller that reads nothing: no deadline, and the output grace still ends the run" {
	local opt
	for opt in "${RELAY_OPTS[@]}"; do
		# The leftover starts writing once the command has been reaped: nothing it writes
		# is owed to the caller.  Dropped at the grace's end, it then gets EPIPE.
		# shellcheck disable=SC2086,SC2016
		never_read $opt 0 sh -c 'p=$$; (while kill -0 $p 2>/dev/null; do "$S" 0.01; done
			exec "$Y") & exit 0'
		[ "$rc" = 0 ]
		lt "$secs" 5
		"$PY" "$R" "$D/r.json" 'd["output"]["stdout_dropped"] > 0'
		no_survivors "$N-y"
	done
}

@test "--cancel of a named run whose caller reads nothing returns, and the run ends within the output grace" {
	export RUNLIMIT_DIR=$D/names
	local t0 opt
	for opt in "${RELAY_OPTS[@]}"; do
		rm -f "$D/wrote" "$D/noread"
		# 100 kB first (the caller's pipe and runlimit's hold it), then without end: the
		# relay holds output the caller will never take.
		# shellcheck disable=SC2086,SC2016
		"$PY" "$TOOLS/noread.py" 60 "$RUNLIMIT" --name="$N" --report="$D/r.json" $opt 60 \
			sh -c 'cat "$1"; : >"$2"; exec "$3"' _ "$BATS_FILE_TMPDIR/random" "$D/wrote" "$Y" \
			>"$D/noread" 3>&- &
		local bg=$!
		wait_until 10 test -e "$D/wrote"
		t0=$(now)
		run bounded 20 "$RUNLIMIT" --cancel="$N"
		echo "cancel: $status after $(elapsed "$t0") s: $output" >&2
		[ "$status" = 0 ]
		lt "$(elapsed "$t0")" 6 # the TERM, the output grace, a margin
		wait_bg "$bg" 20
		echo "run: $(cat "$D/noread")" >&2
		[ "$(cut -d' ' -f1 <"$D/noread")" = -15 ] # it died of the cancel's TERM
		"$PY" "$R" "$D/r.json" 'd["cancelled"] is True' 'd["output"]["stdout_dropped"] > 0'
	done
}

@test "-v says how many bytes of each stream were dropped, as the report does" {
	never_read --err "$D/err" -v --output-grace=0.2 -k 1 1 sh -c 'yes | head -c 2000000'
	[ "$rc" = 124 ]
	local n
	"$PY" "$R" "$D/r.json"
	n=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["output"]["stdout_dropped"])' "$D/r.json")
	[ "$n" -gt 0 ]
	grep -q ": dropped $n bytes of stdout unrelayed\$" "$D/err"
	run grep -c dropped "$D/err"
	[ "$output" = 1 ] # stderr dropped nothing: no line for it
}

@test "-v into a full pipe nobody reads (2>&1): runlimit's own lines never hold it past the bound" {
	local opt
	for opt in "${RELAY_OPTS[@]}"; do
		# shellcheck disable=SC2086
		never_read --merge -v $opt -k 1 1 sh -c 'yes | head -c 2000000'
		[ "$rc" = 124 ]
		lt "$secs" 5.5
	done
}

# ---- 5: a reader that has gone --------------------------------------------------------------

# A command that writes a line, waits (at most 5 s) until its stdout says its reader has
# gone, and writes another: SIGPIPE at its default, it dies of it if that second write fails.
WRITE_TWICE='import select, signal, os, time
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
os.write(1, b"a\n")
p = select.poll()
p.register(1, 0)
end = time.time() + 5
while time.time() < end and not p.poll(100):
    pass
os.write(1, b"b\n")'

# pipe_reports_gone_reader: poll(2) here says when a pipe's reader has gone (Linux, FreeBSD),
# unasked (macOS's says nothing).
pipe_reports_gone_reader() {
	"$PY" -c 'import os, select
r, w = os.pipe()
os.close(r)
p = select.poll()
p.register(w, 0)
raise SystemExit(0 if p.poll(0) else 1)'
}

@test "a reader that has gone while the relay is idle: the command's next write gets SIGPIPE (141), as bare" {
	pipe_reports_gone_reader || skip "poll(2) here does not tell of a pipe's gone reader"
	local opt
	for opt in "" "${RELAY_OPTS[@]}"; do
		# PIPE at its default (the suite's reaper ignores it, and an ignore is passed on).
		# shellcheck disable=SC2016
		run "$PY" "$TOOLS/dfl.py" /bin/bash -c '"$RUNLIMIT" --report="$D/r.json" '"$opt"' 10 \
			"$PY" -c "$1" | head -c 1 >/dev/null; echo "${PIPESTATUS[0]}"' _ "$WRITE_TWICE"
		echo "${opt:-bare}: $output" >&2
		[ "$output" = 141 ]
	done
}

# ---- 4: whole writes ------------------------------------------------------------------------

# four_runs OPT...: four runlimit OPT... 30 lines.py at once, each writing 3000 lines of LEN
# bytes to stdout and to stderr, in single writes; their stdout into one pipe and their
# stderr into one FIFO (MERGE=1: both into the one pipe; CALLER=socket: both into one stream
# socket), whose reader starts half a second late (a slow caller, whose pipe or socket is
# full meanwhile).  Sets torn_out and torn_err: "TORN LINES" as tools/torn.py counts them.
four_runs() {
	local j reader=
	rm -f "$D/err.fifo" "$D/err.count"
	torn_err=
	# shellcheck disable=SC2016
	if [ "${CALLER:-pipe}" = socket ]; then
		"$PY" "$TOOLS/sockread.py" 0.5 bash -c 'py=$1 lines=$2 len=$3; shift 3
			for j in a b c d; do "$@" 30 "$py" "$lines" 3000 "$len" $j both & done
			wait' _ "$PY" "$TOOLS/lines.py" "$LEN" "$RUNLIMIT" "$@" |
			"$PY" "$TOOLS/torn.py" "$LEN" >"$D/out.count"
		torn_out=$(cat "$D/out.count")
		return
	fi
	if [ "${MERGE:-0}" = 1 ]; then
		(for j in a b c d; do
			"$RUNLIMIT" "$@" 30 "$PY" "$TOOLS/lines.py" 3000 "$LEN" $j both 3>&- &
		done; wait) 2>&1 | "$PY" "$TOOLS/torn.py" "$LEN" 0.5 >"$D/out.count"
		torn_out=$(cat "$D/out.count")
		return
	fi
	mkfifo "$D/err.fifo"
	"$PY" "$TOOLS/torn.py" "$LEN" 0.5 <"$D/err.fifo" >"$D/err.count" 3>&- &
	reader=$!
	(for j in a b c d; do
		"$RUNLIMIT" "$@" 30 "$PY" "$TOOLS/lines.py" 3000 "$LEN" $j both 3>&- &
	done; wait) 2>"$D/err.fifo" | "$PY" "$TOOLS/torn.py" "$LEN" 0.5 >"$D/out.count"
	wait_bg "$reader" 30
	torn_out=$(cat "$D/out.count") torn_err=$(cat "$D/err.count")
}

@test "four runs writing lines of up to PIPE_BUF bytes into one pipe or socket, on a busy machine: not one line torn, under every relay option" {
	# The lines are 1000 bytes, or PIPE_BUF where that is less (512 on macOS and FreeBSD),
	# as a write of more is not atomic even without runlimit.
	local pipe_buf opt caller
	pipe_buf=$(getconf PIPE_BUF / 2>/dev/null) || pipe_buf=512
	LEN=1000
	[ "$pipe_buf" -ge "$LEN" ] || LEN=$pipe_buf
	# Two busy loops (the copies of yes that teardown ends): a run is then preempted at any
	# point, as on a loaded machine, where a write cut in two had been seen torn.
	("$Y" >/dev/null 3>&- &)
	("$Y" >/dev/null 3>&- &)
	for caller in pipe merged socket; do
		for opt in "" --output-grace=1 --no-output-timeout=30 \
			"--report=$D/r.json --report-tail=1K"; do
			# shellcheck disable=SC2086
			case $caller in
			pipe) four_runs $opt ;;
			merged) MERGE=1 four_runs $opt ;;
			socket) CALLER=socket four_runs $opt ;;
			esac
			echo "${opt:-bare} into a $caller: stdout (torn lines) $torn_out, stderr $torn_err" >&2
			if [ "$caller" = pipe ]; then
				[ "$torn_out" = "0 12000" ]
				[ "$torn_err" = "0 12000" ]
			else
				[ "$torn_out" = "0 24000" ]
			fi
		done
	done
}

@test "a relay that can no longer move between pipes copies from its widened pipe: not one line torn" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	# The test build refuses the move once runlimit's pipe holds more than 64 KiB (where the
	# system moves at all): the copy then starts on a pipe as wide as the system let it be.
	local opt
	LEN=1000
	[ "$(getconf PIPE_BUF / 2>/dev/null || echo 512)" -ge "$LEN" ] || LEN=512
	("$Y" >/dev/null 3>&- &)
	("$Y" >/dev/null 3>&- &)
	for opt in --output-grace=1 "--report=$D/r.json --report-tail=1K"; do
		# shellcheck disable=SC2086
		RUNLIMIT=$RUNLIMIT_HOOKS RUNLIMIT_TEST_MOVE_REFUSED=1 MERGE=1 four_runs $opt
		echo "$opt: (torn lines) $torn_out" >&2
		[ "$torn_out" = "0 24000" ]
	done
}

# ---- 11: Ctrl-C once the command is done ----------------------------------------------------

# A shell at a terminal (tmux), as in tty.bats: start_shell, type_line TEXT, key KEY,
# wait_screen REGEX, screen.
start_shell() {
	command -v tmux >/dev/null 2>&1 || skip "no tmux to give the shell a terminal"
	SOCK=rl-rb-$$-$BATS_TEST_NUMBER
	unset TMUX
	local rl
	rl=$(cd "$(dirname "$RUNLIMIT")" && pwd)/$(basename "$RUNLIMIT")
	mkdir -p "$D/bin" "$D/home"
	ln -s "$rl" "$D/bin/runlimit"
	[ -x /usr/bin/bash ] || [ -x /bin/bash ] || ln -s "$(command -v bash)" "$D/bin/bash"
	tmux -L "$SOCK" -f /dev/null new-session -d -s t -x 160 -y 50 -c "$D" \
		env -i HOME="$D/home" TERM=xterm PATH="$D/bin:/usr/bin:/bin" PS1='PROMPT$ ' \
		S="$S" HISTFILE=/dev/null bash --norc --noprofile -i 3>&-
	wait_screen '^PROMPT\$'
}
screen() { tmux -L "$SOCK" capture-pane -p -J -S - -t t; }
on_screen() { screen | grep -Eq -- "$1"; }
wait_screen() {
	WAIT_POLL=0.05 wait_until "${2:-10}" on_screen "$1" 2>/dev/null && return 0
	echo "timed out waiting for /$1/; screen:" >&2
	screen | grep -v '^$' >&2
	return 1
}
type_line() {
	tmux -L "$SOCK" send-keys -t t -l -- "$1"
	tmux -L "$SOCK" send-keys -t t Enter
}
key() { tmux -L "$SOCK" send-keys -t t "$@"; }
no_screen() { ! on_screen "$1"; }
prompts() { [ "$(screen | grep -c '^PROMPT\$')" -ge "$1" ]; }
reaped() { ! kill -0 "$1" 2>/dev/null; }

# ctrl_c_in_grace I PROMPTS: once the loop's runlimit I has printed started-I and its command
# has been reaped (runlimit is in its output grace), type Ctrl-C: the shell must be back at
# its prompt (the PROMPTS-th) within 10 s, the loop stopped, and runlimit dead of SIGINT.
ctrl_c_in_grace() {
	wait_screen "^started-$1\$"
	wait_for_file "$D/cmd-$1"
	wait_until 10 reaped "$(cat "$D/cmd-$1")"
	local t0
	t0=$(now)
	key C-c
	WAIT_POLL=0.05 wait_until 10 prompts "$2"
	lt "$(elapsed "$t0")" 10
	# The loop stopped: bash breaks it only for a child that died of SIGINT.
	no_screen '^iter '
	no_screen "^started-$(($1 + 1))\$"
	no_screen '^after-loop$'
	type_line 'echo rc=$?'
	wait_screen '^rc=130$'
}

@test "Ctrl-C during the output grace ends the run at once: runlimit dies of SIGINT, and a typed loop stops" {
	start_shell
	# A leftover holds the relay's pipe, so the output grace (30 s) would run its course.
	# The output goes to a pipe whose reader ignores Ctrl-C: runlimit's job has the key.
	# shellcheck disable=SC2016
	type_line 'for i in 1 2; do runlimit --output-grace=30 60 sh -c '\''echo $$ >cmd-$0; "$S" 60 & echo started-$0'\'' $i | { trap "" INT; cat; }; echo "iter $i rc=${PIPESTATUS[0]}"; done; echo after-loop'
	ctrl_c_in_grace 1 2
	# Only stderr is relayed: runlimit leads its job and gave the terminal to the command's
	# group; it takes it back at the command's exit, so the key is runlimit's, not the
	# leftover's.
	# shellcheck disable=SC2016
	type_line 'for i in 3 4; do runlimit --output-grace=30 60 sh -c '\''echo $$ >cmd-$0; "$S" 60 & echo started-$0; echo err >&2'\'' $i 2> >(cat >/dev/null); echo "iter $i rc=$?"; done; echo after-loop'
	ctrl_c_in_grace 3 4
}

# ---- Another writer between poll and write ---------------------------------------------------
# poll(2) finding room in the caller's pipe or socket is not enough: another writer of it (make
# -j, several runs into one log) may fill it before runlimit's write, which would then block
# for as long as the reader takes nothing.  The hooks build fills it in that gap
# (RUNLIMIT_TEST_FILL_BEFORE_WRITE); runlimit's writes go through a description of its own
# that does not wait (review of issue 31).

@test "the caller's pipe filled between poll and write: runlimit's own lines never hold it past the bound" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	[ -e /proc/self/fd ] && expected readback || skip "this build cannot reopen a pipe of the caller's"
	# -v writes a line as it sends TERM at 1 s; before, that write blocked until the test gave
	# up at 60 s.
	line=$(RUNLIMIT_TEST_FILL_BEFORE_WRITE=1 "$PY" "$TOOLS/noread.py" 60 "$RUNLIMIT_HOOKS" -v \
		-k 1 1 "$S" 30)
	echo "$line" >&2
	read -r rc secs _ <<<"$line"
	[ "$rc" = 124 ]
	lt "$secs" 10
}

@test "the caller's socket filled between poll and write: the relay never holds runlimit past the bound" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	# stdout a stream socket nobody reads, which the relay copies to (no splice to a socket).
	run -0 env RUNLIMIT_TEST_FILL_BEFORE_WRITE=1 "$PY" -c 'import socket, subprocess, sys, time
a, b = socket.socketpair()
t = time.time()
p = subprocess.Popen(sys.argv[1:], stdout=b, stderr=subprocess.DEVNULL)
b.close()
try:
    rc = p.wait(timeout=60)
except subprocess.TimeoutExpired:
    p.kill()
    rc = "hung"
took = time.time() - t
print(rc, round(took, 2))
sys.exit(0 if rc == 124 and took < 10 else 1)' "$RUNLIMIT_HOOKS" --output-grace=0.5 -k 1 1 \
		sh -c 'echo one; "$0" 30' "$S"
	echo "$output"
}
