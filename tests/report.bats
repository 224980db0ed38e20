#!/usr/bin/env bats
# --report=FILE: the run report.  Every outcome is run for real and its report parsed with a
# real JSON parser (python's json module) and checked field by field; then the ways of
# writing it: a pipe, a device that is full, a directory that cannot be written, a reader
# that must never see half a report.

bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	setup_tree_tests
	probe_counts
	echo "# counts the tree's processes: $RL_COUNTS" >&3
	# Every report the tests read is validated against docs/report.schema.json
	# (tests/tools/report_schema.py); without jsonschema, not (RUNLIMIT_SCHEMA=required: fail).
	echo "# $("$PY" "$TOOLS/report_schema.py" --probe)" >&3
}

report_is() { "$PY" "$TOOLS/report_is.py" "$@"; }

setup() {
	F=$BATS_TEST_TMPDIR/report.json
	N=rp$BATS_TEST_NUMBER-$$
}

teardown() {
	kill_named "$N-s"
	other_users_done
	[ -z "${PUB:-}" ] || rm -rf "$PUB"
	[ -z "${DEV_LINKS:-}" ] || dev_links_kept
}

# The fields every report has, whatever the outcome.
COMMON=('set(d) >= {"schema", "version", "started_at", "ended_at", "outcome", "exit_status", "exit_signal", "timed_out", "timed_out_by",
	"kill_needed", "cancelled", "parent_gone", "name",
	"command", "command_base64", "pid", "command_exit", "command_signal", "core_dumped", "error", "duration_seconds",
	"kill_after_seconds", "no_output_timeout_seconds", "timeout_signal", "wall_seconds", "signals", "signals_omitted",
	"alive_at_command_exit", "ended", "left_running", "alive_after_kill", "output", "rusage"}'
	'isinstance(d["wall_seconds"], float) and d["wall_seconds"] >= 0'
	'set(d["rusage"]) == {"user_seconds", "system_seconds", "max_rss_kib"}'
	'd.get("deadline_inherited", 0) is None')

# counts_known: the build lists the command's tree (a process table), so the process counts
# of the report are numbers, not null; where make check says it must, it is taken as known.
counts_known() { expected counts || [ "$RL_COUNTS" = yes ]; }

# The top-level fields, in the order the manual lists them (and the schema file).
FIELDS='["schema", "version", "outcome", "exit_status", "exit_signal", "timed_out",
	"timed_out_by", "kill_needed", "cancelled", "parent_gone", "name", "command", "command_base64", "pid",
	"command_exit", "command_signal", "core_dumped", "error", "duration_seconds",
	"kill_after_seconds", "no_output_timeout_seconds", "timeout_signal", "wall_seconds",
	"started_at", "ended_at", "deadline_inherited", "signals", "signals_omitted",
	"alive_at_command_exit", "ended", "left_running", "alive_after_kill", "output",
	"tree_at_limit", "on_timeout", "rusage"]'

# wall_now: the wall clock, in seconds since the epoch.
wall_now() { "$PY" -c 'import time; print(time.time())'; }

@test "schema 1, and wall-clock started_at and ended_at in RFC 3339 UTC that bracket the run" {
	local t0 t1
	t0=$(wall_now)
	run -0 "$RUNLIMIT" --report="$F" 10 sleep 0.3
	t1=$(wall_now)
	# (1 ms of slack: the times are cut to milliseconds)
	T0=$t0 T1=$t1 report_is "$F" 'd["schema"] == 1' "list(d) == $FIELDS" \
		'all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", d[k]) for k in ("started_at", "ended_at"))' \
		'float(os.environ["T0"]) - 0.001 <= at(d["started_at"]) <= at(d["ended_at"]) <= float(os.environ["T1"])' \
		'at(d["ended_at"]) - at(d["started_at"]) >= 0.3' \
		'abs(at(d["ended_at"]) - at(d["started_at"]) - d["wall_seconds"]) < 0.05'
	# bad usage too, once --report is read
	run -125 "$RUNLIMIT" --report="$F" 1x true
	report_is "$F" 'd["schema"] == 1' "list(d) == $FIELDS" 'd["started_at"] <= d["ended_at"]'
}

@test "the schema file refuses a report with a field it does not list, a value of the wrong type, or a field missing" {
	run -0 "$PY" "$TOOLS/report_schema.py" --probe
	[[ "$output" != *"not validated"* ]] || skip "$output"
	run -0 "$PY" "$TOOLS/report_schema.py" --check-schema
	run -0 "$RUNLIMIT" --report="$F" --report-tail=1K 10 sh -c 'echo err >&2' 2>&1
	run -0 "$PY" "$TOOLS/report_schema.py" "$F"
	local bad
	for bad in 'd["new_field"] = 1' 'd["pid"] = str(d["pid"])' 'del d["ended_at"]' \
		'd["started_at"] = "2026-12-02 07:01:02"' 'd["output"]["stderr_tail"]["cut"] = -1' \
		'd["signals"].append({"at": 1.0, "signal": "TERM", "target": "tree"})'; do
		"$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
open(sys.argv[2], "w").write(json.dumps(d) + "\n")' "$F" "$F.bad" "$bad"
		run -1 "$PY" "$TOOLS/report_schema.py" "$F.bad"
		run -1 "$PY" "$TOOLS/report_is.py" "$F.bad"
		[[ "$output" == *"schema: "* ]]
	done
}

@test "exited: the command's own status, its argv and pid, no signals; the version" {
	run -3 "$RUNLIMIT" --report="$F" 10 sh -c 'echo $$ > "$0"; exit 3' "$BATS_TEST_TMPDIR/pid"
	local v
	v=$("$RUNLIMIT" --version | sed -n '1s/.* //p')
	report_is "$F" "${COMMON[@]}" \
		'd["outcome"] == "exited"' 'd["exit_status"] == 3' 'd["exit_signal"] is None' \
		'd["timed_out"] is False' 'd["command_exit"] == 3' 'd["command_signal"] is None' \
		'd["core_dumped"] is False' 'd["error"] is None' 'd["signals"] == []' \
		'd["signals_omitted"] == 0' "d['version'] == '$v'" \
		'd["command"] == ["sh", "-c", "echo $$ > \"$0\"; exit 3", "'"$BATS_TEST_TMPDIR"'/pid"]' \
		"d['pid'] == $(cat "$BATS_TEST_TMPDIR/pid")" \
		'd["duration_seconds"] == 10.0' 'd["kill_after_seconds"] == 5.0' \
		'd["timeout_signal"] == "TERM"' 'd["wall_seconds"] < 10'
}

