# Shared by every tests/*.bats file.  Waits are bounded loops on files or pids, never a bare
# sleep; bounds are generous enough for a loaded 2-core machine.
#
# The suite runs on Linux, on macOS (its /bin/bash 3.2, BSD ps and date, no /proc, timeout or
# setsid) and on FreeBSD (its own timeout and nproc, ps -e meaning "environment").  So: no
# bash-4 constructs (scripts/check-bash3.sh); ps with -A and one -o per field (BSD ps takes
# all of an -o argument after "=" as the header), ucomm for the name (macOS's comm is
# argv[0]); and whatever only some systems have (/proc, GNU timeout and nproc, taskset,
# unshare, strace...) or only some builds of runlimit do (a tree walk, a subreaper, the
# cgroup quota) is checked for, by what it does, where a test needs it: the test then skips
# and says what is missing.
# shellcheck shell=bash

RUNLIMIT=${RUNLIMIT:-$BATS_TEST_DIRNAME/../runlimit}
# The helper programs (tests/tools/): python run by "$PY", shell scripts, and the ones that
# install_tool puts in place with their interpreter on the "#!" line.
TOOLS=$BATS_TEST_DIRNAME/tools
export LC_ALL=C
# A deadline passed down from a runlimit the suite itself runs under (a CI step's) would
# shorten every limit the tests give: the tests that want one set it themselves.
unset RUNLIMIT_DEADLINE

# now: seconds since the epoch, with a fraction, for elapsed-time assertions.  date +%N is
# GNU's (and recent macOS's); other dates print N or nothing, and then perl or python3 tell.
case $(date +%N 2>/dev/null) in
'' | *[!0-9]*)
	if command -v perl >/dev/null 2>&1; then
		now() { perl -MTime::HiRes=time -e 'printf "%.6f\n", time'; }
	else
		# The interpreter itself, not a wrapper script (pyenv's shims are slow).
		NOW_PY=$(python3 -c 'import sys; print(sys.executable)')
		now() { "$NOW_PY" -c 'import time; print("%.6f" % time.time())'; }
	fi
	;;
*) now() { date +%s.%N; } ;;
esac

# elapsed START: seconds since START (from now), printed with 3 decimals.
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }

# lt A B: true if A < B (floating point).
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# wait_until SECONDS CMD...: poll CMD every WAIT_POLL seconds (default 0.01) until it
# succeeds, for at most SECONDS of wall time (a ps is slow when hundreds of processes exist).
# Every bounded wait of the suite is written with this one.
wait_until() {
	local limit=$1 t0
	shift
	t0=$(now)
	until "$@"; do
		lt "$(elapsed "$t0")" "$limit" || { echo "timed out waiting for: $*" >&2; return 1; }
		sleep "${WAIT_POLL:-0.01}"
	done
}

# wait_for_file PATH [SECONDS]: wait until PATH exists and is non-empty (default 10 s).
wait_for_file() { wait_until "${2:-10}" test -s "$1"; }

# gone PID: no process has PID, or only a zombie does.
gone() {
	kill -0 "$1" 2>/dev/null || return 0
	[ "$(ps -o stat= -p "$1" 2>/dev/null | cut -c1)" = Z ]
}

# wait_for_gone PID [SECONDS]: wait until no process has PID (zombies count as gone).
wait_for_gone() { wait_until "${2:-10}" gone "$1"; }

# wait_bg PID [SECONDS]: wait (bounded, default 20 s) for the background PID to end and
# collect it: its exit status in BG_STATUS.  Still running at the bound, it is KILLed.
wait_bg() {
	if ! wait_for_gone "$1" "${2:-20}"; then
		kill -KILL "$1" 2>/dev/null || true
		return 1
	fi
	local st=0
	wait "$1" || st=$?
	export BG_STATUS=$st # read by the caller
}

