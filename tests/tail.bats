#!/usr/bin/env bats
# --report-tail (runlimit.1; docs/design.md, "The relay"): the run report keeps the last SIZE bytes of the command's stderr
# (with stdout when they are the same file), as valid UTF-8 text and, where the text is not
# the bytes, in base64 too, with how many bytes were written and how many were cut before the
# kept part; constant memory whatever the volume, and about SIZE at the end too.

bats_require_minimum_version 1.5.0

load helpers

setup_file() {
	make_dfl_wrapper
}

setup() {
	D=$BATS_TEST_TMPDIR
	R=$TOOLS/report_is.py
}

# tail_is REPORT FILE SIZE: the report's stderr tail is the last SIZE bytes of FILE (its
# base64 where the text is not the bytes, else its text, which must then be them), its text
# those bytes as UTF-8 with U+FFFD for what is not (less a character cut at the start), and
# its counts say how much FILE had and how much was cut.
tail_is() {
	"$PY" "$R" "$1"
	"$PY" - "$1" "$2" "$3" <<'PYEOF'
import base64, json, sys
d = json.load(open(sys.argv[1]))
want = open(sys.argv[2], "rb").read()
size = int(sys.argv[3])
t = d["output"]["stderr_tail"]
keep = want[-size:] if size else b""
got = base64.b64decode(t["base64"]) if t["base64"] is not None else t["text"].encode("utf-8")
assert got == keep, "tail differs: %d bytes, want %d" % (len(got), len(keep))
text = keep
if len(keep) < len(want):  # cut: the rest of a character cut off is left out
    for _ in range(3):
        if text[:1] and 0x80 <= text[0] <= 0xBF:
            text = text[1:]
assert t["text"] == text.decode("utf-8", "replace"), "text differs"
assert (t["base64"] is None) == (t["text"].encode("utf-8") == keep), "base64 where not needed, or missing"
assert t["bytes"] == len(want), (t["bytes"], len(want))
assert t["cut"] == len(want) - len(keep), (t["cut"], len(want) - len(keep))
assert d["output"]["stderr_tail_unavailable"] is None
PYEOF
}

# outer_rss REPORT: the peak resident size, in KiB, of the runlimit run under an outer one
# whose report is REPORT (its rusage: the largest of its children, the inner runlimit).  A
# parent that is small when it forks: python's or a shell's size before the exec would count.
outer_rss() {
	"$PY" "$R" "$1"
	"$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["rusage"]["max_rss_kib"])' "$1"
}

# address_space_kib: in KiB, the address space of a runlimit running a command (its own
# parent's, as /proc shows it); fails where /proc cannot tell.
address_space_kib() {
	"$RUNLIMIT" 30 sh -c 'awk '\''$1 == "VmSize:" { print $2 }'\'' "/proc/$PPID/status"' 2>/dev/null | grep -E '^[0-9]+$'
}

