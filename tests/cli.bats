#!/usr/bin/env bats
# Command line: every option of the manual's OPTIONS, usage errors, durations (DURATION) and the
# --verbose format, through the real binary.  Messages are compared with GNU timeout 9.1 (run
# under the name "runlimit") wherever 9.1 behaves the same.

# Single quotes around sh -c scripts are deliberate: the inner shell expands them.
# shellcheck disable=SC2016

load helpers

bats_require_minimum_version 1.5.0

GNU_TIMEOUT=${GNU_TIMEOUT:-/usr/bin/timeout}
TRY="Try '$RUNLIMIT --help' for more information."

setup_file() {
	# Only GNU's own timeout is the reference (FreeBSD's /usr/bin/timeout is another).
	if gnu_coreutils "$GNU_TIMEOUT"; then GNU_TIMEOUT_OK=yes; else GNU_TIMEOUT_OK=no; fi
	export GNU_TIMEOUT_OK
}

teardown() {
	kill_named "rc$(($$ % 100000))-s"
}

# gnu ARGS...: GNU timeout with our argv[0], so its messages read like ours.
gnu() {
	(exec -a "$RUNLIMIT" "$GNU_TIMEOUT" "$@")
}

# same_as_gnu ARGS...: runlimit and GNU timeout print the same stderr and exit the same.
same_as_gnu() {
	[ "$GNU_TIMEOUT_OK" = yes ] || skip "no GNU timeout at $GNU_TIMEOUT"
	same_outcome "$RUNLIMIT" gnu "$@"
}

# usage_error EXPECTED-FIRST-LINE ARGS...: exit 125, the message, then the Try line, nothing
# on stdout.
usage_error() {
	local want=$1
	shift
	run --separate-stderr "$RUNLIMIT" "$@"
	if [ "$status" -ne 125 ] || [ "$stderr" != "$want"$'\n'"$TRY" ] || [ -n "$output" ]; then
		printf 'args: %s\nstatus %s\nstderr:\n%s\nstdout:\n%s\nwanted:\n%s\n' \
			"$*" "$status" "$stderr" "$output" "$want"
		return 1
	fi
}

# start_bg ARGS...: runlimit ARGS in the background; stdout and stderr go to files.
start_bg() {
	"$RUNLIMIT" "$@" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
	bg_pid=$!
}

# finish_bg [SECONDS]: wait (bounded) for the background runlimit; sets status, output, stderr.
finish_bg() {
	wait_bg "$bg_pid" "${1:-15}" || return 1
	status=$BG_STATUS
	output=$(cat "$BATS_TEST_TMPDIR/out")
	stderr=$(cat "$BATS_TEST_TMPDIR/err")
}

# A command that ignores TERM (sleep inherits the ignore through exec) and says when it is
# ready; the deadline is then brought forward with SIGALRM, so no race with the trap.
term_ignoring_cmd() {
	ready=$BATS_TEST_TMPDIR/ready
	rm -f "$ready"
	cmd=(sh -c 'trap "" TERM; echo >"$0"; exec sleep 30' "$ready")
}

# --- options parsing ------------------------------------------------------------------

@test "options stop at DURATION: the command's own options are passed through" {
	run --separate-stderr "$RUNLIMIT" 1 sh -c 'echo $0 $@' -v x
	[ "$status" -eq 0 ]
	[ "$output" = "-v x" ]
	[ -z "$stderr" ]

	run --separate-stderr "$RUNLIMIT" 5 echo --help -k 1 -- --version
	[ "$status" -eq 0 ]
	[ "$output" = "--help -k 1 -- --version" ]
}

@test "-- ends the options: 'runlimit -- 1 true' runs true" {
	run --separate-stderr "$RUNLIMIT" -- 1 true
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]

	run --separate-stderr "$RUNLIMIT" -v -- 5 sh -c 'exit 3'
	[ "$status" -eq 3 ]
	[ -z "$stderr" ]
}

@test "a -- after DURATION is the command: 'runlimit 1 -- true' is 127" {
	run -127 --separate-stderr "$RUNLIMIT" 1 -- true
	[ "$stderr" = "$RUNLIMIT: failed to run command '--': No such file or directory" ]
	same_as_gnu 1 -- true
}

@test "a second -- is DURATION: invalid time interval '--'" {
	usage_error "$RUNLIMIT: invalid time interval '--'" -- -- 1 true
	same_as_gnu -- -- 1 true
}