@test "signalled: the signal's name, 128+N, not a time-out" {
	run -$((128 + $(kill -l USR1))) "$RUNLIMIT" --report="$F" 10 sh -c 'kill -USR1 $$'
	report_is "$F" "${COMMON[@]}" \
		'd["outcome"] == "signalled"' "d['exit_status'] == 128 + $(kill -l USR1)" \
		'd["command_signal"] == "USR1"' 'd["command_exit"] is None' 'd["timed_out"] is False'
}

@test "timed-out: 124, TERM then CONT to the tree at the deadline, no KILL" {
	run -124 "$RUNLIMIT" --report="$F" -k 20 0.2 sleep 10
	report_is "$F" "${COMMON[@]}" \
		'd["outcome"] == "timed-out"' 'd["exit_status"] == 124' 'd["timed_out"] is True' \
		'd["command_signal"] == "TERM"' 'd["duration_seconds"] == 0.2' 'd["kill_needed"] is False' \
		'[(s["signal"], s["target"], s["reason"]) for s in d["signals"]] == [("TERM", "tree", "deadline"), ("CONT", "tree", "deadline")]' \
		'0.2 <= d["signals"][0]["at"] < 10' 'd["signals"][0]["at"] <= d["wall_seconds"]' \
		'0.2 <= d["wall_seconds"] < 10'
}

@test "a command's own 124 is told from a time-out" {
	run -124 "$RUNLIMIT" --report="$F" 10 sh -c 'exit 124'
	report_is "$F" 'd["outcome"] == "exited"' 'd["timed_out"] is False' \
		'd["command_exit"] == 124' 'd["signals"] == []'
}

@test "killed: TERM ignored, KILL after the grace; 137; the processes counted" {
	# (1 s for the shell to set its trap, even under a loaded qemu)
	export S
	S=$(private_sleep "$N-s")
	run -137 "$RUNLIMIT" --report="$F" -k 0.3 1 sh -c 'trap "" TERM; "$S" 30 & while :; do sleep 0.05; done'
	report_is "$F" "${COMMON[@]}" \
		'd["outcome"] == "killed"' 'd["exit_status"] == 137' 'd["command_signal"] == "KILL"' \
		'd["kill_needed"] is True' \
		'[(s["signal"], s["reason"]) for s in d["signals"]] == [("TERM", "deadline"), ("CONT", "deadline"), ("KILL", "grace")]' \
		'd["signals"][2]["at"] >= 1.3' 'd["signals"][2]["target"] == "tree"'
	if counts_known; then
		# The shell, its background sleep and its current sleep: at least two ended.
		report_is "$F" 'd["ended"] >= 2' 'd["left_running"] == 0'
	fi
	no_survivors "$N-s" 5
}

@test "each process ended counts once, though the final KILL's walk finds it in more rounds" {
	counts_known || skip "this build does not count the tree's processes"
	export S
	S=$(private_sleep "$N-s")
	# The shell and its three sleeps, all ignoring TERM: four processes, KILLed.
	run -137 "$RUNLIMIT" --report="$F" -k 0.3 1 sh -c 'trap "" TERM
		for i in 1 2 3; do "$S" 30 & done; wait'
	report_is "$F" 'd["ended"] == 4' 'd["left_running"] == 0'
	no_survivors "$N-s" 5
}

@test "processes the group's signal ends before the walk reaches them still count as ended" {
	counts_known || skip "this build does not count the tree's processes"
	export S
	S=$(private_sleep "$N-s")
	# 50 leftovers in the command's group, orphaned to runlimit: --kill-leftovers TERMs the
	# group, then walks the tree; most are dead by the time the walk reads them.
	local run
	for run in 1 2 3; do
		run -0 "$RUNLIMIT" --report="$F" --kill-leftovers 30 sh -c '
			i=0; while [ $i -lt 50 ]; do "$S" 30 & i=$((i + 1)); done; exit 0'
		report_is "$F" 'd["alive_at_command_exit"] == 50' 'd["ended"] == 50' \
			'd["left_running"] == 0'
	done
	no_survivors "$N-s" 5
}

@test "-s KILL: killed at the deadline itself" {
	run -137 "$RUNLIMIT" --report="$F" -s KILL 0.2 sleep 10
	report_is "$F" 'd["outcome"] == "killed"' 'd["timeout_signal"] == "KILL"' \
		'd["kill_needed"] is False' \
		'[(s["signal"], s["reason"]) for s in d["signals"]] == [("KILL", "deadline")]'
}

