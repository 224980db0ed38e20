#!/usr/bin/env bats
# Terminal and job control (runlimit.1, TERMINALS AND JOB CONTROL): the command's own process group gets the terminal when
# runlimit leads the foreground job and gives it back; inside a script runlimit leaves the
# terminal alone unless the command stops on SIGTTIN/SIGTTOU; Ctrl-Z, fg and bg work on the
# pair; the deadline runs while stopped; terminal modes come back after a time-out; SIGWINCH
# reaches a command that does not own the terminal; --foreground keeps GNU's single group.
# The output relay's options never put anything between the command and a terminal
# (docs/design.md, "The relay"): pagers and curses programs get their keys and modes under
# each of them (14-20).  Debian's wait-for-it, a client of GNU timeout's process group, gets
# its Ctrl-C through its trap to the child (21), also when the trap is slow (22).
#
# CI has no terminal, so every test runs an interactive bash in a detached tmux session of its
# own (its own server socket), types into it with send-keys and reads it with capture-pane.
# Nothing waits on a bare sleep: every wait polls the screen, a file or a process state, with
# a bound.  Expected output lines are matched anchored (^...$), so the echo of the typed
# command line never matches its own output.  Processes the test looks for run a private copy
# of sleep named ttyN-PID (under 16 characters, the length of a command name).

# Text typed into the pane is expanded by the shell there, not here.
# shellcheck disable=SC2016

bats_require_minimum_version 1.5.0

load helpers

# The pane is read with tmux: polled every 50 ms, not every 10.
WAIT_POLL=0.05

setup() {
	command -v tmux >/dev/null 2>&1 || skip "no tmux (make test-deps installs it): the terminal tests drive a real terminal in it"
	D=$BATS_TEST_TMPDIR
	SOCK=rl-tty-$$-$BATS_TEST_NUMBER
	SL=tty$BATS_TEST_NUMBER-$(($$ % 100000)) # unique even if another run is going on
	RL_PIDS=
	PRIVATE= # private copies of programs (private_copy), killed by name at the end
	unset TMUX
	local rl
	rl=$(cd "$(dirname "$RUNLIMIT")" && pwd)/$(basename "$RUNLIMIT")
	mkdir -p "$D/bin" "$D/home"
	ln -s "$rl" "$D/bin/runlimit"
	cp "$(command -v sleep)" "$D/bin/$SL"
	# The pane's PATH is $D/bin, /usr/bin and /bin: bash and python3 are linked in where they
	# live elsewhere (FreeBSD's ports, Homebrew); python3 as the interpreter itself.
	local py
	[ -x /usr/bin/bash ] || [ -x /bin/bash ] || ln -s "$(command -v bash)" "$D/bin/bash"
	if [ ! -x /usr/bin/python3 ] && [ ! -x /bin/python3 ]; then
		py=$(python3 -c 'import sys; print(sys.executable)') && ln -s "$py" "$D/bin/python3"
	fi
	# ttymodes: the terminal's icanon and echo flags, e.g. "modes: icanon echo".
	cat >"$D/bin/ttymodes" <<'EOF'
#!/bin/sh
set -- $(stty -a | tr ' ;' '\n\n' | grep -xE -- '-?(icanon|echo)')
echo "modes: $*"
EOF
	chmod +x "$D/bin/ttymodes"
	tmux -L "$SOCK" -f /dev/null new-session -d -s t -x 160 -y 50 -c "$D" \
		env -i HOME="$D/home" TERM=xterm PATH="$D/bin:/usr/bin:/bin" PS1='PROMPT$ ' \
		HISTFILE=/dev/null bash --norc --noprofile -i 3>&-
	SHELL_PID=$(tmux -L "$SOCK" display-message -p -t t '#{pane_pid}')
	wait_screen '^PROMPT\$'
}

teardown() {
	# runlimit's children too: a stopped runlimit has a timer child keeping its deadline.
	local p all=
	for p in $RL_PIDS; do all="$all $p $(pgrep -P "$p" | tr '\n' ' ')"; done
	tmux -L "$SOCK" kill-server 2>/dev/null || true
	for p in $all; do kill -KILL "$p" 2>/dev/null || true; done
	kill_named "$SL"
	for p in $PRIVATE; do kill_named "$p"; done
	# a wait-for-it's processes are shells running its copy (21): found by arguments
	[ -z "${WFI:-}" ] || pkill -KILL -f "$WFI" 2>/dev/null || true
}

# ---- helpers ------------------------------------------------------------------------------

# screen: everything the pane has shown (history included), wrapped lines joined.
screen() {
	tmux -L "$SOCK" capture-pane -p -J -S - -t t
}

# wait_screen REGEX [SECONDS]: poll the pane every 50 ms until a line matches REGEX
# (grep -E), at most SECONDS (default 10); on failure show the screen.
wait_screen() {
	wait_until "${2:-10}" on_screen "$1" 2>/dev/null && return 0
	echo "timed out after ${2:-10}s waiting for /$1/; screen:" >&2
	screen | grep -v '^$' >&2
	return 1
}
on_screen() { screen | grep -Eq -- "$1"; }