@test "short options bundle: -vk1 -sINT" {
	run --separate-stderr "$RUNLIMIT" -vk1 -sINT 0.1 sleep 10
	[ "$status" -eq 124 ]
	[ "$(signal_lines "$stderr")" = "$RUNLIMIT: sending signal INT to command 'sleep'" ]

	run --separate-stderr "$RUNLIMIT" -pvsINT 0.1 sleep 10
	[ "$status" -eq 130 ]
	[ "$(signal_lines "$stderr")" = "$RUNLIMIT: sending signal INT to command 'sleep'" ]
}

@test "a bundled option argument takes the rest of the word: -k1v is '1v'" {
	usage_error "$RUNLIMIT: invalid time interval '1v'" -k1v 1 true
	same_as_gnu -k1v 1 true
}

@test "long options abbreviate: --pres --sig=KILL --verb --fore" {
	run --separate-stderr "$RUNLIMIT" --pres 0.1 sleep 10
	[ "$status" -eq 143 ]

	run --separate-stderr "$RUNLIMIT" --verb --sig=KILL 0.1 sleep 10
	[ "$status" -eq 137 ]
	[ "$(signal_lines "$stderr")" = "$RUNLIMIT: sending signal KILL to command 'sleep'" ]

	run --separate-stderr "$RUNLIMIT" --sig KILL --p 0.1 sleep 10
	[ "$status" -eq 137 ]

	run --separate-stderr "$RUNLIMIT" --fore 5 sh -c 'exit 4'
	[ "$status" -eq 4 ]
	[ -z "$stderr" ]

	run --separate-stderr "$RUNLIMIT" --h
	[ "$status" -eq 0 ]
	[[ "$output" == "Usage: $RUNLIMIT "* ]]
}

@test "--kill=1 abbreviates --kill-after (runlimit.1 OPTIONS, GNU)" {
	run --separate-stderr "$RUNLIMIT" --kill=1 5 sh -c 'exit 6'
	echo "$stderr"
	[ "$status" -eq 6 ]
	[ -z "$stderr" ]
	same_as_gnu --kill=1 5 sh -c 'exit 6'
}

@test "--v is ambiguous, with GNU's message" {
	usage_error "$RUNLIMIT: option '--v' is ambiguous; possibilities: '--verbose' '--version'" --v 1 true
	same_as_gnu --v 1 true
	same_as_gnu --ver
}

@test "the last -s wins, and an invalid -s fails at once" {
	run --separate-stderr "$RUNLIMIT" -v -s INT -s KILL 0.1 sleep 10
	[ "$status" -eq 137 ]
	[ "$(signal_lines "$stderr")" = "$RUNLIMIT: sending signal KILL to command 'sleep'" ]

	usage_error "$RUNLIMIT: 'FOO': invalid signal" -s FOO -s KILL 1 true
	usage_error "$RUNLIMIT: invalid time interval '1x'" -k 1x -k 1 1 true
}

# --- usage errors ---------------------------------------------------------------------

@test "GNU's usage error messages, each then the Try line, exit 125" {
	usage_error "$RUNLIMIT: invalid option -- 'x'" -x 1 true
	usage_error "$RUNLIMIT: invalid option -- 'x'" -vx 1 true
	usage_error "$RUNLIMIT: invalid option -- '0'" -0 true
	usage_error "$RUNLIMIT: unrecognized option '--bogus'" --bogus 1 true
	usage_error "$RUNLIMIT: unrecognized option '--bogus=1'" --bogus=1 1 true
	usage_error "$RUNLIMIT: option requires an argument -- 'k'" -k
	usage_error "$RUNLIMIT: option requires an argument -- 'k'" -vk
	usage_error "$RUNLIMIT: option requires an argument -- 's'" -s
	usage_error "$RUNLIMIT: option '--kill-after' requires an argument" --kill-after
	usage_error "$RUNLIMIT: option '--signal' requires an argument" --signal
	usage_error "$RUNLIMIT: option '--verbose' doesn't allow an argument" --verbose=1 1 true
	usage_error "$RUNLIMIT: option '--preserve-status' doesn't allow an argument" --preserve-status=x 1 true
	usage_error "$RUNLIMIT: option '--help' doesn't allow an argument" --help=x
}