@test "interrupted: a forwarded INT ends the run; runlimit still writes its report, then dies of INT" {
	local d=$BATS_TEST_TMPDIR code
	# python starts runlimit (INT at its default), waits for the command, sends INT, and
	# prints the return code: negative when runlimit died of a signal.
	code=$(bounded 30 "$PY" -c '
import os, signal, subprocess, sys, time
p = subprocess.Popen(sys.argv[1:])
ready = sys.argv[len(sys.argv) - 1]
for _ in range(2000):
    if os.path.exists(ready) and os.path.getsize(ready):
        break
    time.sleep(0.01)
p.send_signal(signal.SIGINT)
print(p.wait())' "$RUNLIMIT" --report="$F" 30 sh -c 'echo $$ > "$0"; exec sleep 30' "$d/ready")
	echo "runlimit: $code" >&2
	[ "$code" -eq -"$(kill -l INT)" ]
	report_is "$F" "${COMMON[@]}" \
		'd["outcome"] == "interrupted"' 'd["exit_status"] is None' 'd["exit_signal"] == "INT"' \
		'd["command_signal"] == "INT"' 'd["timed_out"] is False' \
		'[(s["signal"], s["target"], s["reason"]) for s in d["signals"]][:1] == [("INT", "tree", "forwarded")]'
}

# send_to_trapper SIG CODE: runlimit --report runs a command that exits CODE on SIG; once it
# is ready, SIG goes to runlimit; its status must be CODE.
send_to_trapper() {
	local d=$BATS_TEST_TMPDIR
	"$RUNLIMIT" --report="$F" 30 sh -c "trap 'exit $2' $1; echo \$\$ > \"\$0\"; while :; do sleep 0.05; done" \
		"$d/ready" 3>&- &
	local pid=$! status=0
	wait_for_file "$d/ready"
	kill -"$1" "$pid"
	wait "$pid" || status=$?
	[ "$status" -eq "$2" ]
}

@test "interrupted: a command that handles the forwarded TERM and exits 0" {
	send_to_trapper TERM 0
	report_is "$F" 'd["outcome"] == "interrupted"' 'd["exit_status"] == 0' \
		'd["command_exit"] == 0' 'd["signals"][0]["signal"] == "TERM"' \
		'd["signals"][0]["reason"] == "forwarded"'
}

@test "a forwarded signal that asks nothing to end: to the group, not an interruption" {
	send_to_trapper USR1 5
	report_is "$F" 'd["outcome"] == "exited"' 'd["command_exit"] == 5' \
		'[(s["signal"], s["target"], s["reason"]) for s in d["signals"]] == [("USR1", "group", "forwarded")]'
}

@test "not-found and not-runnable: 127 and 126, with the reason, no command status" {
	run -127 "$RUNLIMIT" --report="$F" 10 "$BATS_TEST_TMPDIR/no-such-command"
	report_is "$F" "${COMMON[@]}" 'd["outcome"] == "not-found"' 'd["exit_status"] == 127' \
		'd["error"] == "No such file or directory"' 'd["command_exit"] is None' \
		'd["command_signal"] is None' 'd["pid"] is None or d["pid"] > 0'
	local f=$BATS_TEST_TMPDIR/not-executable
	printf 'exit 0\n' >"$f"
	chmod 644 "$f"
	run -126 "$RUNLIMIT" --report="$F" 10 "$f"
	report_is "$F" 'd["outcome"] == "not-runnable"' 'd["exit_status"] == 126' \
		'd["error"] == "Permission denied"' 'd["command_exit"] is None'
}

@test "error: bad usage after --report still gets a report (125)" {
	run -125 "$RUNLIMIT" --report="$F" 1x true
	report_is "$F" 'd["outcome"] == "error"' 'd["exit_status"] == 125' \
		'd["error"] == "bad usage"' 'd["pid"] is None'
	run -125 "$RUNLIMIT" --report= 1 true
	[[ "$output" == *"invalid report file ''"* ]]
}

@test "a command line with a quote, a newline and an invalid UTF-8 byte: valid text, and the bytes in base64" {
	local arg
	arg=$(printf 'it"s\nline\377\\end')
	run -3 "$RUNLIMIT" --report="$F" 10 sh -c 'exit 3' "$arg" "é€😀" "$(printf 'cut \342\202')"
	report_is "$F" \
		'd["command"] == ["sh", "-c", "exit 3", "it\"s\nline\ufffd\\end", "é€😀", "cut \ufffd"]' \
		'[base64.b64decode(a) for a in d["command_base64"]] == [b"sh", b"-c", b"exit 3", b"it\"s\nline\xff\\end", "é€😀".encode(), b"cut \xe2\x82"]'
	# Nothing raw that a strict parser would refuse: no control byte, all valid UTF-8; and
	# every string valid Unicode, no lone surrogate escape, which a consumer could not store.
	"$PY" -c 'import sys; t = open(sys.argv[1], "rb").read(); t.decode("utf-8"); assert not any(c < 32 for c in t[:-1])' "$F"
	"$PY" -m json.tool "$F" >/dev/null
	"$PY" "$TOOLS/unicode_report.py" "$F"
	# Valid UTF-8 throughout: the text is the bytes, and no base64.
	run -0 "$RUNLIMIT" --report="$F" 10 true "é€😀" "$(printf 'tab\there')"
	report_is "$F" 'd["command"] == ["true", "é€😀", "tab\there"]' 'd["command_base64"] is None'
}

@test "leftovers: counted when the command exits, left alone, or ended with --kill-leftovers" {
	counts_known || skip "this build cannot list the command's tree: the counts are null"
	export S
	S=$(private_sleep "$N-s")
	run -0 "$RUNLIMIT" --report="$F" 30 sh -c '"$S" 30 >/dev/null 2>&1 & exit 0'
	report_is "$F" 'd["alive_at_command_exit"] == 1' 'd["left_running"] == 1' \
		'd["ended"] == 0' 'd["signals"] == []'
	kill_named "$N-s"
	run -0 "$RUNLIMIT" --report="$F" --kill-leftovers 30 sh -c '"$S" 30 >/dev/null 2>&1 & exit 0'
	report_is "$F" 'd["outcome"] == "exited"' 'd["alive_at_command_exit"] == 1' \
		'd["left_running"] == 0' 'd["ended"] == 1' \
		'[(s["signal"], s["target"], s["reason"]) for s in d["signals"]] == [("TERM", "leftovers", "leftovers"), ("CONT", "leftovers", "leftovers")]'
	no_survivors "$N-s" 5
}

@test "the counts are null where the build cannot list the tree" {
	counts_known && skip "this build lists the tree (tested above)"
	run -0 "$RUNLIMIT" --report="$F" 30 true
	report_is "$F" 'd["ended"] is None' 'd["left_running"] is None'
}

@test "-f: only the command is signalled, and the tree's counts are not runlimit's business" {
	run -124 "$RUNLIMIT" --report="$F" -f 0.2 sleep 10
	report_is "$F" 'd["outcome"] == "timed-out"' \
		'[(s["signal"], s["target"]) for s in d["signals"]] == [("TERM", "command")]' \
		'd["ended"] is None' 'd["alive_at_command_exit"] is None'
}

@test "resource use of the command: CPU seconds and peak RSS" {
	run -0 "$RUNLIMIT" --report="$F" 30 "$PY" -c '
import time
b = bytearray(64 * 1024 * 1024)
for i in range(0, len(b), 4096):
    b[i] = 1
t = time.process_time()
while time.process_time() - t < 0.3:
    pass'
	report_is "$F" 'd["rusage"]["user_seconds"] + d["rusage"]["system_seconds"] >= 0.25' \
		'd["rusage"]["max_rss_kib"] >= 60000' 'd["rusage"]["max_rss_kib"] < 10000000'
}

@test "a pipe through /dev/fd/N gets the report in one piece" {
	[ -e /dev/fd/0 ] || skip "no /dev/fd here"
	local out
	out=$("$RUNLIMIT" --report=/dev/fd/3 10 sh -c 'exit 4' 3>&1 >/dev/null 2>/dev/null) || true
	printf '%s\n' "$out" >"$F"
	report_is "$F" 'd["outcome"] == "exited"' 'd["exit_status"] == 4'
}

@test "to a pipe whose reader takes nothing: the report is given up after 2 s, never a hang" {
	# 200 KB of command line: more than a pipe holds.  Before, runlimit blocked in write(2)
	# for as long as the caller did not read (issue 31: the bound).
	run -0 bounded 30 "$PY" -c 'import subprocess, sys, time
t = time.time()
p = subprocess.Popen([sys.argv[1], "--report=/dev/stdout", "5", "true", "x" * 100000, "y" * 100000],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
try:
    rc = p.wait(timeout=15)
except subprocess.TimeoutExpired:
    p.kill()
    rc = "hung"
took = time.time() - t
err = p.stderr.read().decode()
print(rc, round(took, 2), err)
sys.exit(0 if rc == 0 and took < 10 and "its reader did not take it in time" in err else 1)' "$RUNLIMIT"
}

@test "to a reader that takes a little now and then: the report is given up after 2 s and 1 s a MiB" {
	# 600 KB of command line; the reader takes 4 KiB every 0.5 s, so each piece finds room
	# within the 2 s.  Before, each piece waited afresh: the report held runlimit for
	# about a minute (the bound; review of issue 31).
	run -0 bounded 60 "$PY" -c 'import os, subprocess, sys, time
t = time.time()
args = [sys.argv[1], "--report=/dev/stdout", "5", "true"] + ["x" * 100000] * 6
p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
rc = None
while rc is None and time.time() - t < 40:
    os.read(p.stdout.fileno(), 4096)
    time.sleep(0.5)
    rc = p.poll()
if rc is None:
    p.kill()
    rc = "hung"
took = time.time() - t
err = p.stderr.read().decode()
print(rc, round(took, 2), err)
sys.exit(0 if rc == 0 and took < 12 and "its reader did not take it in time" in err else 1)' "$RUNLIMIT"
}

@test "to a descriptor: a report of up to 1 MiB in one write, a larger one in writes of 1 MiB" {
	needs_strace
	[ -z "${ASAN_OPTIONS:-}" ] || skip "the sanitizers' leak check cannot run under strace"
	[ -e /dev/fd/0 ] || skip "no /dev/fd here"
	# About 900 KB of command line (at most 128 KiB an argument, 2 MiB in all on Linux).
	local big
	big=$(head -c 100000 /dev/zero | tr '\000' x)
	strace -f -e trace=write -e signal=none -o "$BATS_TEST_TMPDIR/trace" "$RUNLIMIT" \
		--report=/dev/fd/3 10 true "$big" "$big" "$big" "$big" "$big" "$big" "$big" "$big" \
		"$big" 3>"$F" </dev/null >/dev/null 2>&1
	report_is "$F" 'd["command"][1:] == ["x" * 100000] * 9'
	local size
	size=$(wc -c <"$F")
	# One write(3, ...) that took the whole report.
	grep -E '^[0-9]+ +write\(3,' "$BATS_TEST_TMPDIR/trace" | sed 's/.*= //' >"$BATS_TEST_TMPDIR/writes"
	echo "report: $size bytes; writes to 3: $(tr '\n' ' ' <"$BATS_TEST_TMPDIR/writes")" >&2
	[ "$size" -gt 900000 ]
	[ "$(cat "$BATS_TEST_TMPDIR/writes")" = "$size" ]
	# A 3M tail, 3 MB of report: writes of at most 1 MiB, the whole of it.
	strace -f -e trace=write -e signal=none -o "$BATS_TEST_TMPDIR/trace" "$RUNLIMIT" \
		--report=/dev/fd/3 --report-tail=3M 10 sh -c 'head -c 3000000 /dev/zero | tr "\000" y >&2' \
		3>"$F" </dev/null 2>&1 | cat >/dev/null
	report_is "$F" 'd["output"]["stderr_tail"]["text"] == "y" * 3000000'
	size=$(wc -c <"$F")
	grep -E '^[0-9]+ +write\(3,' "$BATS_TEST_TMPDIR/trace" | sed 's/.*= //' >"$BATS_TEST_TMPDIR/writes"
	echo "report: $size bytes; writes to 3: $(tr '\n' ' ' <"$BATS_TEST_TMPDIR/writes")" >&2
	[ "$(wc -l <"$BATS_TEST_TMPDIR/writes")" -ge 3 ]
	[ "$(awk '{ s += $1 } END { print s }' "$BATS_TEST_TMPDIR/writes")" = "$size" ]
	awk '$1 > 1048576 { exit 1 }' "$BATS_TEST_TMPDIR/writes"
}

@test "a report that cannot be written (/dev/full): a warning, the status unchanged" {
	[ -c /dev/full ] || skip "no /dev/full here"
	run -3 --separate-stderr "$RUNLIMIT" --report=/dev/full 10 sh -c 'exit 3'
	[ "$stderr" = "$RUNLIMIT: cannot write the report to '/dev/full': No space left on device" ]
}

@test "a FIFO without a reader: a warning at once, not a wait for one" {
	command -v mkfifo >/dev/null || skip "no mkfifo here"
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	run -3 --separate-stderr bounded 20 "$RUNLIMIT" --report="$BATS_TEST_TMPDIR/fifo" 10 sh -c 'exit 3'
	[ "$stderr" = "$RUNLIMIT: cannot write the report to '$BATS_TEST_TMPDIR/fifo': No such device or address" ]
}

@test "an infinite time limit is a number in the report, and the report still parses" {
	run -0 "$RUNLIMIT" --report="$F" -k inf inf true
	report_is "$F" 'd["duration_seconds"] > 9e9' 'd["kill_after_seconds"] > 9e9'
}

@test "a report file with a 250-byte name" {
	local name
	name=$(printf 'r%.0s' $(seq 250))
	run -0 "$RUNLIMIT" --report="$BATS_TEST_TMPDIR/$name" 10 true
	report_is "$BATS_TEST_TMPDIR/$name" 'd["outcome"] == "exited"'
}

@test "no report for --help or --version, even when they cannot be written" {
	run -0 "$RUNLIMIT" --report="$F" --help
	[ ! -e "$F" ]
	local status=0
	"$RUNLIMIT" --report="$F" --version >&- 2>/dev/null || status=$?
	[ "$status" -eq 125 ]
	[ ! -e "$F" ]
}

@test "a read-only target directory: a warning, the status unchanged, nothing left behind" {
	local dir=$BATS_TEST_TMPDIR/ro
	mkdir "$dir"
	chmod 555 "$dir"
	if touch "$dir/probe" 2>/dev/null; then
		# root writes anywhere: a directory no one may create files in (sysfs), if any.
		rm -f "$dir/probe"
		dir=/sys
		[ -d "$dir" ] && ! touch "$dir/runlimit-probe" 2>/dev/null ||
			skip "no directory here that this user cannot write in"
	fi
	run -3 --separate-stderr "$RUNLIMIT" --report="$dir/report.json" 10 sh -c 'exit 3'
	[[ "$stderr" == "$RUNLIMIT: cannot write the report to '$dir/report.json': "* ]]
	[ ! -e "$dir/report.json" ]
	[ -z "$(find "$dir" -maxdepth 1 -name '.report.json.runlimit-*' 2>/dev/null)" ]
}

@test "an existing report is replaced whole, keeping its mode; a new one gets the umask's" {
	printf 'old report, much longer than the new one will ever be %01000d\n' 0 >"$F"
	chmod 640 "$F"
	(umask 077 && "$RUNLIMIT" --report="$F" 10 true)
	report_is "$F" 'd["outcome"] == "exited"'
	[ "$(ls -l "$F" | cut -c1-10)" = "-rw-r-----" ]
	rm "$F"
	(umask 027 && "$RUNLIMIT" --report="$F" 10 true)
	[ "$(ls -l "$F" | cut -c1-10)" = "-rw-r-----" ]
	[ -z "$(ls -A "$BATS_TEST_TMPDIR" | grep runlimit-)" ]
}

# ---- issue 19: a report path never destroys a file ----------------------------------------

@test "19.1: a symbolic link named FILE is replaced, never followed: the file it names is untouched" {
	mkdir "$BATS_TEST_TMPDIR/elsewhere"
	echo keep >"$BATS_TEST_TMPDIR/elsewhere/f"
	chmod 600 "$BATS_TEST_TMPDIR/elsewhere/f"
	ln -s elsewhere/f "$F"
	"$RUNLIMIT" --report="$F" 10 true
	[ ! -L "$F" ]
	report_is "$F" 'd["outcome"] == "exited"'
	[ "$(cat "$BATS_TEST_TMPDIR/elsewhere/f")" = keep ]
	[ "$(ls -l "$BATS_TEST_TMPDIR/elsewhere/f" | cut -c1-10)" = "-rw-------" ]
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/elsewhere" | grep runlimit-)" ]
}

# sticky_setup OWNER: a victim's file (secret, 0600, owned by OWNER, in a directory of
# OWNER's) and a public sticky directory $PUB in which uid $2 has planted report.json, a
# symbolic link to the victim's file.
sticky_setup() {
	PUB=$(public_dir)
	VICTIM=$(mktemp -d /tmp/runlimit-victim.XXXXXX)
	echo secret >"$VICTIM/f"
	chmod 600 "$VICTIM/f"
	chown -R "$1:$1" "$VICTIM"
	as_user "$2" ln -s "$VICTIM/f" "$PUB/report.json"
	[ -L "$PUB/report.json" ]
}

sticky_teardown() {
	rm -rf "${PUB:?}" "${VICTIM:?}"
}

# victim_intact: the victim's file still holds its secret, with its mode, and nothing of
# runlimit's was made beside it.
victim_intact() {
	[ "$(cat "$VICTIM/f")" = secret ]
	[ "$(ls -l "$VICTIM/f" | cut -c1-10)" = "-rw-------" ]
	[ "$(ls -A "$VICTIM")" = f ]
}

@test "19.1: as root, a link another user planted in a sticky directory is replaced, its target kept" {
	needs_other_users
	sticky_setup 0 65534
	"$RUNLIMIT" --report="$PUB/report.json" 10 true || { sticky_teardown; false; }
	local ok=0
	{ victim_intact && [ ! -L "$PUB/report.json" ] && report_is "$PUB/report.json" \
		'd["outcome"] == "exited"' && [ "$(ls -A "$PUB")" = report.json ]; } || ok=$?
	ls -la "$PUB" "$VICTIM" >&2
	sticky_teardown
	[ "$ok" -eq 0 ]
}

@test "19.1: as an unprivileged user, another's link in a sticky directory: a warning, the target kept" {
	needs_other_users
	sticky_setup 65534 65533
	run -3 --separate-stderr as_user 65534 "$USER_RL" --report="$PUB/report.json" 10 sh -c 'exit 3'
	local ok=0
	{ victim_intact && [ -L "$PUB/report.json" ] && [ "$(ls -A "$PUB")" = report.json ] &&
		[[ "$stderr" == "$USER_RL: cannot write the report to '$PUB/report.json': "* ]]; } || ok=$?
	ls -la "$PUB" "$VICTIM" >&2
	echo "stderr: $stderr" >&2
	sticky_teardown
	[ "$ok" -eq 0 ]
}

# ---- issue 52: nothing goes into a file another user planted in a sticky directory --------

# plant KIND UID PATH: PATH made a KIND that UID owns: fifo, file (holding "planted"), socket,
# or device (/dev/null's numbers; fails where this system lets no one make one).
plant() {
	case $1 in
	fifo) as_user "$2" mkfifo -m 622 "$3" ;;
	file) as_user "$2" sh -c 'echo planted >"$0" && chmod 622 "$0"' "$3" ;;
	socket) "$PY" -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$3" &&
		chown "$2:$2" "$3" ;;
	device) "$PY" -c 'import os, stat, sys
