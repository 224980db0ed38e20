#!/usr/bin/env bats
# --report-tail (DESIGN §7): the run report keeps the last SIZE bytes of the command's stderr
# (with stdout when they are the same file), escaped as argv is, with how many bytes were
# written and how many were cut before the kept part; constant memory whatever the volume.

bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	make_dfl_wrapper
}

setup() {
	D=$BATS_TEST_TMPDIR
	R=$TOOLS/report_is.py
}

# tail_is REPORT FILE SIZE: the report's stderr tail is the last SIZE bytes of FILE, and its
# counts say how much FILE had and how much was cut.
tail_is() {
	"$PY" - "$1" "$2" "$3" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
want = open(sys.argv[2], "rb").read()
size = int(sys.argv[3])
t = d["output"]["stderr_tail"]
got = t["text"].encode("utf-8", "surrogateescape")
keep = want[-size:] if size else b""
assert got == keep, "tail differs: %d bytes, want %d" % (len(got), len(keep))
assert t["bytes"] == len(want), (t["bytes"], len(want))
assert t["cut"] == len(want) - len(keep), (t["cut"], len(want) - len(keep))
PYEOF
}

@test "10 bytes of a short stderr: the end, the count, the cut" {
	printf 'first line\nthe end\n' >"$D/want"
	bounded 30 "$RUNLIMIT" --report="$D/r.json" --report-tail=10 30 cat "$D/want" \
		2> >(cat >"$D/err") >&2
	tail_is "$D/r.json" "$D/want" 10
}

@test "50 MB of stderr: the last 1M exact, the rest counted as cut, and the relay byte-exact" {
	head -c 50000000 /dev/urandom >"$D/want"
	bounded 60 "$RUNLIMIT" --report="$D/r.json" --report-tail=1M 60 sh -c 'cat "$1" >&2' _ "$D/want" \
		2> >(cat >"$D/err")
	wait_until 20 size_is "$D/err" 50000000
	cmp "$D/err" "$D/want"
	tail_is "$D/r.json" "$D/want" 1048576
}

@test "a tail larger than what was written keeps it all, NUL bytes and invalid UTF-8 included" {
	printf 'a\000b\377c\303\251' >"$D/want"
	bounded 30 "$RUNLIMIT" --report="$D/r.json" --report-tail=4K 30 cat "$D/want" \
		2> >(cat >/dev/null) >&2
	tail_is "$D/r.json" "$D/want" 4096
}

@test "2>&1: the tail has stdout and stderr as they were interleaved" {
	bounded 30 "$RUNLIMIT" --report="$D/r.json" --report-tail=1K 30 \
		sh -c 'echo out1; echo err1 >&2; echo out2' 2>&1 | cat >"$D/want"
	tail_is "$D/r.json" "$D/want" 1024
}

@test "stdout alone is not in the tail" {
	bounded 30 "$RUNLIMIT" --report="$D/r.json" --report-tail=1K 30 \
		sh -c 'echo out; echo err >&2' 2> >(cat >/dev/null) | cat >/dev/null
	printf 'err\n' >"$D/want"
	tail_is "$D/r.json" "$D/want" 1024
}

@test "stderr a regular file: the tail is read back from it, what this run wrote only" {
	echo "an earlier run's line" >"$D/err.log"
	bounded 30 "$RUNLIMIT" --report="$D/r.json" --report-tail=8 30 \
		sh -c 'echo "this run: the error"; exit 3' 2>>"$D/err.log" >&2 || true
	if "$PY" "$R" "$D/r.json" 'd["output"]["stderr_tail"] is None' 2>/dev/null; then
		if expected readback; then
			echo "this build should read the tail back from a file, but gave none" >&2
			return 1
		fi
		skip "this build cannot reopen a file for reading from its descriptor (no /proc, no F_GETPATH)"
	fi
	printf 'this run: the error\n' >"$D/want"
	tail_is "$D/r.json" "$D/want" 8
	[ "$(head -n 1 "$D/err.log")" = "an earlier run's line" ] # not touched
}

@test "the stream kinds stay what they were under --report-tail" {
	local probe='[ -p /dev/stderr ] && echo pipe; [ -f /dev/stderr ] && echo file; :'
	[ "$("$RUNLIMIT" --report="$D/r.json" --report-tail=1K 10 sh -c "$probe" 2>&1 | cat)" = pipe ]
	"$RUNLIMIT" --report="$D/r.json" --report-tail=1K 10 sh -c "{ $probe; } >&2" 2>"$D/f"
	[ "$(cat "$D/f")" = file ]
}

@test "without --report-tail the report's tail is null" {
	bounded 30 "$RUNLIMIT" --report="$D/r.json" --output-grace=1 30 sh -c 'echo err >&2' 2>&1 | cat >/dev/null
	"$PY" "$R" "$D/r.json" 'd["output"]["stderr_tail"] is None'
}

@test "--report-tail: bad sizes and a missing --report are usage errors naming the value" {
	local bad
	for bad in 17M 1G -1 K 10x '' 99999999999999999999; do
		run -125 --separate-stderr "$RUNLIMIT" --report="$D/r.json" --report-tail="$bad" 10 true
		[[ "$stderr" == *"invalid tail size '$bad'"* ]]
	done
	run -0 "$RUNLIMIT" --report="$D/r.json" --report-tail=16M 10 true
	run -125 --separate-stderr "$RUNLIMIT" --report-tail=1K 10 true
	[[ "$stderr" == *"'--report-tail' needs --report"* ]]
}
