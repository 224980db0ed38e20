#!/usr/bin/env bats
# Named runs (docs/design.md, "Named runs"; --name, --cancel, --list): a run registers under a name in a
# directory only its user can write to; another process cancels it by that name (the run
# signals its own tree: nothing is ever signalled by a pid read from a file), and a cancel
# that comes before the run is never lost.
#
# Every test has a directory of its own (RUNLIMIT_DIR), so the files can run in parallel.

bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	setup_tree_tests
}

setup() {
	export D=$BATS_TEST_TMPDIR RUNLIMIT
	export RUNLIMIT_DIR=$D/names
	N=n$BATS_TEST_NUMBER-$(($$ % 100000))
	export S
	S=$(private_sleep "$N-s")
	FAKES=""
}

teardown() {
	# a run a test stopped, should the test have failed before continuing it
	if [ -n "${STOPPED:-}" ]; then
		kill -CONT "$STOPPED" 2>/dev/null || true
		kill -KILL "$STOPPED" 2>/dev/null || true
	fi
	kill_named "$N-s"
	# fake runs (tests/tools/fakerun.py) a test started, which never end of themselves
	# shellcheck disable=SC2086 # a list of pids
	[ -z "${FAKES:-}" ] || kill $FAKES 2>/dev/null || true
	other_users_done
}

# cancels_taken N: the run's -v output in $D/err tells of N cancels taken, at least.
cancels_taken() { [ "$(grep -c 'cancelled by' "$D/err")" -ge "$1" ]; }

# registered NAME: the run NAME is listening (its socket is there).
registered() { [ -S "$RUNLIMIT_DIR/$1.sock" ]; }

# only_tombstones: the directory holds nothing but the tombstones of runs that have ended
# (NAME.ended) and dot-files (.swept, the stamp of the last sweep of them).
only_tombstones() { [ -z "$(ls "$RUNLIMIT_DIR" | grep -v '\.ended$' || true)" ]; }

# cancel_held_past_its_run: a run of job, and a hooks build's --cancel=job (in the
# background: $cancel, its stderr $D/cancel.err) held after its look at the name until the
# test removes $D/held; meanwhile the run it saw is ended with a TERM and reaped
# (BG_STATUS its status).
cancel_held_past_its_run() {
	start_named job 60 "$S" 100
	local first=$RUN
	RUNLIMIT_TEST_CANCEL_LOOKED=$D/held "$RUNLIMIT_HOOKS" --cancel=job 2>"$D/cancel.err" 3>&- &
	cancel=$!
	wait_until 10 test -e "$D/held"
	kill -TERM "$first"
	wait_bg "$first"
}

# start_named NAME ARG...: runlimit --name=NAME ARG... in the background, its pid in RUN;
# returns once the run is registered.
start_named() {
	local name=$1
	shift
	"$RUNLIMIT" --name="$name" "$@" 3>&- &
	RUN=$!
	wait_until 10 registered "$name"
}

@test "--cancel ends the whole tree: TERM, then KILL for what ignores it, a setsid'd grandchild too" {
	needs_session_reach
	local t0
	start_named job -k 1 60 sh -c '
		(trap "" TERM; exec "$S" 100) &
		setsid "$S" 101 &
		echo ready >"$D/ready"; wait'
	wait_for_file "$D/ready"
	wait_until 10 count_is "$N-s" 2
	t0=$(now)
	run -0 "$RUNLIMIT" --cancel=job
	# it returns once the tree is gone: after the grace, for the TERM-ignoring child
	lt 0.9 "$(elapsed "$t0")" # (a "! cmd" never fails a bats test)
	lt "$(elapsed "$t0")" 10
	no_live "$N-s"
	wait_bg "$RUN"
	[ "$BG_STATUS" -eq 143 ] # the command died of the TERM: runlimit dies of it too
	# and its files are gone, but for its tombstone
	[ "$(ls -A "$RUNLIMIT_DIR")" = job.ended ]
}

@test "a cancel that comes first: the command never runs, and the name is free again after" {
	run -1 "$RUNLIMIT" --cancel=early
	[ -e "$RUNLIMIT_DIR/early.cancel" ]
	run -143 "$RUNLIMIT" --name=early 10 sh -c 'touch "$D/ran"'
	[ ! -e "$D/ran" ]
	[ ! -e "$RUNLIMIT_DIR/early.cancel" ]
	# the next run of that name runs normally
	run -0 "$RUNLIMIT" --name=early 10 sh -c 'touch "$D/ran"'
	[ -e "$D/ran" ]
}

@test "a cancel that comes first with -s: the run dies of that signal; one that would not end a process is TERM" {
	run -1 "$RUNLIMIT" --cancel=early -s INT
	# the marker alone, whole, with nothing written beside it left over (nor the lock file
	# its look held)
	[ "$(ls -A "$RUNLIMIT_DIR")" = early.cancel ]
	# its signal (SIGINT's number) and when it expires
	[ "$(cut -d' ' -f1 "$RUNLIMIT_DIR/early.cancel")" = 2 ]
	run -130 "$RUNLIMIT" --name=early 10 sh -c 'touch "$D/ran"'
	[ ! -e "$D/ran" ]
	# (names used once: a cancel of "early" now meets its tombstone)
	run -1 "$RUNLIMIT" --cancel=early2 -s KILL
	run -137 "$RUNLIMIT" --name=early2 10 sh -c 'touch "$D/ran"'
	run -1 "$RUNLIMIT" --cancel=early3 -s STOP
	run -143 "$RUNLIMIT" --name=early3 10 sh -c 'touch "$D/ran"'
	[ ! -e "$D/ran" ]
	only_tombstones
}

@test "200 starts and cancels racing: no command ever finishes its work" {
	local i
	for i in $(seq 1 200); do
		"$RUNLIMIT" --name="race$i" -k 0.5 20 sh -c '"$S" 3; touch "$D/done.$1"' sh "$i" \
			>/dev/null 2>&1 3>&- &
		"$RUNLIMIT" --cancel="race$i" >/dev/null 2>&1 3>&- &
		if [ $((i % 20)) -eq 0 ]; then wait; fi
	done
	wait
	# every run has ended (a cancel or its marker ended it), and no work was done
	no_survivors "$N-s" 20
	[ -z "$(ls "$D" | grep '^done\.' || true)" ]
	# no files left but the runs' tombstones and the markers of cancels that came before their
	# run had even looked
	[ -z "$(ls "$RUNLIMIT_DIR" | grep -v -e '\.cancel$' -e '\.ended$' || true)" ]
}

@test "a command with a space in its name, and one that execs: cancelled all the same" {
	mkdir -p "$D/my dir"
	printf '#!/bin/sh\nexec "$S" 100\n' >"$D/my dir/my prog"
	chmod +x "$D/my dir/my prog"
	start_named spaced 60 "$D/my dir/my prog"
	wait_until 10 has_survivors "$N-s"
	run -0 "$RUNLIMIT" --list
	[[ "$output" == *spaced*"my prog"* ]]
	run -0 "$RUNLIMIT" --cancel=spaced
	no_live "$N-s"
	wait_bg "$RUN"
	[ "$BG_STATUS" -eq 143 ]
}

@test "the command's \$\$ and its own traps are its own" {
	run -42 "$RUNLIMIT" --name=traps 10 sh -c 'trap "exit 42" TERM; kill -TERM $$; sleep 5'
	start_named pid 10 sh -c 'echo $$ >"$D/pid"; exec "$S" 100'
	wait_for_file "$D/pid"
	# $$ is the command itself, not a wrapper: it is runlimit's child
	is_child_of "$(cat "$D/pid")" "$RUN"
	run -0 "$RUNLIMIT" --cancel=pid
	wait_bg "$RUN"
}