os.mknod(sys.argv[1], 0o666 | stat.S_IFCHR, os.stat("/dev/null").st_rdev)' "$3" 2>/dev/null &&
		chown "$2:$2" "$3" ;;
	esac
}

# still_planted KIND UID PATH: PATH is still what plant made, untouched.
still_planted() {
	case $1 in
	fifo) [ -p "$3" ] ;;
	file) [ -f "$3" ] && [ ! -L "$3" ] && [ "$(cat "$3")" = planted ] ;;
	socket) [ -S "$3" ] ;;
	device) [ -c "$3" ] ;;
	esac || return 1
	[ "$(ls -ln "$3" | awk '{ print $3 }')" = "$2" ]
}

# with_reader FIFO OUT PROGRAM [ARG]...: PROGRAM (its status returned) while FIFO has a
# reader, this shell, as fd 7 (opened to read and write, so the open waits for no one and no
# reader is left behind); then the first line the FIFO got goes to OUT: PROGRAM's, or else
# "nothing", which this shell writes after it.
with_reader() {
	local fifo=$1 out=$2 st=0 line=
	shift 2
	exec 7<>"$fifo" || return 99
	"$@" || st=$?
	echo nothing >&7
	IFS= read -r -t 10 line <&7 || true
	exec 7<&-
	printf '%s\n' "$line" >"$out"
	return "$st"
}