# no_screen REGEX: no line of the pane matches REGEX.
no_screen() {
	if screen | grep -Eq -- "$1"; then
		echo "unexpected /$1/ on screen:" >&2
		screen | grep -v '^$' >&2
		return 1
	fi
}

# type_line TEXT: type TEXT and Enter.
type_line() {
	tmux -L "$SOCK" send-keys -t t -l -- "$1"
	tmux -L "$SOCK" send-keys -t t Enter
}

# key KEY...: send tmux keys (C-c, C-z, C-d).
key() {
	tmux -L "$SOCK" send-keys -t t "$@"
}

# wait_pid NAME [SECONDS]: wait until exactly one live process is called NAME; print its pid.
wait_pid() {
	wait_until "${2:-10}" single_pid "$1" 2>/dev/null ||
		{ echo "no single process $1: '$(survivors "$1")'" >&2; return 1; }
	printf '%s\n' "$PID_FOUND"
}
# single_pid NAME: exactly one live process is called NAME; its pid in PID_FOUND.
single_pid() {
	PID_FOUND=$(survivors "$1")
	[ -n "$PID_FOUND" ] && [ "$(printf '%s\n' "$PID_FOUND" | wc -l)" -eq 1 ]
}

# field PID FIELD: one ps field of PID, spaces trimmed.
field() {
	ps -o "$2=" -p "$1" | tr -d ' '
}

# wait_state PID LETTER [SECONDS]: wait until PID's state (first letter of stat) is LETTER.
wait_state() {
	wait_until "${3:-10}" state_is "$1" "$2" 2>/dev/null && return 0
	echo "pid $1 in state '$(field "$1" stat | cut -c1)', not $2" >&2
	ps -o pid,ppid,pgid,tpgid,stat,args -t "$(field "$SHELL_PID" tty)" >&2
	return 1
}
state_is() { [ "$(field "$1" stat | cut -c1)" = "$2" ]; }
# past T0 SECONDS: true once SECONDS have passed since T0 (now's).
past() { ! lt "$(elapsed "$1")" "$2"; }

# wait_tty_owner PGID [SECONDS]: wait until the terminal's foreground group is PGID.
wait_tty_owner() {
	wait_until "${2:-10}" tty_owner_is "$1" 2>/dev/null && return 0
	echo "terminal foreground group is '$(field "$SHELL_PID" tpgid)', not $1" >&2
	ps -o pid,ppid,pgid,tpgid,stat,args -t "$(field "$SHELL_PID" tty)" >&2
	return 1
}
tty_owner_is() { [ "$(field "$SHELL_PID" tpgid)" = "$1" ]; }

# shell_owns_tty: the interactive shell has the terminal back (its group is the foreground).
shell_owns_tty() {
	wait_tty_owner "$(field "$SHELL_PID" pgid)" 3
}

# wait_prompts N [SECONDS]: wait until the shell has shown at least N prompts (a command line
# that ends in an interrupted job prints nothing after it, but the next prompt appears).
wait_prompts() {
	wait_until "${2:-10}" prompts_shown "$1" 2>/dev/null && return 0
	echo "timed out after ${2:-10}s waiting for prompt $1; screen:" >&2
	screen | grep -v '^$' >&2
	return 1
}
prompts_shown() { [ "$(screen | grep -c '^PROMPT\$')" -ge "$1" ]; }

# job_pid: the pid bash printed for the background job just started ("[1] 1234").
job_pid() {
	wait_screen '^\[1\] [0-9]+$' >&2 || return 1
	screen | sed -n 's/^\[1\] \([0-9][0-9]*\)$/\1/p' | tail -n 1
}

# shell_works: the shell still runs commands typed at its prompt.
shell_works() {
	type_line 'echo shell-$((6 * 7))'
	wait_screen '^shell-42$' 5
}

# ---- tests --------------------------------------------------------------------------------

@test "1: interactive commands read the terminal; the shell gets it back with its modes" {
	type_line "runlimit 30 sh -c 'echo ready; read x; echo got:\$x'; echo rc1=\$?"
	wait_screen '^ready$'
	type_line hello
	wait_screen '^got:hello$'
	wait_screen '^rc1=0$'

	type_line 'runlimit 30 python3 -q; echo rc2=$?'
	wait_screen '^>>>'
	type_line 'print(6*7)'
	wait_screen '^42$'
	key C-d
	wait_screen '^rc2=0$'

	shell_owns_tty
	# Type only once read waits (its prompt shows): input typed while readline still has
	# the terminal in non-canonical mode may be lost on the switch back.
	type_line 'read -p "ask>" y; echo "y:$y"'
	wait_screen '^ask>$'
	type_line abc
	wait_screen '^y:abc$'
	type_line ttymodes
	wait_screen '^modes: icanon echo$'
}