@test "a name already running is refused (125), and nothing of the first run is touched" {
	start_named twice 60 "$S" 100
	wait_until 10 has_survivors "$N-s"
	run -125 --separate-stderr "$RUNLIMIT" --name=twice 10 true
	[[ "$stderr" == *"a run named"*"twice"*"is already running"* ]]
	registered twice
	has_survivors "$N-s"
	run -0 "$RUNLIMIT" --cancel=twice
	wait_bg "$RUN"
}

@test "--list: one line per live run, with its name, pid, elapsed time and command" {
	start_named one 60 "$S" 101
	local p1=$RUN
	start_named two 60 "$S" 102
	local p2=$RUN
	start_named three 60 "$S" 103
	local p3=$RUN
	run -0 "$RUNLIMIT" --list
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[0]}" == "one	$p1	"*"s	$S 101" ]]
	[[ "${lines[1]}" == "three	$p3	"*"s	$S 103" ]]
	[[ "${lines[2]}" == "two	$p2	"*"s	$S 102" ]]
	"$RUNLIMIT" --cancel=one
	run -0 "$RUNLIMIT" --list
	[ "${#lines[@]}" -eq 2 ]
	"$RUNLIMIT" --cancel=two
	"$RUNLIMIT" --cancel=three
	run -0 "$RUNLIMIT" --list
	[ -z "$output" ]
	wait_bg "$p1"
	wait_bg "$p2"
	wait_bg "$p3"
}

# list_json_is EXPR...: the --list --json output in $D/list holds JSON Lines, and every python
# EXPR over them (runs: the objects, by name; t0, t1: the wall clock before and after the
# list, in seconds; at(): an RFC 3339 time in seconds) is true.
list_json_is() {
	"$PY" - "$D/list" "$@" <<'PYEOF'
import calendar, json, re, sys, time
text = open(sys.argv[1], "rb").read().decode("utf-8")  # strict: valid UTF-8
assert text == "" or text.endswith("\n"), "not whole lines: %r" % text[-80:]
objs = [json.loads(line) for line in text.splitlines()]
runs = {o["name"]: o for o in objs}
keys = ["name", "uid", "pid", "started_at", "elapsed", "deadline", "argv", "argc", "state",
        "error"]
assert all(list(o) == keys for o in objs), "fields: %r" % [list(o) for o in objs]
def at(stamp):
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", stamp), stamp
    secs, frac = stamp[:-1].split(".")
    return calendar.timegm(time.strptime(secs, "%Y-%m-%dT%H:%M:%S")) + float("0." + frac)
t0, t1 = float(open(sys.argv[1] + ".t0").read()), float(open(sys.argv[1] + ".t1").read())
bad = [e for e in sys.argv[2:] if not eval(e)]
if bad:
    sys.exit("list: %s\nfalse: %s" % (text, "\nfalse: ".join(bad)))
PYEOF
}

# list_json: runlimit --list --json into $D/list (its status in $D/list.rc), the wall clock
# before and after it in $D/list.t0 and .t1.
list_json() {
	local rc=0
	"$PY" -c 'import time; print(time.time())' >"$D/list.t0"
	bounded 20 "$RUNLIMIT" --list --json >"$D/list" || rc=$?
	"$PY" -c 'import time; print(time.time())' >"$D/list.t1"
	echo "$rc" >"$D/list.rc"
}

@test "--list --json: JSON Lines, one object per run: name, uid, pid, times, deadline, argv, state" {
	# nothing at all: no output, status 0, as plain --list
	list_json
	[ "$(cat "$D/list.rc")" = 0 ]
	[ ! -s "$D/list" ]
	start_named one 60 "$S" 101
	local p1=$RUN
	# no deadline (0), and arguments a line of text could not tell apart: spaces, an empty one
	# last, %, a newline, a control character, a byte that is not UTF-8
	start_named two 0 sh -c 'exec "$S" 102' sh "a b" "%41" "$(printf 'nl\nx\001y\377z')" ""
	local p2=$RUN
	# named to be asked last: --list asks one run after another against one deadline, so a
	# stopped run leaves the runs after it no time
	start_named x-stopped 60 "$S" 103
	STOPPED=$RUN
	kill -STOP "$STOPPED"
	list_json
	[ "$(cat "$D/list.rc")" = 0 ]
	list_json_is 'sorted(runs) == ["one", "two", "x-stopped"]' \
		'list(runs) == ["one", "two", "x-stopped"]' \
		"runs['one']['pid'] == $p1 and runs['two']['pid'] == $p2" \
		"all(o['uid'] == $(id -u) for o in runs.values())" \
		"runs['one']['argv'] == ['$S', '101'] and runs['one']['argc'] == 2" \
		"runs['two']['argv'] == ['sh', '-c', 'exec \"\$S\" 102', 'sh', 'a b', '%41', 'nl\\nx\\x01y\\ufffdz', ''] and runs['two']['argc'] == 8" \
		'all(runs[n]["state"] == "answering" and runs[n]["error"] is None for n in ("one", "two"))' \
		'all(isinstance(runs[n]["elapsed"], float) and 0 < runs[n]["elapsed"] < 30 for n in ("one", "two"))' \
		'all(t0 - 30 < at(runs[n]["started_at"]) <= t1 for n in ("one", "two"))' \
		'all(abs(t0 - at(runs[n]["started_at"]) - runs[n]["elapsed"]) < 3 for n in ("one", "two"))' \
		'abs(at(runs["one"]["deadline"]) - at(runs["one"]["started_at"]) - 60) < 0.5' \
		'runs["two"]["deadline"] is None' \
		'runs["x-stopped"]["state"] == "not answering"' \
		'all(runs["x-stopped"][k] is None for k in ("pid", "started_at", "elapsed", "deadline", "argv", "argc", "error"))'
	kill -CONT "$STOPPED"
	"$RUNLIMIT" --cancel=one
	"$RUNLIMIT" --cancel=two
	"$RUNLIMIT" --cancel=x-stopped
	wait_bg "$p1"
	wait_bg "$p2"
	wait_bg "$STOPPED"
	STOPPED=
	# all gone: no output again
	list_json
	[ ! -s "$D/list" ]
	# --json is for --list alone
	run -125 --separate-stderr "$RUNLIMIT" --json 10 true
	[[ "$stderr" == *"option '--json' is for '--list'"* ]]
	run -125 --separate-stderr "$RUNLIMIT" --cancel=x --json
	[[ "$stderr" == *"option '--json' is for '--list'"* ]]
}

@test "a peer that refuses 'describe' (runlimit 0.1.0 did, and was never released): not reached, not understood, in both forms, asked nothing else" {
	# Before issue 64, plain --list asked "info", which such a peer answers: --list now asks
	# one question, and a run that cannot answer it is listed, not left out.
	FAKERUN_ASKED=$D/asked "$PY" "$TOOLS/fakerun.py" "$RUNLIMIT_DIR" old --as-0.1.0 3>&- &
	local fake=$!
	FAKES="$FAKES $fake"
	wait_until 10 registered old
	list_json
	[ "$(cat "$D/asked")" = 'describe\n' ]
	: >"$D/asked"
	run -0 bounded 20 "$RUNLIMIT" --list
	[ "$output" = "old	-	-	not reached: answer not understood" ]
	[ "$(cat "$D/asked")" = 'describe\n' ]
	[ "$(cat "$D/list.rc")" = 0 ]
	list_json_is 'runs["old"]["state"] == "not reached"' \
		'runs["old"]["error"] == "answer not understood"' \
		'all(runs["old"][k] is None for k in ("pid", "started_at", "elapsed", "deadline", "argv", "argc"))'
}