@test "usage error messages are GNU timeout 9.1's" {
	same_as_gnu -x 1 true
	same_as_gnu -vx 1 true
	same_as_gnu -0 true
	same_as_gnu --bogus 1 true
	same_as_gnu --bogus=1 1 true
	same_as_gnu -k
	same_as_gnu -vk
	same_as_gnu -s
	same_as_gnu --kill-after
	same_as_gnu --signal
	same_as_gnu --verbose=1 1 true
	same_as_gnu --help=x
	same_as_gnu -s FOO 1 true
	same_as_gnu -k 1x 1 true
	same_as_gnu 1x true
}

@test "missing operand: runlimit says which one, then the Try line, 125" {
	usage_error "$RUNLIMIT: missing operand"
	usage_error "$RUNLIMIT: missing operand" -v
	usage_error "$RUNLIMIT: missing operand" -k 1
	usage_error "$RUNLIMIT: missing operand" --
	usage_error "$RUNLIMIT: missing command after the DURATION '5'" 5
	usage_error "$RUNLIMIT: missing command after the DURATION '5'" -v -sKILL 5
	usage_error "$RUNLIMIT: missing command after the DURATION '1x'" 1x
	# What was taken as what, when an option took the next word ("-vs 1 true").
	usage_error "$RUNLIMIT: missing command: 'true' was taken as the DURATION, and '1' as the argument of -s" -vs 1 true
	usage_error "$RUNLIMIT: missing command: '5' was taken as the DURATION, and 'KILL' as the argument of --signal" --signal KILL 5
}

# --- --help and --version -------------------------------------------------------------

@test "--help: stdout, exit 0, every option and exit status, 80 columns, GNU's layout" {
	run --separate-stderr "$RUNLIMIT" --help
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "${lines[0]}" = "Usage: $RUNLIMIT [OPTION]... DURATION COMMAND [ARG]..." ]
	local opt
	for opt in '-s, --signal' '-k, --kill-after' '-p, --preserve-status' '-f, --foreground' \
		'-v, --verbose' '--kill-leftovers' '--help' '--version'; do
		grep -qF -- "$opt" <<<"$output" || { echo "--help lacks $opt"; return 1; }
	done
	local st
	for st in 124 125 126 127 137; do
		grep -qw -- "$st" <<<"$output" || { echo "--help lacks exit status $st"; return 1; }
	done
	# 80 columns for the text; the Usage lines carry the name as invoked (GNU's
	# too), whose length is the caller's, so it is counted as "runlimit".
	local wide
	wide=$(awk 'length > 80' <<<"${output//"$RUNLIMIT"/runlimit}")
	[ -z "$wide" ] || { echo "lines over 80 columns: $wide"; return 1; }
	# GNU's tests read --help: an option and its description are two spaces apart or more.
	local bad
	bad=$("$RUNLIMIT" --help | grep -E '^ +-[-a-zA-Z]' |
		grep -vE '^ +(-[a-zA-Z], )?--?[a-zA-Z0-9=-]+(  +[^ ].*)?$' || true)
	[ -z "$bad" ] || { echo "option lines without two spaces: $bad"; return 1; }
}

@test "--help wins over everything after it, and over a bad option after it" {
	run --separate-stderr "$RUNLIMIT" -v --help 5 true
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "Usage: $RUNLIMIT "* ]]
	[ -z "$stderr" ]

	run --separate-stderr "$RUNLIMIT" --hel --bogus
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "Usage: $RUNLIMIT "* ]]
}

@test "--help: the usage lines whole, however long the name runlimit was called by" {
	local dir
	dir="$BATS_TEST_TMPDIR/$(printf 'd%.0s' $(seq 1 200))"
	mkdir -p "$dir"
	ln -s "$RUNLIMIT" "$dir/runlimit"
	run --separate-stderr "$dir/runlimit" --help
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "Usage: $dir/runlimit [OPTION]... DURATION COMMAND [ARG]..." ]
	[ "${lines[5]}" = "  or:  $dir/runlimit OPTION" ]
	[[ "${lines[6]}" == "Start COMMAND, "* ]]
}

@test "--version: stdout, exit 0, says runlimit and a version number" {
	run --separate-stderr "$RUNLIMIT" --version
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "${lines[0]}" =~ ^runlimit\ \(runlimit\)\ [0-9]+\.[0-9]+ ]]

	run --separate-stderr "$RUNLIMIT" --vers
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" =~ ^runlimit\ \(runlimit\)\ [0-9] ]]
}