# bounded SECONDS PROGRAM [ARG]...: PROGRAM, KILLed if it runs longer than SECONDS, so that a
# hung runlimit fails its test instead of hanging the suite (GNU timeout is not everywhere,
# and FreeBSD's makes itself a reaper).  PROGRAM replaces a subshell of this shell, so it
# keeps this shell's signal dispositions, mask, process group and descriptors; the watchdog
# is a detached shell polling its pid, and KILLs it only if it is still there at the end.
bounded() {
	local limit=$1
	shift
	(
		me=$(exec sh -c 'echo "$PPID"')
		(sh -c 'n=$(($1 * 10))
			while [ "$n" -gt 0 ] && kill -0 "$2" 2>/dev/null; do sleep 0.1; n=$((n - 1)); done
			[ "$n" -gt 0 ] || kill -KILL "$2" 2>/dev/null' _ "$limit" "$me" \
			</dev/null >/dev/null 2>&1 3>&- &)
		exec "$@"
	)
}

# private_sleep NAME: a copy of sleep under a unique name, to find survivors by name.
private_sleep() {
	local path=$BATS_TEST_TMPDIR/$1
	cp "$(command -v sleep)" "$path"
	printf '%s\n' "$path"
}

# per_test_sleep PREFIX: in a setup (or a test), what a test of processes goes by: D, its
# directory; N, PREFIX, the test's number and this run's pid (unique beside another run of
# the suite); S, a copy of sleep named "$N-s" (private_sleep), for teardown's kill_named
# "$N-s" to end whatever a test leaves.  D and S are exported, for the scripts tests run.
per_test_sleep() {
	D=$BATS_TEST_TMPDIR
	N=$1$BATS_TEST_NUMBER-$(($$ % 100000))
	S=$(private_sleep "$N-s")
	export D S
}

# survivors NAME: pids of live (non-zombie) processes whose command name is NAME (ucomm: the
# executable's name, which macOS's comm is not).
survivors() {
	ps -A -o pid= -o stat= -o ucomm= | awk -v n="$1" '$3 == n && $2 !~ /^Z/ { print $1 }'
}

# no_live NAME, has_survivors NAME: no live process is called NAME; one is, at least.
no_live() { [ -z "$(survivors "$1")" ]; }
has_survivors() { [ -n "$(survivors "$1")" ]; }

# no_survivors NAME [SECONDS]: wait until no live process is called NAME (default 10 s).
no_survivors() {
	wait_until "${2:-10}" no_live "$1" ||
		{ echo "survivors named $1: $(survivors "$1")" >&2; return 1; }
}

# count_is NAME N: N live processes are called NAME.  size_is FILE N: FILE holds N bytes.
# (Functions, so that wait_until asks again each time: a "$(...)" among its arguments is
# expanded once, at the call.)
count_is() { [ "$(survivors "$1" | wc -l)" -eq "$2" ]; }
size_is() { [ "$(wc -c <"$1")" -eq "$2" ]; }

# kill_named NAME: clean-up after a test, whatever it left.
kill_named() {
	local p
	for p in $(survivors "$1"); do kill -KILL "$p" 2>/dev/null || true; done
}

# exe_pids PATTERN: live processes running an executable whose path matches PATTERN (a glob).
# Where /proc has PID/exe (Linux), its link; elsewhere the process's argv[0] as ps shows it
# (the tests start their private executables by path).  Zombies have no executable.
exe_pids() {
	if [ -e "/proc/$$/exe" ]; then
		find /proc/[0-9]*/exe -maxdepth 0 -lname "$1" 2>/dev/null | cut -d/ -f3
		return 0
	fi
	local pid stat args
	ps -A -ww -o pid= -o stat= -o args= 2>/dev/null | while read -r pid stat args; do
		case $stat in Z*) continue ;; esac
		# shellcheck disable=SC2053 # a glob, on purpose
		if [[ $args == $1 || $args == $1" "* ]]; then echo "$pid"; fi
	done
	return 0
}

