#!/usr/bin/env bats
# The output relay (docs/design.md, "The relay"; --output-grace): a leftover holding the command's stdout or
# stderr never keeps the caller waiting past the grace; everything the command wrote is
# relayed byte for byte, however slow the reader; what each stream is stays what it was.
#
# Leftovers run a private copy of sleep under a unique name, so that they can be found and
# ended (teardown).

bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	setup_tree_tests
	head -c 1000000 /dev/urandom >"$BATS_FILE_TMPDIR/random"
}

setup() {
	export D=$BATS_TEST_TMPDIR RUNLIMIT
	N=o$BATS_TEST_NUMBER-$(($$ % 100000))
	export S
	S=$(private_sleep "$N-s")
}

teardown() {
	kill_named "$N-s"
}

# captured ARG...: runlimit ARG... under python's subprocess.run(capture_output=True), as a
# CI runner or an agent's shell tool calls it; prints "STATUS SECONDS", then stdout.
captured() {
	"$PY" -c 'import subprocess, sys, time
t = time.time()
p = subprocess.run(sys.argv[1:], capture_output=True, timeout=60)
sys.stdout.write("%d %.3f\n" % (p.returncode, time.time() - t))
sys.stdout.buffer.write(p.stdout)' "$RUNLIMIT" "$@"
}

@test "a leftover holding stdout: subprocess.run returns after the grace, with the output and 0" {
	run -0 captured --output-grace=0.2 30 sh -c '"$S" 60 & echo hi'
	set -- ${lines[0]}
	[ "$1" = 0 ]
	lt "$2" 3
	[ "${lines[1]}" = hi ]
	has_survivors "$N-s" # not signalled: it was started on purpose
}

@test "a leftover holding stdout and stderr: \$(...) returns after the grace" {
	local t0 out
	t0=$(now)
	out=$(bounded 30 "$RUNLIMIT" --output-grace=0.2 30 sh -c '"$S" 60 & echo hi; echo err >&2' 2>&1)
	lt "$(elapsed "$t0")" 3
	[ "$out" = "hi"$'\n'"err" ]
	has_survivors "$N-s"
}

@test "without --output-grace, the caller waits for the leftover (what the option is for)" {
	run -0 captured 30 sh -c '"$S" 2 & echo hi'
	set -- ${lines[0]}
	lt 1.9 "$2"
	[ "${lines[1]}" = hi ]
}

@test "--output-grace with --kill-leftovers: the leftover is ended too" {
	run -0 captured --output-grace=0.2 --kill-leftovers -k 0.5 30 sh -c '"$S" 60 & echo hi'
	set -- ${lines[0]}
	lt "$2" 5
	[ "${lines[1]}" = hi ]
	no_survivors "$N-s" 5
}

@test "a time-out while a setsid daemon holds the pipes returns promptly with 124" {
	run -0 captured --output-grace=0.3 1 sh -c 'setsid "$S" 60 & echo started; exec "$S" 30'
	set -- ${lines[0]}
	[ "$1" = 124 ]
	lt "$2" 4 # 1 s, the grace, a margin; reached or not, the daemon never holds it up
	[ "${lines[1]}" = started ]
}

@test "a reader that waits 2 s still gets every byte the command wrote (grace 0.2 s)" {
	# 150 kB: more than the caller's pipe holds, little enough that the command has written
	# it all (into runlimit's pipe and buffer) and exited long before the reader reads.
	head -c 150000 "$BATS_FILE_TMPDIR/random" >"$D/want"
	bounded 30 "$RUNLIMIT" --output-grace=0.2 30 sh -c 'cat "$1"; "$S" 60 & exit 0' _ "$D/want" |
		(sleep 2; cat) >"$D/got"
	cmp "$D/got" "$D/want"
}

@test "an output grace that outlasts the deadline or the kill grace is waited out, not spun through" {
	# The deadline (1 s) passes while a leftover holds the pipe: the relay's grace (3 s)
	# goes on, and runlimit sleeps through it (spinning, it would use some 2 s of CPU).
	bounded 30 "$PY" "$TOOLS/cputime.py" "$D/cpu" "$RUNLIMIT" --output-grace=3 1 \
		sh -c '"$S" 10 & echo started' | cat >"$D/out"
	[ "$(cat "$D/out")" = started ]
	echo "CPU: $(cat "$D/cpu") s" >&2
	lt "$(cat "$D/cpu")" 0.3
	# A command that exits by itself, long before its deadline, with its output still owed
	# to a reader that starts 4 s after the command has written it all: the grace's end
	# passes while the relay waits, and what is owed is relayed in full.  (100 kB: it fits
	# runlimit's pipe and the caller's, so the command writes it all at once.  After a
	# time-out it would be dropped at the grace's end: relay-bound.bats.)
	head -c 100000 "$BATS_FILE_TMPDIR/random" >"$D/want"
	bounded 30 "$PY" "$TOOLS/cputime.py" "$D/cpu2" "$RUNLIMIT" -k 0.5 --output-grace=1 30 \
		sh -c 'cat "$1"; echo done >"$2"' _ "$D/want" "$D/written" |
		(wait_for_file "$D/written" && sleep 4 && cat) >"$D/got"
	cmp "$D/got" "$D/want"
	echo "CPU: $(cat "$D/cpu2") s" >&2
	lt "$(cat "$D/cpu2")" 0.3
}