# refused RUNLIMIT PATH: the one line that says the report was not written into PATH.
refused() {
	printf "%s: cannot write the report to '%s': it belongs to another user, in a sticky directory others may write" \
		"$1" "$2"
}

@test "52: as root, a FIFO another user planted in a sticky directory gets nothing: one warning names it, the status unchanged" {
	needs_other_users
	PUB=$(public_dir)
	plant fifo 65534 "$PUB/report.json"
	run -3 --separate-stderr with_reader "$PUB/report.json" "$BATS_TEST_TMPDIR/got" \
		"$RUNLIMIT" --report="$PUB/report.json" --report-tail=1k 10 sh -c 'echo token=s3cr3t >&2; exit 3'
	cat "$BATS_TEST_TMPDIR/got" >&2
	[ "$(cat "$BATS_TEST_TMPDIR/got")" = nothing ]
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ "${stderr_lines[0]}" = token=s3cr3t ]
	[ "${stderr_lines[1]}" = "$(refused "$RUNLIMIT" "$PUB/report.json")" ]
	still_planted fifo 65534 "$PUB/report.json"
	[ "$(ls -A "$PUB")" = report.json ]
}

@test "52: as root, a socket, a regular file or a device another user planted there: refused, left as it was" {
	needs_other_users
	local kind kinds="socket file device"
	for kind in $kinds; do
		PUB=$(public_dir)
		if ! plant "$kind" 65534 "$PUB/report.json"; then
			[ "$kind" = device ] || false
			echo "# no device made here: that case is not checked" >&3
			rm -rf "$PUB"
			continue
		fi
		run -3 --separate-stderr "$RUNLIMIT" --report="$PUB/report.json" 10 sh -c 'exit 3'
		echo "$kind: $stderr" >&2
		[ "$stderr" = "$(refused "$RUNLIMIT" "$PUB/report.json")" ]
		still_planted "$kind" 65534 "$PUB/report.json"
		[ "$(ls -A "$PUB")" = report.json ]
		rm -rf "$PUB"
	done
	# A sticky directory that only a group may write is shared too.
	PUB=$(public_dir)
	plant fifo 65534 "$PUB/report.json"
	chmod 1770 "$PUB"
	run -0 --separate-stderr with_reader "$PUB/report.json" "$BATS_TEST_TMPDIR/got" \
		"$RUNLIMIT" --report="$PUB/report.json" 10 true
	[ "$(cat "$BATS_TEST_TMPDIR/got")" = nothing ]
	[ "$stderr" = "$(refused "$RUNLIMIT" "$PUB/report.json")" ]
}