@test "--help and --version to a full device: write error, 125" {
	[ -w /dev/full ] || skip "no /dev/full"
	run --separate-stderr sh -c '"$0" --help >/dev/full' "$RUNLIMIT"
	[ "$status" -eq 125 ]
	[[ "$stderr" == "$RUNLIMIT: write error"* ]]

	run --separate-stderr sh -c '"$0" --version >/dev/full' "$RUNLIMIT"
	[ "$status" -eq 125 ]
	[[ "$stderr" == "$RUNLIMIT: write error"* ]]
}

@test "--help to a full device: the same message as GNU (with strerror)" {
	[ -w /dev/full ] || skip "no /dev/full"
	run --separate-stderr sh -c '"$0" --help >/dev/full' "$RUNLIMIT"
	[ "$status" -eq 125 ]
	[ "$stderr" = "$RUNLIMIT: write error: No space left on device" ]
}

# --- -s / --signal ----------------------------------------------------------------------

@test "-s in every spelling: -s INT, -sINT, --signal=INT, --signal INT, int, SIGINT, 2, 130" {
	local form
	for form in "-s INT" "-sINT" "--signal=INT" "--signal INT" "-s int" "-s SigInt" \
		"-s SIGINT" "-s 2" "-s 02" "-s 130"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$RUNLIMIT" -v $form 0.1 sleep 10
		if [ "$status" -ne 124 ] ||
			[ "$(signal_lines "$stderr")" != "$RUNLIMIT: sending signal INT to command 'sleep'" ]; then
			printf '%s: status %s, stderr %s\n' "$form" "$status" "$stderr"
			return 1
		fi
	done
}

@test "default signal is TERM; -s KILL ends with 137 and one KILL line" {
	run --separate-stderr "$RUNLIMIT" -v 0.1 sleep 10
	[ "$status" -eq 124 ]
	[ "$(signal_lines "$stderr")" = "$RUNLIMIT: sending signal TERM to command 'sleep'" ]

	run --separate-stderr "$RUNLIMIT" -v -s sigkill 0.1 sleep 10
	[ "$status" -eq 137 ]
	[ "$(signal_lines "$stderr")" = "$RUNLIMIT: sending signal KILL to command 'sleep'" ]

	run --separate-stderr "$RUNLIMIT" -v -s 137 0.1 sleep 10
	[ "$status" -eq 137 ]
	[ "$(signal_lines "$stderr")" = "$RUNLIMIT: sending signal KILL to command 'sleep'" ]

	run --separate-stderr "$RUNLIMIT" -s 265 0.1 sleep 10
	[ "$status" -eq 137 ]
}

@test "real-time signals by name and number, named as GNU does" {
	# Linux numbers them up to 64 (SIGRTMAX), whatever the libc; FreeBSD has them higher up,
	# macOS none.
	[ "$(kill -l RTMAX 2>/dev/null)" = 64 ] || skip "no real-time signals numbered up to 64 here"
	run --separate-stderr "$RUNLIMIT" -v -s RTMIN+1 0.1 sleep 10
	[ "$status" -eq 124 ]
	[ "$(signal_lines "$stderr")" = "$RUNLIMIT: sending signal RTMIN+1 to command 'sleep'" ]

	run --separate-stderr "$RUNLIMIT" -v -s 50 0.1 sleep 10
	[ "$status" -eq 124 ]
	[ "$(signal_lines "$stderr")" = "$RUNLIMIT: sending signal RTMAX-14 to command 'sleep'" ]

	# qemu-user keeps the host's last real-time signals for itself: a guest cannot send RTMAX.
	if [ -z "${RUNLIMIT_EMULATED:-}" ]; then
		run --separate-stderr "$RUNLIMIT" -v -s sigrtmax 0.1 sleep 10
		[ "$status" -eq 124 ]
		[ "$(signal_lines "$stderr")" = "$RUNLIMIT: sending signal RTMAX to command 'sleep'" ]
	fi

	# musl numbers its real-time signals from 35, glibc (and so GNU here) from 34.
	[ "${RUNLIMIT_LIBC:-}" != musl ] || return 0
	same_as_gnu -v -s RTMIN+1 0.1 sleep 10
	same_as_gnu -v -s 49 0.1 sleep 10
	same_as_gnu -v -s 50 0.1 sleep 10
}