@test "binary data and bursts over 64 KiB arrive byte-exact, on stdout and on stderr" {
	local f=$BATS_FILE_TMPDIR/random
	bounded 30 "$RUNLIMIT" --output-grace=1 30 sh -c 'cat "$1"; cat "$1" >&2' _ "$f" \
		2> >(cat >"$D/err") | cat >"$D/out"
	wait_for_file "$D/err"
	wait_until 10 size_is "$D/err" 1000000
	cmp "$D/out" "$f"
	cmp "$D/err" "$f"
}

@test "2>&1: stdout and stderr share one relay, so their interleaving is exact" {
	local script='i=0; while [ $i -lt 300 ]; do echo "o$i"; echo "e$i" >&2; i=$((i + 1)); done'
	sh -c "$script" 2>&1 | cat >"$D/want"
	bounded 30 "$RUNLIMIT" --output-grace=1 30 sh -c "$script" 2>&1 | cat >"$D/got"
	cmp "$D/got" "$D/want"
}

@test "a pipe stays a pipe and a file a file, with --output-grace as without" {
	local probe='[ -p /dev/stdout ] && echo pipe; [ -f /dev/stdout ] && echo file; :'
	[ "$("$RUNLIMIT" --output-grace=1 10 sh -c "$probe" | cat)" = pipe ]
	"$RUNLIMIT" --output-grace=1 10 sh -c "$probe" >"$D/f"
	[ "$(cat "$D/f")" = file ]
}

@test "a stdout open only for reading, and a datagram socket, are never interposed" {
	# A FIFO opened for reading alone on stdout (a pipe's read end would do on Linux, but
	# the BSDs' pipes are two-way): the command's write fails, as without the relay
	# (relayed, it seemed to succeed, and the next one was a SIGPIPE).
	mkfifo "$D/fifo"
	local probe='echo a 2>/dev/null; echo "rc=$?" >&2; echo b 2>/dev/null; echo "rc=$?" >&2'
	"$RUNLIMIT" 10 sh -c "$probe" 4<>"$D/fifo" 1<"$D/fifo" 2>"$D/bare"
	"$RUNLIMIT" --output-grace=1 10 sh -c "$probe" 4<>"$D/fifo" 1<"$D/fifo" 2>"$D/relay"
	[ "$(cat "$D/bare")" = "$(printf 'rc=1\nrc=1')" ]
	[ "$(cat "$D/relay")" = "$(cat "$D/bare")" ]
	# A datagram socket keeps its messages' boundaries: the command writes to it directly.
	# (A kind the system lacks, as macOS lacks AF_UNIX SOCK_SEQPACKET, is left out.)
	run -0 "$PY" -c 'import os, socket, stat, subprocess, sys
for name in ("SOCK_DGRAM", "SOCK_SEQPACKET", "SOCK_STREAM"):
    try:
        a, b = socket.socketpair(socket.AF_UNIX, getattr(socket, name))
    except (AttributeError, OSError):
        print(name, "missing")
        continue
    a.settimeout(10)
    probe = "import os, stat; print(\"sock\" if stat.S_ISSOCK(os.fstat(1).st_mode) else \"pipe\")"
    subprocess.run([sys.argv[1], "--output-grace=1", "10", sys.argv[2], "-c", probe],
                   stdout=b.fileno(), timeout=30)
    b.close()
    print(name, a.recv(100).decode().strip())' "$RUNLIMIT" "$PY"
	echo "$output" >&2
	[[ "$output" == *"SOCK_DGRAM sock"* ]]
	[[ "$output" == *"SOCK_SEQPACKET sock"* || "$output" == *"SOCK_SEQPACKET missing"* ]]
	# a stream socket is read to its end: that one is relayed (through a pipe)
	[[ "$output" == *"SOCK_STREAM pipe"* ]]
}