@test "plain --list asks a run one question, 'describe', on one connection, and words its arguments as 'info' does" {
	# Before (issue 64), plain --list asked "info" and --list --json "describe": two questions
	# for what one answer holds.  The line is made of the description, with the code that
	# makes "info"'s words (named_wire.c): quoted where needed, the empty last one too.
	FAKERUN_ASKED=$D/asked "$PY" "$TOOLS/fakerun.py" "$RUNLIMIT_DIR" one \
		'7 2500000000 1700000000000000000 - 4 sleep a%20b %25 ' 3>&- &
	local fake=$!
	FAKES="$FAKES $fake"
	wait_until 10 registered one
	run -0 bounded 20 "$RUNLIMIT" --list
	[[ "$output" == "one	"[0-9]*"	2.5s	sleep 'a b' % ''" ]]
	[ "$(cat "$D/asked")" = 'describe\n' ]
}

# info_words NAME: the command in the run NAME's own answer to "info", asked by hand (as
# runlimit 0.1.0's --list asks it): the line less its two numbers.
info_words() {
	"$PY" -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(20)
s.connect(sys.argv[1])
f = s.makefile("rwb", buffering=0)
assert f.readline() == b"runlimit\n"
f.write(b"info\n")
sys.stdout.buffer.write(f.readline().rstrip(b"\n").split(b" ", 2)[2])
' "$RUNLIMIT_DIR/$1.sock"
}

# ran_a_second NAME: --list shows the run NAME past its first second (the line's cut depends
# on the width of its elapsed nanoseconds: from 1 s to 10 s, the same).
ran_a_second() { "$RUNLIMIT" --list | grep -q "^$1	[0-9]*	[1-9]\.[0-9]s	"; }

@test "plain --list shows a run's command as its 'info' would: byte for byte in the lister's locale, a long one cut mid-argument" {
	# 1,200 control bytes: too long for the line once quoted (4 bytes each), whole in a
	# description (3 bytes each), so that the line is cut inside the argument, as "info" cuts.
	start_named cut 60 sh -c 'exec "$S" 100' sh "a b" "$(printf '\001%.0s' $(seq 1200))"
	wait_until 10 ran_a_second cut
	local info list
	info=$(info_words cut)
	list=$("$RUNLIMIT" --list)
	[[ "$info" == "sh -c 'exec \"\$S\" 100' sh 'a b' '\001\001"*... ]]
	[ "${#info}" -gt 4000 ]
	[[ "$list" == "cut	$RUN	"[1-9].[0-9]"s	"* ]]
	[ "${list#cut	*	*	}" = "$info" ]
	"$RUNLIMIT" --cancel=cut
	wait_bg "$RUN"
	# A run in another locale: its "info" quotes in its own, the line in the lister's (the one
	# difference, docs/design.md, Named runs).
	locale -a 2>/dev/null | grep -qiE '^c\.utf-?8$' || skip "no C.UTF-8 locale here"
	LC_ALL=C.UTF-8 start_named utf 60 sh -c 'exec "$S" 100' sh "a b"
	[ "$(info_words utf)" = "sh -c ‘exec \"\$S\" 100’ sh ‘a b’" ]
	run -0 "$RUNLIMIT" --list
	[[ "$output" == "utf	$RUN	"*"s	sh -c 'exec \"\$S\" 100' sh 'a b'" ]]
	LC_ALL=C.UTF-8 run -0 "$RUNLIMIT" --list
	[[ "$output" == "utf	$RUN	"*"s	sh -c ‘exec \"\$S\" 100’ sh ‘a b’" ]]
	"$RUNLIMIT" --cancel=utf
	wait_bg "$RUN"
}

@test "the wire as peers of every version speak it: 'info' and 'describe' answered, anything else refused, each closed after its answer" {
	# A --list of any version asks one of the two questions (runlimit 0.1.0's, 'info' alone;
	# this one's, 'describe' alone); a run answers both, each on a connection of its own, in
	# its own words ('info': quoted in its locale, here C).
	LC_ALL=C start_named wire 0 sh -c 'exec "$S" 101' sh "a b"
	run -0 "$PY" -c '
import socket, sys
for ask in sys.argv[2:]:
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(20)
    s.connect(sys.argv[1])
    f = s.makefile("rwb", buffering=0)
    assert f.readline() == b"runlimit\n"
    f.write(ask.encode() + b"\n")
    print(f.readline().decode().rstrip("\n"))
    assert f.read() == b"", "not closed after its answer"
' "$RUNLIMIT_DIR/wire.sock" info describe "cancel 15" "cancel 15 -2" hello
	echo "$output" >&2
	[ "${#lines[@]}" -eq 5 ]
	[[ "${lines[0]}" == "$RUN "[0-9]*" sh -c 'exec \"\$S\" 101' sh 'a b'" ]]
	[[ "${lines[1]}" == "$RUN "[0-9]*" "[0-9]*" - 5 sh -c exec%20\"\$S\"%20101 sh a%20b" ]]
	[ "${lines[2]}" = refused ] && [ "${lines[3]}" = refused ] && [ "${lines[4]}" = refused ]
	# none of it was a cancel: the run goes on
	run -0 "$RUNLIMIT" --list
	[[ "$output" == "wire	$RUN	"*"s	sh -c 'exec \"\$S\" 101' sh 'a b'" ]]
	"$RUNLIMIT" --cancel=wire
	wait_bg "$RUN"
}

@test "--list leaves no run out: one whose answer cannot be read is listed as not reached, with why, in both forms" {
	# Each holds its lock and listens, as a run does, then says what no run says: before,
	# each was left out of both forms (status 0).
	local long name
	long=$(printf 'x%.0s' $(seq 5000))
	"$PY" "$TOOLS/fakerun.py" "$RUNLIMIT_DIR" garbage 'garbage' 3>&- &
	FAKES="$FAKES $!"
	"$PY" "$TOOLS/fakerun.py" "$RUNLIMIT_DIR" long "1 0 0 - 1 $long" 3>&- &
	FAKES="$FAKES $!"
	"$PY" "$TOOLS/fakerun.py" "$RUNLIMIT_DIR" nul '1 0 0 - 1 a\x00b' 3>&- &
	FAKES="$FAKES $!"
	"$PY" "$TOOLS/fakerun.py" "$RUNLIMIT_DIR" greeting '1 0 0 - 1 a' 'hello' 3>&- &
	FAKES="$FAKES $!"
	# and one that can be read, though no runlimit says it so: tabs where the numbers'
	# spaces go, a control byte in the argument (root meets such sockets of other users';
	# before, --json alone left it out): a description, in both forms, whose argument plain
	# --list quotes as it quotes a run's (before issue 64 it read it as "info": "0?-?1?a?b")
	"$PY" "$TOOLS/fakerun.py" "$RUNLIMIT_DIR" tabs '1\t0\t0\t-\t1\ta\x01b' 3>&- &
	FAKES="$FAKES $!"
	for name in garbage long nul greeting tabs; do wait_until 10 registered "$name"; done
	start_named real 60 "$S" 101
	run -0 bounded 20 "$RUNLIMIT" --list
	echo "$output" >&2
	[ "${#lines[@]}" -eq 6 ]
	[ "${lines[0]}" = "garbage	-	-	not reached: answer not understood" ]
	[ "${lines[1]}" = "greeting	-	-	not reached: answer not understood" ]
	[ "${lines[2]}" = "long	-	-	not reached: answer too long" ]
	[ "${lines[3]}" = "nul	-	-	not reached: answer not understood" ]
	[[ "${lines[4]}" == "real	$RUN	"*"s	$S 101" ]]
	[[ "${lines[5]}" == "tabs	"[0-9]*"	0.0s	'a\\001b'" ]]
	list_json
	[ "$(cat "$D/list.rc")" = 0 ]
	list_json_is 'list(runs) == ["garbage", "greeting", "long", "nul", "real", "tabs"]' \
		'all(runs[n]["state"] == "not reached" for n in ("garbage", "greeting", "long", "nul"))' \
		'all(runs[n][k] is None for n in ("garbage", "greeting", "long", "nul") for k in ("pid", "started_at", "elapsed", "deadline", "argv", "argc"))' \
		'runs["long"]["error"] == "answer too long"' \
		'all(runs[n]["error"] == "answer not understood" for n in ("garbage", "greeting", "nul"))' \
		"runs['real']['state'] == 'answering' and runs['real']['pid'] == $RUN" \
		'runs["tabs"]["state"] == "answering" and runs["tabs"]["argv"] == ["a\x01b"] and runs["tabs"]["argc"] == 1'
	# a cancel does not take it for no run: it is not reached (125), as the manual says
	run -125 --separate-stderr bounded 20 "$RUNLIMIT" --cancel=greeting
	[[ "$stderr" == *"cannot reach the run named 'greeting': answer not understood" ]]
	"$RUNLIMIT" --cancel=real
	wait_bg "$RUN"
}