# has_exe PID PATH: PID runs the executable PATH (it has exec'd it).
has_exe() {
	if [ -e "/proc/$$/exe" ]; then
		[ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$2" ]
		return
	fi
	local args
	args=$(ps -ww -o args= -p "$1" 2>/dev/null) || return 1
	[ "$(ps -o stat= -p "$1" 2>/dev/null | cut -c1)" != Z ] || return 1
	[[ $args == "$2" || $args == "$2 "* ]]
}

# is_child_of PID PPID, is_stopped PID: from ps.
is_child_of() { [ "$(ps -o ppid= -p "$1" 2>/dev/null | tr -d ' ')" = "$2" ]; }
is_stopped() { [ "$(ps -o stat= -p "$1" 2>/dev/null | cut -c1)" = T ]; }
sleeping() { [ "$(ps -o stat= -p "$1" 2>/dev/null | cut -c1)" = S ]; }

# make_dfl_wrapper: in a setup_file, export PY, the python interpreter itself (pyenv shims are
# slow bash scripts), which runs "$TOOLS/dfl.py" PROG ARG... (PROG with INT, QUIT, PIPE and
# XFSZ at their defaults) and the other python tools.
make_dfl_wrapper() {
	PY=$(python3 -c 'import sys; print(sys.executable)')
	export PY
}

# install_tool TOOL INTERPRETER PATH: tests/tools/TOOL as an executable PATH run by
# INTERPRETER itself (its "#!" line), for what must be exec'd directly, not through a shell
# or a wrapper that could change what it inherits.
install_tool() {
	{
		printf '#!%s\n' "$2"
		cat "$TOOLS/$1"
	} >"$3" && chmod +x "$3"
}

# ---- what this system has -----------------------------------------------------------------

# make_setsid_standin: in a setup_file, where setsid(1) (util-linux's) is missing (macOS,
# FreeBSD), put a stand-in first on PATH that does the same: setsid(), after a fork if the
# caller leads a process group, then exec.  A perl (else python3) script of its own, not a
# shell script, which would need more file descriptors than a test may leave (dash moves the
# script's above 9).
make_setsid_standin() {
	command -v setsid >/dev/null 2>&1 && return 0
	mkdir -p "$BATS_FILE_TMPDIR/bin"
	if command -v perl >/dev/null 2>&1; then
		install_tool setsid.pl "$(command -v perl)" "$BATS_FILE_TMPDIR/bin/setsid"
	else
		install_tool setsid.py "$(python3 -c 'import sys; print(sys.executable)')" \
			"$BATS_FILE_TMPDIR/bin/setsid"
	fi
	PATH=$BATS_FILE_TMPDIR/bin:$PATH
	export PATH
}

# signal_lines TEXT: TEXT without the command's tree that -v shows at a limit (its header
# line and its indented lines), which GNU's -v has not.
signal_lines() {
	printf '%s\n' "$1" | grep -v -e "^[^ ]*: the command's tree at " -e '^  ' || true
}

# same_outcome OURS THEIRS ARG...: OURS ARG... and THEIRS ARG... (commands or functions) print
# the same on stderr and exit the same (stdout discarded); on a difference, both are shown.
same_outcome() {
	local ours=$1 theirs=$2 o g o_rc=0 g_rc=0
	shift 2
	o=$("$ours" "$@" 2>&1 >/dev/null) || o_rc=$?
	g=$("$theirs" "$@" 2>&1 >/dev/null) || g_rc=$?
	o=$(signal_lines "$o")
	if [ "$o" != "$g" ] || [ "$o_rc" != "$g_rc" ]; then
		printf 'args: %s\nrunlimit (%s):\n%s\nGNU (%s):\n%s\n' "$*" "$o_rc" "$o" "$g_rc" "$g"
		return 1
	fi
}

# gnu_coreutils PATH: PATH runs and is GNU coreutils' program (FreeBSD's timeout and nproc
# are its own, with other options and messages; macOS has neither).
gnu_coreutils() {
	[ -x "$1" ] && "$1" --version 2>/dev/null | head -n 1 | grep -q '(GNU coreutils)'
}

# pin_to_one_cpu PROGRAM [ARG]...: PROGRAM with its affinity set to CPU 0, with taskset
# (Linux) or cpuset (FreeBSD); fails with status 127 where neither exists.
pin_to_one_cpu() {
	if command -v taskset >/dev/null 2>&1; then
		taskset -c 0 "$@"
	elif command -v cpuset >/dev/null 2>&1; then
		cpuset -l 0 "$@"
	else
		return 127
	fi
}

# private_shell_binary: a shell executable whose copy runs under the copy's name (macOS's
# /bin/sh is a trampoline that execs another shell, whose name the copy would then show).
private_shell_binary() {
	local cand name=shprobe$(($$ % 100000)) copy
	copy=$BATS_FILE_TMPDIR/$name
	for cand in /bin/sh "$(command -v dash 2>/dev/null)" "$(command -v bash 2>/dev/null)"; do
		if [ -z "$cand" ] || [ ! -x "$cand" ]; then continue; fi
		cp "$cand" "$copy" 2>/dev/null || continue
		# "; :" keeps the shell from exec'ing ps in its own place.
		if [ "$("$copy" -c 'ps -o ucomm= -p $$; :' 2>/dev/null | tr -d ' ')" = "$name" ]; then
			rm -f "$copy"
			printf '%s\n' "$cand"
			return 0
		fi
		rm -f "$copy"
	done
	return 1
}

# needs_procs N: skip unless this user may run N more processes than now run (ulimit -u,
# counted against every process, which is generous; macOS's default is a few thousand).
needs_procs() {
	local max
	max=$(ulimit -u 2>/dev/null) || return 0
	case $max in '' | *[!0-9]*) return 0 ;; esac
	[ "$max" -ge $(($1 + $(ps -A -o pid= | wc -l))) ] ||
		skip "needs $1 more processes than ulimit -u ($max) allows"
}