@test "52: as an unprivileged user, another's FIFO or regular file in a sticky directory: refused, nothing written" {
	needs_other_users
	PUB=$(public_dir)
	plant fifo 65533 "$PUB/fifo.json"
	plant file 65533 "$PUB/file.json"
	run -3 --separate-stderr with_reader "$PUB/fifo.json" "$BATS_TEST_TMPDIR/got" \
		as_user 65534 "$USER_RL" --report="$PUB/fifo.json" 10 sh -c 'exit 3'
	[ "$(cat "$BATS_TEST_TMPDIR/got")" = nothing ]
	[ "$stderr" = "$(refused "$USER_RL" "$PUB/fifo.json")" ]
	run -3 --separate-stderr as_user 65534 "$USER_RL" --report="$PUB/file.json" 10 sh -c 'exit 3'
	[ "$stderr" = "$(refused "$USER_RL" "$PUB/file.json")" ]
	still_planted fifo 65533 "$PUB/fifo.json"
	still_planted file 65533 "$PUB/file.json"
	[ "$(ls -A "$PUB" | tr '\n' ' ')" = "fifo.json file.json " ]
}

@test "52: a FIFO of the user's own or of the directory's owner there still gets the report, and so does a descriptor on a planted one" {
	needs_other_users
	PUB=$(public_dir)
	local got=$BATS_TEST_TMPDIR/got
	mkfifo "$PUB/root.json"
	run -0 with_reader "$PUB/root.json" "$got" "$RUNLIMIT" --report="$PUB/root.json" 10 true
	report_is "$got" 'd["outcome"] == "exited"'
	plant fifo 65534 "$PUB/mine.json"
	run -0 with_reader "$PUB/mine.json" "$got" as_user 65534 "$USER_RL" --report="$PUB/mine.json" 10 true
	report_is "$got" 'd["outcome"] == "exited"'
	# The directory's owner may replace anything in it anyway: its FIFO is no plant.
	chown 65533:65533 "$PUB"
	plant fifo 65533 "$PUB/owner.json"
	run -0 with_reader "$PUB/owner.json" "$got" as_user 65534 "$USER_RL" --report="$PUB/owner.json" 10 true
	report_is "$got" 'd["outcome"] == "exited"'
	# A descriptor the caller opened on another's FIFO is the caller's to give.
	plant fifo 65534 "$PUB/theirs.json"
	run -0 with_reader "$PUB/theirs.json" "$got" sh -c '"$0" --report=/dev/stdout 10 true >&7' "$RUNLIMIT"
	report_is "$got" 'd["outcome"] == "exited"'
	if [ -e /dev/fd/1 ]; then
		run -0 with_reader "$PUB/theirs.json" "$got" "$RUNLIMIT" --report=/dev/fd/7 10 true
		report_is "$got" 'd["outcome"] == "exited"'
	fi
}