@test "--cancel of a name no run has: says so on stderr, that a marker was left and for how long; status 1 (2 without a marker)" {
	run -1 --separate-stderr "$RUNLIMIT" --cancel=typo
	[ -z "$output" ]
	[[ "$stderr" == *"no run named 'typo' is running: a cancel marker was left, and a run of that name that starts within 60s will not run its command" ]]
	[ -e "$RUNLIMIT_DIR/typo.cancel" ]
	run -1 --separate-stderr "$RUNLIMIT" --cancel=typo2 --marker-ttl=90s
	[[ "$stderr" == *"'typo2'"*"within 90s will not run its command" ]]
	run -2 --separate-stderr "$RUNLIMIT" --cancel=typo3 --marker-ttl=0
	[[ "$stderr" == *"no run named 'typo3' is running: no marker was left (--marker-ttl=0)" ]]
	[ ! -e "$RUNLIMIT_DIR/typo3.cancel" ]
}

@test "an unrelated process whose pid is in fake name files is never signalled" {
	"$S" 100 3>&- &
	local bystander=$!
	mkdir -m 700 "$RUNLIMIT_DIR"
	echo "$bystander" >"$RUNLIMIT_DIR/fake.lock"
	echo "$bystander" >"$RUNLIMIT_DIR/fake.pid"
	echo "$bystander" >"$RUNLIMIT_DIR/fake.sock"
	run -1 "$RUNLIMIT" --cancel=fake
	run -0 "$RUNLIMIT" --list
	[ -z "$output" ]
	kill -0 "$bystander"
	kill "$bystander"
}

@test "a run killed with SIGKILL leaves files that the next run of its name replaces" {
	start_named dead 60 "$S" 100
	kill -KILL "$RUN"
	wait "$RUN" || true
	registered dead # the socket is left ...
	# ... but no run answers on it, and a KILLed run leaves no tombstone: a marker is left
	run -1 "$RUNLIMIT" --cancel=dead
	rm -f "$RUNLIMIT_DIR/dead.cancel"
	run -0 "$RUNLIMIT" --name=dead 10 echo again
	[ "$output" = again ]
	[ "$(ls -A "$RUNLIMIT_DIR")" = dead.ended ]
}

@test "the name's files are removed however the run ends, and its tombstone is left" {
	run -0 "$RUNLIMIT" --name=a 10 true
	run -124 "$RUNLIMIT" --name=b 0.1 sleep 5
	run -127 "$RUNLIMIT" --name=c 10 ./no-such-command
	"$RUNLIMIT" --name=d 60 "$S" 100 3>&- &
	RUN=$!
	wait_until 10 registered d
	kill -TERM "$RUN"
	wait_bg "$RUN"
	[ "$BG_STATUS" -eq 143 ]
	# one that found a cancel's marker at its start, and did not run its command
	run -1 "$RUNLIMIT" --cancel=e
	run -143 "$RUNLIMIT" --name=e 10 true
	# a second run of a live name, refused, leaves none (nor takes the first's lock)
	start_named f 60 "$S" 101
	run -125 "$RUNLIMIT" --name=f 10 true
	[ ! -e "$RUNLIMIT_DIR/f.ended" ]
	run -0 "$RUNLIMIT" --cancel=f
	wait_bg "$RUN"
	[ "$(ls "$RUNLIMIT_DIR" | tr '\n' ' ')" = "a.ended b.ended c.ended d.ended e.ended f.ended " ]
}

@test "the command never inherits the control socket or the lock" {
	[ -d /proc/self/fd ] || skip "no /proc/self/fd to list a process's descriptors"
	run -0 "$RUNLIMIT" --name=fds 10 sh -c 'ls -l /proc/self/fd/ 2>/dev/null'
	[[ "$output" != *socket:* ]]
	[[ "$output" != *names/fds.lock* ]]
}

@test "without --name nothing of a named run is made: no directory, no lock, no socket" {
	run -0 "$RUNLIMIT" 10 true
	[ ! -e "$RUNLIMIT_DIR" ]
	needs_strace
	[ -z "${ASAN_OPTIONS:-}" ] || skip "the sanitizers' leak check cannot run under strace"
	local calls='(^|[ ])(socket|bind|listen|accept4?|mkdir|mkdirat|flock)\(|F_SETLK|F_OFD_SETLK'
	strace -f -o "$D/off" "$RUNLIMIT" 10 true
	run -1 grep -E "$calls" "$D/off"
	# ...and with it, they are there (the check above can fail)
	strace -f -o "$D/on" "$RUNLIMIT" --name=made 10 true
	run -0 grep -E "$calls" "$D/on"
}

@test "--cancel with -s and -k: the cancel's own signal and grace" {
	start_named sig -k 30 60 sh -c 'trap "echo got-INT >\"$D/got\"; exit 3" INT; "$S" 100 & wait'
	wait_until 10 has_survivors "$N-s"
	local t0
	t0=$(now)
	run -0 "$RUNLIMIT" --cancel=sig -s INT -k 0.5
	lt "$(elapsed "$t0")" 10 # the run's own grace would be 30 s
	[ "$(cat "$D/got")" = got-INT ]
	no_live "$N-s"
	wait_bg "$RUN"
}

@test "-v says a cancel ended the run" {
	start_named talk -v 60 "$S" 100 2>"$D/err"
	run -0 "$RUNLIMIT" --cancel=talk
	wait_bg "$RUN"
	grep -q "cancelled by --cancel=talk: sending signal TERM to command" "$D/err"
}

@test "the report of a cancelled run says so, and names it" {
	start_named rep --report="$D/r.json" 60 "$S" 100
	run -0 "$RUNLIMIT" --cancel=rep
	wait_bg "$RUN"
	"$PY" "$TOOLS/report_is.py" "$D/r.json" 'd["cancelled"] is True' 'd["name"] == "rep"' \
		'd["outcome"] == "interrupted"' \
		'[s["reason"] for s in d["signals"]][0] == "cancel"'
	run -0 "$RUNLIMIT" --report="$D/r2.json" 10 true
	"$PY" "$TOOLS/report_is.py" "$D/r2.json" 'd["cancelled"] is False' 'd["name"] is None'
}