# ---- what the runlimit under test does ----------------------------------------------------

# probe_tree_up DIR NAME: the probe's tree (tools/probe-tree.sh) is all there.
probe_tree_up() {
	[ -n "$(survivors "$2-c")" ] && [ -s "$1/esc" ] && [ -s "$1/orphan" ] &&
		[ "$(ps -o ucomm= -p "$(cat "$1/esc")" 2>/dev/null | tr -d ' ')" = "$2-e" ]
}

# probe_tree_reach: in a setup_file, find out whether the runlimit under test reaches what
# left the command's process group, and export the answers (yes, no, or unknown where the
# probe could not tell):
#   RL_REACHES_SESSIONS  a setsid'd child of the command is KILLed at a time-out (a walk of
#                        the process tree; not with the process group alone);
#   RL_ADOPTS_ORPHANS    an orphaned descendant is re-parented to runlimit (a subreaper or
#                        reaper; macOS has none).
# The answers are printed as a TAP comment, so that a build that lost one shows it.
probe_tree_reach() {
	local dir=$BATS_FILE_TMPDIR/probe-tree n rl esc orphan
	n=pr$(($$ % 100000))
	RL_REACHES_SESSIONS=unknown RL_ADOPTS_ORPHANS=unknown
	export RL_REACHES_SESSIONS RL_ADOPTS_ORPHANS
	command -v setsid >/dev/null 2>&1 || return 0
	mkdir -p "$dir"
	cp "$(command -v sleep)" "$dir/$n-e"
	cp "$(command -v sleep)" "$dir/$n-o"
	cp "$(command -v sleep)" "$dir/$n-c"
	"$RUNLIMIT" -s KILL 30 sh "$TOOLS/probe-tree.sh" "$dir" "$n" </dev/null >/dev/null 2>&1 3>&- &
	rl=$!
	# Ready: the command runs its sleep (so the orphan's parent is gone) and the escapee
	# runs its own (so it has its own session).
	if ! wait_until 20 probe_tree_up "$dir" "$n" 2>/dev/null; then
		kill -KILL "$rl" 2>/dev/null || true
		kill_named "$n-e"; kill_named "$n-o"; kill_named "$n-c"
		echo "# probe: the probe's tree did not come up; capabilities unknown" >&3
		return 0
	fi
	esc=$(cat "$dir/esc") orphan=$(cat "$dir/orphan")
	if is_child_of "$orphan" "$rl"; then RL_ADOPTS_ORPHANS=yes; else RL_ADOPTS_ORPHANS=no; fi
	kill -ALRM "$rl"
	if wait_for_gone "$rl" 10 2>/dev/null; then
		wait "$rl" 2>/dev/null || true
		# A build that reaches it has KILLed it before returning; 2 s for a slow reaper.
		if wait_for_gone "$esc" 2 2>/dev/null; then
			RL_REACHES_SESSIONS=yes
		else
			RL_REACHES_SESSIONS=no
		fi
	fi
	kill -KILL "$rl" 2>/dev/null || true
	kill_named "$n-e"
	kill_named "$n-o"
	kill_named "$n-c"
	echo "# runlimit under test: reaches setsid'd descendants: $RL_REACHES_SESSIONS;" \
		"adopts orphans: $RL_ADOPTS_ORPHANS" >&3
}

# setup_tree_tests: in the setup_file of a file whose tests build process trees: the setsid
# stand-in where needed, PY, and what the runlimit under test reaches (probe_tree_reach).
setup_tree_tests() {
	make_setsid_standin
	make_dfl_wrapper
	probe_tree_reach
}

# reaches_sessions: runlimit reaches a descendant that left for a session of its own, or the
# probe could not tell (probe_tree_reach).
reaches_sessions() { [ "${RL_REACHES_SESSIONS:-unknown}" != no ]; }