# ---- issue 60: a link planted at the report path never diverts the report -----------------

# diverted_not LINK_OWNER TARGET: as root, with LINK_OWNER's link report.json -> TARGET in a
# public sticky directory, a run whose stdout and stderr go to a log: the log holds the
# command's output alone, and report.json became the report itself, a file of root's.
diverted_not() {
	local log=$BATS_TEST_TMPDIR/job.out
	rm -f "$PUB/report.json"
	as_user "$1" ln -s "$2" "$PUB/report.json"
	"$RUNLIMIT" --report="$PUB/report.json" --report-tail=64k 10 \
		sh -c 'echo job-out; echo job-err >&2' >"$log" 2>&1 ||
		{ echo "runlimit failed for a link to $2" >&2; return 1; }
	[ "$(cat "$log")" = "job-out
job-err" ] || { echo "the report went through $2 into the caller's log:" >&2; cat "$log" >&2; return 1; }
	[ -f "$PUB/report.json" ] && [ ! -L "$PUB/report.json" ] &&
		[ "$(stat -c %u "$PUB/report.json" 2>/dev/null || stat -f %u "$PUB/report.json")" = 0 ] &&
		report_is "$PUB/report.json" 'd["outcome"] == "exited"' ||
		{ echo "report.json is not root's report after a link to $2" >&2; ls -la "$PUB" >&2; return 1; }
}

@test "60.3: another user's link to a descriptor name in a sticky directory is replaced, never followed into the caller's output" {
	needs_other_users
	PUB=$(public_dir)
	local t
	for t in /dev/stdout /dev/stderr /dev/fd/1 /dev/fd/2 /proc/self/fd/1 /proc/self/fd/2; do
		[ -e "$t" ] || continue
		diverted_not 65534 "$t"
	done
	# A sticky directory only a group may write is shared too.
	chgrp 65534 "$PUB"
	chmod 1770 "$PUB"
	diverted_not 65534 /dev/stdout
}

@test "60.3: in a sticky directory, a link of the user's own or of the directory's owner to /dev/stdout is still followed" {
	needs_other_users
	PUB=$(public_dir)
	ln -s /dev/stdout "$PUB/mine.json"
	run -0 --separate-stderr "$RUNLIMIT" --report="$PUB/mine.json" 10 true
	printf "%s\n" "$output" >"$BATS_TEST_TMPDIR/out.json"
	report_is "$BATS_TEST_TMPDIR/out.json" 'd["outcome"] == "exited"'
	[ -L "$PUB/mine.json" ]
	# As an unprivileged user: its own link, and the directory owner's.
	as_user 65534 ln -s /dev/stdout "$PUB/user.json"
	run -0 --separate-stderr as_user 65534 "$USER_RL" --report="$PUB/user.json" 10 true
	printf "%s\n" "$output" >"$BATS_TEST_TMPDIR/out.json"
	report_is "$BATS_TEST_TMPDIR/out.json" 'd["outcome"] == "exited"'
	chown 65533:65533 "$PUB"
	as_user 65533 ln -s /dev/stdout "$PUB/owner.json"
	run -0 --separate-stderr as_user 65534 "$USER_RL" --report="$PUB/owner.json" 10 true
	printf "%s\n" "$output" >"$BATS_TEST_TMPDIR/out.json"
	report_is "$BATS_TEST_TMPDIR/out.json" 'd["outcome"] == "exited"'
	# Another user's link, the directory's owner being a third: not followed, and not
	# replaceable by this user either (the kernel's sticky rule): a warning, nothing written.
	as_user 65532 ln -s /dev/stdout "$PUB/theirs.json"
	run -0 --separate-stderr as_user 65534 "$USER_RL" --report="$PUB/theirs.json" 10 true
	[ -z "$output" ]
	[[ "$stderr" == "$USER_RL: cannot write the report to '$PUB/theirs.json': "* ]]
	[ "$(readlink "$PUB/theirs.json")" = /dev/stdout ]
}

# log_keeps NAME REDIR FD: with a log that holds two lines, "runlimit --report=NAME 10 echo
# step" with its descriptor FD sent to the log (REDIR: > or >>) leaves the log holding what
# it held, then step, then the report: nothing is lost, nothing replaced.
log_keeps() {
	local log=$LOGDIR/build.log
	printf 'line1\nline2\n' >"$log"
	case $2$3 in
	'>>1') $AS "$RL" --report="$1" 10 echo step >>"$log" ;;
	'>>2') $AS "$RL" --report="$1" 10 sh -c 'echo step >&2' 2>>"$log" ;;
	'>1') $AS "$RL" --report="$1" 10 sh -c 'cat "$0"; echo step' "$log.old" >"$log" ;;
	'>>0') $AS "$RL" --report="$1" 10 echo step 0>>"$log" >>"$log" ;;
	esac
	sed -n 1,3p "$log" >"$log.text"
	sed -n '4,$p' "$log" >"$log.json"
	printf 'line1\nline2\nstep\n' | cmp - "$log.text" || { cat "$log" >&2; return 1; }
	report_is "$log.json" 'd["outcome"] == "exited"' 'd["command"][0] in ("echo", "sh")'
}

