#!/usr/bin/env bats
# Named runs under stress and attack (issue 31): --list and --cancel are bounded however the
# runs behave (stopped, silent connections, a full backlog), cancel markers expire and dead
# runs' files are swept, the default directory cannot be taken first by another user, root
# reaches every user's runs and other users reach none, and the directory's path may be of
# any length.
#
# Every test has a directory of its own (RUNLIMIT_DIR) unless it tests the default places.

bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	setup_tree_tests
}

setup() {
	export D=$BATS_TEST_TMPDIR RUNLIMIT
	export RUNLIMIT_DIR=$D/names
	N=b$BATS_TEST_NUMBER-$(($$ % 100000))
	export S
	S=$(private_sleep "$N-s")
	STOPPED="" PUB="" MADE_RUN_USER="" DAEMON="" HOLDER=""
}

teardown() {
	local p
	# runs a test stopped, should it have failed before continuing them
	for p in $STOPPED; do
		kill -CONT "$p" 2>/dev/null || true
		kill -KILL "$p" 2>/dev/null || true
	done
	kill_named "$N-s"
	[ -z "$DAEMON" ] || kill "$DAEMON" 2>/dev/null || true
	[ -z "$HOLDER" ] || kill "$HOLDER" 2>/dev/null || true
	[ -z "$PUB" ] || rm -rf "$PUB"
	[ -z "$MADE_RUN_USER" ] || rm -rf "$MADE_RUN_USER"
	other_users_done
}

# registered NAME: the run NAME is listening (its socket is there).
registered() { [ -S "$RUNLIMIT_DIR/$1.sock" ]; }

# only_tombstones [DIR]: DIR (default: RUNLIMIT_DIR) holds nothing but the tombstones of runs
# that have ended (NAME.ended) and dot-files (.swept, the stamp of the last sweep of them).
only_tombstones() { [ -z "$(ls "${1:-$RUNLIMIT_DIR}" | grep -v '\.ended$' || true)" ]; }

# start_named NAME ARG...: runlimit --name=NAME ARG... in the background, its pid in RUN;
# returns once the run is registered.
start_named() {
	local name=$1
	shift
	"$RUNLIMIT" --name="$name" "$@" 3>&- &
	RUN=$!
	wait_until 10 registered "$name"
}

# listed NAME: --list shows the run NAME with its pid (it answered).
listed() { "$RUNLIMIT" --list | grep -q "^$1	[0-9]"; }

# cancels_taken N: the run's -v output in $D/err tells of N cancels taken, at least.
cancels_taken() { [ "$(grep -c 'cancelled by' "$D/err")" -ge "$1" ]; }

# a public directory for the other users' tests, removed by teardown
make_pub() {
	PUB=$(public_dir)
	cp "$S" "$PUB/$N-s"
	chmod 755 "$PUB/$N-s"
}

# their_fake NAME ANSWER: a fake run NAME of user 65534's (tests/tools/fakerun.py, answering
# ANSWER) in that user's default place, which goes in the caller's theirs; its pid in DAEMON
# (setpriv itself, not as_user's subshell: the fake's own pid).  Returns once it listens.
their_fake() {
	make_pub
	unset RUNLIMIT_DIR XDG_RUNTIME_DIR
	export TMPDIR=$PUB
	if [ -d /run/user/65534 ]; then theirs=/run/user/65534/runlimit; else theirs=$PUB/runlimit-65534; fi
	cp "$TOOLS/fakerun.py" "$PUB/fakerun.py"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$PY" "$PUB/fakerun.py" "$theirs" "$1" \
		"$2" </dev/null >/dev/null 2>&1 3>&- &
	DAEMON=$!
	wait_until 10 test -S "$theirs/$1.sock"
}

# root_run_dir: the root-only directory root's named runs default to: /run, else /var/run,
# where it is root's and no one else may write to it (none: fails).
root_run_dir() {
	local d
	for d in /run /var/run; do
		[ -d "$d" ] || continue
		# shellcheck disable=SC2012 # the owner and mode of one directory
		case $(ls -ldL "$d" | awk '{ print $1, $3 }') in
		d????-??-?*" root") echo "$d/runlimit"; return 0 ;;
		esac
	done
	return 1
}