@test "2: Ctrl-C ends an interactive runlimit at once (130)" {
	# (a grace of 20 s: "at once" is well short of it, with room for a loaded machine)
	type_line "runlimit -k 20 30 $SL 60"
	local sp
	sp=$(wait_pid "$SL")
	wait_state "$sp" S
	local t0
	t0=$(now)
	key C-c
	no_survivors "$SL"
	type_line 'echo rc=$?'
	wait_screen '^rc=130$'
	lt "$(elapsed "$t0")" 10
	shell_owns_tty
}

@test "3a: Ctrl-Z stops the command and runlimit; fg resumes both; Ctrl-C then gives 130" {
	type_line "runlimit 30 $SL 60"
	local sp rp
	sp=$(wait_pid "$SL")
	rp=$(field "$sp" ppid)
	RL_PIDS=$rp
	# The command's group has the terminal; the command is a member, not its leader.
	wait_tty_owner "$(field "$sp" pgid)"
	[ "$(field "$sp" pgid)" != "$sp" ]
	key C-z
	wait_screen 'Stopped'
	wait_state "$sp" T
	wait_state "$rp" T
	shell_owns_tty
	type_line fg
	wait_state "$sp" S
	wait_state "$rp" S
	wait_tty_owner "$(field "$sp" pgid)" # and has it again after fg
	key C-c
	no_survivors "$SL"
	type_line 'echo rc=$?'
	wait_screen '^rc=130$'
	shell_owns_tty
}

@test "3b: Ctrl-Z then bg resumes both in the background; a time-out then gives 124" {
	type_line "runlimit 60 $SL 60"
	local sp rp
	sp=$(wait_pid "$SL")
	rp=$(field "$sp" ppid)
	RL_PIDS=$rp
	key C-z
	wait_screen 'Stopped'
	wait_state "$sp" T
	wait_state "$rp" T
	type_line bg
	wait_state "$sp" S
	wait_state "$rp" S
	type_line jobs
	wait_screen '^\[1\]\+ +Running +runlimit 60'
	shell_owns_tty
	# SIGALRM: "the deadline is now" (3c covers a real deadline while stopped).
	type_line 'kill -ALRM %1; wait %1; echo rc=$?'
	wait_screen '^rc=124$'
	no_survivors "$SL"
}

@test "3c: a time-out while stopped still ends the command (Exit 124)" {
	type_line "runlimit 5 $SL 60"
	local sp rp
	sp=$(wait_pid "$SL")
	rp=$(field "$sp" ppid)
	RL_PIDS=$rp
	key C-z
	wait_screen 'Stopped'
	wait_state "$sp" T
	no_survivors "$SL" 15
	wait_for_gone "$rp" 5
	type_line jobs
	wait_screen '^\[1\]\+ +Exit 124 +runlimit 5'
	shell_works
}

@test "3e: with --report, a run stopped by Ctrl-Z stays stopped past the tree's reading ahead, until its deadline" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	ln -s "$RUNLIMIT_HOOKS" "$D/bin/runlimit-hooks"
	# The tree would be read 5 s ahead of the deadline of 9 s: at 4 s.  The reading must not
	# wake the stopped run (its continuing the command at 4 s is what this test catches);
	# the deadline's own continuing comes 4.4 s after the look at 4.6 s, a margin for a
	# loaded machine, where the start (t0) is seen late.
	type_line "RUNLIMIT_TEST_SNAP_LEAD_MS=5000 runlimit-hooks --report=r.json 9 $SL 60"
	local sp rp t0
	sp=$(wait_pid "$SL")
	t0=$(now)
	rp=$(field "$sp" ppid)
	RL_PIDS=$rp
	key C-z
	wait_screen 'Stopped'
	wait_state "$sp" T
	wait_until 10 past "$t0" 4.6
	state_is "$sp" T
	no_survivors "$SL" 15
	wait_for_gone "$rp" 5
	type_line jobs
	wait_screen '^\[1\]\+ +Exit 124 +RUNLIMIT_TEST_SNAP_LEAD_MS=5000 runlimit-hooks'
	shell_works
}

@test "3d: runlimit SIGKILLed while stopped leaves no timer behind" {
	type_line "runlimit 60 $SL 60"
	local sp rp t
	sp=$(wait_pid "$SL")
	rp=$(field "$sp" ppid)
	RL_PIDS=$rp
	key C-z
	wait_screen 'Stopped'
	wait_state "$sp" T
	kill -KILL "$rp"
	# The timer (a child of runlimit waiting for the 60 s deadline) must notice at once.
	# Only this test's processes: their arguments name its private sleep.  (Whoever adopts
	# them: init, or the test runner's reaper.)
	orphans() {
		ps -A -o ppid= -o stat= -o args= |
			awk -v sl="$SL" '$2 !~ /^Z/ && $3 ~ /runlimit$/ && index($0, sl)'
	}
	for t in $(seq 100); do
		[ -z "$(orphans)" ] && break
		sleep 0.05
	done
	[ -z "$(orphans)" ]
	kill -KILL "$sp" 2>/dev/null || true
}