# expected WHAT: the build under test is known to have WHAT (sessions, orphans): make check
# says so in RUNLIMIT_EXPECT for the back end it built.  Then a probe that finds it missing
# is a failure, not a reason to skip.
expected() {
	case " ${RUNLIMIT_EXPECT:-} " in *" $1 "*) return 0 ;; esac
	return 1
}

# needs_session_reach [DONE]: skip unless reaches_sessions; DONE says what the test checked
# before it came to this.  Fails if the build should reach them (expected sessions).
needs_session_reach() {
	reaches_sessions && return 0
	if expected sessions; then
		echo "this build should reach setsid'd descendants, but the probe found it does not" >&2
		return 1
	fi
	skip "${1:+$1; }runlimit does not reach a setsid'd descendant at a time-out (no tree walk: the process group only)"
}

# needs_orphan_adoption: skip unless runlimit also adopts orphaned descendants, which a walk
# alone cannot find once their parent is gone (probe_tree_reach).
# needs_strace: skip unless strace can trace runlimit here: strace is installed and allowed to
# trace children (ptrace), and runlimit is not run by an emulator (the release check runs the
# aarch64 binary under qemu-user and says so in RUNLIMIT_EMULATED: strace would see the
# emulator's system calls, not runlimit's).
# no_leak_check: under make check SANITIZE=1, turn LeakSanitizer off for this test: it needs
# /proc and file descriptors and cannot run under ptrace, which a test may take away or use
# (strace): the sanitizer build's status would be its failure, not runlimit's.
no_leak_check() {
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
}

needs_strace() {
	command -v strace >/dev/null || skip "no strace"
	strace -f -o /dev/null true 2>/dev/null || skip "strace cannot trace here"
	[ -z "${RUNLIMIT_EMULATED:-}" ] || skip "runlimit runs under $RUNLIMIT_EMULATED: strace would trace the emulator"
}

needs_orphan_adoption() {
	needs_session_reach "" || return 1
	[ "${RL_ADOPTS_ORPHANS:-unknown}" != no ] && return 0
	if expected orphans; then
		echo "this build should adopt orphaned descendants, but the probe found it does not" >&2
		return 1
	fi
	skip "runlimit does not adopt orphaned descendants (no subreaper or reaper)"
}

# make_sigsnap: in a setup_file (after make_dfl_wrapper), write $BATS_FILE_TMPDIR/sigsnap and
# export SIGSNAP.  sigsnap [FILE [SECONDS]]: the ignored and blocked signals of the process
# itself, so of whoever exec'd it (ignores and the mask survive exec), as Linux's
# /proc/PID/status shows them ("SigIgn:" and "SigBlk:" lines, hex masks, bit N-1 for signal
# N), to FILE (default: stdout); then a sleep of SECONDS.  A python script run directly, not a
# shell script (a shell may clear the mask at start-up: dash does); python ignores PIPE and
# XFSZ itself, so their two bits are left clear.
make_sigsnap() {
	install_tool sigsnap.py "$PY" "$BATS_FILE_TMPDIR/sigsnap"
	SIGSNAP=$BATS_FILE_TMPDIR/sigsnap
	export SIGSNAP
}

# sigsnap_of PID: another process's ignored, blocked and caught signals, as sigsnap prints
# them with a "SigCgt:" line more: from /proc/PID/status where it has them (Linux), else from
# ps where it knows sigignore, sigmask and sigcatch (FreeBSD; macOS's ps lacks the first and
# the last).  Fails where neither can tell.
sigsnap_of() {
	if grep -q '^SigBlk:' "/proc/$1/status" 2>/dev/null; then
		grep -E '^Sig(Ign|Blk|Cgt):' "/proc/$1/status"
		return
	fi
	local ign blk cgt
	ign=$(ps -o sigignore= -p "$1" 2>/dev/null | tr -d ' ')
	blk=$(ps -o sigmask= -p "$1" 2>/dev/null | tr -d ' ')
	cgt=$(ps -o sigcatch= -p "$1" 2>/dev/null | tr -d ' ')
	case $ign:$blk:$cgt in
	*[!0-9a-fA-F:]* | :* | *::* | *:) return 1 ;;
	esac
	printf 'SigIgn:\t%s\nSigBlk:\t%s\nSigCgt:\t%s\n' "$ign" "$blk" "$cgt"
}

# in_mask HEX SIGNUM: is SIGNUM set in a mask as sigsnap prints it?
in_mask() { (((0x$1 >> ($2 - 1)) & 1)); }
not_in_mask() { ! in_mask "$@"; }