@test "--list: stopped runs are listed as not answering, within about 2 s, however many lists run at once" {
	local i p pids="" t0
	start_named live 60 "$S" 100
	local live=$RUN
	for i in 1 2 3 4 5; do
		start_named "stopped$i" 60 "$S" "10$i"
		kill -STOP "$RUN"
		STOPPED="$STOPPED $RUN"
		wait_until 10 is_stopped "$RUN"
	done
	t0=$(now)
	# Twelve lists at once: each stopped run's backlog fills up, and no list may hang.
	for i in $(seq 1 12); do
		bounded 30 "$RUNLIMIT" --list >"$D/list.$i" 2>&1 3>&- &
		pids="$pids $!"
	done
	for p in $pids; do
		wait "$p" || { echo "a --list failed or hung: status $?" >&2; return 1; }
	done
	echo "12 lists at once, 5 runs stopped: $(elapsed "$t0") s" >&2
	# one stopped run after another, 2 s each, would take 10 s
	lt "$(elapsed "$t0")" 9
	for i in $(seq 1 12); do
		cat "$D/list.$i" >&2
		grep -q "^live	$live	[0-9.]*s	$S 100\$" "$D/list.$i"
		[ "$(grep -c '^stopped[1-5]	-	-	not answering$' "$D/list.$i")" -eq 5 ]
	done
	# and a list after all that, with every backlog full, still returns
	t0=$(now)
	run -0 bounded 30 "$RUNLIMIT" --list
	lt "$(elapsed "$t0")" 8
	[ "${#lines[@]}" -eq 6 ]
}

@test "--list with more stopped runs than it may ask at once (ulimit -n 40): all listed, within about 2 s" {
	# Under 48 descriptors, 16 runs are asked at a time.  Before, when a whole round gave up
	# together, --list waited in poll for nothing, for good.
	local i t0
	for i in $(seq 1 20); do
		start_named "many$i" 60 "$S" "20$i"
		kill -STOP "$RUN"
		STOPPED="$STOPPED $RUN"
		wait_until 10 is_stopped "$RUN"
	done
	t0=$(now)
	run -0 bounded 30 sh -c 'ulimit -n 40 && exec "$1" --list' sh "$RUNLIMIT"
	echo "20 stopped runs under ulimit -n 40: $(elapsed "$t0") s" >&2
	printf '%s\n' "$output" >&2
	lt "$(elapsed "$t0")" 8
	[ "$(printf '%s\n' "$output" | grep -c '^many[0-9]*	-	-	not answering$')" -eq 20 ]
}

@test "--cancel of a stopped run returns (3) and says why; the run ends by it once continued" {
	start_named job 60 "$S" 100
	# listening, not only bound: a run stopped in between refuses connections, and a cancel
	# then says it has no room (125; once under qemu in CI)
	wait_until 10 listed job
	kill -STOP "$RUN"
	STOPPED=$RUN
	wait_until 10 is_stopped "$RUN"
	local t0
	t0=$(now)
	run -3 --separate-stderr bounded 30 "$RUNLIMIT" --cancel=job
	echo "$stderr" >&2
	lt "$(elapsed "$t0")" 8
	[[ "$stderr" == *"'job' does not answer"*"when it is continued"* ]]
	# ten more at once, over the run's four connections: each returns, none piles up for good
	local i pids=""
	for i in 1 2 3 4 5 6 7 8 9 10; do
		bounded 30 "$RUNLIMIT" --cancel=job 2>/dev/null 3>&- &
		pids="$pids $!"
	done
	for i in $pids; do
		st=0
		wait "$i" || st=$?
		[ "$st" -eq 3 ] || [ "$st" -eq 125 ]
	done
	kill -0 "$RUN"
	kill -CONT "$RUN"
	STOPPED=
	# the cancel that was left with it ends it, and nothing is left for the next run (no
	# marker: the run was live when the cancels looked)
	wait_bg "$RUN"
	[ "$BG_STATUS" -eq 143 ]
	no_live "$N-s"
	wait_until 10 only_tombstones
	run -0 "$RUNLIMIT" --name=job 10 true
}