@test "invalid signals name the bad value: 'X': invalid signal, 125" {
	local s
	for s in FOO '' SIG sigfoo 393 255 ' 9' -9 9x 0x9 RTMIN+31 RTMIN-1 RTMAX+1 'TERM '; do
		usage_error "$RUNLIMIT: '$s': invalid signal" -s "$s" 1 true
		usage_error "$RUNLIMIT: '$s': invalid signal" --signal="$s" 1 true
		same_as_gnu -s "$s" 1 true
	done
}

@test "-s 0 and -s EXIT send nothing: the command runs on, 124, verbose says 0" {
	run --separate-stderr "$RUNLIMIT" -v -s 0 0.1 sleep 0.5
	[ "$status" -eq 124 ]
	[ "$(signal_lines "$stderr")" = "$RUNLIMIT: sending signal 0 to command 'sleep'" ]

	run --separate-stderr "$RUNLIMIT" -s EXIT 0.1 sh -c 'sleep 0.5; exit 3'
	[ "$status" -eq 124 ]
	[ -z "$stderr" ]

	run --separate-stderr "$RUNLIMIT" -p -s SIGEXIT 0.1 sh -c 'sleep 0.5; exit 3'
	[ "$status" -eq 3 ]
}

# --- -k / --kill-after ----------------------------------------------------------------

@test "-k in every spelling: KILL follows TERM after the grace, 137" {
	local form t0
	term_ignoring_cmd
	for form in "-k 0.2" "-k0.2" "--kill-after=0.2" "--kill-after 0.2" "--kill-a=.2" \
		"-k 0x1p-2" "-k 0.004m"; do
		rm -f "$ready"
		# shellcheck disable=SC2086
		start_bg -v $form 60 "${cmd[@]}"
		wait_for_file "$ready"
		t0=$(now)
		kill -ALRM "$bg_pid"
		finish_bg
		if [ "$status" -ne 137 ] || ! lt "$(elapsed "$t0")" 3 ||
			[ "$(signal_lines "$stderr")" != "$RUNLIMIT: sending signal TERM to command 'sh'"$'\n'"$RUNLIMIT: sending signal KILL to command 'sh'" ]; then
			printf '%s: status %s after %ss, stderr:\n%s\n' "$form" "$status" \
				"$(elapsed "$t0")" "$stderr"
			return 1
		fi
	done
}

@test "-k default is 5 s: a TERM-ignoring command is killed after about 5 s, status 124" {
	local t0 took
	term_ignoring_cmd
	start_bg -v 60 "${cmd[@]}"
	wait_for_file "$ready"
	t0=$(now)
	kill -ALRM "$bg_pid"
	finish_bg 30
	took=$(elapsed "$t0")
	echo "status $status after ${took}s; $stderr"
	[ "$status" -eq 124 ] # the default grace's KILL: still a time-out (with -k given: 137)
	lt 4.5 "$took"
	lt "$took" 15
	[ "$(signal_lines "$stderr")" = "$RUNLIMIT: sending signal TERM to command 'sh'"$'\n'"$RUNLIMIT: sending signal KILL to command 'sh'" ]
}

@test "-k 0 never sends KILL: a TERM-ignoring command runs to its end, 124" {
	local t0 took
	ready=$BATS_TEST_TMPDIR/ready
	start_bg -v -k 0 60 sh -c 'trap "" TERM; echo >"$0"; exec sleep 6' "$ready"
	wait_for_file "$ready"
	t0=$(now)
	kill -ALRM "$bg_pid"
	finish_bg 30
	took=$(elapsed "$t0")
	echo "status $status after ${took}s; $stderr"
	[ "$status" -eq 124 ]
	lt 5 "$took"
	[ "$(signal_lines "$stderr")" = "$RUNLIMIT: sending signal TERM to command 'sh'" ]
}

@test "-k with a huge grace clamps, it does not wrap into an immediate KILL" {
	run --separate-stderr "$RUNLIMIT" -v -k 1e4932 0.1 sleep 10
	[ "$status" -eq 124 ]
	[ "$(signal_lines "$stderr")" = "$RUNLIMIT: sending signal TERM to command 'sleep'" ]

	run --separate-stderr "$RUNLIMIT" -v -k 9223372036854775808d 0.1 sleep 10
	[ "$status" -eq 124 ]
	[ "$(signal_lines "$stderr")" = "$RUNLIMIT: sending signal TERM to command 'sleep'" ]
}

