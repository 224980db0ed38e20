#!/usr/bin/env bats
# Multi-call: invoked through a link named "timeout", runlimit is GNU timeout in every visible
# respect.  Both our link and GNU timeout 9.1 are run through PATH, so each sees argv[0] =
# "timeout" and prints the same program name.

# PATH is changed in a subshell on purpose, for one exec.
# shellcheck disable=SC2030,SC2031

load helpers

bats_require_minimum_version 1.5.0

GNU_TIMEOUT=${GNU_TIMEOUT:-/usr/bin/timeout}
TRY="Try 'timeout --help' for more information."

setup_file() {
	# Only GNU's own timeout is the reference (FreeBSD's /usr/bin/timeout is another).
	if gnu_coreutils "$GNU_TIMEOUT"; then GNU_TIMEOUT_OK=yes; else GNU_TIMEOUT_OK=no; fi
	export GNU_TIMEOUT_OK
}

# needs_gnu: skip unless GNU timeout is there to compare with.  Not from inside $(...),
# where a skip would only end the subshell.
needs_gnu() {
	[ "$GNU_TIMEOUT_OK" = yes ] || skip "no GNU timeout at $GNU_TIMEOUT"
}

setup() {
	local bin
	bin=$(cd "$(dirname "$RUNLIMIT")" && pwd)/$(basename "$RUNLIMIT")
	mkdir -p "$BATS_TEST_TMPDIR/ours" "$BATS_TEST_TMPDIR/gnu"
	ln -s "$bin" "$BATS_TEST_TMPDIR/ours/timeout"
	ln -s "$GNU_TIMEOUT" "$BATS_TEST_TMPDIR/gnu/timeout"
	ours_link=$BATS_TEST_TMPDIR/ours/timeout
}

# ours ARGS...: our link, found through PATH as "timeout".  A link to a missing binary would
# let PATH fall through to GNU's timeout: refuse, rather than compare GNU with itself.
ours() {
	(
		PATH="$BATS_TEST_TMPDIR/ours:$PATH"
		if [ "$(command -v timeout)" != "$BATS_TEST_TMPDIR/ours/timeout" ]; then
			echo "our timeout link is not runnable: $(command -v timeout)" >&2
			exit 99
		fi
		exec timeout "$@"
	)
}

# gnu ARGS...: GNU timeout, found through PATH as "timeout" (after needs_gnu).
gnu() {
	(PATH="$BATS_TEST_TMPDIR/gnu:$PATH" && exec timeout "$@")
}

# same_as_gnu ARGS...: identical stderr and exit status (stdout discarded).
same_as_gnu() {
	needs_gnu
	same_outcome ours gnu "$@"
}

@test "the link is really a link to runlimit, and runs commands" {
	[ -L "$ours_link" ]
	[ -x "$ours_link" ]
	run --separate-stderr ours 5 sh -c 'echo hi; exit 3'
	[ "$status" -eq 3 ]
	[ "$output" = hi ]
	[ -z "$stderr" ]
}

@test "messages are prefixed timeout:, and the Try line names timeout" {
	run --separate-stderr ours 1x true
	[ "$status" -eq 125 ]
	[ "$stderr" = "timeout: invalid time interval '1x'"$'\n'"$TRY" ]

	run --separate-stderr ours -v 0.1 sleep 10
	[ "$status" -eq 124 ]
	[ "$stderr" = "timeout: sending signal TERM to command 'sleep'" ]
}

@test "--help says Usage: timeout, on stdout, exit 0" {
	run --separate-stderr ours --help
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "${lines[0]}" = "Usage: timeout [OPTION] DURATION COMMAND [ARG]..." ]
	[[ "$output" != *"Usage: runlimit"* ]]
}

@test "--version: first line is 'timeout (runlimit) VERSION', exit 0" {
	run --separate-stderr ours --version
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "${lines[0]}" =~ ^timeout\ \(runlimit\)\ [0-9]+\.[0-9]+ ]]

	# The same through the link's full path.
	run --separate-stderr "$ours_link" --version
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" =~ ^timeout\ \(runlimit\)\ [0-9] ]]
}