@test "bad names and misuse: 125, the value named" {
	local bad
	for bad in '' .hidden 'a/b' 'sp ace' "$(printf 'x%.0s' $(seq 65))"; do
		run -125 --separate-stderr "$RUNLIMIT" --name="$bad" 10 true
		[[ "$stderr" == *"invalid run name"* ]]
		run -125 --separate-stderr "$RUNLIMIT" --cancel="$bad"
		[[ "$stderr" == *"invalid run name"* ]]
	done
	run -0 "$RUNLIMIT" --name="$(printf 'x%.0s' $(seq 64))" 10 true
	run -125 --separate-stderr "$RUNLIMIT" --cancel=x extra
	[[ "$stderr" == *"extra operand"*"extra"* ]]
	run -125 --separate-stderr "$RUNLIMIT" --cancel=x --list
	[[ "$stderr" == *"cannot be used together"* ]]
}

@test "a directory of any length: a 200-byte path works for a run, --list and --cancel" {
	# (a socket's own path holds about 104 bytes: it is bound from inside the directory)
	export RUNLIMIT_DIR
	RUNLIMIT_DIR=$D/$(printf 'd%.0s' $(seq 100))/$(printf 'e%.0s' $(seq 100))
	[ "${#RUNLIMIT_DIR}" -ge 200 ]
	mkdir -p "${RUNLIMIT_DIR%/*}"
	start_named far 60 "$S" 100
	run -0 "$RUNLIMIT" --list
	[[ "$output" == "far	$RUN	"*"s	$S 100" ]]
	run -0 "$RUNLIMIT" --cancel=far
	wait_bg "$RUN"
	[ "$BG_STATUS" -eq 143 ]
	# the command runs where runlimit was started, not where its socket was made
	run -0 "$RUNLIMIT" --name=here 10 pwd
	[ "$output" = "$PWD" ]
	# a cancel that comes first, with the longest name
	local long
	long=$(printf 'x%.0s' $(seq 64))
	run -1 "$RUNLIMIT" --cancel="$long"
	run -143 "$RUNLIMIT" --name="$long" 10 true
	only_tombstones
	[ -e "$RUNLIMIT_DIR/$long.ended" ]
}

@test "the directory: made 0700; refused when others may write to it, or it is a symlink" {
	run -0 "$RUNLIMIT" --name=mk 10 true
	[ "$(ls -ld "$RUNLIMIT_DIR" | cut -c1-10)" = drwx------ ]
	chmod 777 "$RUNLIMIT_DIR"
	run -125 --separate-stderr "$RUNLIMIT" --name=mk 10 touch "$D/ran"
	[[ "$stderr" == *"others may write to it"* ]]
	run -125 --separate-stderr "$RUNLIMIT" --cancel=mk
	[[ "$stderr" == *"others may write to it"* ]]
	[ ! -e "$D/ran" ]
	chmod 700 "$RUNLIMIT_DIR"
	mkdir -m 700 "$D/real"
	ln -s "$D/real" "$D/link"
	RUNLIMIT_DIR=$D/link run -125 --separate-stderr "$RUNLIMIT" --name=mk 10 true
	[[ "$stderr" == *"symbolic link"* ]]
}

@test "the directory: RUNLIMIT_DIR, else XDG_RUNTIME_DIR/runlimit (the places after it: named-bound.bats)" {
	unset RUNLIMIT_DIR
	mkdir -m 700 "$D/xdg" "$D/tmp"
	XDG_RUNTIME_DIR=$D/xdg TMPDIR=$D/tmp "$RUNLIMIT" --name=where 10 \
		sh -c 'ls "$XDG_RUNTIME_DIR/runlimit" >"$D/xdg.ls"'
	grep -q '^where\.sock$' "$D/xdg.ls"
	RUNLIMIT_DIR=$D/own XDG_RUNTIME_DIR=$D/xdg "$RUNLIMIT" --name=where 10 \
		sh -c 'ls "$RUNLIMIT_DIR" >"$D/own.ls"'
	grep -q '^where\.sock$' "$D/own.ls"
}

@test "a directory of any length from a working directory that may be searched, not read" {
	needs_other_users
	expected searchcwd || skip "this build needs to read the working directory to come back to it (no O_PATH or O_SEARCH)"
	local pub far
	pub=$(public_dir)
	# A user's own long directory for named runs, and a working directory (mode 0311) that
	# user may enter but not list: before, runlimit then bound the socket by the directory's
	# whole path, too long for a socket's address, and refused the run (125).
	far=$pub/$(printf 'd%.0s' $(seq 100))/$(printf 'e%.0s' $(seq 100))
	as_user 65534 mkdir -p "$far" "$pub/cwd"
	chmod 0311 "$pub/cwd"
	run -0 as_user 65534 sh -c 'cd "$1" && RUNLIMIT_DIR=$2 "$3" --name=far 10 pwd' sh \
		"$pub/cwd" "$far" "$USER_RL"
	[ "$output" = "$pub/cwd" ]
	# --list and --cancel from there reach a live run
	as_user 65534 sh -c 'cd "$1" && RUNLIMIT_DIR=$2 exec "$3" --name=far 60 sleep 100' sh \
		"$pub/cwd" "$far" "$USER_RL" 3>&- &
	RUN=$!
	wait_until 10 test -S "$far/far.sock"
	run -0 as_user 65534 sh -c 'cd "$1" && RUNLIMIT_DIR=$2 "$3" --list' sh "$pub/cwd" "$far" "$USER_RL"
	[[ "$output" == "far	"* ]]
	run -0 as_user 65534 sh -c 'cd "$1" && RUNLIMIT_DIR=$2 "$3" --cancel=far' sh "$pub/cwd" "$far" "$USER_RL"
	wait_bg "$RUN"
	[ "$BG_STATUS" -eq 143 ]
	rm -rf "$pub"
}

@test "another user: its cancel is refused, its directory is its own, ours is not for it" {
	needs_other_users
	local pub
	pub=$(public_dir)
	export RUNLIMIT_DIR=$pub/names
	mkdir -m 711 "$RUNLIMIT_DIR"
	(umask 0; "$RUNLIMIT" --name=mine 60 "$S" 100) 3>&- &
	RUN=$!
	wait_until 10 registered mine
	# the socket is for its user alone, whatever the umask ...
	[ "$(ls -l "$RUNLIMIT_DIR/mine.sock" | cut -c1-10)" = srwx------ ]
	# ... and should it be opened to all, in a directory others may enter (0711), the
	# peer check alone stands between them and the run.
	chmod 777 "$RUNLIMIT_DIR/mine.sock"
	local upy="" p
	for p in /usr/bin/python3 /usr/local/bin/python3 "$PY"; do
		if as_user 65534 "$p" -c pass 2>/dev/null; then upy=$p; break; fi
	done
	if [ -z "$upy" ]; then
		"$RUNLIMIT" --cancel=mine
		skip "no python3 the other user may run, to talk to the socket directly"
	fi
	# the run greets a connection before it reads anything: "refused", for this user; and a
	# cancel sent all the same is not read
	run as_user 65534 "$upy" -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
print(s.recv(64).decode().strip())
try:
    s.sendall(b"cancel 15 -1\n")
except OSError:
    pass' "$RUNLIMIT_DIR/mine.sock"
	if [ "$output" != refused ] && ! expected peercred; then
		"$RUNLIMIT" --cancel=mine || true # the other user's cancel may have ended it
		wait_bg "$RUN"
		skip "this build cannot tell who is at the other end of a socket (POSIX has no way): the directory's permissions alone keep others out"
	fi
	[ "$output" = refused ]
	has_survivors "$N-s"
	# runlimit itself, as the other user, will not use a directory that is not its own
	run as_user 65534 env RUNLIMIT_DIR="$RUNLIMIT_DIR" "$USER_RL" --cancel=mine
	[ "$status" -eq 125 ]
	[[ "$output" == *"belongs to another user"* ]]
	has_survivors "$N-s"
	run -0 "$RUNLIMIT" --cancel=mine
	wait_bg "$RUN"
	rm -rf "$pub"
}