@test "--cancel of a run that took it and was then stopped gives up after its grace (3)" {
	start_named deaf -v 60 sh -c 'trap "" TERM; exec "$S" 100' 2>"$D/err"
	wait_until 10 has_survivors "$N-s"
	local t0 c
	t0=$(now)
	# (a grace long enough to stop the run in, on a loaded machine)
	"$RUNLIMIT" --cancel=deaf -k 5 2>"$D/cerr" 3>&- &
	c=$!
	wait_until 10 cancels_taken 1
	kill -STOP "$RUN"
	STOPPED=$RUN
	wait_bg "$c" 40
	cat "$D/cerr" >&2
	[ "$BG_STATUS" -eq 3 ]
	grep -q "has not ended" "$D/cerr"
	lt "$(elapsed "$t0")" 30
	has_survivors "$N-s"
	kill -CONT "$RUN"
	STOPPED=
	wait_bg "$RUN"
	no_survivors "$N-s"
}

@test "silent connections are dropped after about a second: they hide no run and block no cancel" {
	start_named quiet 60 "$S" 100
	# four connections (a run's slots) that say nothing; each is dropped: EOF after the
	# greeting, within a few seconds
	"$PY" -c '
import socket, sys, time
socks = []
for i in range(4):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    socks.append(s)
open(sys.argv[2], "w").write("ready\n")
t0 = time.time()
for s in socks:
    s.settimeout(20)
    while s.recv(64):
        pass
print("%.1f" % (time.time() - t0))
' "$RUNLIMIT_DIR/quiet.sock" "$D/ready" >"$D/dropped" 3>&- &
	local py=$!
	wait_for_file "$D/ready"
	wait_until 10 listed quiet
	wait_bg "$py" 30
	[ "$BG_STATUS" -eq 0 ]
	echo "dropped after $(cat "$D/dropped") s" >&2
	lt "$(cat "$D/dropped")" 10
	# four more, held: a cancel gets through all the same
	"$PY" -c '
import socket, sys, time
socks = []
for i in range(4):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    socks.append(s)
open(sys.argv[2], "w").write("ready\n")
time.sleep(30)
' "$RUNLIMIT_DIR/quiet.sock" "$D/ready2" 3>&- &
	py=$!
	wait_for_file "$D/ready2"
	wait_until 10 "$RUNLIMIT" --cancel=quiet
	wait_bg "$RUN"
	[ "$BG_STATUS" -eq 143 ]
	kill "$py"
	wait "$py" || true
}

@test "--cancel's statuses: 0 ended, 1 no run and a marker left (said), 2 no run and none left, 4 already ended" {
	start_named live 60 "$S" 100
	run -0 --separate-stderr "$RUNLIMIT" --cancel=live
	[ -z "$stderr" ]
	wait_bg "$RUN"
	# over now: no marker is left, and stderr says so and when it ended
	run -4 --separate-stderr "$RUNLIMIT" --cancel=live
	echo "$stderr" >&2
	[[ "$stderr" == *"the run named 'live' already ended (at "*"Z): no marker was left" ]]
	[ ! -e "$RUNLIMIT_DIR/live.cancel" ]
	# a name no run has had: a marker is left, and stderr says so and for how long
	run -1 --separate-stderr "$RUNLIMIT" --cancel=unborn
	echo "$stderr" >&2
	[[ "$stderr" == *"no run named 'unborn' is running"*"marker"*"60s"* ]]
	[ -e "$RUNLIMIT_DIR/unborn.cancel" ]
	# --marker-ttl=0: none is left
	run -2 --separate-stderr "$RUNLIMIT" --cancel=other --marker-ttl=0
	echo "$stderr" >&2
	[[ "$stderr" == *"no run named 'other' is running"*"no marker"* ]]
	[ ! -e "$RUNLIMIT_DIR/other.cancel" ]
	# the option is --cancel's alone
	run -125 --separate-stderr "$RUNLIMIT" --marker-ttl=5 --name=x 10 true
	run -125 --separate-stderr "$RUNLIMIT" --marker-ttl=5 --list
	run -125 --separate-stderr "$RUNLIMIT" --cancel=x --marker-ttl=zz
	[[ "$stderr" == *"invalid time interval"*"zz"* ]]
}