@test "4: Ctrl-C during a script's runlimit ends the whole script" {
	cat >"$D/loop.sh" <<EOF
for i in 1 2 3; do echo iter \$i; runlimit 60 $SL 30; done; echo loop-finished
EOF
	type_line 'bash loop.sh; echo rc=$?'
	wait_screen '^iter 1$'
	local sp
	sp=$(wait_pid "$SL")
	wait_state "$sp" S
	key C-c
	# The script died of SIGINT, so the interactive shell drops the rest of the line too.
	wait_prompts 2
	no_screen '^rc='
	type_line 'echo rc=$?'
	wait_screen '^rc=130$'
	no_screen '^iter 2$'
	no_screen '^loop-finished$'
	shell_owns_tty
}

@test "5: a command reading the terminal inside a script gets the line; the script goes on" {
	cat >"$D/read.sh" <<'EOF'
runlimit 30 sh -c 'echo ready; read x; echo got:$x'
echo "cmd-rc:$?"
read y
echo "after:$y"
echo script-after
EOF
	type_line 'bash read.sh; echo rc=$?'
	wait_screen '^ready$'
	type_line typed
	wait_screen '^got:typed$' 10 # well before the 30 s deadline
	wait_screen '^cmd-rc:0$'
	# The script reads the terminal itself: runlimit gave it back to the script's group.
	type_line more
	wait_screen '^after:more$'
	wait_screen '^script-after$'
	wait_screen '^rc=0$'
	shell_owns_tty
	shell_works
}

@test "6: a time-out while the command has the terminal in raw mode restores the modes" {
	type_line "runlimit 2 sh -c 'stty raw -echo && : >raw-on; sleep 30'; echo rc=\$?"
	wait_screen '^rc=124$'
	[ -e "$D/raw-on" ] # the time-out came while the terminal was raw
	shell_owns_tty
	type_line ttymodes
	wait_screen '^modes: icanon echo$'
	shell_works
}

@test "7: runlimit started in the background never takes the terminal; fg, Ctrl-C gives 130" {
	type_line "runlimit 60 $SL 60 &"
	local rp sp
	rp=$(job_pid)
	RL_PIDS=$rp
	sp=$(wait_pid "$SL")
	shell_works
	shell_owns_tty
	type_line fg
	wait_tty_owner "$rp"
	key C-c
	no_survivors "$SL"
	type_line 'echo rc=$?'
	wait_screen '^rc=130$'
	shell_owns_tty
}

@test "8: with tostop, a background runlimit whose command writes is a stopped job; fg runs it" {
	type_line 'stty tostop'
	type_line "runlimit 30 sh -c 'echo bg-out' &"
	local rp
	rp=$(job_pid)
	RL_PIDS=$rp
	wait_state "$rp" T
	# bash's first notice of a stop says "Stopped"; jobs -l then names the signal, as it
	# does for the shell's own jobs: runlimit stopped the way its command did (SIGTTOU).
	type_line jobs
	wait_screen '^\[1\]\+ +Stopped +runlimit 30'
	type_line 'jobs -l'
	wait_screen "^\\[1\\]\\+ +$rp +Stopped \\(tty output\\) +runlimit 30"
	no_screen '^bg-out$'
	type_line 'fg; echo rc=$?'
	wait_screen '^bg-out$'
	wait_screen '^rc=0$'
	type_line 'stty -tostop'
	shell_owns_tty
	shell_works
}

@test "9: SIGWINCH reaches a command that does not own the terminal (runlimit in a script)" {
	cat >"$D/winch.sh" <<EOF
runlimit 60 sh -c 'trap "echo winch > $D/F" WINCH; echo ready > $D/R; while :; do sleep 0.1; done'
EOF
	type_line 'bash winch.sh; echo rc=$?'
	wait_for_file "$D/R"
	tmux -L "$SOCK" resize-window -t t -x 100 -y 30
	wait_for_file "$D/F" 5
	key C-c
	wait_prompts 2
	type_line 'echo rc=$?'
	wait_screen '^rc=130$'
	shell_owns_tty
}

@test "10: --foreground from a script reads the terminal; Ctrl-Z stops runlimit and the command" {
	cat >"$D/fg.sh" <<'EOF'
runlimit -f 60 sh -c 'echo ready; read x; echo got:$x'
echo "cmd-rc:$?"
EOF
	type_line 'bash fg.sh; echo rc1=$?'
	wait_screen '^ready$'
	type_line typed
	wait_screen '^got:typed$'
	wait_screen '^cmd-rc:0$'
	wait_screen '^rc1=0$'

	type_line "runlimit -f 60 $SL 60"
	local sp rp
	sp=$(wait_pid "$SL")
	rp=$(field "$sp" ppid)
	RL_PIDS=$rp
	[ "$(field "$sp" pgid)" = "$(field "$rp" pgid)" ] # one group
	key C-z
	wait_screen 'Stopped'
	wait_state "$sp" T
	wait_state "$rp" T
	type_line fg
	wait_state "$sp" S
	wait_state "$rp" S
	key C-c
	no_survivors "$SL"
	type_line 'echo rc2=$?'
	wait_screen '^rc2=130$'
	shell_owns_tty
}