# needs_as_limit: skip unless ulimit -v limits the address space here (RLIMIT_AS; macOS does
# not enforce it) and the size of a runlimit can be read (/proc), and not under the
# sanitizers, which reserve more address space than any limit.
needs_as_limit() {
	[ -z "${ASAN_OPTIONS:-}" ] || skip "the sanitizers reserve more address space than any limit"
	AS_KIB=$(address_space_kib) || skip "no /proc/PID/status to read runlimit's address space from"
	(ulimit -v $((AS_KIB + 65536)) && "$PY" -c 'bytearray(200 << 20)') 2>/dev/null &&
		skip "ulimit -v does not limit the address space here"
	return 0
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

@test "a 16M tail of bytes that need escapes: the peak memory stays near 16 MiB, the report whole" {
	# 20 MB of \001: each kept byte is 6 in the JSON, about 100 MB of report.  It used to be
	# built in memory, doubling: 130 MB at the end.  Now it is written as it is made, from
	# the ring itself.  The outer runlimit measures the inner one.
	local kib
	bounded 120 "$RUNLIMIT" --report="$D/outer.json" 120 "$RUNLIMIT" --report="$D/r.json" \
		--report-tail=16M 120 sh -c 'head -c 20000000 /dev/zero | tr "\000" "\001" >&2' \
		2>&1 | cat >/dev/null
	kib=$(outer_rss "$D/outer.json")
	echo "peak RSS: $kib KiB" >&2
	# 16 MiB, and 16 MiB more for everything else (the sanitizers' shadow included).
	[ "$kib" -lt $((32 * 1024)) ]
	"$PY" "$R" "$D/r.json" 'd["output"]["stderr_tail"]["text"] == "\x01" * (16 << 20)' \
		'd["output"]["stderr_tail"]["base64"] is None' \
		'd["output"]["stderr_tail"]["bytes"] == 20000000' \
		'd["output"]["stderr_tail"]["cut"] == 20000000 - (16 << 20)'
}

@test "a 16M tail to a pipe (/dev/fd/3): whole, in pieces, and near 16 MiB too" {
	[ -e /dev/fd/0 ] || skip "no /dev/fd here"
	local kib
	bounded 120 "$RUNLIMIT" --report="$D/outer.json" 120 "$RUNLIMIT" --report=/dev/fd/3 \
		--report-tail=16M 120 sh -c 'head -c 20000000 /dev/zero | tr "\000" "\001" >&2' \
		3>&1 >/dev/null 2> >(cat >/dev/null) | cat >"$D/r.json"
	kib=$(outer_rss "$D/outer.json")
	echo "peak RSS: $kib KiB" >&2
	# (an emulator's own memory counts too: qemu-user adds some 8 MiB)
	[ "$kib" -lt $(( ${RUNLIMIT_EMULATED:+8 * 1024 +} 32 * 1024)) ]
	"$PY" "$R" "$D/r.json" 'len(d["output"]["stderr_tail"]["text"]) == 16 << 20'
}

@test "no memory for the tail (ulimit -v): the command runs, the report has a null tail and why" {
	needs_as_limit
	# Room for runlimit and 8 MiB more: not for a ring of 16 MiB.
	run -0 --separate-stderr bash -c 'ulimit -v $(($1 + 8192)) && exec "$2" --report="$3" \
		--report-tail=16M 30 sh -c "echo to stderr >&2; exit 0" 2>&1 | cat' _ "$AS_KIB" \
		"$RUNLIMIT" "$D/r.json"
	echo "output: $output; stderr: $stderr" >&2
	[ "$output" = "to stderr" ]
	"$PY" "$R" "$D/r.json" 'd["outcome"] == "exited"' 'd["exit_status"] == 0' \
		'd["output"]["stderr_tail"] is None' \
		'd["output"]["stderr_tail_unavailable"] in ("Cannot allocate memory", "Out of memory")' \
		'd["output"]["stdout_bytes"] == 10'
}

@test "no memory for the tail, stderr a regular file: a null tail and why, nothing read into nowhere" {
	needs_as_limit
	run -0 --separate-stderr bash -c 'ulimit -v $(($1 + 8192)) && exec "$2" --report="$3" \
		--report-tail=16M 30 sh -c "echo to stderr >&2; exit 0" 2>"$4"' _ "$AS_KIB" \
		"$RUNLIMIT" "$D/r.json" "$D/err"
	[ "$(cat "$D/err")" = "to stderr" ]
	"$PY" "$R" "$D/r.json" 'd["outcome"] == "exited"' \
		'd["output"]["stderr_tail"] is None' \
		'd["output"]["stderr_tail_unavailable"] in ("Cannot allocate memory", "Out of memory")'
}

@test "room for a 16M tail but not for copies of it (ulimit -v): the report is written whole" {
	needs_as_limit
	# The ring and 24 MiB more: the report's 100 MB of escapes must go out as they are made.
	run -0 --separate-stderr bash -c 'ulimit -v $(($1 + 16384 + 24576)) && exec "$2" \
		--report="$3" --report-tail=16M 60 sh -c "head -c 20000000 /dev/zero | tr \"\\000\" \"\\001\" >&2" \
		2>&1 | cat >/dev/null' _ "$AS_KIB" "$RUNLIMIT" "$D/r.json"
	echo "stderr: $stderr" >&2
	[ -z "$stderr" ]
	"$PY" "$R" "$D/r.json" 'len(d["output"]["stderr_tail"]["text"]) == 16 << 20' \
		'd["output"]["stderr_tail_unavailable"] is None'
}

@test "--report-tail sizes as GNU head -c reads them: k and K 1024, M and m 1048576, KiB, MiB, kB, MB" {
	head -c 1100000 /dev/zero | tr '\000' 'x' >"$D/want"
	local pair size bytes
	for pair in 3:3 1k:1024 1K:1024 2KiB:2048 1kiB:1024 1kB:1000 2KB:2000 1m:1048576 \
		1M:1048576 1MiB:1048576 1MB:1000000 16MiB:16777216 16MB:16000000; do
		size=${pair%:*} bytes=${pair#*:}
		bounded 30 "$RUNLIMIT" --report="$D/r.json" --report-tail="$size" 30 cat "$D/want" \
			2> >(cat >/dev/null) >&2 || { echo "$size: refused" >&2; return 1; }
		[ "$bytes" -gt 1100000 ] && bytes=1100000
		"$PY" "$R" "$D/r.json" "d['output']['stderr_tail']['cut'] == 1100000 - $bytes" ||
			{ echo "$size: not $bytes bytes" >&2; return 1; }
	done
	# The manual's and --help's words for them.
	"$RUNLIMIT" --help | grep -q 'K or k (1024)'
}

@test "--report-tail: any other suffix is a usage error" {
	local bad
	for bad in 1Ki 1kb 1Kb 1Mib 1MIB 1KK 1k1 1b 1G 1kiB0; do
		run -125 --separate-stderr "$RUNLIMIT" --report="$D/r.json" --report-tail="$bad" 10 true
		[[ "$stderr" == *"invalid tail size '$bad'"* ]] || { echo "$bad: $stderr" >&2; return 1; }
	done
}

@test "a tail that starts inside a character leaves it out, and its base64 has the bytes" {
	# é is two bytes: a 9-byte tail of x and five of them starts at the second byte of one.
	printf 'x\303\251\303\251\303\251\303\251\303\251' >"$D/want"
	bounded 30 "$RUNLIMIT" --report="$D/r.json" --report-tail=9 30 cat "$D/want" \
		2> >(cat >/dev/null) >&2
	tail_is "$D/r.json" "$D/want" 9
	"$PY" "$R" "$D/r.json" 'd["output"]["stderr_tail"]["text"] == "\u00e9" * 4' \
		'd["output"]["stderr_tail"]["cut"] == 2'
	"$PY" "$TOOLS/unicode_report.py" "$D/r.json"
}

@test "1 MB of stderr cut inside a character: valid Unicode throughout, the bytes in base64" {
	# 400,000 euro signs (3 bytes each) under a 1M tail: the tail starts at a character's
	# last byte, which used to come out as a lone surrogate escape.
	"$PY" -c 'import sys; sys.stdout.buffer.write("\u20ac".encode() * 400000)' >"$D/want"
	bounded 30 "$RUNLIMIT" --report="$D/r.json" --report-tail=1M 30 cat "$D/want" \
		2> >(cat >/dev/null) >&2
	tail_is "$D/r.json" "$D/want" 1048576
	"$PY" "$TOOLS/unicode_report.py" "$D/r.json"
	"$PY" "$R" "$D/r.json" 'd["output"]["stderr_tail"]["text"] == "\u20ac" * 349525'
}

@test "invalid UTF-8 and NUL in the tail: U+FFFD and \\u0000 in the text, the bytes in base64" {
	printf 'ok\000nul \377 bad \340\200 overlong \355\240\200 surrogate \342\202' >"$D/want"
	bounded 30 "$RUNLIMIT" --report="$D/r.json" --report-tail=1K 30 cat "$D/want" \
		2> >(cat >/dev/null) >&2
	tail_is "$D/r.json" "$D/want" 1024
	"$PY" "$TOOLS/unicode_report.py" "$D/r.json"
	"$PY" "$R" "$D/r.json" \
		'd["output"]["stderr_tail"]["text"] == "ok\x00nul \ufffd bad \ufffd\ufffd overlong \ufffd\ufffd\ufffd surrogate \ufffd"'
	# NUL alone is text: no base64 needed.
	printf 'a\000b\n' >"$D/want"
	bounded 30 "$RUNLIMIT" --report="$D/r.json" --report-tail=1K 30 cat "$D/want" \
		2> >(cat >/dev/null) >&2
	tail_is "$D/r.json" "$D/want" 1024
	"$PY" "$R" "$D/r.json" 'd["output"]["stderr_tail"]["base64"] is None'
}