@test "a cancel marker expires: after its time the next run of the name runs, and any runlimit removes it" {
	run -1 "$RUNLIMIT" --cancel=late --marker-ttl=1
	[ -e "$RUNLIMIT_DIR/late.cancel" ]
	# a --list (of nothing) sweeps the directory: the expired marker goes
	wait_until 10 sh -c '"$RUNLIMIT" --list; [ ! -e "$RUNLIMIT_DIR/late.cancel" ]'
	run -0 "$RUNLIMIT" --name=late 10 sh -c 'touch "$D/ran"'
	[ -e "$D/ran" ]
	# A marker within its time still cancels a run that comes (the default: 60 s) (of another
	# name: "late" has ended now, and a cancel of it leaves none) ...
	run -1 "$RUNLIMIT" --cancel=late2
	local t
	t=$(awk '{ print $2 }' "$RUNLIMIT_DIR/late2.cancel")
	# ... which it holds as its expiry, in ns of the wall clock
	awk -v t="$t" -v now="$(date +%s)" 'BEGIN { d = t / 1e9 - now; exit !(d > 50 && d < 70) }'
	run -143 "$RUNLIMIT" --name=late2 10 sh -c 'touch "$D/ran2"'
	[ ! -e "$D/ran2" ]
	# and one the run expires itself on its way in
	run -1 "$RUNLIMIT" --cancel=late3 --marker-ttl=0.5
	wait_until 10 sh -c 'awk -v t="$(awk "{ print \$2 }" "$RUNLIMIT_DIR/late3.cancel")" \
		-v now="$(date +%s)" "BEGIN { exit !(t / 1e9 < now) }"'
	run -0 "$RUNLIMIT" --name=late3 10 sh -c 'touch "$D/ran3"'
	[ -e "$D/ran3" ]
	only_tombstones
}

@test "a SIGKILLed run's files are swept by the next runlimit that comes, judged by the lock alone" {
	start_named dead 60 "$S" 100
	kill -KILL "$RUN"
	wait "$RUN" || true
	kill_named "$N-s"
	registered dead
	start_named live 60 "$S" 101
	# the live run swept the dead one's lock and socket, and left its own
	[ "$(ls -A "$RUNLIMIT_DIR" | sort | tr '\n' ' ')" = "live.lock live.sock " ]
	# a sweep leaves a live run alone: it is listed, and cancelled
	run -0 "$RUNLIMIT" --list
	[[ "$output" == "live	$RUN	"* ]]
	run -0 "$RUNLIMIT" --cancel=live
	wait_bg "$RUN"
	# a dead run's files, then a cancel of its name: no run, a marker left (a KILLed run
	# leaves no tombstone), the rest gone
	start_named dead 60 "$S" 100
	kill -KILL "$RUN"
	wait "$RUN" || true
	run -1 "$RUNLIMIT" --cancel=dead
	[ "$(ls "$RUNLIMIT_DIR" | tr '\n' ' ')" = "dead.cancel live.ended " ]
}

@test "a RUNLIMIT_DIR without a slash gets the parent check that ./runs gets" {
	mkdir -m 777 "$D/open"
	chmod 777 "$D/open" # whatever the umask
	cd "$D/open"
	RUNLIMIT_DIR=runs run -125 --separate-stderr "$RUNLIMIT" --name=p 10 touch "$D/ran"
	echo "$stderr" >&2
	[[ "$stderr" == *"its parent"*"may be changed by others"* ]]
	RUNLIMIT_DIR=runs run -125 --separate-stderr "$RUNLIMIT" --cancel=p
	[[ "$stderr" == *"its parent"*"may be changed by others"* ]]
	[ ! -e "$D/ran" ]
	chmod 1777 "$D/open" # sticky, as /tmp: fine
	RUNLIMIT_DIR=runs run -0 "$RUNLIMIT" --name=p 10 touch "$D/ran"
	[ -e "$D/ran" ]
}