@test "invalid -k durations: invalid time interval, 125" {
	usage_error "$RUNLIMIT: invalid time interval '1x'" -k 1x 1 true
	usage_error "$RUNLIMIT: invalid time interval '-1'" -k -1 1 true
	usage_error "$RUNLIMIT: invalid time interval 'nan'" --kill-after=nan 1 true
	usage_error "$RUNLIMIT: invalid time interval ''" --kill-after= 1 true
	usage_error "$RUNLIMIT: invalid time interval '1S'" -k1S 1 true
	same_as_gnu -k -1 1 true
	same_as_gnu --kill-after=nan 1 true
	same_as_gnu --kill-after= 1 true
}

# --- -p / --preserve-status -----------------------------------------------------------

@test "-p and --preserve-status: the command's own status on time-out" {
	run --separate-stderr "$RUNLIMIT" -p 0.1 sleep 10
	[ "$status" -eq 143 ]
	[ -z "$stderr" ]

	run --separate-stderr "$RUNLIMIT" --preserve-status -s INT 0.1 sleep 10
	[ "$status" -eq 130 ]

	run --separate-stderr "$RUNLIMIT" --preserve-status -s KILL 0.1 sleep 10
	[ "$status" -eq 137 ]

	run --separate-stderr "$RUNLIMIT" -p 5 sh -c 'exit 9'
	[ "$status" -eq 9 ]
}

@test "-p with a command that handles TERM and exits 3: 3, and 124 without -p" {
	ready=$BATS_TEST_TMPDIR/ready
	local script='trap "exit 3" TERM; echo >"$0"; while :; do sleep 0.05; done'

	start_bg -p 60 sh -c "$script" "$ready"
	wait_for_file "$ready"
	kill -ALRM "$bg_pid"
	finish_bg
	[ "$status" -eq 3 ]

	rm -f "$ready"
	start_bg 60 sh -c "$script" "$ready"
	wait_for_file "$ready"
	kill -ALRM "$bg_pid"
	finish_bg
	[ "$status" -eq 124 ]
}

# --- -f / --foreground ----------------------------------------------------------------

@test "-f keeps the command in runlimit's process group; without it, a new group it is a member of" {
	local mine
	# This shell's group, as a child of it sees it (no $BASHPID in bash 3.2).
	mine=$(sh -c 'ps -o pgid= -p $$' | tr -d ' ')

	run --separate-stderr "$RUNLIMIT" -f 10 sh -c 'echo $$ $(ps -o pgid= -p $$)'
	[ "$status" -eq 0 ]
	read -r pid pgid <<<"$output"
	echo "pid $pid pgid $pgid mine $mine"
	[ "$pgid" = "$mine" ]
	[ "$pgid" != "$pid" ]

	run --separate-stderr "$RUNLIMIT" --foreground 10 sh -c 'echo $$ $(ps -o pgid= -p $$)'
	[ "$status" -eq 0 ]
	read -r pid pgid <<<"$output"
	[ "$pgid" = "$mine" ]

	# A member, not the leader (so that setsid works in it), of a group that is not ours.
	run --separate-stderr "$RUNLIMIT" 10 sh -c 'echo $$ $(ps -o pgid= -p $$)'
	[ "$status" -eq 0 ]
	read -r pid pgid <<<"$output"
	echo "pid $pid pgid $pgid"
	[ "$pgid" != "$pid" ]
	[ "$pgid" != "$mine" ]
}