@test "11: a pipeline into a pager: less keeps the terminal and answers keys" {
	type_line "runlimit 20 sh -c 'seq 300; exec $SL 30' | less; echo rc=\$?"
	local lp sp
	sp=$(wait_pid "$SL")
	lp=$(wait_pid less)
	wait_screen '^1$'
	# less owns the terminal (its group, runlimit's, is the foreground) and is not stopped.
	wait_tty_owner "$(field "$lp" pgid)"
	[ "$(field "$lp" stat | cut -c1)" != T ]
	key Space # the next page: less must be reading keys
	wait_screen '^90$'
	key q
	wait_for_gone "$lp" 5
	kill -TERM "$(field "$sp" ppid)" # end the run; the pipeline then ends
	wait_screen '^rc=0$'
	shell_owns_tty
}

@test "12: Ctrl-C stops a loop typed at the prompt, as around the bare command" {
	type_line "for i in 1 2; do runlimit 10 $SL 3; echo \"iter \$i rc=\$?\"; done; echo after-loop"
	local sp
	sp=$(wait_pid "$SL")
	wait_tty_owner "$(field "$sp" pgid)"
	key C-c
	wait_for_gone "$sp" 5
	wait_prompts 2
	# bash breaks the loop only when its child died of SIGINT: no second iteration, and
	# the rest of the line is not run either.
	no_screen '^iter 2'
	no_screen '^after-loop$'
	[ -z "$(survivors "$SL")" ]
	shell_owns_tty
}

@test "13: one Ctrl-C at a REPL is interaction, not a cancel: no KILL after the grace" {
	# -f: the REPL shares runlimit's group, so both get the key; -k 1 would KILL the REPL a
	# second later if the key started the grace (as a kill -INT does).
	# python3 -i on a script that writes the REPL's pid, to tell it from any other python3
	# (the test runner's reaper is one).
	printf 'import os\nopen(%s, "w").write(str(os.getpid()))\n' "'$D/pypid'" >"$D/$SL.py"
	type_line "bash -c 'runlimit -v -f -k 1 60 python3 -q -i $D/$SL.py'; echo rc=\$?"
	wait_screen '^>>>'
	local pp t0
	wait_for_file "$D/pypid"
	pp=$(cat "$D/pypid")
	# Asleep in its read of the terminal, where a Ctrl-C is a KeyboardInterrupt at once.
	wait_state "$pp" S
	key C-c
	wait_screen 'KeyboardInterrupt'
	t0=$(now)
	# Watch the REPL through twice the grace: it must stay alive all along.
	while lt "$(elapsed "$t0")" 2.5; do
		kill -0 "$pp"
		sleep 0.1
	done
	no_screen 'sending signal KILL'
	# runlimit passes the key on to the REPL as well (as GNU's --foreground does): where
	# that second INT came in just before the REPL went back to reading, it is raised at
	# the next line run; a first line takes it.
	type_line 'pass'
	type_line 'print(6*7)'
	wait_screen '^42$'
	key C-d
	wait_screen '^rc=0$'
}

# termsize: a tool in the pane's PATH that prints "size COLUMNS ROWS" of its stdout.
make_termsize() {
	cat >"$D/bin/termsize" <<'EOF'
#!/bin/sh
exec python3 -c 'import os; print("size %d %d" % tuple(os.get_terminal_size(1)))'
EOF
	chmod +x "$D/bin/termsize"
}

# The relay's options, one per word of RELAY_OPTS, commas for spaces (the report's file is
# named in the third).
relay_opts() {
	RELAY_OPTS="--output-grace=1 --no-output-timeout=30 --report=$D/r.json,--report-tail=1K"
}

# ttysame: a tool in the pane's PATH that prints "ARG same" when its stdin, stdout and stderr
# are one terminal (the caller's), "ARG other" when not.
make_ttysame() {
	cat >"$D/bin/ttysame" <<'EOF'
#!/bin/sh
exec python3 -c 'import os, sys
same = os.ttyname(0) == os.ttyname(1) == os.ttyname(2)
print(sys.argv[1], "same" if same else "other")' "$1"
EOF
	chmod +x "$D/bin/ttysame"
}

@test "14: under every relay option the command writes to the caller's terminal itself" {
	make_ttysame
	relay_opts
	local opt n=0
	for opt in $RELAY_OPTS; do
		n=$((n + 1))
		type_line "runlimit -v $(echo "$opt" | tr , ' ') 30 ttysame $n; echo rc$n=\$?"
		wait_screen "^$n (same|other)\$"
		wait_screen "^rc$n=0\$"
		no_screen "^$n other\$"
	done
	# Not seen, so not counted; the report says why it has no tail, and -v said it at start.
	wait_screen '^runlimit: --report-tail keeps no tail of a terminal \(standard error\)$'
	python3 "$TOOLS/report_is.py" "$D/r.json" 'd["output"]["stdout_bytes"] is None' \
		'd["output"]["stderr_tail"] is None' \
		'd["output"]["stderr_tail_unavailable"] == "terminal"'
	shell_owns_tty
}