@test "root lists and cancels another user's runs; another user can do neither" {
	needs_other_users
	make_pub
	unset RUNLIMIT_DIR XDG_RUNTIME_DIR
	export TMPDIR=$PUB
	local theirs
	if [ -d /run/user/65534 ]; then theirs=/run/user/65534/runlimit; else theirs=$PUB/runlimit-65534; fi
	as_user 65534 env TMPDIR="$PUB" "$USER_RL" --name=theirs 60 "$PUB/$N-s" 100 3>&- &
	RUN=$!
	wait_until 10 test -S "$theirs/theirs.sock"
	# root sees it, under the user's uid
	run -0 "$RUNLIMIT" --list
	echo "$output" >&2
	if [[ "$output" != *65534:theirs* ]] && ! expected peercred; then
		as_user 65534 env TMPDIR="$PUB" "$USER_RL" --cancel=theirs || true
		wait_bg "$RUN" || true
		skip "this build cannot tell who listens on a socket (POSIX has no way): root does not talk to other users' runs"
	fi
	# (RUN is the subshell of as_user, not runlimit)
	echo "$output" | grep -q "^65534:theirs	[0-9]*	[0-9.]*s	$PUB/$N-s 100\$"
	# --list --json: its name alone, and its uid
	run -0 "$RUNLIMIT" --list --json
	"$PY" -c 'import json, sys
runs = [json.loads(line) for line in sys.argv[1].splitlines()]
mine = [r for r in runs if r["name"] == "theirs"]
assert len(mine) == 1 and mine[0]["uid"] == 65534 and mine[0]["state"] == "answering", runs
assert mine[0]["argv"] == [sys.argv[2], "100"], mine' "$output" "$PUB/$N-s"
	# another user neither sees nor cancels it
	run as_user 65533 env TMPDIR="$PUB" "$USER_RL" --list
	[ "$status" -eq 0 ]
	[[ "$output" != *theirs* ]]
	run as_user 65533 env TMPDIR="$PUB" "$USER_RL" --cancel=65534:theirs
	[ "$status" -eq 125 ]
	[[ "$output" == *"only root"* ]]
	run as_user 65533 env RUNLIMIT_DIR="$theirs" "$USER_RL" --cancel=theirs
	[ "$status" -eq 125 ]
	has_survivors "$N-s"
	# root cancels it by the name --list gave
	run -0 "$RUNLIMIT" --cancel=65534:theirs
	wait_bg "$RUN"
	[ "$BG_STATUS" -eq 143 ]
	no_survivors "$N-s"
	# root may also name the user's directory; it leaves no file of its own there
	as_user 65534 env TMPDIR="$PUB" "$USER_RL" --name=again 60 "$PUB/$N-s" 100 3>&- &
	RUN=$!
	wait_until 10 test -S "$theirs/again.sock"
	RUNLIMIT_DIR=$theirs run -0 "$RUNLIMIT" --list
	echo "$output" | grep -q "^again	[0-9]*	[0-9.]*s	$PUB/$N-s 100\$"
	RUNLIMIT_DIR=$theirs run -2 --separate-stderr "$RUNLIMIT" --cancel=nosuch
	[[ "$stderr" == *"no marker"* ]]
	RUNLIMIT_DIR=$theirs run -0 "$RUNLIMIT" --cancel=again
	wait_bg "$RUN"
	[ "$BG_STATUS" -eq 143 ]
	# nothing of root's there: the user's runs' tombstones alone
	only_tombstones "$theirs"
	[ -z "$(find "$theirs" -mindepth 1 ! -user 65534)" ]
	# and a cancel of one of them, by the name --list gave or in the directory, says it ended
	run -4 --separate-stderr "$RUNLIMIT" --cancel=65534:theirs
	[[ "$stderr" == *"the run named 'theirs' of user 65534 already ended (at "*"): no marker was left" ]]
	RUNLIMIT_DIR=$theirs run -4 "$RUNLIMIT" --cancel=again
	[ -z "$(find "$theirs" -mindepth 1 ! -user 65534)" ]
	# a run of that user's that is not running: none is found, and none is left
	run -2 --separate-stderr "$RUNLIMIT" --cancel=65534:nosuch
	[ ! -e "$theirs/nosuch.cancel" ]
}

