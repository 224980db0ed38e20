#!/usr/bin/env bats
# The core-count probe: `runlimit --nproc` and the `nproc` name, against GNU nproc 9.1 (same
# OpenMP and affinity rules; it predates cgroup quotas) and against real cgroup CPU quotas.

load helpers

bats_require_minimum_version 1.5.0

GNU_NPROC=${GNU_NPROC:-/usr/bin/nproc}

setup_file() {
	# Only GNU's own nproc is the reference (FreeBSD's /usr/bin/nproc is another).
	if gnu_coreutils "$GNU_NPROC"; then GNU_NPROC_OK=yes; else GNU_NPROC_OK=no; fi
	export GNU_NPROC_OK
	probe_affinity
	probe_quota
}

setup() {
	local bin
	bin=$(cd "$(dirname "$RUNLIMIT")" && pwd)/$(basename "$RUNLIMIT")
	mkdir -p "$BATS_TEST_TMPDIR/ours"
	ln -s "$bin" "$BATS_TEST_TMPDIR/ours/nproc"
	ours_link=$BATS_TEST_TMPDIR/ours/nproc
	unset OMP_NUM_THREADS OMP_THREAD_LIMIT
	cg=""
}

teardown() {
	# The cgroup's processes have all exited by now: each test waits for its commands.
	if [ -n "$cg" ] && [ -d "$cg" ]; then
		rmdir "$cg/child" 2>/dev/null || true
		rmdir "$cg" || echo "could not remove $cg" >&2
	fi
}

# needs_gnu: skip unless GNU nproc is there to compare with.  Not from inside $(...), where
# a skip would only end the subshell.
needs_gnu() {
	[ "$GNU_NPROC_OK" = yes ] || skip "no GNU nproc at $GNU_NPROC"
}

# gnu_nproc ARGS...: GNU nproc (after needs_gnu).
gnu_nproc() {
	"$GNU_NPROC" "$@"
}

# probe_affinity: in setup_file, export RL_AFFINITY: does runlimit --nproc count only the
# processors its affinity allows (yes), or all online ones (no: sysconf alone)?  "unknown"
# with one processor, or nothing to pin a process with.  Printed as a TAP comment.
probe_affinity() {
	local all pinned
	RL_AFFINITY=unknown
	all=$("$RUNLIMIT" --nproc --all 2>/dev/null) || all=0
	if [ "$all" -ge 2 ] 2>/dev/null && pinned=$(pin_to_one_cpu "$RUNLIMIT" --nproc 2>/dev/null); then
		if [ "$pinned" = 1 ]; then RL_AFFINITY=yes; else RL_AFFINITY=no; fi
	fi
	export RL_AFFINITY
	echo "# runlimit under test: --nproc follows the affinity mask: $RL_AFFINITY" >&3
}

# needs_affinity: skip unless a process can be pinned to one processor here and runlimit
# --nproc counts the processors its affinity allows.
needs_affinity() {
	pin_to_one_cpu true 2>/dev/null || skip "no taskset or cpuset to pin a process to one processor"
	[ "$RL_AFFINITY" != no ] ||
		skip "runlimit --nproc does not follow the affinity mask (this build counts the processors online)"
}

# gnu_as_nproc ARGS...: GNU nproc with our link's path as argv[0], so that both print the
# same program name in their messages (argv[0] as invoked, as GNU does).
gnu_as_nproc() {
	(exec -a "$ours_link" "$GNU_NPROC" "$@")
}