@test "15: --no-output-timeout with nothing but a terminal to watch is off, and says so" {
	# A quiet interactive program is not ended for a silence that runlimit cannot see.
	type_line "runlimit --no-output-timeout=0.5 30 sh -c 'echo quiet-now; exec $SL 3'; echo rc=\$?"
	wait_screen '^quiet-now$'
	wait_screen '^rc=0$' 15
	# Said once, always (not only with -v), before the command's output.
	local said
	said='^runlimit: --no-output-timeout is off: output to a terminal is not watched \(standard output and standard error\)$'
	[ "$(screen | grep -Ec "$said")" -eq 1 ]
	[ "$(screen | grep -E "$said|^quiet-now$" | head -n 1)" != quiet-now ]
	shell_owns_tty
}

@test "16: --no-output-timeout in a terminal: the window size and a resize reach the command" {
	make_termsize
	type_line 'runlimit --no-output-timeout=30 60 sh -c '\''termsize; trap termsize WINCH; echo ready > R; while :; do sleep 0.1; done'\''; echo rc=$?'
	wait_screen '^size 160 50$'
	wait_for_file "$D/R"
	tmux -L "$SOCK" resize-window -t t -x 100 -y 30
	wait_screen '^size 100 30$' 10
	key C-c
	wait_prompts 2 # the shell drops the rest of the line: runlimit died of the INT too
	type_line 'echo rc=$?'
	wait_screen '^rc=130$'
	shell_owns_tty
}

@test "17: --no-output-timeout watches what is not a terminal; -v says the terminal is not" {
	# stderr to a file, which is watched; what goes to the terminal is not seen, so a
	# command that writes only there is silent.
	type_line "runlimit -v --no-output-timeout=1 30 sh -c 'while :; do echo tick; sleep 0.2; done' 2>err.log; echo rc=\$?"
	wait_screen '^tick$'
	wait_screen '^rc=124$' 15
	grep -q '^runlimit: --no-output-timeout does not watch output to a terminal (standard output)$' "$D/err.log"
	grep -q '^runlimit: no output for 1s: sending signal TERM' "$D/err.log"
	no_screen 'no-output-timeout is off'
	shell_owns_tty
}

# screen_count REGEX N: at least N lines of the pane match REGEX.
screen_count() { [ "$(screen | grep -Ec -- "$1")" -ge "$2" ]; }

# private_copy PROGRAM: a copy of PROGRAM in the pane's PATH under a name of this test's
# (its first 4 letters, the test's number and pid: under 16 characters); the name is printed.
private_copy() {
	local name
	name=$(printf '%s' "$1" | cut -c1-4)$BATS_TEST_NUMBER-$(($$ % 100000))
	cp "$(command -v "$1")" "$D/bin/$name"
	printf '%s\n' "$name"
}
# private NAME: NAME is a private copy, killed at the end.
private() {
	PRIVATE="$PRIVATE $1"
}

@test "18: less gets its keys under every relay option; Ctrl-Z stops the run, fg resumes it" {
	command -v less >/dev/null 2>&1 || skip "no less"
	local pager opt n=0 lp rp
	pager=$(private_copy less)
	private "$pager"
	relay_opts
	for opt in $RELAY_OPTS; do
		n=$((n + 1))
		seq -f "p$n-%g" 1000 >"$D/nums$n"
		# (Not "; echo \$?" on the same line: bash runs it when the job stops.)
		type_line "runlimit $(echo "$opt" | tr , ' ') 60 $pager nums$n"
		lp=$(wait_pid "$pager")
		rp=$(field "$lp" ppid)
		RL_PIDS="$RL_PIDS $rp"
		wait_screen "^p$n-1\$"
		wait_state "$lp" S # reading its keys
		key Space # the next page: a pager without its keys sits until the deadline
		wait_screen "^p$n-60\$"
		key C-z
		wait_until 10 screen_count 'Stopped' "$n"
		wait_state "$lp" T
		wait_state "$rp" T
		shell_owns_tty
		type_line fg
		wait_screen "^p$n-60\$" # redrawn
		wait_state "$lp" S
		key q
		wait_for_gone "$rp" 5 # at once, well before the deadline
		type_line "echo rc$n=\$?"
		wait_screen "^rc$n=0\$"
	done
	shell_works
}