@test "root's named runs default to a root-only directory: a squatted one in /tmp does not stop them" {
	needs_other_users
	local dir
	dir=$(root_run_dir) || skip "no /run or /var/run that is root's alone here"
	make_pub
	unset RUNLIMIT_DIR XDG_RUNTIME_DIR
	export TMPDIR=$PUB
	# another user takes the shared temporary directory's name first
	as_user 65534 mkdir -m 700 "$PUB/runlimit-0"
	run -0 "$RUNLIMIT" --name="$N-root" 10 sh -c 'touch "$D/ran"'
	[ -e "$D/ran" ]
	"$RUNLIMIT" --name="$N-root" 60 "$S" 100 3>&- &
	RUN=$!
	wait_until 10 test -S "$dir/$N-root.sock"
	[ "$(ls -ld "$dir" | cut -c1-10)" = drwx------ ]
	run -0 "$RUNLIMIT" --cancel="$N-root"
	wait_bg "$RUN"
	[ "$BG_STATUS" -eq 143 ]
	[ -z "$(ls -A "$PUB/runlimit-0")" ]
}

@test "a user's named runs default to /run/user/UID/runlimit when that is theirs, past a squatted /tmp" {
	needs_other_users
	[ -d /run/user ] || skip "no /run/user here"
	[ ! -e /run/user/65534 ] || skip "/run/user/65534 exists already: not this test's to change"
	make_pub
	MADE_RUN_USER=/run/user/65534
	mkdir -m 700 "$MADE_RUN_USER"
	chown 65534:65534 "$MADE_RUN_USER"
	# another user takes the shared temporary directory's name first
	as_user 65533 mkdir -m 700 "$PUB/runlimit-65534"
	run as_user 65534 env -u RUNLIMIT_DIR -u XDG_RUNTIME_DIR TMPDIR="$PUB" "$USER_RL" \
		--name=mine 10 sh -c 'ls -d /run/user/65534/runlimit/mine.sock'
	echo "$output" >&2
	[ "$status" -eq 0 ]
	[ "$output" = /run/user/65534/runlimit/mine.sock ]
	# not the user's alone: not used, and the squatted last resort is refused
	chmod 755 "$MADE_RUN_USER"
	run as_user 65534 env -u RUNLIMIT_DIR -u XDG_RUNTIME_DIR TMPDIR="$PUB" "$USER_RL" \
		--name=mine 10 true
	echo "$output" >&2
	[ "$status" -eq 125 ]
	[[ "$output" == *"runlimit-65534"*"belongs to another user"* ]]
}

@test "without RUNLIMIT_DIR and XDG_RUNTIME_DIR, this user's default place" {
	unset RUNLIMIT_DIR XDG_RUNTIME_DIR
	mkdir -m 700 "$D/tmp"
	local uid want
	uid=$(id -u)
	want=$D/tmp/runlimit-$uid
	if [ "$uid" = 0 ]; then
		want=$(root_run_dir) || want=$D/tmp/runlimit-0
	elif [ -d "/run/user/$uid" ] && [ "$(ls -ldn "/run/user/$uid" | awk '{ print $1, $3 }')" = "drwx------ $uid" ]; then
		want=/run/user/$uid/runlimit
	fi
	TMPDIR=$D/tmp run -0 "$RUNLIMIT" --name="$N-where" 10 sh -c 'ls "$1"' sh "$want"
	[[ "$output" == *"$N-where.sock"* ]]
}

@test "a working directory that cannot be opened (or read, where that is needed): the directory's own path, where it fits" {
	needs_other_users
	make_pub
	mkdir -m 311 "$PUB/closed"
	chown 65534:65534 "$PUB/closed"
	as_user 65534 mkdir -m 700 "$PUB/n"
	local far
	far=$PUB/n/$(printf 'd%.0s' $(seq 120))
	run as_user 65534 sh -c 'cd "$1" && RUNLIMIT_DIR=$2 exec "$3" --name=x 10 pwd' sh \
		"$PUB/closed" "$PUB/n/short" "$USER_RL"
	[ "$status" -eq 0 ]
	[ "$output" = "$PUB/closed" ]
	run as_user 65534 sh -c 'cd "$1" && RUNLIMIT_DIR=$2 exec "$3" --name=x 10 pwd' sh \
		"$PUB/closed" "$far" "$USER_RL"
	echo "$output" >&2
	if [ "$status" -eq 0 ]; then
		# held with O_PATH (Linux), it is not read: any length works (named.bats)
		[ "$output" = "$PUB/closed" ]
	else
		! expected searchcwd
		[ "$status" -eq 125 ]
		[[ "$output" == *"cannot listen on"*"ame too long"* ]] # musl: "Filename"
	fi
	# from a working directory it can open, the same directory works
	run as_user 65534 sh -c 'cd / && RUNLIMIT_DIR=$1 exec "$2" --name=x 10 pwd' sh "$far" "$USER_RL"
	[ "$status" -eq 0 ]
	[ "$output" = / ]
}