@test "60.4: GNU's version check passes: --version names the GNU coreutils timeout it follows, not claiming to be GNU" {
	# What CI helpers and macOS set-up scripts run before they rely on -k, --foreground or
	# --preserve-status (they look for "GNU coreutils" in timeout's, or gtimeout's, version).
	local check='timeout --version | grep -q "GNU coreutils" || { echo "GNU timeout is required" >&2; exit 1; }
timeout -k 0.5 --preserve-status 10 sh -c "exit 7"'
	run -7 --separate-stderr env PATH="$BATS_TEST_TMPDIR/ours:$PATH" sh -c "$check"
	[ -z "$stderr" ]
	run -0 --separate-stderr ours --version
	[[ "${lines[0]}" =~ ^timeout\ \(runlimit\)\ [0-9] ]]
	[[ "${lines[1]}" == "Compatible with timeout (GNU coreutils) "[0-9]*.[0-9]*": "* ]]
	# Never GNU's first line: whoever reads the name before the parenthesis reads runlimit.
	[[ "${lines[0]}" != *GNU* ]]
	# The version it names is the one the manual's COMPATIBILITY says it follows.
	local named=${lines[1]#Compatible with timeout (GNU coreutils) }
	sed -n '/^\.Sh COMPATIBILITY/,/^\.Sh /p' "$BATS_TEST_DIRNAME/../man/runlimit.1" |
		grep -qx "${named%%:*} and prints its messages, values quoted as its"
}

@test "only the base name 'timeout' switches: a link named gtimeout is runlimit" {
	ln -s "$ours_link" "$BATS_TEST_TMPDIR/gtimeout"
	run --separate-stderr "$BATS_TEST_TMPDIR/gtimeout" 1x true
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "" ] # nothing on stdout
	[[ "$stderr" == "$BATS_TEST_TMPDIR/gtimeout: invalid time interval '1x'"* ]]
}

@test "exit statuses as timeout: 124, 137, -p, the command's own, 125" {
	run ours 0.1 sleep 10
	[ "$status" -eq 124 ]
	run ours -s KILL 0.1 sleep 10
	[ "$status" -eq 137 ]
	run ours --preserve-status 0.1 sleep 10
	[ "$status" -eq 143 ]
	run ours 5 sh -c 'exit 7'
	[ "$status" -eq 7 ]
	run ours 0 true
	[ "$status" -eq 0 ]
	run ours --bogus
	[ "$status" -eq 125 ]

	# And through the link's full path.
	run "$ours_link" 0.1 sleep 10
	[ "$status" -eq 124 ]
	run "$ours_link" 5 sh -c 'exit 7'
	[ "$status" -eq 7 ]
}

@test "same error lines as GNU timeout 9.1: invalid interval, invalid signal" {
	same_as_gnu 1x true
	same_as_gnu -s FOO 1 true
	same_as_gnu --signal=sigfoo 1 true
	same_as_gnu -k 1x 1 true
	same_as_gnu '' true
	same_as_gnu ' -0.1' true
}

@test "same error lines as GNU timeout 9.1: --bogus, -x, -k, --v, --kill-after" {
	same_as_gnu --bogus
	same_as_gnu --bogus 1 true
	same_as_gnu -x
	same_as_gnu -x 1 true
	same_as_gnu -k
	same_as_gnu -vk
	same_as_gnu --kill-after
	same_as_gnu --signal
	same_as_gnu --v 1 true
	same_as_gnu --verbose=1 1 true
	# Ambiguous: the whole word is quoted, the candidates listed in GNU's order.
	same_as_gnu --ver=1 1 true
	same_as_gnu --=3 1 true
}

@test "the exact lines for timeout 1x, -s FOO, --bogus, -x, -k" {
	run --separate-stderr ours 1x true
	[ "$stderr" = "timeout: invalid time interval '1x'"$'\n'"$TRY" ]
	run --separate-stderr ours -s FOO 1 true
	[ "$stderr" = "timeout: 'FOO': invalid signal"$'\n'"$TRY" ]
	run --separate-stderr ours --bogus
	[ "$stderr" = "timeout: unrecognized option '--bogus'"$'\n'"$TRY" ]
	run --separate-stderr ours -x
	[ "$stderr" = "timeout: invalid option -- 'x'"$'\n'"$TRY" ]
	run --separate-stderr ours -k
	[ "$stderr" = "timeout: option requires an argument -- 'k'"$'\n'"$TRY" ]
	[ "$status" -eq 125 ]
}

@test "same as GNU timeout 9.1: failed exec messages and 126/127" {
	same_as_gnu 1 -- true
	same_as_gnu 5 /nonexistent/command
	same_as_gnu 5 /
	same_as_gnu 5 ''
}

@test "same as GNU timeout 9.1: --verbose lines" {
	same_as_gnu -v 0.1 sleep 10
	same_as_gnu -v -s INT 0.1 sleep 10
	same_as_gnu --verbose -s KILL 0.1 sleep 10
}

@test "missing operands: 125, ending with the Try line as GNU's does" {
	needs_gnu
	local g
	g=$(gnu 5 2>&1) || true
	run --separate-stderr ours
	[ "$status" -eq 125 ]
	[ "${stderr##*$'\n'}" = "$TRY" ]
	run --separate-stderr ours 5
	[ "$status" -eq 125 ]
	[ "${stderr##*$'\n'}" = "$TRY" ]
	[ "$g" = "$TRY" ]
}