@test "19: more gets its keys under every relay option" {
	command -v more >/dev/null 2>&1 || skip "no more"
	local pager opt n=0 mp
	pager=$(private_copy more)
	private "$pager"
	relay_opts
	for opt in $RELAY_OPTS; do
		n=$((n + 1))
		seq -f "m$n-%g" 1000 >"$D/nums$n"
		type_line "runlimit $(echo "$opt" | tr , ' ') 60 $pager nums$n; echo rc$n=\$?"
		mp=$(wait_pid "$pager")
		RL_PIDS="$RL_PIDS $(field "$mp" ppid)"
		wait_screen "^m$n-1\$"
		wait_state "$mp" S
		key Space
		wait_screen "^m$n-60\$"
		key q
		wait_screen "^rc$n=0\$" 5
	done
	shell_works
}

@test "20: a curses program gets its keys and its modes under every relay option" {
	PATH="$D/bin:/usr/bin:/bin" python3 -c 'import curses' 2>/dev/null ||
		skip "python3 has no curses module"
	# curses sets its modes on the terminal of its stdout and reads keys from stdin: one
	# key, no Enter, is read only if the modes reached the real terminal.
	cat >"$D/cursed.py" <<'EOF'
import curses, sys
def main(w):
    w.addstr(0, 0, "curses-ready " + sys.argv[1])
    w.refresh()
    return w.getkey()
key = curses.wrapper(main)
print("curses-got", sys.argv[1], key)
sys.exit(7)
EOF
	local opt n=0
	relay_opts
	for opt in $RELAY_OPTS; do
		n=$((n + 1))
		type_line "runlimit $(echo "$opt" | tr , ' ') 60 python3 cursed.py $n; echo rc$n=\$?"
		wait_screen "^curses-ready $n"
		key x
		wait_screen "^curses-got $n x\$" 5
		wait_screen "^rc$n=7\$" 5
	done
	shell_owns_tty
	type_line ttymodes
	wait_screen '^modes: icanon echo$'
}

@test "21: as timeout, Ctrl-C at Debian's wait-for-it: its INT trap reaches the child through timeout's group, no kill: error, nothing left" {
	local wfi
	wfi=$(command -v wait-for-it) || skip "no wait-for-it (Debian's package of that name)"
	# runlimit as timeout, first on the pane's PATH; wait-for-it under a name of this test's
	ln -s runlimit "$D/bin/timeout"
	WFI=$D/bin/$SL-wfi
	cp "$wfi" "$WFI"
	# port 1 of the loopback: nothing listens, so it waits (its child retries each second)
	type_line "$SL-wfi -t 30 127.0.0.1:1 -- true; echo \"rc=\$?\""
	wait_until 20 wfi_child_running
	wait_until 20 wfi_trap_set
	key C-c
	wait_screen '^rc=[0-9]+$'
	no_screen 'kill:'
	wait_until 10 wfi_gone || { pgrep -fa -- "$WFI" >&2; return 1; }
	shell_works
}

# start_trapped DELAY ARGS: type "bash $D/trapped" at the shell: a script that runs timeout
# (runlimit by that name) with ARGS (shell words) in the background, and whose INT trap
# passes an INT on to timeout's group (kill -INT -PID) DELAY seconds after it gets one, as
# wait-for-it's does; it then says "rc=N", timeout's status.  Returns once the command runs
# ($SL) and the trap is set: a key before that ends the script without the trap.
start_trapped() {
	ln -s runlimit "$D/bin/timeout"
	cat >"$D/trapped" <<EOS
timeout $2 &
pid=\$!
trap 'sleep $1; kill -INT -\$pid 2>/dev/null || echo "trap: kill failed"' INT
wait \$pid
wait \$pid
echo "rc=\$?"
EOS
	type_line "bash $D/trapped"
	wait_pid "$SL" >/dev/null
	wait_until 20 catches "$(pgrep -f -- "$D/trapped" | head -n 1)" 2
}

@test "22: Ctrl-C at a script whose INT trap passes it on to timeout's group a moment late: the group is still there (runlimit keeps it 0.1 s)" {
	# runlimit gets the key too, through the script's group, and passes it on at once: the
	# command dies, and without the moment the group would be gone when the trap's kill comes.
	start_trapped 0.03 "30 $SL 100"
	key C-c
	wait_screen 'rc=[0-9]+$'
	no_screen 'kill failed'
	no_survivors "$SL" 5
	shell_works
}

# ---- issue 60: a typed key reaches runlimit at every stage of a pipeline -----------------