# mask_of FIELD FILE: the hex value of SigIgn/SigBlk/SigCgt in a saved sigsnap output.
mask_of() { awk -v f="$1:" '$1 == f { print $2 }' "$2"; }

# ---- a second user ------------------------------------------------------------------------

# needs_other_users: skip unless this is root with setpriv(1), so that a test can act as
# unprivileged users (65534, nobody, and uids no account has) that may not touch each
# other's files.  Sets USER_RL: the runlimit under test, where those users can run it (a
# copy in a public directory if its own path is closed to them; other_users_done removes it).
needs_other_users() {
	[ "$(id -u)" = 0 ] || skip "needs root, to act as two unprivileged users"
	command -v setpriv >/dev/null 2>&1 || skip "needs setpriv(1) to act as another user"
	setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null ||
		skip "setpriv cannot switch to uid 65534 here"
	export USER_RL=$RUNLIMIT USER_RL_DIR=
	# Through a shell, as the tests run it: setpriv's own exec of a path in a directory
	# that user may not search can succeed where the user's would not.
	# shellcheck disable=SC2016
	if ! as_user 65534 sh -c '"$0" --version' "$RUNLIMIT" >/dev/null 2>&1; then
		USER_RL_DIR=$(mktemp -d /tmp/runlimit-bin.XXXXXX)
		chmod 755 "$USER_RL_DIR"
		cp "$RUNLIMIT" "$USER_RL_DIR/runlimit"
		USER_RL=$USER_RL_DIR/runlimit
	fi
}

other_users_done() {
	[ -z "${USER_RL_DIR:-}" ] || rm -rf "$USER_RL_DIR"
}

# as_user UID PROGRAM [ARG]...: PROGRAM as UID (group UID too, no supplementary groups).
as_user() {
	local uid=$1
	shift
	setpriv --reuid="$uid" --regid="$uid" --clear-groups "$@"
}

# public_dir: a new sticky directory anyone may write in (as /tmp is), under /tmp, whose
# path every user can reach (a test's own directory may not be); removed by the caller.
public_dir() {
	local dir
	dir=$(mktemp -d /tmp/runlimit-test.XXXXXX) || return 1
	chmod 1777 "$dir"
	printf '%s\n' "$dir"
}

# probe_counts: in a setup_file (after setup_tree_tests), export RL_COUNTS: does the build
# under test list the command's tree (a process table), so that the report's process counts
# are numbers and a process left alive can be named?  yes or no.
probe_counts() {
	RL_COUNTS=no
	if "$RUNLIMIT" --report="$BATS_FILE_TMPDIR/probe.json" 10 true &&
		"$PY" "$TOOLS/report_is.py" "$BATS_FILE_TMPDIR/probe.json" \
			'd["left_running"] is not None'; then
		RL_COUNTS=yes
	fi
	export RL_COUNTS
}

# ---- a process that cannot die ------------------------------------------------------------

# A process in an uninterruptible wait (a hung NFS or FUSE mount, a disk that stopped
# answering) keeps a pending SIGKILL until the wait ends.  The stand-in here is cgroup v1's
# freezer: a task of a FROZEN cgroup does the same until THAWED (SIGSTOP is none: a stopped
# process dies of SIGKILL at once; nor is cgroup v2's cgroup.freeze, which lets SIGKILL
# through).

# freezer_mount: print where a cgroup v1 freezer hierarchy is mounted, mounting one on
# $BATS_FILE_TMPDIR/freezer if there is none and this is root (the check-vm kernel has the
# controller but mounts only cgroup2); fails where there is none to be had.
freezer_mount() {
	local mnt
	mnt=$(awk '{ for (i = 7; i < NF; i++) if ($i == "-") {
		if ($(i + 1) == "cgroup" && $(i + 3) ~ /(^|,)freezer(,|$)/) { print $5; exit }
		break } }' /proc/self/mountinfo 2>/dev/null)
	if [ -z "$mnt" ] && [ "$(id -u)" = 0 ] && [ -n "${BATS_FILE_TMPDIR:-}" ]; then
		mnt=$BATS_FILE_TMPDIR/freezer
		mkdir -p "$mnt"
		mount -t cgroup -o freezer runlimit-freezer "$mnt" 2>/dev/null || mnt=
	fi
	[ -n "$mnt" ] && [ -w "$mnt/tasks" ] && printf '%s\n' "$mnt"
}