# quota_here: may a CPU quota apply to this process?  GNU 9.1 ignores quotas, so it can be
# compared with runlimit only where none does.  Every cgroup from this process's own up to
# the top of each mount showing it is read; a cgroup that cannot be found counts as a quota.
quota_here() {
	local ctl path kind file root mp rel dir v
	[ -r /proc/self/cgroup ] && [ -r /proc/self/mountinfo ] || return 1
	while IFS=: read -r _ ctl path; do
		case ",$ctl," in
		*,cpu,*) kind=cgroup file=cpu.cfs_quota_us ;;
		,,) kind=cgroup2 file=cpu.max ;;
		*) continue ;;
		esac
		while read -r root mp; do
			if [ "$root" = / ]; then
				rel=$path
			else
				case $path in "$root" | "$root"/*) rel=${path#"$root"} ;; *) continue ;; esac
			fi
			dir=${mp%/}${rel%/}
			[ -d "$dir" ] || return 0
			while :; do
				if v=$(cat "$dir/$file" 2>/dev/null); then
					case $v in max* | -1) ;; *) return 0 ;; esac
				fi
				[ "${#dir}" -le "${#mp}" ] && break
				dir=${dir%/*}
			done
		done < <(awk -v k="$kind" '$(NF-2) == k && (k == "cgroup2" || $NF ~ /(^|,)cpu(,|$)/) { print $4, $5 }' /proc/self/mountinfo)
	done </proc/self/cgroup
	return 1
}

@test "runlimit --nproc prints what GNU nproc prints where no quota applies" {
	needs_gnu
	quota_here && skip "a CPU quota applies here, which GNU nproc 9.1 ignores"
	want=$(gnu_nproc)
	run -0 "$RUNLIMIT" --nproc
	[ "$output" = "$want" ]
	[ "$output" -ge 1 ]
}

@test "--all prints the processors installed, as GNU nproc --all" {
	needs_gnu
	want=$(gnu_nproc --all)
	run -0 "$RUNLIMIT" --nproc --all
	[ "$output" = "$want" ]
	run -0 "$ours_link" --all
	[ "$output" = "$want" ]
}

@test "invoked as nproc it is nproc: same answer, nproc's name in its messages" {
	run -0 "$RUNLIMIT" --nproc
	want=$output
	run -0 "$ours_link"
	[ "$output" = "$want" ]
	run -1 --separate-stderr "$ours_link" extra
	[ "$stderr" = "$ours_link: extra operand 'extra'
Try '$ours_link --help' for more information." ]
	run -0 "$ours_link" --version
	[[ "${lines[0]}" =~ ^nproc\ \(runlimit\)\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
	[[ "${lines[1]}" == "Compatible with nproc (GNU coreutils) "* ]]
	run -0 "$ours_link" --help
	[ "${lines[0]}" = "Usage: $ours_link [--all] [--ignore=N]" ]
	[[ $output == *"--all"* ]] && [[ $output == *"--ignore=N"* ]]
}

@test "taskset -c 0: 1 processor available, --all still counts them all" {
	needs_affinity
	run -0 pin_to_one_cpu "$RUNLIMIT" --nproc
	[ "$output" = 1 ]
	want=$("$RUNLIMIT" --nproc --all)
	run -0 pin_to_one_cpu "$RUNLIMIT" --nproc --all
	[ "$output" = "$want" ]
	needs_gnu
	[ "$want" = "$(gnu_nproc --all)" ]
}

# omp THREADS LIMIT WANT: ours with the OpenMP variables ("-" leaves one unset) prints WANT,
# and so does GNU nproc.
omp() {
	local env=()
	[ "$1" = - ] || env+=("OMP_NUM_THREADS=$1")
	[ "$2" = - ] || env+=("OMP_THREAD_LIMIT=$2")
	run -0 env "${env[@]}" "$RUNLIMIT" --nproc
	[ "$output" = "$3" ] || { echo "OMP_NUM_THREADS=$1 OMP_THREAD_LIMIT=$2: got $output, want $3"; return 1; }
	run -0 env "${env[@]}" "$GNU_NPROC" ${4:+"$4"}
	[ "$output" = "$3" ] || { echo "GNU nproc disagrees: $output"; return 1; }
}

@test "OMP_NUM_THREADS and OMP_THREAD_LIMIT: GNU nproc's table" {
	needs_gnu
	quota_here && skip "a CPU quota applies here, which GNU nproc 9.1 ignores"
	avail=$("$GNU_NPROC")
	omp 2,2,1 - 2
	omp 7 - 7
	omp 1000 - 1000
	omp "  5  " - 5
	omp 5,2 - 5
	omp 2bad - "$avail"
	omp 5x - "$avail"
	omp 0 - "$avail"
	omp -3 - "$avail"
	omp +3 - "$avail"
	omp "" - "$avail"
	omp 2,2,1 1 1
	omp 7 3 3
	omp - 1 1
	omp - 0 "$avail"
	omp 3 0 3
	omp 99999999999999999999 - 18446744073709551615
	omp 18446744073709551615 - 18446744073709551615
	omp 99999999999999999999 5 5
}

@test "OMP_NUM_THREADS overrides the affinity mask; --all ignores both variables" {
	pin_to_one_cpu true 2>/dev/null || skip "no taskset or cpuset to pin a process to one processor"
	run -0 pin_to_one_cpu env OMP_NUM_THREADS=1000 "$RUNLIMIT" --nproc
	[ "$output" = 1000 ]
	want=$("$RUNLIMIT" --nproc --all)
	run -0 env OMP_NUM_THREADS=7 OMP_THREAD_LIMIT=1 "$RUNLIMIT" --nproc --all
	[ "$output" = "$want" ]
	needs_gnu
	[ "$want" = "$(gnu_nproc --all)" ]
}

@test "--ignore=N subtracts, never below 1; huge N clamps; it also applies to --all" {
	run -0 env OMP_NUM_THREADS=42 "$RUNLIMIT" --nproc --ignore=40
	[ "$output" = 2 ]
	run -0 env OMP_NUM_THREADS=42 "$ours_link" --ign 41
	[ "$output" = 1 ]
	run -0 env OMP_NUM_THREADS=42 "$RUNLIMIT" --nproc --ignore=42
	[ "$output" = 1 ]
	run -0 env OMP_NUM_THREADS=42 "$RUNLIMIT" --nproc --ignore=' +5'
	[ "$output" = 37 ]
	run -0 "$RUNLIMIT" --nproc --ignore=99999999999999999999999
	[ "$output" = 1 ]
	all=$("$RUNLIMIT" --nproc --all)
	run -0 "$RUNLIMIT" --nproc --all --ignore=1
	[ "$output" = "$(( all > 1 ? all - 1 : 1 ))" ]
}

@test "a bad --ignore is 'invalid number', exit 1, as GNU nproc" {
	needs_gnu
	for n in -1 -0 "" 1k 0x1 "1 " abc; do
		run -1 --separate-stderr "$ours_link" --ignore="$n"
		[ "$stderr" = "$ours_link: invalid number: '$n'" ] || { echo "[$n]: $stderr"; return 1; }
		[ -z "$output" ]
		run -1 --separate-stderr gnu_as_nproc --ignore="$n"
		[ "$stderr" = "$ours_link: invalid number: '$n'" ] || { echo "GNU [$n]: $stderr"; return 1; }
	done
	run -1 --separate-stderr "$RUNLIMIT" --nproc --ignore=-1
	[ "$stderr" = "$RUNLIMIT: invalid number: '-1'" ]
}

@test "usage errors are GNU nproc's, byte for byte, with exit 1" {
	needs_gnu
	for args in "x" "-- x" "x --all" "-a" "--bogus" "--all=3" "--ignore" "--help=1" "--=3"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$ours_link" $args
		ours_status=$status ours_err=$stderr ours_out=$output
		# shellcheck disable=SC2086
		run --separate-stderr gnu_as_nproc $args
		[ "$ours_status" = "$status" ] || { echo "[$args] status $ours_status vs $status"; return 1; }
		[ "$ours_status" = 1 ]
		[ "$ours_err" = "$stderr" ] || { echo "[$args] ours: $ours_err / GNU: $stderr"; return 1; }
		[ -z "$ours_out" ]
	done
}

@test "abbreviated long options work, as with getopt" {
	want=$("$RUNLIMIT" --nproc --all)
	run -0 "$ours_link" --a
	[ "$output" = "$want" ]
	run -0 env OMP_NUM_THREADS=9 "$ours_link" --i=2
	[ "$output" = 7 ]
	run -0 "$ours_link" --h
	[[ $output == Usage:* ]]
	run -0 "$ours_link" --v
	[[ $output == "nproc (runlimit)"* ]]
}

@test "--nproc must come first, takes no argument; runlimit's own usage mentions it" {
	run -125 --separate-stderr "$RUNLIMIT" -v --nproc
	[ "$stderr" = "$RUNLIMIT: option '--nproc' must come first
Try '$RUNLIMIT --help' for more information." ]
	run -125 --separate-stderr "$RUNLIMIT" --nproc=3
	[ "${stderr%%$'\n'*}" = "$RUNLIMIT: option '--nproc' doesn't allow an argument" ]
	run -0 "$RUNLIMIT" --help
	[[ $output == *"$RUNLIMIT --nproc [--all] [--ignore=N]"* ]]
	run -0 "$RUNLIMIT" --nproc --help
	[ "${lines[0]}" = "Usage: $RUNLIMIT --nproc [--all] [--ignore=N]" ]
}

@test "a usage error in --nproc mode points to the --nproc help, as runlimit and as timeout" {
	run -1 --separate-stderr "$RUNLIMIT" --nproc --bogus
	[ "$stderr" = "$RUNLIMIT: unrecognized option '--bogus'
Try '$RUNLIMIT --nproc --help' for more information." ]
	ln -s "$RUNLIMIT" "$BATS_TEST_TMPDIR/timeout"
	run -1 --separate-stderr "$BATS_TEST_TMPDIR/timeout" --nproc --bogus
	[ "${lines[1]:-${stderr##*$'\n'}}" = "Try '$BATS_TEST_TMPDIR/timeout --nproc --help' for more information." ]
	run -0 "$BATS_TEST_TMPDIR/timeout" --nproc --help
	[ "${lines[0]}" = "Usage: $BATS_TEST_TMPDIR/timeout --nproc [--all] [--ignore=N]" ]
}

@test "a write error on stdout is reported and fails, never a silent success" {
	[ -w /dev/full ] || skip "no /dev/full"
	run -1 --separate-stderr sh -c '"$1" --nproc >/dev/full' _ "$RUNLIMIT"
	[[ $stderr == "$RUNLIMIT: write error: "* ]]
	run -1 --separate-stderr sh -c '"$1" >/dev/full' _ "$ours_link"
	[[ $stderr == "$ours_link: write error: "* ]]
}

# cg_create NAME: a fresh cgroup NAME with the cpu controller in $cg (v2 if the cpu
# controller is there, else v1 cpu), and $cg_kind; else fails, the reason in $cg_why.
cg_create() {
	local top name=$1
	cg="" cg_why=""
	[ "$(id -u)" = 0 ] || { cg_why="real cgroup tests need root"; return 1; }
	[ -r /proc/self/mountinfo ] || { cg_why="no /proc/self/mountinfo (no cgroups here)"; return 1; }
	top=$(awk '$(NF-2) == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
	if [ -n "$top" ] && grep -qw cpu "$top/cgroup.controllers" 2>/dev/null; then
		if grep -qw cpu "$top/cgroup.subtree_control" 2>/dev/null ||
			echo +cpu >"$top/cgroup.subtree_control" 2>/dev/null; then
			cg=$top/$name cg_kind=v2
			mkdir "$cg" 2>/dev/null && return 0
		fi
	fi
	top=$(awk '$(NF-2) == "cgroup" && $NF ~ /(^|,)cpu(,|$)/ { print $5; exit }' /proc/self/mountinfo)
	[ -n "$top" ] && [ -w "$top" ] ||
		{ cg="" cg_why="no writable cgroup with the cpu controller (v2 or v1)"; return 1; }
	cg=$top/$name cg_kind=v1
	mkdir "$cg" 2>/dev/null || { cg="" cg_why="cannot create a cgroup under $top"; return 1; }
}

# cg_make: cg_create for a test, which skips with the reason where it fails; and then skips
# unless runlimit applies CPU quotas (probe_quota).
cg_make() {
	cg_create "runlimit-nproc-$BATS_TEST_NUMBER-$$" || skip "$cg_why"
	needs_quota
}

# cg_quota DIR QUOTA PERIOD: QUOTA (µs, or "max") per PERIOD on the cgroup at DIR.
cg_quota() {
	if [ "$cg_kind" = v2 ]; then
		echo "$2 $3" >"$1/cpu.max"
	else
		[ "$2" = max ] && set -- "$1" -1 "$3"
		echo "$3" >"$1/cpu.cfs_period_us"
		echo "$2" >"$1/cpu.cfs_quota_us"
	fi
}

# cg_run DIR CMD...: CMD run inside the cgroup at DIR.
cg_run() {
	local dir=$1
	shift
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' _ "$dir" "$@"
}

@test "real cgroup quota: 0.5, 1.0, 1.49 and 1.5 CPUs give 1, 1, 1 and 2 (capped by CPUs)" {
	cg_make
	avail=$("$RUNLIMIT" --nproc)
	for pair in "50000 1" "100000 1" "149000 1" "150000 2" "max $avail"; do
		set -- $pair
		cg_quota "$cg" "$1" 100000
		want=$(( $2 < avail ? $2 : avail ))
		run -0 cg_run "$cg" "$RUNLIMIT" --nproc
		[ "$output" = "$want" ] || { echo "$cg_kind quota $1/100000: got $output, want $want"; return 1; }
		run -0 cg_run "$cg" "$ours_link"
		[ "$output" = "$want" ]
	done
	# --all and OMP_NUM_THREADS are not narrowed by the quota.
	cg_quota "$cg" 50000 100000
	run -0 cg_run "$cg" "$RUNLIMIT" --nproc --all
	[ "$output" = "$("$RUNLIMIT" --nproc --all)" ]
	run -0 cg_run "$cg" env OMP_NUM_THREADS=5 "$RUNLIMIT" --nproc
	[ "$output" = 5 ]
}

@test "real cgroup quota: a parent's quota counts for a child without one" {
	cg_make
	avail=$("$RUNLIMIT" --nproc)
	[ "$avail" -ge 2 ] || skip "needs 2 or more processors to tell 1 from the count"
	mkdir "$cg/child"
	cg_quota "$cg" 100000 100000
	cg_quota "$cg/child" max 100000
	run -0 cg_run "$cg/child" "$RUNLIMIT" --nproc
	[ "$output" = 1 ]
}

@test "real cgroup quota: not applied to a real-time process (SCHED_FIFO, SCHED_RR)" {
	command -v chrt >/dev/null || skip "no chrt"
	cg_make
	avail=$("$RUNLIMIT" --nproc)
	[ "$avail" -ge 2 ] || skip "needs 2 or more processors to tell 1 from the count"
	# With RT group scheduling, a v1 cgroup needs its own real-time budget.
	[ ! -e "$cg/cpu.rt_runtime_us" ] || echo 10000 >"$cg/cpu.rt_runtime_us" ||
		skip "cannot give the cgroup a real-time budget"
	cg_quota "$cg" 50000 100000
	run -0 cg_run "$cg" "$RUNLIMIT" --nproc
	[ "$output" = 1 ]
	cg_run "$cg" chrt -f 1 true 2>/dev/null || skip "cannot run SCHED_FIFO here"
	run -0 cg_run "$cg" chrt -f 1 "$RUNLIMIT" --nproc
	[ "$output" = "$avail" ]
	run -0 cg_run "$cg" chrt -r 1 "$RUNLIMIT" --nproc
	[ "$output" = "$avail" ]
	run -0 cg_run "$cg" chrt -b 0 "$RUNLIMIT" --nproc
	[ "$output" = 1 ]
}

# chroot_build DIR: in DIR, a directory to chroot into, as GNU's tests/nproc/nproc-quota.sh
# builds one: the binary under test as /runlimit, the processors online, an empty
# /sys/fs/cgroup and a /proc/self directory for a made-up cgroup file, but no mountinfo;
# else fails, the reason in $chroot_why.
chroot_build() {
	local bin root=$1
	chroot_why=""
	[ "$(id -u)" = 0 ] || { chroot_why="chroot needs root"; return 1; }
	command -v chroot >/dev/null || { chroot_why="no chroot"; return 1; }
	bin=$(cd "$(dirname "$RUNLIMIT")" && pwd)/$(basename "$RUNLIMIT")
	mkdir -p "$root/proc/self" "$root/sys/fs/cgroup" "$root/sys/devices/system/cpu"
	cp /sys/devices/system/cpu/online "$root/sys/devices/system/cpu/" 2>/dev/null ||
		{ chroot_why="no /sys/devices/system/cpu/online to copy"; return 1; }
	cp "$bin" "$root/runlimit"
	if ! chroot "$root" /runlimit --version >/dev/null 2>&1; then
		# A dynamic binary: its libraries too.
		ldd "$bin" 2>/dev/null | grep -o '/[^ ]*' | while read -r lib; do
			cp --parents "$lib" "$root" 2>/dev/null || true
		done
		chroot "$root" /runlimit --version >/dev/null 2>&1 ||
			{ chroot_why="$RUNLIMIT does not run in a chroot without /proc"; return 1; }
	fi
	ln -s runlimit "$root/nproc"
}

# chroot_make: chroot_build in $root for a test, which skips with the reason where it fails;
# and then skips unless runlimit applies CPU quotas (probe_quota).
chroot_make() {
	root=$BATS_TEST_TMPDIR/root
	chroot_build "$root" || skip "$chroot_why"
	needs_quota
}

# probe_quota: in setup_file, export RL_QUOTA: does runlimit --nproc apply a CPU quota of half
# a processor (yes), or count the processors regardless (no)?  Two ways are tried, the
# cgroup v2 files of a chroot without /proc and a real cgroup: "no" only if every way that
# could be tried said no; "unknown" without root, with one processor, or with neither way.
# Printed as a TAP comment.
probe_quota() {
	local avail got root=$BATS_FILE_TMPDIR/quota-root tried=no
	RL_QUOTA=unknown
	export RL_QUOTA
	avail=$("$RUNLIMIT" --nproc 2>/dev/null) || avail=0
	if [ "$(id -u)" = 0 ] && [ "$avail" -ge 2 ] 2>/dev/null; then
		if chroot_build "$root"; then
			# As in the test of it below: the quota is the parent's.
			echo 0::/foo >"$root/proc/self/cgroup"
			touch "$root/sys/fs/cgroup/cgroup.controllers"
			mkdir -p "$root/sys/fs/cgroup/foo"
			echo "max 100000" >"$root/sys/fs/cgroup/foo/cpu.max"
			echo "50000 100000" >"$root/sys/fs/cgroup/cpu.max"
			got=$(chroot "$root" /runlimit --nproc 2>/dev/null) && tried=yes
			[ "$got" != 1 ] || RL_QUOTA=yes
		fi
		if [ "$RL_QUOTA" != yes ] && cg_create "runlimit-nproc-probe-$$"; then
			cg_quota "$cg" 50000 100000
			got=$(cg_run "$cg" "$RUNLIMIT" --nproc 2>/dev/null) && tried=yes
			[ "$got" != 1 ] || RL_QUOTA=yes
			rmdir "$cg" 2>/dev/null || true
		fi
		[ "$RL_QUOTA" = yes ] || [ "$tried" = no ] || RL_QUOTA=no
	fi
	echo "# runlimit under test: --nproc applies cgroup CPU quotas: $RL_QUOTA" >&3
}

# needs_quota: skip unless runlimit --nproc applies CPU quotas (probe_quota).
needs_quota() {
	[ "$RL_QUOTA" != no ] ||
		skip "runlimit --nproc does not apply cgroup CPU quotas (this build counts the processors online)"
}

@test "no /proc/self/mountinfo (a chroot, as GNU's nproc-quota.sh): cgroup v2 at /sys/fs/cgroup" {
	chroot_make
	echo 0::/foo >"$root/proc/self/cgroup"
	touch "$root/sys/fs/cgroup/cgroup.controllers"
	mkdir "$root/sys/fs/cgroup/foo"
	echo "max 100000" >"$root/sys/fs/cgroup/foo/cpu.max"
	echo "max 100000" >"$root/sys/fs/cgroup/cpu.max"
	run -0 chroot "$root" /runlimit --nproc
	avail=$output
	[ "$avail" -ge 2 ] || skip "needs 2 or more processors to tell 1 from the count"
	# GNU's cases: the quota is the parent's, /sys/fs/cgroup's own cpu.max.
	for pair in "40000 100000 1" "50000 100000 1" "100000 100000 1" "140000 100000 1" \
		"1 1000000 1" "150000 100000 2" "1000000 1 $avail" "100000 0 $avail"; do
		set -- $pair
		echo "$1 $2" >"$root/sys/fs/cgroup/cpu.max"
		run -0 chroot "$root" /runlimit --nproc
		[ "$output" = "$3" ] || { echo "cpu.max $1 $2: got $output, want $3"; return 1; }
		run -0 chroot "$root" /nproc
		[ "$output" = "$3" ]
	done
	echo "150000 100000" >"$root/sys/fs/cgroup/cpu.max"
	run -0 env OMP_THREAD_LIMIT=10 chroot "$root" /runlimit --nproc
	[ "$output" = 2 ]
	echo "100000 100000" >"$root/sys/fs/cgroup/cpu.max"
	run -0 env OMP_NUM_THREADS="$avail" chroot "$root" /runlimit --nproc
	[ "$output" = "$avail" ]
	run -0 chroot "$root" /runlimit --nproc --all
	[ "$output" -ge "$avail" ]
	# The leaf's own quota counts as well.
	echo "max 100000" >"$root/sys/fs/cgroup/cpu.max"
	echo "50000 100000" >"$root/sys/fs/cgroup/foo/cpu.max"
	run -0 chroot "$root" /runlimit --nproc
	[ "$output" = 1 ]
	# No cgroup.controllers: /sys/fs/cgroup is no cgroup2 file system, nothing is guessed.
	rm "$root/sys/fs/cgroup/cgroup.controllers"
	run -0 chroot "$root" /runlimit --nproc
	[ "$output" = "$avail" ]
}

@test "no /proc/self/mountinfo, real cgroup v2 quota: the hierarchy taken at /sys/fs/cgroup" {
	[ "$(id -u)" = 0 ] || skip "real cgroup tests need root"
	command -v unshare >/dev/null || skip "no unshare"
	[ -r /proc/self/mountinfo ] || skip "no /proc/self/mountinfo (no cgroups here)"
	local top
	top=$(awk '$(NF-2) == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
	# v1 has no default mount point to guess, in GNU nproc or here.
	[ -n "$top" ] && grep -qw cpu "$top/cgroup.controllers" 2>/dev/null ||
		skip "no cgroup v2 hierarchy with the cpu controller"
	cg_make
	[ "$cg_kind" = v2 ] || skip "cannot make a cgroup v2 with the cpu controller"
	chroot_make
	unshare --mount true 2>/dev/null || skip "cannot make a mount namespace"
	# Inside the chroot: the real hierarchy at /sys/fs/cgroup, and the cgroup's path as
	# /proc/self/cgroup would give it, but no mountinfo.
	echo "0::${cg#"${top%/}"}" >"$root/proc/self/cgroup"
	in_root() {
		cg_run "$cg" unshare --mount --propagation private sh -c \
			'mount --rbind "$1" "$2/sys/fs/cgroup" && shift 2 && exec chroot "$@"' \
			_ "$top" "$root" "$root" "$@"
	}
	cg_quota "$cg" max 100000
	run -0 in_root /runlimit --nproc
	avail=$output
	[ "$avail" -ge 2 ] || skip "needs 2 or more processors to tell 1 from the count"
	cg_quota "$cg" 100000 100000
	run -0 in_root /runlimit --nproc
	[ "$output" = 1 ]
	run -0 in_root /nproc
	[ "$output" = 1 ]
	# A parent's quota, for a child without one.
	mkdir "$cg/child"
	cg_quota "$cg/child" max 100000
	echo "0::${cg#"${top%/}"}/child" >"$root/proc/self/cgroup"
	run -0 cg_run "$cg/child" unshare --mount --propagation private sh -c \
		'mount --rbind "$1" "$2/sys/fs/cgroup" && exec chroot "$2" /runlimit --nproc' \
		_ "$top" "$root"
	[ "$output" = 1 ]
}