@test "root's cancel of another user's run believes its announced end no further than its own grace" {
	# A run answers a cancel with "ok BOUND", the longest its end may take.  Another user's
	# peer could announce forever and hold root's --cancel for good (before: it did).
	needs_other_users
	local theirs t0
	their_fake liar 'ok 9223372036854775807'
	t0=$(now)
	run bounded 40 "$RUNLIMIT" --cancel=65534:liar -k 1
	echo "status $status after $(elapsed "$t0") s: $output" >&2
	if [ "$status" -eq 2 ] && ! expected peercred; then
		skip "this build cannot tell who listens on a socket (POSIX has no way): root does not talk to other users' runs"
	fi
	[ "$status" -eq 3 ]
	# its own grace (1 s), the time to answer (2 s) and the margin (5 s)
	lt "$(elapsed "$t0")" 20
	[ ! -e "$theirs/liar.cancel" ]
}

@test "root's --list shows the pid the system says listens, not the one a run announces" {
	# A tool may signal the pid --list shows; another user's socket could announce pid 1.
	needs_other_users
	expected peercred || skip "this build cannot tell who listens on a socket"
	local theirs
	# (a description, PID ELAPSED STARTED LEFT ARGC ARG..., which both forms ask for; it was
	# made to fit "info", PID ELAPSED COMMAND, too, when plain --list asked that: then its
	# command read "0 - 1 fake")
	their_fake liar '1 0 0 - 1 fake'
	run bounded 30 "$RUNLIMIT" --list
	echo "status $status: $output" >&2
	[ "$status" -eq 0 ]
	# before: "65534:liar	1	0.0s	fake"
	[[ "$output" == *"65534:liar	$DAEMON	0.0s	fake"* ]]
	run bounded 30 "$RUNLIMIT" --list --json
	echo "status $status: $output" >&2
	[ "$status" -eq 0 ]
	[[ "$output" == *'"name":"liar","uid":65534,"pid":'"$DAEMON"','* ]]
}

@test "root's --list --json lists another user's run whose answer holds control characters, as --list does" {
	# A runlimit encodes such bytes; another user's socket need not.  Both forms read the
	# numbers past any white space (--json wanted a space after each, and left the run out,
	# status 0), and plain --list quotes the argument as it quotes a run's (before issue 64 it
	# asked "info", and read the line as one: "0?-?1?a?b", the control bytes tamed to '?').
	needs_other_users
	expected peercred || skip "this build cannot tell who listens on a socket"
	local theirs
	# tabs where the numbers' spaces go, a control byte in the argument
	their_fake ctl '1\t0\t0\t-\t1\ta\x01b'
	# and a real run of theirs with control bytes in its command, which it encodes itself
	as_user 65534 env TMPDIR="$PUB" "$USER_RL" --name=real 60 sh -c 'exec "$0" 100' \
		"$PUB/$N-s" "$(printf 'a\tb')" "$(printf '\001')" 3>&- &
	RUN=$!
	wait_until 10 test -S "$theirs/real.sock"
	run -0 bounded 30 "$RUNLIMIT" --list
	echo "$output" >&2
	[[ "$output" == *"65534:ctl	$DAEMON	0.0s	'a\\001b'"* ]]
	[[ "$output" == *"65534:real	"[0-9]*"	"* ]]
	run -0 bounded 30 "$RUNLIMIT" --list --json
	echo "$output" >&2
	"$PY" -c 'import json, sys
runs = {r["name"]: r for r in (json.loads(line) for line in sys.argv[1].splitlines()) if r["uid"] == 65534}
ctl, real = runs["ctl"], runs["real"]
assert ctl["state"] == "answering" and ctl["error"] is None and ctl["pid"] == int(sys.argv[2]), ctl
assert ctl["argv"] == ["a\x01b"] and ctl["argc"] == 1 and ctl["deadline"] is None, ctl
assert real["state"] == "answering" and real["argv"] == ["sh", "-c", "exec \"$0\" 100", sys.argv[3], "a\tb", "\x01"], real' \
		"$output" "$DAEMON" "$PUB/$N-s"
	run -0 "$RUNLIMIT" --cancel=65534:real
	wait_bg "$RUN"
}