@test "cancels that wait, then go away, hold no slot for good; one turned away leaves no marker; -k 0 then kills at once" {
	# A command deaf to TERM and a grace of 60 s: each cancel waits, holding a slot.
	start_named slots -v -k 60 60 sh -c 'trap "" TERM; exec "$S" 100' 2>"$D/err"
	wait_until 10 has_survivors "$N-s" # the trap is set: TERM does nothing now
	local pids="" i
	for i in 1 2 3 4; do # one at a time: each taken (its -v line) before the next
		"$RUNLIMIT" --cancel=slots 3>&- &
		pids="$pids $!"
		# (generous: tree.bats may be building a 2,000-process tree beside this test)
		wait_until 30 cancels_taken "$i"
	done
	run -125 --separate-stderr "$RUNLIMIT" --cancel=slots
	[[ "$stderr" == *"no room for another request"* ]]
	[ ! -e "$RUNLIMIT_DIR/slots.cancel" ]
	# shellcheck disable=SC2086
	kill -KILL $pids
	wait $pids 2>/dev/null || true
	# their slots are free again: the run answers --list
	wait_until 10 sh -c '"$RUNLIMIT" --list | grep -q "^slots	"'
	# a cancel with -k 0 brings the KILL forward: the first cancels' 60 s grace is not waited
	local t0
	t0=$(now)
	run -0 "$RUNLIMIT" --cancel=slots -k 0
	wait_bg "$RUN"
	lt "$(elapsed "$t0")" 20
	# and the next run of the name runs its command
	run -0 "$RUNLIMIT" --name=slots 10 sh -c 'touch "$D/ran"'
	[ -e "$D/ran" ]
}

@test "--list: a very long command line is cut, and a stopped run does not hold the list up" {
	start_named long 60 sh -c 'exec "$S" 100' sh "$(printf 'x%.0s' $(seq 5000))"
	local p1=$RUN
	run -0 "$RUNLIMIT" --list
	# The argument fits no description whole: the line ends at the last whole one, and "..."
	# says that more follow (a cut inside an argument: the test of 'info' above)
	[[ "$output" == "long	$p1	"*"s	sh -c 'exec \"\$S\" 100' sh ..." ]]
	start_named stopped 60 "$S" 101
	local p2=$RUN
	STOPPED=$p2
	kill -STOP "$p2"
	local t0
	t0=$(now)
	run -0 bounded 20 "$RUNLIMIT" --list
	lt "$(elapsed "$t0")" 10
	[[ "$output" == "long	"* ]]
	kill -CONT "$p2"
	"$RUNLIMIT" --cancel=long
	"$RUNLIMIT" --cancel=stopped
	wait_bg "$p1"
	wait_bg "$p2"
}

@test "the directory's parent: refused when others may write to it and it is not sticky" {
	mkdir -m 777 "$D/open"
	chmod 777 "$D/open" # whatever the umask
	RUNLIMIT_DIR=$D/open/names run -125 --separate-stderr "$RUNLIMIT" --name=p 10 touch "$D/ran"
	[[ "$stderr" == *"its parent"*"may be changed by others"* ]]
	[ ! -e "$D/ran" ]
	chmod 1777 "$D/open" # sticky, as /tmp: fine
	RUNLIMIT_DIR=$D/open/names run -0 "$RUNLIMIT" --name=p 10 touch "$D/ran"
	[ -e "$D/ran" ]
}

# lowest_free PID: the lowest descriptor number PID has not open (its /proc/PID/fd).
lowest_free() {
	local n=0
	while [ -e "/proc/$1/fd/$n" ]; do n=$((n + 1)); done
	echo "$n"
}

@test "out of descriptors, a cancel is told busy and the run goes on; with room again, it is cancelled" {
	command -v prlimit >/dev/null || skip "no prlimit(1) to lower a running process's limits"
	[ -d "/proc/$$/fd" ] || skip "no /proc/PID/fd to count a process's descriptors"
	start_named job 60 "$S" 100
	# The run may open no descriptor beyond those it has: accept fails (EMFILE).
	local low
	low=$(lowest_free "$RUN")
	prlimit --pid "$RUN" --nofile="$low:$(ulimit -Hn)"
	run bounded 10 "$RUNLIMIT" --cancel=job
	echo "cancel: status $status, $output" >&2
	[ "$status" -eq 125 ]
	[ "$output" = "$RUNLIMIT: the run named 'job' has no room for another request now" ]
	kill -0 "$RUN"
	# The run did not spin on the connection it could not take: a second of CPU would.
	local ticks
	ticks=$(awk '{ print $14 + $15 }' "/proc/$RUN/stat")
	[ "$ticks" -lt "$(getconf CLK_TCK)" ]
	prlimit --pid "$RUN" --nofile="1024:$(ulimit -Hn)"
	run -0 bounded 10 "$RUNLIMIT" --cancel=job
	wait_bg "$RUN"
	[ "$BG_STATUS" -eq 143 ]
}

# spare_fd PID: the run's spare descriptor (/dev/null, close-on-exec, as the caller's are not).
spare_fd() {
	local f n
	for f in /proc/"$1"/fd/*; do
		n=${f##*/}
		[ "$(readlink "$f")" = /dev/null ] || continue
		# flags in octal; O_CLOEXEC is 02000000 on Linux
		awk '$1 == "flags:" { exit !(int(substr($2, length($2) - 6, 1)) % 4 >= 2) }' \
			"/proc/$1/fdinfo/$n" && echo "$n" && return 0
	done
	return 1
}

@test "out of descriptors even with the spare given back: the socket waits, unwatched, and comes back" {
	command -v prlimit >/dev/null || skip "no prlimit(1) to lower a running process's limits"
	[ -d "/proc/$$/fdinfo" ] || skip "no /proc/PID/fdinfo to tell a process's descriptors apart"
	start_named job 60 "$S" 100
	# A limit at the spare's number (or at a free slot below it): closing the spare makes no
	# room for the connection, and the spare cannot be taken back either.
	local low spare
	low=$(lowest_free "$RUN")
	spare=$(spare_fd "$RUN")
	[ "$spare" -ge "$low" ] || low=$spare
	prlimit --pid "$RUN" --nofile="$low:$(ulimit -Hn)"
	# The cancel is not answered while there is no room: it says so within its bound, and
	# leaves its request in the run's queue (3) ...
	local t0
	t0=$(now)
	run bounded 20 "$RUNLIMIT" --cancel=job
	echo "cancel: status $status, $output" >&2
	[ "$status" -eq 3 ]
	[[ "$output" == *"does not answer"* ]]
	lt "$(elapsed "$t0")" 10
	kill -0 "$RUN"
	[ ! -e "/proc/$RUN/fd/$spare" ] # the spare was given up for the connection
	# ... and the run did not spin on the socket meanwhile: it would have used 2 s of CPU.
	local ticks
	ticks=$(awk '{ print $14 + $15 }' "/proc/$RUN/stat")
	echo "CPU ticks: $ticks of $(getconf CLK_TCK) a second" >&2
	[ "$ticks" -lt "$(($(getconf CLK_TCK) / 2))" ]
	# With room again, the socket is watched again: the request left there ends the run.
	prlimit --pid "$RUN" --nofile="1024:$(ulimit -Hn)"
	wait_bg "$RUN"
	[ "$BG_STATUS" -eq 143 ]
}