@test "a terminal is never interposed, under every relay option" {
	command -v script >/dev/null 2>&1 || skip "no script(1) to give the command a terminal"
	script -qc true /dev/null </dev/null >/dev/null 2>&1 ||
		skip "script(1) here does not take -qc (not util-linux's)"
	# The command's stdout and stderr are the terminal script(1) made, the one on its stdin.
	local opt probe='import os; print("same" if os.ttyname(0) == os.ttyname(1) == os.ttyname(2) else "other")'
	for opt in --output-grace=1 --no-output-timeout=10 "--report=$D/r.json --report-tail=1K"; do
		run script -qc "'$RUNLIMIT' $opt 10 '$PY' -c '$probe'" /dev/null
		[[ "$output" == *same* ]]
	done
}

@test "a reader that goes away: the command gets SIGPIPE as it would without the relay" {
	local t0
	t0=$(now)
	# PIPE at its default (the suite's reaper ignores it, and an ignore is passed on).
	run "$PY" "$TOOLS/dfl.py" /bin/bash -c \
		'"$RUNLIMIT" --output-grace=1 20 yes | head -n 1 >/dev/null; echo "${PIPESTATUS[0]}"'
	[ "$output" = 141 ]
	lt "$(elapsed "$t0")" 10
}

@test "--output-grace with a bad interval: 125 and the value named" {
	run -125 --separate-stderr "$RUNLIMIT" --output-grace=soon 10 true
	[[ "$stderr" == *"invalid time interval 'soon'"* ]]
}

@test "the report has the bytes relayed per stream and the time of the last output" {
	local r=$TOOLS/report_is.py
	bounded 30 "$RUNLIMIT" --report="$D/r.json" --output-grace=1 30 \
		sh -c 'printf hello; printf abc >&2' 2> >(cat >/dev/null) | cat >/dev/null
	"$PY" "$r" "$D/r.json" 'd["output"]["stdout_bytes"] == 5' \
		'd["output"]["stderr_bytes"] == 3' 'd["output"]["stderr_with_stdout"] is False' \
		'0 < d["output"]["last_output_seconds"] <= d["wall_seconds"]'
	bounded 30 "$RUNLIMIT" --report="$D/r2.json" --output-grace=1 30 \
		sh -c 'printf hello; printf abc >&2' 2>&1 | cat >/dev/null
	"$PY" "$r" "$D/r2.json" 'd["output"]["stdout_bytes"] == 8' \
		'd["output"]["stderr_bytes"] is None' 'd["output"]["stderr_with_stdout"] is True'
	# a regular file is not relayed: its growth is what the command wrote to it
	echo before >"$D/out"
	bounded 30 "$RUNLIMIT" --report="$D/r3.json" --output-grace=1 30 \
		sh -c 'printf hello' >>"$D/out" 2>/dev/null
	"$PY" "$r" "$D/r3.json" 'd["output"]["stdout_bytes"] == 5' \
		'd["output"]["stderr_bytes"] is None'
	bounded 30 "$RUNLIMIT" --report="$D/r4.json" 30 true | cat
	"$PY" "$r" "$D/r4.json" 'd["output"] is None'
}

@test "pipe to pipe, the bytes are moved in the kernel, not copied through runlimit (strace)" {
	needs_strace
	[ -z "${ASAN_OPTIONS:-}" ] || skip "the sanitizers' leak check cannot run under strace"
	# runlimit's own process only (no -f): what the command and cat do is not counted.
	strace -e trace=read,splice -o "$D/trace" "$RUNLIMIT" --output-grace=1 10 \
		sh -c 'head -c 300000 "$1"' sh "$BATS_FILE_TMPDIR/random" | cat >"$D/out"
	cmp "$D/out" <(head -c 300000 "$BATS_FILE_TMPDIR/random")
	moved=$(sed -n 's/^splice(.*= \([0-9][0-9]*\)$/\1/p' "$D/trace" | awk '{ n += $1 } END { print n + 0 }')
	if [ "$moved" -eq 0 ] && ! expected splice; then
		skip "this build copies through its buffer (no kernel move between pipes here)"
	fi
	[ "$moved" -eq 300000 ]
}

# pipe_size: the size of the pipe on the command's stdout, as Linux's F_GETPIPE_SZ says it
# ("none" where the system has no such call), into $SIZE_TO, once the command has written
# LINES lines of 100 bytes, or up to BULK MiB in writes of 1 MiB (until the pipe is wider
# than 64 KiB).
pipe_size_prog='import fcntl, os
op = getattr(fcntl, "F_GETPIPE_SZ", 1032 if os.uname().sysname == "Linux" else None)
def size():
    try:
        return fcntl.fcntl(1, op) if op else "none"
    except OSError:
        return "none"