@test "root with another user's XDG_RUNTIME_DIR (su without -): that user's runs never pass for root's" {
	needs_other_users
	make_pub
	unset RUNLIMIT_DIR
	mkdir -m 700 "$PUB/xdg"
	chown 65534:65534 "$PUB/xdg"
	cp "$TOOLS/fakerun.py" "$PUB/fakerun.py"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$PY" "$PUB/fakerun.py" "$PUB/xdg/runlimit" \
		liar '1 0 fake' </dev/null >/dev/null 2>&1 3>&- &
	DAEMON=$!
	wait_until 10 test -S "$PUB/xdg/runlimit/liar.sock"
	# before: root took the directory for its own and listed "liar 1 0.0s fake"
	XDG_RUNTIME_DIR=$PUB/xdg run bounded 30 "$RUNLIMIT" --list
	echo "status $status: $output" >&2
	[ "$status" -eq 0 ]
	[[ "$output" != liar* ]]
	[[ "$output" != *"
liar"* ]]
	# nor does root's --cancel talk to it as its own
	XDG_RUNTIME_DIR=$PUB/xdg run bounded 30 "$RUNLIMIT" --cancel=liar --marker-ttl=0
	echo "status $status: $output" >&2
	[ "$status" -eq 2 ]
}

@test "root never talks to a socket a user points its directory at (a root daemon's, by a symlink)" {
	needs_other_users
	make_pub
	unset RUNLIMIT_DIR XDG_RUNTIME_DIR
	export TMPDIR=$PUB
	[ ! -d /run/user/65534 ] || skip "user 65534 has /run/user/65534: its default place is there"
	# a daemon of root's, that greets as a run would, and notes whatever it is sent
	"$PY" -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(8)
open(sys.argv[2], "w").close()
while True:
    c, _ = s.accept()
    c.settimeout(5)
    try:
        c.sendall(b"runlimit\n")
        got = c.recv(64)
    except OSError:
        got = b""
    open(sys.argv[2], "ab").write(got)
    c.close()
' "$D/daemon.sock" "$D/daemon.got" 3>&- &
	DAEMON=$!
	wait_until 10 test -S "$D/daemon.sock"
	chmod 755 "$D" # the symlink is followed as root: any path will do
	as_user 65534 mkdir -m 700 "$PUB/runlimit-65534"
	as_user 65534 ln -s "$D/daemon.sock" "$PUB/runlimit-65534/evil.sock"
	run -0 "$RUNLIMIT" --list
	[[ "$output" != *evil* ]]
	run -2 --separate-stderr "$RUNLIMIT" --cancel=65534:evil
	echo "$stderr" >&2
	RUNLIMIT_DIR=$PUB/runlimit-65534 run -2 --separate-stderr "$RUNLIMIT" --cancel=evil
	# The same with the name's lock held by the user, as a live run's is: the cancel looked at
	# a live run, yet reached none it may talk to, and that run still holds its lock: it has not
	# ended (4), there is no run root can reach (2).
	setpriv --reuid=65534 --regid=65534 --clear-groups "$PY" -c '
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 0)
open(sys.argv[2], "w").close()
time.sleep(60)
' "$PUB/runlimit-65534/evil.lock" "$PUB/holding" </dev/null >/dev/null 2>&1 3>&- &
	HOLDER=$!
	wait_until 10 test -e "$PUB/holding"
	run -2 --separate-stderr "$RUNLIMIT" --cancel=65534:evil
	echo "$stderr" >&2
	[[ "$stderr" == *"no run named 'evil' of user 65534 is running"* ]]
	RUNLIMIT_DIR=$PUB/runlimit-65534 run -2 --separate-stderr "$RUNLIMIT" --cancel=evil
	echo "$stderr" >&2
	[[ "$stderr" == *"no run named 'evil' is running: no marker was left (none is, in another user's directory)" ]]
	kill "$HOLDER"
	HOLDER=
	kill "$DAEMON" # still there: it was reached, and went on
	wait "$DAEMON" || true
	DAEMON=
	# it was never sent a word
	[ ! -s "$D/daemon.got" ]
}