@test "a cancel once the command has exited announces the output grace and the settle, not a kill grace that will not run" {
	# The command writes more than the caller's FIFO holds and exits: the run relays what is
	# left (FLUSHING) to a reader that never reads; a cancel then ends the relaying at once.
	mkfifo "$D/out"
	sleep 60 <"$D/out" 3>&- &
	local reader=$!
	"$RUNLIMIT" --name=f -k 30 --output-grace=2 60 \
		sh -c 'echo $$ >"$D/sh"; head -c 100000 /dev/zero; touch "$D/wrote"' >"$D/out" 3>&- &
	local p=$!
	wait_until 10 test -e "$D/wrote"
	local sh
	sh=$(cat "$D/sh")
	wait_until 10 eval '! kill -0 '"$sh"' 2>/dev/null'
	run -0 "$PY" "$TOOLS/cancel_by_hand.py" "$RUNLIMIT_DIR/f.sock" 15 -1
	[[ "$output" == "ok "* ]]
	# the output grace (2 s) and the settle (1 s), not the 30 s grace
	[ "${output#ok }" -le 3000000000 ]
	wait_bg "$p" 10 || true
	kill "$reader" 2>/dev/null || true
}

@test "--list after its deadline: a socket a dead run left is not listed, as before the deadline" {
	start_named a 60 "$S" 105
	local p=$RUN
	STOPPED=$p
	kill -STOP "$p"
	"$PY" -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.close()
' "$RUNLIMIT_DIR/zz.sock"
	run -0 bounded 20 "$RUNLIMIT" --list
	[[ "$output" == "a	"* ]]
	[[ "$output" != *zz* ]]
	kill -CONT "$p"
	"$RUNLIMIT" --cancel=a
	wait_bg "$p"
}

@test "a run refused for a name already taken reports no output and no tree: it relayed nothing" {
	start_named t 60 "$S" 106
	local p=$RUN
	run -125 "$RUNLIMIT" --name=t --report="$D/r.json" --report-tail=1K 5 true
	"$PY" "$TOOLS/report_is.py" "$D/r.json" 'd["outcome"] == "error"' 'd["output"] is None' \
		'd["pid"] is None'
	"$RUNLIMIT" --cancel=t
	wait_bg "$p"
}

# ---- a cancel after the run: its tombstone (issue 62) -------------------------------------

# stamp_ago SECONDS: a time SECONDS ago as touch -t takes it, [[CC]YY]MMDDhhmm.SS, in local time
# (BSD touch has no -d; date -r SECONDS is BSD's, date -d @SECONDS GNU's: python tells both).
stamp_ago() {
	"$PY" -c 'import sys, time; print(time.strftime("%Y%m%d%H%M.%S", time.localtime(time.time() - int(sys.argv[1]))))' "$1"
}

# ended_line NAME: the line a cancel of NAME prints when the run has ended, with the time of
# its tombstone's mtime (UTC), as a glob for [[ ]].
ended_line() {
	local at
	at=$("$PY" -c 'import os, sys, time; print(time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(os.stat(sys.argv[1]).st_mtime)))' "$RUNLIMIT_DIR/$1.ended")
	printf '%s\n' "*: the run named '$1' already ended (at $at): no marker was left"
}

@test "a cancel after its run has ended: 4, it says when, no marker is left, and the name's next run runs its command" {
	run -0 "$RUNLIMIT" --name=done 10 true
	[ -f "$RUNLIMIT_DIR/done.ended" ]
	local line
	line=$(ended_line done)
	run -4 --separate-stderr "$RUNLIMIT" --cancel=done
	echo "$stderr"
	# shellcheck disable=SC2053 # a glob, on purpose
	[[ $stderr == $line ]]
	[ -z "$output" ]
	[ ! -e "$RUNLIMIT_DIR/done.cancel" ]
	# so for a run cancelled, and with -s, -k or --marker-ttl (0, or longer) too
	start_named gone 60 "$S" 100
	run -0 "$RUNLIMIT" --cancel=gone
	wait_bg "$RUN"
	run -4 "$RUNLIMIT" --cancel=gone -s INT -k 1 --marker-ttl=5m
	run -4 "$RUNLIMIT" --cancel=gone --marker-ttl=0
	[ ! -e "$RUNLIMIT_DIR/gone.cancel" ]
	# --list lists no tombstone: they are not runs
	run -0 "$RUNLIMIT" --list
	[ -z "$output" ]
	run -0 "$RUNLIMIT" --list --json
	[ -z "$output" ]
	# the name's next run runs its command, to its end
	run -0 "$RUNLIMIT" --name=done 10 sh -c 'echo ran'
	[ "$output" = ran ]
	run -0 "$RUNLIMIT" --name=gone 10 sh -c 'echo ran'
	[ "$output" = ran ]
	only_tombstones
}

@test "a run of the name that starts removes its tombstone: a cancel then ends it (0)" {
	run -0 "$RUNLIMIT" --name=again 10 true
	[ -e "$RUNLIMIT_DIR/again.ended" ]
	start_named again 60 "$S" 100
	[ ! -e "$RUNLIMIT_DIR/again.ended" ]
	run -0 --separate-stderr "$RUNLIMIT" --cancel=again
	[ -z "$stderr" ]
	wait_bg "$RUN"
	[ "$BG_STATUS" -eq 143 ]
	no_live "$N-s"
	# and it left one of its own
	[ "$(ls -A "$RUNLIMIT_DIR")" = again.ended ]
	run -4 "$RUNLIMIT" --cancel=again
}

@test "a tombstone expires a day after its run's end: removed by the cancel that meets it, which then leaves a marker (1)" {
	run -0 "$RUNLIMIT" --name=old 10 true
	[ -e "$RUNLIMIT_DIR/old.ended" ]
	# just short of a day: still the run's
	touch -t "$(stamp_ago $((24 * 3600 - 120)))" "$RUNLIMIT_DIR/old.ended"
	run -4 "$RUNLIMIT" --cancel=old
	# over a day: as a name no run has had
	touch -t "$(stamp_ago $((24 * 3600 + 120)))" "$RUNLIMIT_DIR/old.ended"
	run -1 --separate-stderr "$RUNLIMIT" --cancel=old
	[[ "$stderr" == *"no run named 'old' is running: a cancel marker was left"* ]]
	[ ! -e "$RUNLIMIT_DIR/old.ended" ]
	[ -e "$RUNLIMIT_DIR/old.cancel" ]
	run -143 "$RUNLIMIT" --name=old 10 sh -c 'touch "$D/ran"'
	[ ! -e "$D/ran" ]
}