for _ in range(int(os.environ.get("BULK", "0"))):
    if size() == "none" or size() > 65536:
        break
    os.write(1, b"x" * (1 << 20))
for _ in range(int(os.environ.get("LINES", "0"))):
    os.write(1, b"y" * 99 + b"\n")
print(size(), file=open(os.environ["SIZE_TO"], "w"))'

# widened_size: $size, the relay's pipe once the command has written 64 MiB fast, or skip
# where the system sizes its pipes itself.
widened_size() {
	SIZE_TO=$D/size BULK=64 bounded 60 "$RUNLIMIT" --output-grace=1 30 "$PY" -c "$pipe_size_prog" |
		cat >/dev/null
	size=$(cat "$D/size")
	if [ "$size" = none ] || { [ "$size" -le 65536 ] && ! expected widepipe; }; then
		skip "this system sizes its pipes itself (pipe size: $size)"
	fi
}

@test "the relay's pipe holds a megabyte where the system allows: a fast writer wakes runlimit less" {
	widened_size
	[ "$size" -eq 1048576 ]
	# Without the relay, the caller's pipe is the command's, and runlimit leaves its size be.
	SIZE_TO=$D/size BULK=64 bounded 60 "$RUNLIMIT" 30 "$PY" -c "$pipe_size_prog" | cat >/dev/null
	[ "$(cat "$D/size")" -eq 65536 ]
}

@test "a run that writes little keeps the pipe the system made: wide pipes count against the user's quota" {
	# Past the quota (pipe-user-pages-soft) every new pipe of the user's holds 8 KiB: widened
	# for every run, some 32 runs at once of one user, each with its stdout and stderr, would
	# do that to all the user's other programs.
	widened_size
	# 600 lines of 100 bytes: never a whole 64 KiB pipe's worth at once.
	SIZE_TO=$D/size LINES=600 bounded 30 "$RUNLIMIT" --output-grace=1 10 "$PY" -c "$pipe_size_prog" |
		cat >"$D/out"
	[ "$(cat "$D/size")" -eq 65536 ]
	[ "$(wc -l <"$D/out")" -eq 600 ]
	SIZE_TO=$D/size LINES=600 bounded 30 "$RUNLIMIT" --report=/dev/null --report-tail=1K 10 \
		"$PY" -c "$pipe_size_prog" | cat >"$D/out"
	[ "$(cat "$D/size")" -eq 65536 ]
	[ "$(wc -l <"$D/out")" -eq 600 ]
}

@test "where the system refuses a bigger pipe, the relay keeps the pipe it has, and says nothing" {
	needs_other_users
	[ -w /proc/sys/fs/pipe-max-size ] || skip "needs /proc/sys/fs/pipe-max-size, writable"
	SIZE_TO=$D/size BULK=64 bounded 60 "$RUNLIMIT" --output-grace=1 30 "$PY" -c "$pipe_size_prog" |
		cat >/dev/null
	[ "$(cat "$D/size")" -gt 65536 ] || skip "the relay's pipe is not made bigger here"
	# The user's python: the suite's may be in a directory only root may search.
	local py=/usr/bin/python3
	as_user 65534 "$py" -c pass 2>/dev/null || skip "no python that user 65534 can run"
	# An unprivileged user may not go past pipe-max-size: lowered to 64 KiB for a moment.
	# (Only this test changes it; root's runs elsewhere in the suite are not bound by it.)
	local was pub
	was=$(cat /proc/sys/fs/pipe-max-size)
	pub=$(public_dir)
	echo 65536 >/proc/sys/fs/pipe-max-size
	SIZE_TO=$pub/size BULK=64 as_user 65534 "$USER_RL" --output-grace=1 30 "$py" \
		-c "$pipe_size_prog" 2>"$D/err" | cat >/dev/null || true
	echo "$was" >/proc/sys/fs/pipe-max-size
	other_users_done
	size=$(cat "$pub/size")
	rm -rf "$pub"
	[ "$size" -eq 65536 ]
	[ ! -s "$D/err" ]
}