# pipeline_tools: in the pane's PATH, gone-producer FILE (writes its pid to FILE and exits)
# and after-gone FILE CMD... (waits, bounded, until that pid is no longer alive, then execs
# CMD): runlimit then starts once the stage before it has exited and been reaped by the shell,
# the case that emptied the job's group (issue 60).  exits-when-running NAME: waits, bounded,
# until a process called NAME runs, then exits: a producer that exits after runlimit starts.
pipeline_tools() {
	cat >"$D/bin/gone-producer" <<'EOS'
#!/bin/sh
echo $$ >"$1"
EOS
	cat >"$D/bin/after-gone" <<'EOS'
#!/bin/sh
f=$1
shift
i=0
until [ -s "$f" ] && ! kill -0 "$(cat "$f")" 2>/dev/null; do
	[ $i -lt 1000 ] || { echo "after-gone: the producer is still there" >&2; exit 99; }
	sleep 0.01
	i=$((i + 1))
done
exec "$@"
EOS
	cat >"$D/bin/exits-when-running" <<'EOS'
#!/bin/sh
i=0
until pgrep -x "$1" >/dev/null; do
	[ $i -lt 1000 ] || exit 99
	sleep 0.01
	i=$((i + 1))
done
EOS
	chmod +x "$D/bin/gone-producer" "$D/bin/after-gone" "$D/bin/exits-when-running"
}

# The shapes: runlimit last, in the middle and first, with a stage before it that has exited
# before it starts, runs all along (cat reads the terminal), or exits while it runs.  %N is
# the repeat's number (the files of gone-producer).
PIPELINES=(
	'gone-producer p%N | after-gone p%N runlimit 30 SL 60'
	'gone-producer p%N | after-gone p%N runlimit 30 SL 60 | cat'
	'cat | runlimit 30 SL 60'
	'cat | runlimit 30 SL 60 | cat'
	'exits-when-running SL | runlimit 30 SL 60'
	'exits-when-running SL | runlimit 30 SL 60 | cat'
	'runlimit 30 SL 60 | cat'
	'echo hi | runlimit 30 SL 60'
)

# pipeline_line K N: the K-th shape, for repeat N, with this test's sleep.
pipeline_line() {
	local line=${PIPELINES[$1]//%N/$2}
	printf '%s\n' "${line//SL/$SL}"
}

# ctrl_c_ends LINE N: LINE typed; once its command runs, Ctrl-C ends the job: the prompt
# comes back well before the limit, and nothing of it is left.
ctrl_c_ends() {
	type_line "$1"
	local sp t0
	sp=$(wait_pid "$SL") || return 1
	wait_state "$sp" S || return 1
	t0=$(now)
	key C-c
	wait_until 10 gone "$sp" 2>/dev/null ||
		{ echo "Ctrl-C did not end [$1]" >&2; ps -o pid,ppid,pgid,tpgid,stat,args -t "$(field "$SHELL_PID" tty)" >&2; return 1; }
	wait_prompts "$2" 10 || return 1
	lt "$(elapsed "$t0")" 10 || return 1
	no_survivors "$SL" 5
}

@test "60.1: Ctrl-C ends runlimit at every stage of a pipeline, whenever the stage before it exits (each shape 3 times)" {
	pipeline_tools
	local k n prompts=1
	for n in 1 2 3; do
		for k in "${!PIPELINES[@]}"; do
			prompts=$((prompts + 1))
			ctrl_c_ends "$(pipeline_line "$k" "$n")" "$prompts"
		done
	done
	shell_works
}

@test "60.1: Ctrl-Z stops runlimit at every stage of a pipeline and fg resumes it, whenever the stage before it exits; Ctrl-C then ends it" {
	pipeline_tools
	local k line sp rp prompts=1
	for k in "${!PIPELINES[@]}"; do
		line=$(pipeline_line "$k" 1)
		type_line "$line"
		sp=$(wait_pid "$SL")
		rp=$(field "$sp" ppid)
		RL_PIDS="$RL_PIDS $rp"
		wait_state "$sp" S
		key C-z
		wait_state "$sp" T || { echo "Ctrl-Z did not stop [$line]" >&2; return 1; }
		wait_state "$rp" T
		prompts=$((prompts + 1))
		wait_prompts "$prompts"
		type_line fg
		wait_state "$sp" S || { echo "fg did not resume [$line]" >&2; return 1; }
		wait_state "$rp" S
		key C-c
		wait_until 10 gone "$sp" 2>/dev/null || { echo "Ctrl-C after fg did not end [$line]" >&2; return 1; }
		prompts=$((prompts + 1))
		wait_prompts "$prompts"
		no_survivors "$SL" 5
	done
	shell_works
}

@test "60.2: Ctrl-C, and the caller's trap passes INT on to timeout's group: a request, whose -k KILL ends a command that ignores INT (137), as under GNU" {
	# runlimit gets the typed key itself, as interaction, and passes it on to the group; the
	# trap's kill reaches the guard in the command's group, which passes it on: a request
	# sent by a process, never dropped for the key's INT that came first.  The trap waits
	# 0.1 s: an INT that reaches the guard while it still holds runlimit's own merges with
	# it (signals do not queue) and is not passed on (docs/design.md, the guard).
	start_trapped 0.1 "-k 1 20 sh -c 'trap \"\" INT; exec $SL 100'"
	local t0
	t0=$(now)
	key C-c
	wait_screen 'rc=[0-9]+$' 25
	wait_screen 'rc=137$' 1
	lt "$(elapsed "$t0")" 10
	no_screen 'kill failed'
	no_survivors "$SL" 5
	shell_works
}