@test "expired tombstones are swept: by --list at once, by a run's start once an hour (.swept says when)" {
	local k
	for k in 1 2 3; do run -0 "$RUNLIMIT" --name="t$k" 10 true; done
	touch -t "$(stamp_ago $((25 * 3600)))" "$RUNLIMIT_DIR/t1.ended" "$RUNLIMIT_DIR/t2.ended"
	# a sweep looked at them within the hour (the runs' own starts met t1's, t2's): a run's
	# start leaves them
	[ -f "$RUNLIMIT_DIR/.swept" ]
	run -0 "$RUNLIMIT" --name=t4 10 true
	[ -e "$RUNLIMIT_DIR/t1.ended" ] && [ -e "$RUNLIMIT_DIR/t2.ended" ]
	# the last look over an hour ago: the next run's start removes the expired ones, and the
	# fresh ones stay
	touch -t "$(stamp_ago 3700)" "$RUNLIMIT_DIR/.swept"
	run -0 "$RUNLIMIT" --name=t5 10 true
	[ "$(ls "$RUNLIMIT_DIR" | tr '\n' ' ')" = "t3.ended t4.ended t5.ended " ]
	# ... and says so in the stamp: the next hour's starts leave them again
	touch -t "$(stamp_ago $((25 * 3600)))" "$RUNLIMIT_DIR/t3.ended"
	run -0 "$RUNLIMIT" --name=t6 10 true
	[ -e "$RUNLIMIT_DIR/t3.ended" ]
	# --list looks at every one, whenever it runs
	run -0 "$RUNLIMIT" --list
	[ -z "$output" ]
	[ "$(ls "$RUNLIMIT_DIR" | tr '\n' ' ')" = "t4.ended t5.ended t6.ended " ]
}

@test "the tombstone: a regular file of 0600 whatever the umask, its mtime the run's end; a symbolic link at its name is replaced, not followed" {
	(umask 0 && "$RUNLIMIT" --name=open 10 true)
	(umask 0277 && "$RUNLIMIT" --name=shut 10 true)
	[ "$(ls -l "$RUNLIMIT_DIR/open.ended" | cut -c1-10)" = -rw------- ]
	[ "$(ls -l "$RUNLIMIT_DIR/shut.ended" | cut -c1-10)" = -rw------- ]
	# its mtime is the end (the command's sleep before it), not the start
	local t0
	t0=$("$PY" -c 'import time; print(int(time.time()))')
	"$RUNLIMIT" --name=late 10 sleep 1.2
	"$PY" -c 'import os, sys; sys.exit(not os.stat(sys.argv[1]).st_mtime >= int(sys.argv[2]) + 1)' \
		"$RUNLIMIT_DIR/late.ended" "$t0"
	# Only the directory's user can put anything there (the directory's rules); should a link
	# be there all the same, the run's end neither writes through it nor follows it: here to a
	# file of another user's, where root runs the tests and can act as one.
	local victim=$D/victim owner=""
	if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
		owner=65534
	fi
	echo precious >"$victim"
	[ -z "$owner" ] || chown "$owner" "$victim"
	chmod 0644 "$victim"
	ln -s "$victim" "$RUNLIMIT_DIR/linked.ended"
	run -0 "$RUNLIMIT" --name=linked 10 true
	[ "$(cat "$victim")" = precious ]
	[ "$(ls -l "$victim" | cut -c1-10)" = -rw-r--r-- ]
	[ -z "$owner" ] || [ "$(ls -ln "$victim" | awk '{ print $3 }')" = "$owner" ]
	[ -f "$RUNLIMIT_DIR/linked.ended" ] && [ ! -L "$RUNLIMIT_DIR/linked.ended" ]
	[ "$(ls -l "$RUNLIMIT_DIR/linked.ended" | cut -c1-10)" = -rw------- ]
	# a dangling one too, which a write would create
	ln -s "$D/made-by-link" "$RUNLIMIT_DIR/dangling.ended"
	run -0 "$RUNLIMIT" --name=dangling 10 true
	[ ! -e "$D/made-by-link" ]
	[ -f "$RUNLIMIT_DIR/dangling.ended" ] && [ ! -L "$RUNLIMIT_DIR/dangling.ended" ]
	# and a link planted at the name is no tombstone to a cancel (nor is a file of another user)
	ln -s "$victim" "$RUNLIMIT_DIR/never.ended"
	run -1 "$RUNLIMIT" --cancel=never
}

@test "a cancel that meets a run between its socket's end and its lock's: the run has ended (4), no marker is left" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	# The hooks build holds the lock 1.5 s after the socket is gone, as a slow machine (the
	# release suite under qemu) may hold it a moment: a cancel then waits for the lock, and
	# finds the tombstone the run left before it let go of its socket.  Before, it left a
	# marker there (1), which ended the name's next run at once.
	RUNLIMIT_TEST_CLOSE_LATE_MS=1500 "$RUNLIMIT_HOOKS" --name="$N" 30 sh -c ': >"$D/ready"' 3>&- &
	RUN=$!
	wait_until 10 test -e "$D/ready"
	wait_until 10 eval '[ ! -e "$RUNLIMIT_DIR/$N.sock" ] && [ -e "$RUNLIMIT_DIR/$N.lock" ]'
	run -4 --separate-stderr "$RUNLIMIT" --cancel="$N"
	echo "$stderr"
	[[ "$stderr" == *"the run named '$N' already ended (at "*"): no marker was left" ]]
	wait_bg "$RUN" 10
	[ "$BG_STATUS" -eq 0 ]
	[ ! -e "$RUNLIMIT_DIR/$N.cancel" ]
	run -0 "$RUNLIMIT" --name="$N" 10 sh -c 'echo ran'
	[ "$output" = ran ]
}

@test "a cancel whose run ends, and another of the name starts, before the cancel reaches it: 4, and the new run goes on" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	# The hooks build's cancel stops after its look at the name (a live run: no marker) until
	# the test removes $D/held: meanwhile the run it saw ends, and the name's next one starts.
	cancel_held_past_its_run
	[ ! -e "$RUNLIMIT_DIR/job.cancel" ] # a run was live: no marker
	[ "$BG_STATUS" -eq 143 ]
	start_named job 60 "$S" 101
	rm "$D/held"
	wait_bg "$cancel"
	cat "$D/cancel.err"
	[ "$BG_STATUS" -eq 4 ]
	grep -q "the run named 'job' already ended: no marker was left, and the run of that name started since goes on" "$D/cancel.err"
	# the second run is not the cancel's: it goes on, and a cancel of its own ends it
	kill -0 "$RUN"
	registered job
	[ ! -e "$RUNLIMIT_DIR/job.cancel" ]
	run -0 "$RUNLIMIT" --cancel=job
	wait_bg "$RUN"
	[ "$BG_STATUS" -eq 143 ]
	no_live "$N-s"
}

@test "a cancel whose run ends before it reaches it, none starting since: 4, with the time, no marker" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	cancel_held_past_its_run
	local line
	line=$(ended_line job)
	rm "$D/held"
	wait_bg "$cancel"
	cat "$D/cancel.err"
	[ "$BG_STATUS" -eq 4 ]
	# shellcheck disable=SC2053 # a glob, on purpose
	[[ $(cat "$D/cancel.err") == $line ]]
	[ ! -e "$RUNLIMIT_DIR/job.cancel" ]
	run -0 "$RUNLIMIT" --name=job 10 sh -c 'echo ran'
	[ "$output" = ran ]
}

@test "a cancel of a name with no run, whose run starts before the cancel tries to reach it: the marker ends it (0)" {
	[ -x "${RUNLIMIT_HOOKS:-}" ] || skip "no test-hooks build (make check builds runlimit-hooks)"
	# No run live and no tombstone at the look: the marker is left, for the run that comes.
	RUNLIMIT_TEST_CANCEL_LOOKED=$D/held "$RUNLIMIT_HOOKS" --cancel=job 2>"$D/cancel.err" 3>&- &
	local cancel=$!
	wait_until 10 test -e "$D/held"
	[ -e "$RUNLIMIT_DIR/job.cancel" ]
	run -143 "$RUNLIMIT" --name=job 10 sh -c 'touch "$D/ran"'
	[ ! -e "$D/ran" ]
	rm "$D/held"
	wait_bg "$cancel"
	cat "$D/cancel.err"
	[ "$BG_STATUS" -eq 0 ]
	[ ! -e "$RUNLIMIT_DIR/job.cancel" ]
}