@test "without the relay's options the command writes to the caller's own pipes" {
	# inodes PROG: the command's stdout and stderr, as inode numbers, on one line
	local prog='import os; os.write(1, b"%d " % os.fstat(1).st_ino); os.write(2, b"%d\n" % os.fstat(2).st_ino)'
	local reader='import os, sys; sys.stdout.write("%d %s" % (os.fstat(0).st_ino, sys.stdin.read()))'
	# the reader prints its own pipe's inode, then the command's two: stdout and stderr are
	# the one pipe (2>&1), the reader's, when nothing is relayed...
	run -0 bash -c '"$RUNLIMIT" 10 "$PY" -c "$1" 2>&1 | "$PY" -c "$2"' sh "$prog" "$reader"
	read -r mine out err <<<"$output"
	[ -n "$mine" ]
	[ "$out" = "$mine" ]
	[ "$err" = "$mine" ]
	# ...and a pipe of runlimit's when the relay is on (so the check above can fail)
	run -0 bash -c '"$RUNLIMIT" --output-grace=1 10 "$PY" -c "$1" 2>&1 | "$PY" -c "$2"' sh "$prog" "$reader"
	read -r mine out err <<<"$output"
	[ -n "$out" ]
	[ "$out" != "$mine" ]
	[ "$err" = "$out" ]
}

@test "without the relay's options, no relay system call: no splice, no pipe of its own (strace)" {
	needs_strace
	[ -z "${ASAN_OPTIONS:-}" ] || skip "the sanitizers' leak check cannot run under strace"
	strace -f -o "$D/off" "$RUNLIMIT" 10 sh -c 'echo x' | cat >/dev/null
	strace -f -o "$D/on" "$RUNLIMIT" --output-grace=1 10 sh -c 'echo x' | cat >/dev/null
	run -1 grep -E '(^|[ ])splice\(' "$D/off"
	# a build whose wait has a self-pipe makes it either way: the relay's are the ones more
	[ "$(grep -cE '(^|[ ])pipe2?\(' "$D/off")" -lt "$(grep -cE '(^|[ ])pipe2?\(' "$D/on")" ]
}

@test "a reader that goes away, at once or with its pipe full: runlimit's SIGPIPE is its own" {
	# PIPE at its default (the suite's reaper ignores it, and an ignore is passed on).  The
	# command dies of its own write's SIGPIPE (141); runlimit's write raised one too, which
	# must not be passed on: the report lists no signal sent.
	run "$PY" "$TOOLS/dfl.py" /bin/bash -c \
		'"$RUNLIMIT" --report="$D/r.json" --output-grace=1 20 yes | head -c 1 >/dev/null
		echo "${PIPESTATUS[0]}"'
	[ "$output" = 141 ]
	"$PY" "$TOOLS/report_is.py" "$D/r.json" 'd["signals"] == []'
	# The reader goes away once the caller's pipe is full: the relay was waiting for room.
	run "$PY" "$TOOLS/dfl.py" /bin/bash -c \
		'"$RUNLIMIT" --report="$D/r2.json" --output-grace=1 20 yes | "$PY" -c "
import fcntl, struct, sys, termios, time
end = time.time() + 20
while time.time() < end:
    n = struct.unpack(\"i\", fcntl.ioctl(0, termios.FIONREAD, b\"\0\0\0\0\"))[0]
    if n >= 65536:
        sys.exit(0)
    time.sleep(0.01)
sys.exit(3)"
		echo "${PIPESTATUS[*]}"'
	[ "$output" = "141 0" ]
	"$PY" "$TOOLS/report_is.py" "$D/r2.json" 'd["signals"] == []'
}

@test "-v lines keep their place in relayed stderr, behind what the command wrote before them" {
	# stdout and stderr are one pipe, whose reader takes nothing until the command has had
	# the deadline's TERM: when runlimit's -v line is due, the command's 100 KB fill the
	# caller's pipe and the relay holds the rest.  The line must come after all of it, and
	# runlimit must not wait for the reader to send the signal.  What the command writes
	# once it has the signal comes after the line.
	"$RUNLIMIT" -v --output-grace=1 1 sh -c '
		trap "echo after-term; touch \"$D/termed\"; exit 0" TERM
		head -c 100000 /dev/zero | tr "\0" x; echo; echo end-of-data
		while :; do sleep 0.1; done' 2>&1 |
		{ wait_until 20 test -e "$D/termed" || true; cat; } >"$D/out"
	[ -e "$D/termed" ]
	grep -q "^end-of-data$" "$D/out"
	data=$(grep -n "^end-of-data$" "$D/out" | cut -d: -f1)
	line=$(grep -n "sending signal TERM" "$D/out" | head -n 1 | cut -d: -f1)
	[ -n "$line" ]
	[ "$line" -gt "$data" ]
	# and before what the command wrote after it (the relay reads no further than its place)
	# (the first: the tree's TERM may reach the shell twice, group and walk)
	[ "$line" -lt "$(grep -n "^after-term$" "$D/out" | head -n 1 | cut -d: -f1)" ]
	[ "$(head -c 100000 "$D/out" | tr -d x | wc -c)" -eq 0 ]
}