@test "-f signals only the command, not its children" {
	local slp pidfile child
	slp=$(private_sleep "rc$(($$ % 100000))-s")
	pidfile=$BATS_TEST_TMPDIR/child
	run --separate-stderr "$RUNLIMIT" -f -v 0.3 \
		sh -c '"$0" 300 >/dev/null 2>&1 3>&- & echo $! >"$1"; wait' "$slp" "$pidfile"
	echo "status $status, stderr: $stderr"
	[ "$status" -eq 124 ]
	[ "$(signal_lines "$stderr")" = "$RUNLIMIT: sending signal TERM to command 'sh'" ]
	child=$(cat "$pidfile")
	kill -0 "$child"
	[ "$(ps -o ucomm= -p "$child" | tr -d ' ')" = "rc$(($$ % 100000))-s" ]
	kill "$child"

	# Without -f the child goes too.
	rm -f "$pidfile"
	run --separate-stderr "$RUNLIMIT" 0.3 \
		sh -c '"$0" 300 >/dev/null 2>&1 3>&- & echo $! >"$1"; wait' "$slp" "$pidfile"
	echo "status $status, stderr: $stderr"
	[ "$status" -eq 124 ]
	wait_for_gone "$(cat "$pidfile")" 5
}

# --- -v / --verbose -------------------------------------------------------------------

@test "-v format is GNU's: sending signal TERM to command 'sleep'" {
	run --separate-stderr "$RUNLIMIT" --verbose 0.1 sleep 10
	[ "$status" -eq 124 ]
	[ "$(signal_lines "$stderr")" = "$RUNLIMIT: sending signal TERM to command 'sleep'" ]

	run --separate-stderr "$RUNLIMIT" -v 0.1 /bin/sleep 10
	[ "$status" -eq 124 ]
	[ "$(signal_lines "$stderr")" = "$RUNLIMIT: sending signal TERM to command '/bin/sleep'" ]

	same_as_gnu -v 0.1 sleep 10
	same_as_gnu -v -s HUP 0.1 sleep 10
	same_as_gnu -v -s KILL 0.1 sleep 10
}

@test "-v says nothing when the command ends in time or there is no limit" {
	run --separate-stderr "$RUNLIMIT" -v 10 sh -c 'exit 2'
	[ "$status" -eq 2 ]
	[ -z "$stderr" ]

	run --separate-stderr "$RUNLIMIT" -v 0 true
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

# --- durations --------------------------------------------------------------------------

@test "0 and -0 mean no time limit" {
	run --separate-stderr "$RUNLIMIT" 0 sh -c 'sleep 0.3; exit 3'
	[ "$status" -eq 3 ]
	[ -z "$stderr" ]

	run --separate-stderr "$RUNLIMIT" -- -0 true
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]

	run --separate-stderr "$RUNLIMIT" -v -- -0.0 sh -c 'sleep 0.3; exit 4'
	[ "$status" -eq 4 ]
	[ -z "$stderr" ]

	run --separate-stderr "$RUNLIMIT" 0s true
	[ "$status" -eq 0 ]
}

@test "a tiny duration times out at once: 1e-10000 is 1 ns, not 'no limit'" {
	local t0
	t0=$(now)
	run --separate-stderr "$RUNLIMIT" 1e-10000 sleep 10
	[ "$status" -eq 124 ]
	lt "$(elapsed "$t0")" 3

	t0=$(now)
	run --separate-stderr "$RUNLIMIT" -v 1e-10000d sleep 10
	[ "$status" -eq 124 ]
	[ "$(signal_lines "$stderr")" = "$RUNLIMIT: sending signal TERM to command 'sleep'" ]
	lt "$(elapsed "$t0")" 3
}

@test "huge durations clamp and never fire early: 1e4932, 9223372036854775808d, inf" {
	run --separate-stderr "$RUNLIMIT" 1e4932 true
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]

	run --separate-stderr "$RUNLIMIT" -v 9223372036854775808d sleep 0.1
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]

	local d
	for d in 1e308 1.8e308 inf infs Infinity 4294967296 9223372036854775808 0x1p70; do
		run --separate-stderr "$RUNLIMIT" -v "$d" sh -c 'sleep 0.1; exit 7'
		if [ "$status" -ne 7 ] || [ -n "$stderr" ]; then
			printf '%s: status %s, stderr %s\n' "$d" "$status" "$stderr"
			return 1
		fi
	done
}

@test "valid duration forms: .5  5.  +1  ' 1'  1e2  hex  suffixes" {
	local d
	for d in 1 1.5 .5 5. +1 ' 1' 1e2 1E2 0x10 0x1p0d 0x1d 1s 1m 1h 1d 2.5m; do
		run --separate-stderr "$RUNLIMIT" "$d" sh -c 'exit 5'
		if [ "$status" -ne 5 ] || [ -n "$stderr" ]; then
			printf '%s: status %s, stderr %s\n' "$d" "$status" "$stderr"
			return 1
		fi
	done
}