@test "--help to a full device: the same write error as GNU timeout" {
	[ -w /dev/full ] || skip "no /dev/full"
	needs_gnu
	local o g o_rc=0 g_rc=0
	o=$(ours --help 2>&1 >/dev/full) || o_rc=$?
	g=$(gnu --help 2>&1 >/dev/full) || g_rc=$?
	echo "ours ($o_rc): $o"
	echo "GNU ($g_rc): $g"
	[ "$o_rc" -eq 125 ]
	[ "$o" = "$g" ]
}

@test "GNU's long-option abbreviations work as timeout: --kill=1 --k --pres --sig --verb --fore" {
	same_as_gnu --kill=1 5 sh -c 'exit 6'
	same_as_gnu --k 1 5 sh -c 'exit 6'
	same_as_gnu --pres 0.1 sleep 10
	same_as_gnu --sig=KILL --verb 0.1 sleep 10
	same_as_gnu --fore 5 sh -c 'exit 6'
	run ours --kill=1 5 sh -c 'exit 6'
	[ "$status" -eq 6 ]
}

@test "the program name is argv[0] as invoked, as GNU prints it: a full path stays a path" {
	needs_gnu
	local args o g o_rc g_rc
	for args in "1x true" "-s FOO 1 true" "--bogus" "1 /nonexistent/cmd"; do
		o_rc=0 g_rc=0
		# shellcheck disable=SC2086
		o=$("$ours_link" $args 2>&1 >/dev/null) || o_rc=$?
		# shellcheck disable=SC2086
		g=$( (exec -a "$ours_link" "$GNU_TIMEOUT" $args) 2>&1 >/dev/null) || g_rc=$?
		[ "$o" = "$g" ] && [ "$o_rc" = "$g_rc" ] ||
			{ printf 'args: %s\nours (%s): %s\nGNU (%s): %s\n' "$args" "$o_rc" "$o" "$g_rc" "$g"; return 1; }
	done
	[[ "$o" == "$ours_link: failed to run command"* ]]
}

@test "--help as timeout: GNU's options only, two spaces before each description, a pointer to the extensions" {
	run --separate-stderr ours --help
	[ "$status" -eq 0 ]
	[[ "$output" != *"--kill-leftovers  "* ]]
	[[ "$output" != *"--nproc  "* ]]
	# GNU's two usage lines, none for the extensions' own forms
	[ "${lines[1]}" = "  or:  timeout [OPTION]" ]
	[[ "${lines[2]}" != *"or:  "* ]]
	[[ "$output" == *"see 'runlimit --help'"* ]]
	local bad
	bad=$(printf '%s\n' "$output" | grep -E '^ +-[-a-zA-Z]' |
		grep -vE '^ +(-[a-zA-Z], )?--?[a-zA-Z0-9=-]+(  +[^ ].*)?$' || true)
	[ -z "$bad" ] || { echo "option lines without two spaces: $bad"; return 1; }
	# Every long option GNU's --help lists is in ours too.
	local opt
	for opt in --signal --kill-after --preserve-status --foreground --verbose --help --version; do
		[[ "$output" == *"$opt"* ]] || { echo "missing $opt"; return 1; }
	done
	# The extensions stay accepted.
	run ours --kill-leftovers 5 true
	[ "$status" -eq 0 ]
}

@test "messages quote values as GNU's quote() does, byte for byte: C and UTF-8 locales" {
	needs_gnu
	local locales=C loc a
	if locale -a 2>/dev/null | grep -qiE '^c\.utf-?8$'; then
		locales="C C.UTF-8"
	else
		echo "# no C.UTF-8 locale here: the C locale only" >&3
	fi
	local values=("$(printf 'a\nb')" "$(printf '\033[31mred')" "$(printf '\377\376')" "it's"
		1x "x’y" é "$(printf '\342\200')" "$(printf 'a\\b\t\177')")
	for loc in $locales; do
		for a in "${values[@]}"; do
			LC_ALL=$loc same_as_gnu "$a" true
			LC_ALL=$loc same_as_gnu -s "$a" 1 true
			LC_ALL=$loc same_as_gnu 1 "$a"
		done
		LC_ALL=$loc same_as_gnu -v -s KILL 0.01 sh -c 'sleep 1'
	done
	# The examples of the issue, spelled out (C locale).
	run --separate-stderr ours "$(printf 'a\nb')" true
	[ "${stderr%%$'\n'*}" = "timeout: invalid time interval 'a\\nb'" ]
	run --separate-stderr ours "it's" true
	[ "${stderr%%$'\n'*}" = "timeout: invalid time interval 'it\\'s'" ]
}