# dev_links_kept: /dev/stdin, /dev/stdout and /dev/stderr are still the symbolic links they
# were when the test began ($DEV_LINKS); one a broken runlimit replaced is put back (as
# root), so that a regression fails this test, not the machine.
dev_links() {
	local n
	for n in stdin stdout stderr; do printf '%s=%s ' "$n" "$(readlink "/dev/$n" 2>/dev/null)"; done
}
dev_links_kept() {
	[ "$(dev_links)" = "$DEV_LINKS" ] && return 0
	echo "/dev links changed: was '$DEV_LINKS', now '$(dev_links)'" >&2
	local pair n target
	for pair in $DEV_LINKS; do
		n=${pair%%=*} target=${pair#*=}
		if [ -n "$target" ] && [ ! -L "/dev/$n" ] && [ "$(id -u)" = 0 ]; then
			rm -f "/dev/$n" && ln -s "$target" "/dev/$n"
		fi
	done
	return 1
}

descriptor_names_keep_the_log() {
	log_keeps /dev/stdout '>>' 1 || return 1
	log_keeps /dev/fd/1 '>>' 1 || return 1
	log_keeps /dev/stderr '>>' 2 || return 1
	log_keeps /dev/fd/2 '>>' 2 || return 1
	log_keeps /dev/stdin '>>' 0 || return 1
	if [ -e /proc/self/fd/1 ]; then
		log_keeps /proc/self/fd/1 '>>' 1 || return 1
	fi
	# (Each step says its failure: the caller runs this under || or an if.)
	# Opened with > (no O_APPEND): the report still comes after what was written.
	printf 'line1\nline2\n' >"$LOGDIR/build.log.old" || return 1
	log_keeps /dev/fd/1 '>' 1 || return 1
	# Other spellings of the same names, and a link of the caller's to one.
	log_keeps /dev//stdout '>>' 1 || return 1
	log_keeps //dev/./stderr '>>' 2 || return 1
	if [ -e /proc/self/fd/1 ]; then
		ln -sfn /proc/self/fd/1 "$LOGDIR/out-link" || return 1
		log_keeps "$LOGDIR/out-link" '>>' 1 || return 1
		[ -L "$LOGDIR/out-link" ] || return 1
	fi
	dev_links_kept
}

@test "19.2: /dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: written to the descriptor, at its end" {
	[ -e /dev/fd/1 ] || skip "no /dev/fd here"
	DEV_LINKS=$(dev_links)
	LOGDIR=$BATS_TEST_TMPDIR AS= RL=$RUNLIMIT
	descriptor_names_keep_the_log
}

@test "19.2: the same as an unprivileged user" {
	needs_other_users
	LOGDIR=$(mktemp -d /tmp/runlimit-log.XXXXXX)
	chown 65534:65534 "$LOGDIR"
	AS="as_user 65534" RL=$USER_RL DEV_LINKS=$(dev_links)
	local ok=0
	descriptor_names_keep_the_log || ok=$?
	rm -rf "$LOGDIR"
	[ "$ok" -eq 0 ]
}

@test "a concurrent reader never sees a partial report" {
	# 60 runs, each writing a report of about 200 kB (a long command line) over the last,
	# while a reader opens and parses the file as fast as it can: every read must parse.
	run -0 bounded 120 "$PY" -c '
import json, subprocess, sys, threading
path, rl = sys.argv[1], sys.argv[2]
big = ["x" * 50000] * 4
subprocess.run([rl, "--report=" + path, "10", "true"] + big, check=True)
done = False
reads = bad = 0
def reader():
    global reads, bad
    while not done:
        with open(path, "rb") as f:
            text = f.read()
        reads += 1
        try:
            json.loads(text)
        except ValueError:
            bad += 1
t = threading.Thread(target=reader)
t.start()
for i in range(60):
    subprocess.run([rl, "--report=" + path, "10", "true"] + big, check=True)
done = True
t.join()
print("reads", reads, "bad", bad)
sys.exit(1 if bad or reads < 60 else 0)' "$F" "$RUNLIMIT"
	echo "$output" >&2
}

@test "-v says the same with --report as without" {
	run -124 --separate-stderr "$RUNLIMIT" -v 0.1 sleep 10
	local plain=$stderr
	run -124 --separate-stderr "$RUNLIMIT" -v --report="$F" 0.1 sleep 10
	# The tree at the limit aside (its pids and times are this run's)
	[ "$(signal_lines "$stderr")" = "$(signal_lines "$plain")" ]
	[ "$(echo "$stderr" | grep -c "tree at")" -eq "$(echo "$plain" | grep -c "tree at")" ]
	[ -n "$plain" ]
}

@test "as timeout, --report works too" {
	ln -s "$RUNLIMIT" "$BATS_TEST_TMPDIR/timeout"
	run -124 "$BATS_TEST_TMPDIR/timeout" --report="$F" 0.1 sleep 10
	report_is "$F" 'd["outcome"] == "timed-out"'
}

@test "without --report, no report system call: no getrusage, umask, rename or temporary file" {
	needs_strace
	[ -z "${ASAN_OPTIONS:-}" ] || skip "the sanitizers' leak check cannot run under strace"
	local calls='getrusage|umask|rename|fchmod|\.runlimit-[A-Za-z0-9]{6}'
	run -0 strace -f -o "$BATS_TEST_TMPDIR/trace" "$RUNLIMIT" 10 true
	run -1 grep -E "$calls" "$BATS_TEST_TMPDIR/trace"
	# ...and with it, they are there (the check above can fail).
	run -0 strace -f -o "$BATS_TEST_TMPDIR/trace" "$RUNLIMIT" --report="$F" 10 true
	run -0 grep -E "$calls" "$BATS_TEST_TMPDIR/trace"
}