# needs_freezer: skip unless a freezer cgroup can be had (root, a cgroup v1 freezer); in
# make check-vm's VM, whose kernel has one, fail instead.  Sets FREEZER, a new cgroup of
# this test's that freeze_self puts processes in; thaw_freezer (in teardown) ends it.
needs_freezer() {
	local mnt
	if ! mnt=$(freezer_mount); then
		if [ "${RUNLIMIT_VM:-}" = 1 ]; then
			echo "the VM's kernel should have a cgroup v1 freezer to mount" >&2
			return 1
		fi
		[ "$(id -u)" = 0 ] || skip "needs root, to freeze a process (a cgroup v1 freezer)"
		skip "no cgroup v1 freezer here (a frozen task keeps SIGKILL pending, as in an uninterruptible wait; cgroup v2's freeze does not)"
	fi
	FREEZER=$mnt/runlimit-t$BATS_TEST_NUMBER-$$
	mkdir "$FREEZER"
	export FREEZER
}

# FREEZE: a line of sh that puts the shell running it into $FREEZER and freezes it there
# (it goes on only once thawed).
# shellcheck disable=SC2016,SC2034 # used by the files that load this
FREEZE='echo $$ >"$FREEZER/tasks" && echo FROZEN >"$FREEZER/freezer.state"'

# frozen: $FREEZER holds a process and is FROZEN.  (A cgroup file's size is 0: read it.)
frozen() { [ "$(cat "$FREEZER/freezer.state" 2>/dev/null)" = FROZEN ] && ! freezer_empty; }
freezer_empty() { [ -z "$(cat "$FREEZER/tasks" 2>/dev/null)" ]; }

# thaw_freezer: thaw $FREEZER (what was KILLed there dies now; what was not, a test's
# failure, is KILLed here) and remove it once empty.
thaw_freezer() {
	[ -n "${FREEZER:-}" ] && [ -d "$FREEZER" ] || return 0
	echo THAWED >"$FREEZER/freezer.state" 2>/dev/null || true
	local pid
	while read -r pid; do kill -KILL "$pid" 2>/dev/null || true; done <"$FREEZER/tasks"
	wait_until 10 freezer_empty || true
	rmdir "$FREEZER" 2>/dev/null || true
}

# unmount_freezer: in teardown_file, unmount what freezer_mount mounted (if it did: bats
# cannot remove its directory while mounted).
unmount_freezer() {
	[ ! -d "$BATS_FILE_TMPDIR/freezer" ] || umount "$BATS_FILE_TMPDIR/freezer" 2>/dev/null || true
}

# ---- Debian's wait-for-it, a client of GNU timeout's process group ----------------------

# wfi_child_running: wait-for-it, run as its copy $WFI, has its timeout run its child (bash
# $WFI --child) in the group of the timeout's own pid, as under GNU timeout, which its INT
# trap (kill -INT -PID) counts on: the child's group is its parent's pid.  WFI_TIMEOUT: that
# timeout's pid.  (Found from the child: under an emulator the timeout's arguments are qemu's.)
wfi_child_running() {
	WFI_TIMEOUT=$(ps -A -o pid= -o ppid= -o pgid= -o args= | awk -v w="$WFI" '
		index($0, "bash " w " --child") && $2 == $3 { print $2; exit }')
	[ -n "$WFI_TIMEOUT" ]
}

# catches PID SIGNUM: PID has a handler for signal SIGNUM (ps's sigcatch mask, in
# hexadecimal); true where ps cannot tell.
catches() {
	local mask
	mask=$(ps -o sigcatch= -p "$1" 2>/dev/null | tr -d ' ')
	mask=${mask#0x}
	case $mask in '' | *[!0-9a-fA-F]*) return 0 ;; esac
	[ $((0x$mask >> ($2 - 1) & 1)) -eq 1 ]
}

# wfi_trap_set: after wfi_child_running, the script (WFI_TIMEOUT's parent) has set the INT
# trap it sets just after it starts timeout.  An INT before that ends the script without
# the trap, and timeout runs on: the test's race, not runlimit's (seen once under load).
wfi_trap_set() {
	catches "$(ps -o ppid= -p "$WFI_TIMEOUT" 2>/dev/null | tr -d ' ')" 2
}

# wfi_gone: no process runs the copy $WFI of wait-for-it.
wfi_gone() { ! pgrep -f -- "$WFI" >/dev/null; }