@test "fractional, hex and suffixed durations time out when they should" {
	local d t0
	for d in 0.1 .1 0x1p-3 0x0.2 0.002m 3e-5h 1e-6d 100e-3s; do
		t0=$(now)
		run --separate-stderr "$RUNLIMIT" "$d" sleep 10
		if [ "$status" -ne 124 ] || ! lt "$(elapsed "$t0")" 3; then
			printf '%s: status %s after %ss\n' "$d" "$status" "$(elapsed "$t0")"
			return 1
		fi
	done
}

@test "invalid durations name the bad value: invalid time interval, 125" {
	local d
	for d in '' 1x 1D 1S 42D 1ss '1 ' 1e nan NaN ' -0.1' ' -1e-10000' 1,5 0,5s - . s \
		1.5.5 0x; do
		usage_error "$RUNLIMIT: invalid time interval '$d'" "$d" true
	done
	usage_error "$RUNLIMIT: invalid time interval '-1'" -- -1 true
	usage_error "$RUNLIMIT: invalid time interval '-inf'" -- -inf true
	usage_error "$RUNLIMIT: invalid time interval '-1e-10000'" -- -1e-10000 true
}

@test "invalid duration messages are GNU timeout 9.1's" {
	local d
	# Not ' -1e-10000': 9.1 wrongly accepts it as 0 (fixed in 9.7).
	for d in '' 1x 1D 1S 42D 1ss '1 ' 1e nan ' -0.1' 1,5 -; do
		same_as_gnu "$d" true
	done
	same_as_gnu -- -1 true
	same_as_gnu -- -inf true
}

@test "a decimal comma works in a comma locale (and the point still works)" {
	[ "${RUNLIMIT_LIBC:-}" != musl ] || skip "musl's strtod has no locale decimal point"
	local loc='' l
	for l in $(locale -a 2>/dev/null); do
		if [ "$(LC_ALL=$l locale decimal_point 2>/dev/null)" = , ]; then
			loc=$l
			break
		fi
	done
	if [ -z "$loc" ] && command -v localedef >/dev/null &&
		[ -e /usr/share/i18n/locales/de_DE ]; then
		# No installed comma locale: compile one privately, found through LOCPATH.
		export LOCPATH=$BATS_TEST_TMPDIR/locale
		mkdir -p "$LOCPATH"
		if localedef -i de_DE -f UTF-8 "$LOCPATH/de_DE.UTF-8" >/dev/null 2>&1 &&
			[ "$(LC_ALL=de_DE.UTF-8 locale decimal_point 2>/dev/null)" = , ]; then
			loc=de_DE.UTF-8
		fi
	fi
	[ -n "$loc" ] || skip "no locale with a decimal comma"

	local d t0
	for d in 0,2 0.2 0,002m; do
		t0=$(now)
		run --separate-stderr env LC_ALL="$loc" "$RUNLIMIT" "$d" sleep 10
		if [ "$status" -ne 124 ] || ! lt "$(elapsed "$t0")" 3; then
			printf '%s in %s: status %s, stderr %s\n' "$d" "$loc" "$status" "$stderr"
			return 1
		fi
	done
	run --separate-stderr env LC_ALL="$loc" "$RUNLIMIT" 5 sh -c 'exit 6'
	[ "$status" -eq 6 ]
	run --separate-stderr env LC_ALL="$loc" "$RUNLIMIT" 0,5x true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"invalid time interval"*"0,5x"* ]]
}

@test "a duration with a unit is read without loading the locale (strace)" {
	needs_strace
	[ -z "${ASAN_OPTIONS:-}" ] || skip "the sanitizers' leak check cannot run under strace"
	# The control: a reading the C locale stops short of does load it, where there is one.
	LC_ALL=C.UTF-8 strace -e trace=open,openat -o "$BATS_TEST_TMPDIR/comma" \
		"$RUNLIMIT" 0,5x true 2>/dev/null || true
	grep -q locale "$BATS_TEST_TMPDIR/comma" || skip "no locale files are opened here at all"
	LC_ALL=C.UTF-8 strace -e trace=open,openat -o "$BATS_TEST_TMPDIR/unit" "$RUNLIMIT" 1m true
	run grep locale "$BATS_TEST_TMPDIR/unit"
	[ "$status" -eq 1 ]
}
