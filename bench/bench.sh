#!/bin/sh
# Benchmark runlimit side by side with GNU timeout and, when installed, busybox timeout,
# uutils (rust-coreutils) timeout and timelimit.  It measures and prints a Markdown table;
# it never fails on noise.  Usage:
#   bench/bench.sh [--quick] [--install-peers] [--no-peers] [--runlimit PATH] [--baseline PATH]
#                    [--relay-only] [--ref-only] [--budget-only] [--cgroup-only] [--builds-only]
# --install-peers installs the peers (and hyperfine, strace) from the Debian packages first;
# --no-peers compares with GNU timeout only.  --baseline PATH adds another runlimit build
# (an earlier commit's, say) as a last column, "baseline", measured in the same rotation: a
# before-and-after in one run.  --relay-only measures the output relay alone (section 11);
# --ref-only the reference measurements alone (section 12: floor.c and treekill.py, from
# $BENCH_REF, default ../shared/bench, skipped where they are not); --budget-only the budgets'
# measure alone (section 13); --builds-only the start-up of the three builds users get, each
# beside the guarded floor built the same way (section 15).
# The timing is done by bench/benchrun.c, compiled here with cc: tools run interleaved,
# round-robin, so that each sees the same machine.  Linux only (it reads /proc).
set -eu
cd "$(dirname "$0")/.."

quick=0 install=0 peers=1 runlimit=$PWD/runlimit baseline='' relay_only=0 ref_only=0 budget_only=0 cgroup_only=0
builds_only=0
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--install-peers) install=1 ;;
	--no-peers) peers=0 ;;
	--runlimit) runlimit=$2; shift ;;
	--baseline) baseline=$2; shift ;;
	--relay-only) relay_only=1 ;;
	--ref-only) ref_only=1 ;;
	--budget-only) budget_only=1 ;;
	--cgroup-only) cgroup_only=1 ;;
	--builds-only) builds_only=1 ;;
	*) echo "usage: $0 [--quick] [--install-peers] [--no-peers] [--runlimit PATH] [--baseline PATH] [--relay-only] [--ref-only] [--budget-only] [--cgroup-only] [--builds-only]" >&2
		exit 2 ;;
	esac
	shift
done

if [ "$install" = 1 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q busybox rust-coreutils timelimit \
		hyperfine strace >/dev/null
fi
[ -x "$runlimit" ] || make -s
work=$(mktemp -d)
hogs=""
# shellcheck disable=SC2086
trap '[ -z "$hogs" ] || kill $hogs 2>/dev/null; rm -rf "$work"' EXIT
# Static where possible: its own start-up is then the same small cost for every tool.  And
# static-pie where the toolchain can, as runlimit's default build and floor.c are: its floors
# (supervise, guarded) then start as runlimit does, relocating themselves.
cc -O2 -static-pie -o "$work/benchrun" bench/benchrun.c 2>/dev/null ||
	cc -O2 -static -o "$work/benchrun" bench/benchrun.c 2>/dev/null ||
	cc -O2 -o "$work/benchrun" bench/benchrun.c
br=$work/benchrun
# Every program measured runs from a copy in $work, as the floors do: the same binary ran some
# 45 µs slower from where the linker wrote it than from a copy (its page cache in smaller
# pieces, it seems), which would be counted against runlimit and not against the floors.
mkdir "$work/rl"
cp "$runlimit" "$work/rl/runlimit"
runlimit=$work/rl/runlimit
if [ -n "$baseline" ]; then
	mkdir "$work/base"
	cp "$baseline" "$work/base/runlimit"
	baseline=$work/base/runlimit
fi

if [ "$quick" = 1 ]; then
	n_over=100 n_late=10 n_exit=10 n_rss=3 n_tree=3 long_wait=8
else
	n_over=400 n_late=60 n_exit=30 n_rss=5 n_tree=5 long_wait=30
fi

# The tools: name and command prefix.  "$D" is replaced by the duration, "$K" by the
# options that make the deadline's signal KILL.
UU=/usr/lib/cargo/bin/coreutils/timeout
tools="runlimit gnu"
if [ "$peers" = 1 ]; then
	command -v busybox >/dev/null && busybox timeout 1 true 2>/dev/null && tools="$tools busybox"
	[ -x "$UU" ] && tools="$tools uutils"
	command -v timelimit >/dev/null && tools="$tools timelimit"
fi
[ -n "$baseline" ] && tools="$tools baseline"
# ours: the runlimit builds, which take every measure (the peers are spared the largest trees).
ours="runlimit${baseline:+ baseline}"

# tool NAME DURATION [kill]: the command line, as words, for that tool.
tool() {
	k=""
	case $1 in
	runlimit) [ "${3:-}" ] && k="-s KILL"; echo "$runlimit $k $2" ;;
	baseline) [ "${3:-}" ] && k="-s KILL"; echo "$baseline $k $2" ;;
	gnu) [ "${3:-}" ] && k="-s KILL"; echo "/usr/bin/timeout $k $2" ;;
	busybox) [ "${3:-}" ] && k="-s KILL"; echo "busybox timeout $k $2" ;;
	uutils) [ "${3:-}" ] && k="-s KILL"; echo "$UU $k $2" ;;
	timelimit) [ "${3:-}" ] && k="-s 9"; echo "timelimit -q $k -T 5 -t $2" ;;
	esac
}

# runs_of N DURATION CMD...: benchrun runs over every tool running CMD with DURATION, after a
# bare CMD first when $BARE is set, and the command in $EXTRA last.
runs_of() {
	n=$1 d=$2
	shift 2
	cmd=$*
	set -f
	set --
	# shellcheck disable=SC2086
	[ -n "${BARE:-}" ] && set -- $cmd ::
	for t in $tools; do
		# shellcheck disable=SC2046,SC2086
		set -- "$@" $(tool "$t" "$d") $cmd ::
	done
	# shellcheck disable=SC2086
	[ -n "${EXTRA:-}" ] && set -- "$@" $EXTRA
	set +f
	"$br" runs "$n" "$@"
}

col() { awk -v c="$1" '{ print $c }'; }

# 11. The output relay: a pipeline's throughput with runlimit timing its output, against the
# same pipeline bare and under GNU timeout (which relays nothing); with the kernel's move
# between pipes (splice, Linux) and with the portable build's copy; what turning the relay on
# costs a short command; how late the no-output limit fires; runlimit's peak RSS after a
# little and after much output.  Prints its own table.
relay_section() {
	gib=4 rounds=3 n_cost=$n_over n_sil=$n_late
	[ "$quick" = 1 ] && gib=1 rounds=1
	portable=$work/runlimit-portable
	echo "output relay: building the portable variant..." >&2
	if make -s BIN=runlimit-portable PLATFORM=portable runlimit-portable >/dev/null 2>&1; then
		cp runlimit-portable "$portable"
	else
		portable=""
	fi
	mib=$((gib * 1024))
	# Two shapes of pipeline: 1 MiB blocks at both ends (dd), and cat's small reads between
	# head and wc -c (each end's own buffer), as a user would type it.
	pipeline() { # SHAPE X: the pipeline of that shape with X in its middle
		case $1 in
		dd) echo "dd if=/dev/zero bs=1M count=$mib status=none | $2 | dd of=/dev/null bs=1M status=none" ;;
		wc) echo "head -c ${mib}M /dev/zero | $2 | wc -c >/dev/null" ;;
		esac
	}
	shape_times() { # SHAPE: the medians (µs) of bare, GNU, runlimit and portable, in a line
		shape=$1
		set -- sh -c "$(pipeline "$shape" cat)" :: sh -c "$(pipeline "$shape" "/usr/bin/timeout 0 cat")" :: \
			sh -c "$(pipeline "$shape" "$runlimit --no-output-timeout=1m 0 cat")"
		[ -n "$portable" ] && set -- "$@" :: sh -c "$(pipeline "$shape" "$portable --no-output-timeout=1m 0 cat")"
		"$br" runs "$rounds" "$@" | col 1 | tr '\n' ' '
	}
	echo "output relay: $gib GiB through two pipelines, $rounds rounds each..." >&2
	thr_dd=$(shape_times dd)
	thr_wc=$(shape_times wc)
	echo "output relay: what it costs a short command ($n_cost runs each)..." >&2
	cost=$(BENCH_OUTPUT=pipe "$br" runs "$n_cost" "$runlimit" 10 true :: \
		"$runlimit" --output-grace=1 10 true :: "$runlimit" --no-output-timeout=60 10 true |
		col 1 | tr '\n' ' ')
	echo "output relay: no-output lateness ($n_sil runs)..." >&2
	sil=$("$br" silence "$n_sil" 0.5 "$runlimit" --no-output-timeout=0.5 60)
	sil_p=n/a
	[ -n "$portable" ] && sil_p=$("$br" silence "$n_sil" 0.5 "$portable" --no-output-timeout=0.5 60)
	# relayrss prints "peak-RSS-kB own-CPU-ms"
	small=$("$br" relayrss 1048576 "$runlimit" --no-output-timeout=1m 0)
	big=$("$br" relayrss $((mib * 1048576)) "$runlimit" --no-output-timeout=1m 0)
	small_p="n/a n/a" big_p="n/a n/a"
	if [ -n "$portable" ]; then
		small_p=$("$br" relayrss 1048576 "$portable" --no-output-timeout=1m 0)
		big_p=$("$br" relayrss $((mib * 1048576)) "$portable" --no-output-timeout=1m 0)
	fi
	echo
	echo "Output relay, $gib GiB through two pipelines, \`dd bs=1M | X | dd bs=1M\` and"
	echo "\`head -c | X | wc -c\` (median of $rounds rounds, s, and the bare pipeline's time over X's):"
	echo
	echo "| X | dd shape, s | of bare | head/wc shape, s | of bare |"
	echo "|---|---|---|---|---|"
	k=1
	for name in "bare \`cat\`" "GNU \`timeout 0 cat\`" "runlimit \`--no-output-timeout=1m 0 cat\` (splice)" \
		"runlimit-portable, the same (read/write)"; do
		awk -v n="$name" -v k="$k" -v dd="$thr_dd" -v wc="$thr_wc" 'BEGIN {
			if (k > split(dd, a, " ") || k > split(wc, b, " ")) exit
			printf "| %s | %.2f | %.2f | %.2f | %.2f |\n", n, a[k] / 1e6, a[1] / a[k], b[k] / 1e6, b[1] / b[k] }'
		k=$((k + 1))
	done
	# shellcheck disable=SC2086
	set -- $cost
	echo
	echo "Turning the relay on (stdout and stderr a pipe; median µs of $n_cost, \`runlimit 10 true\`):"
	echo "plain $(printf %.0f "$1"), --output-grace=1 +$(awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", b - a }'),"
	echo "--no-output-timeout=60 +$(awk -v a="$1" -v b="$3" 'BEGIN { printf "%.0f", b - a }') (target: at most +100)."
	echo
	echo "No-output limit of 0.5 s: from the last byte's arrival to runlimit's end, minus 0.5 s"
	echo "(median µs of $n_sil; target 5000): $sil (splice build), $sil_p (portable)."
	echo
	echo "Peak RSS of runlimit after relaying 1 MiB / $gib GiB (kB): ${small% *} / ${big% *} (splice build),"
	echo "${small_p% *} / ${big_p% *} (portable); runlimit's own CPU time for the $gib GiB: ${big#* } ms (splice),"
	echo "${big_p#* } ms (portable)."
}
# 12. The reference measurements the speed targets are stated in ($BENCH_REF: floor.c, the
# smallest supervisor, and treekill.py, the tree-kill series): the start-up overhead over a
# bare /bin/true as a ratio to floor.c's, by hyperfine in rotated rounds, and the series at
# 200, 1,000 and 5,000 processes, idle and with two CPU hogs.  treekill.py waits for
# runlimit with Python's Popen.wait(timeout), which polls every 50 ms once the run is long:
# its figures carry up to 50 ms of that (benchrun's series above waits in the kernel).
ref_section() {
	ref=${BENCH_REF:-../shared/bench}
	if [ ! -f "$ref/floor.c" ] || [ ! -f "$ref/treekill.py" ]; then
		echo "Reference measurements: $ref/floor.c and treekill.py not found; skipped."
		return 0
	fi
	cc -O2 -static-pie -o "$work/floor" "$ref/floor.c" 2>/dev/null ||
		cc -O2 -o "$work/floor" "$ref/floor.c"
	ratio=n/a
	if command -v hyperfine >/dev/null; then
		echo "reference: start-up against floor.c (hyperfine, 5 rounds)..." >&2
		: >"$work/ratios"
		for round in 1 2 3 4 5; do
			if [ $((round % 2)) = 1 ]; then
				set -- "$runlimit 10 /bin/true" "$work/floor 10 /bin/true" /bin/true
			else
				set -- /bin/true "$work/floor 10 /bin/true" "$runlimit 10 /bin/true"
			fi
			hyperfine -N -w 30 -r 300 --export-json "$work/ref.json" "$@" >/dev/null 2>&1 || continue
			awk -F'"' -v rl="$runlimit 10 /bin/true" -v fl="$work/floor 10 /bin/true" '
				/"command":/ { c = $4 }
				/"median":/ { split($0, a, ":"); sub(/,.*/, "", a[2]); m[c] = a[2] }
				END { b = m["/bin/true"]; printf "%.0f %.0f %.3f\n", (m[rl] - b) * 1e6,
					(m[fl] - b) * 1e6, (m[rl] - b) / (m[fl] - b) }' "$work/ref.json" >>"$work/ratios"
		done
		ratio=$(sort -k3 -n "$work/ratios" | awk '{ v[NR] = $0 } END { if (NR) print v[int((NR + 1) / 2)] }')
	fi
	echo "reference: treekill.py 200,1000,5000, idle and with two hogs..." >&2
	idle=$(python3 "$ref/treekill.py" "$runlimit" 200,1000,5000 0 3 2>&1)
	hogged=$(python3 "$ref/treekill.py" "$runlimit" 200,1000,5000 2 3 2>&1)
	# The floor the same driver measures: benchrun as cgtimeout, the tree in a cgroup of its
	# own ended by one write to cgroup.kill (root and cgroup v2; else n/a).
	ln -sf "$br" "$work/cgtimeout"
	floor_idle="" floor_hogged=""
	if "$work/cgtimeout" 0.01 true 2>/dev/null || [ $? = 137 ]; then
		echo "reference: treekill.py against the cgroup.kill floor (cgtimeout)..." >&2
		floor_idle=$(python3 "$ref/treekill.py" "$work/cgtimeout" 200,1000,5000 0 3 2>&1)
		floor_hogged=$(python3 "$ref/treekill.py" "$work/cgtimeout" 200,1000,5000 2 3 2>&1)
	fi
	echo
	if [ "$ratio" = n/a ]; then
		echo "Start-up against floor.c: n/a (no hyperfine)."
	else
		# shellcheck disable=SC2086
		set -- $ratio
		echo "Start-up overhead over a bare /bin/true (hyperfine, median of 5 rotated rounds of 300):"
		echo "runlimit $1 µs, floor.c $2 µs: ratio $(printf %.2f "$3") (floor.c keeps no group: the"
		echo "target is stated against benchrun guarded, section 1); the rounds:"
		awk '{ printf "%.2f ", $3 } END { print "" }' "$work/ratios"
	fi
	echo
	echo "Tree kill, treekill.py (ms from the deadline to the tool's return, median of 3; target"
	echo "idle 25 / 100 / 450, with two hogs twice that; left must be 0), runlimit and the floor"
	echo "(cgtimeout: the same tree in a cgroup of its own, one write to cgroup.kill):"
	echo
	echo "| processes | idle | worst | left | floor | two hogs | worst | left | floor |"
	echo "|---|---|---|---|---|---|---|---|---|"
	# tk_fields OUTPUT SIZE: "median worst left" of SIZE's line of treekill.py's OUTPUT
	tk_fields() {
		echo "$1" | awk -v n="N=$2" '$1 == n { sub("ms=", "", $3); sub("worst=", "", $4)
			sub("left=", "", $5); print $3, $4, $5 }'
	}
	for size in 200 1000 5000; do
		a=$(tk_fields "$idle" $size) b=$(tk_fields "$hogged" $size)
		fa=$(tk_fields "$floor_idle" $size | col 1) fb=$(tk_fields "$floor_hogged" $size | col 1)
		# shellcheck disable=SC2086
		echo "| $size | $(echo ${a:-n/a n/a n/a} | sed 's/ / | /g') | ${fa:-n/a} |" \
			"$(echo ${b:-n/a n/a n/a} | sed 's/ / | /g') | ${fb:-n/a} |"
	done
}

# 13. The budgets' sampled measure: runlimit's own CPU time (user and system, from its
# /proc/PID/stat) while it measures an idle tree of 200 processes every 50 ms for 5 s, per
# measure, and the same run without a budget (nothing measured: 0).  The measures in the
# run are counted as the wait makes them: one an interval after the last one's end, so that
# per measure = cpu * interval / (wall - cpu).  Ticks of 1/CLK_TCK s: a rough figure, taken
# 3 times (the median shown).
budget_run() { # INTERVAL [OPTION]...: runlimit's CPU seconds over 5 s, as "cpu wall"
	interval=$1
	shift
	rm -f "$work/tree-ready"
	# shellcheck disable=SC2016
	"$runlimit" "$@" --budget-interval="$interval" 60 sh -c \
		'i=0; while [ $i -lt 199 ]; do sleep 60 & i=$((i + 1)); done; : >"$0"; wait' \
		"$work/tree-ready" &
	pid=$!
	i=0
	while [ ! -e "$work/tree-ready" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
	a=$(awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat")
	sleep 5
	b=$(awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat")
	kill -TERM "$pid"
	wait "$pid" 2>/dev/null || true
	echo "$a $b $(getconf CLK_TCK)" | awk '{ printf "%.3f 5\n", ($2 - $1) / $3 }'
}
budget_section() {
	echo "budgets: the sampled measure of a 200-process tree (3 runs of 5 s)..." >&2
	with="" without=""
	for _ in 1 2 3; do
		with="$with $(budget_run 0.05 --cgroup=no --max-procs=1000000 | awk '{
			printf "%.2f", $1 * 0.05 / ($2 - $1) * 1000 }')"
		without="$without $(budget_run 0.05 | awk '{ printf "%.2f", $1 * 1000 }')"
	done
	median() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
	# shellcheck disable=SC2086
	echo "The budgets' sampled measure of an idle 200-process tree costs runlimit $(median $with)"
	# shellcheck disable=SC2086
	echo "ms of CPU per measure (runs: $with; target < 2 ms); without a budget runlimit used"
	# shellcheck disable=SC2086
	echo "$(median $without) ms of CPU in the same 5 s (nothing is measured)."
}

# 14. The budgets' cgroup mechanism, where runlimit may make a cgroup here (root, cgroup v2;
# a CPU-time budget needs no controller): what making it adds to runlimit's start (a budget
# with --cgroup=required against the same budget sampled, and no budget; 400 interleaved
# runs of "runlimit 10 true"), and a 5,000-process tree killed at the deadline with the
# cgroup (cgroup.kill, then the walk) and without.
cgroup_section() {
	if ! "$runlimit" --cgroup=required --cpu-time=1h 10 true 2>/dev/null; then
		echo "The cgroup mechanism cannot be used here (runlimit --cgroup=required refuses): not measured."
		return 0
	fi
	echo "cgroup: start cost (400 runs each) and a 5,000-process kill (3 runs each)..." >&2
	start=$("$br" runs 400 "$runlimit" 10 true :: "$runlimit" --cgroup=no --cpu-time=1h 10 true :: \
		"$runlimit" --cgroup=required --cpu-time=1h 10 true | col 1 | tr '\n' ' ')
	# shellcheck disable=SC2086
	set -- $start
	echo "Making the run's cgroup: runlimit 10 true takes $1 µs, $2 with a CPU-time budget sampled,"
	echo "$3 with it in a cgroup (+$(echo "$3 $2" | awk '{ printf "%.0f", $1 - $2 }') µs; median of 400 interleaved runs)."
	with=$(BENCH_DEADLINE=8 "$br" series 3 5000 "$runlimit" -s KILL --cgroup=required --cpu-time=1h 8)
	without=$(BENCH_DEADLINE=8 "$br" series 3 5000 "$runlimit" -s KILL --cgroup=no --cpu-time=1h 8)
	echo "A tree of 5,000 processes killed at the deadline, to runlimit's return (ms, survivors):"
	echo "with the cgroup (cgroup.kill) $with; without $without."
}

# 15. The builds users get, each beside the guarded floor (benchrun guarded) built with the
# same compiler, C library and flags, and GNU timeout, all in one rotation of "X 10 true"
# over a bare "true": the default build (\`make\`: glibc, static-pie where the toolchain can),
# the static musl build (the release's and the wheels' C library), and a dynamic build with
# Debian's flags (dpkg-buildflags, as a distribution builds it).  And the system calls of
# runlimit's own processes at a start (strace -f; the command's own after its exec left out).
start_syscalls() { # RUNLIMIT: system calls of runlimit's processes for "RUNLIMIT 10 true"
	strace -f -qq -o "$work/sc" "$1" 10 true 2>/dev/null || true
	awk '$2 ~ /^execve\(".*\/true"/ { done[$1] = 1 } !($1 in done) && $2 ~ /^[a-z_0-9]+\(/ { n++ }
		END { print n + 0 }' "$work/sc"
}
builds_section() {
	n_builds=$((n_over * 2))
	set -- "$runlimit" 10 true :: "$br" guarded 10 true
	names="default"
	echo "builds: the musl and Debian-flags builds and their floors..." >&2
	if command -v musl-gcc >/dev/null &&
		make -s BIN=runlimit-musl CC=musl-gcc STATIC=1 runlimit-musl >/dev/null 2>&1 &&
		cp runlimit-musl "$work/rl-musl" &&
		musl-gcc -O2 -static -o "$work/floor-musl" bench/benchrun.c 2>/dev/null; then
		set -- "$@" :: "$work/rl-musl" 10 true :: "$work/floor-musl" guarded 10 true
		names="$names musl"
	fi
	# The flags debian/rules builds the package with (hardening=+all), given as dh gives them:
	# in the environment, which the Makefile adds to.
	export DEB_BUILD_MAINT_OPTIONS=hardening=+all
	deb_c=$(dpkg-buildflags --get CFLAGS 2>/dev/null || true)
	deb_p=$(dpkg-buildflags --get CPPFLAGS 2>/dev/null || true)
	deb_l=$(dpkg-buildflags --get LDFLAGS 2>/dev/null || true)
	unset DEB_BUILD_MAINT_OPTIONS
	# shellcheck disable=SC2086
	if [ -n "$deb_c" ] &&
		CFLAGS="$deb_c" CPPFLAGS="$deb_p" LDFLAGS="$deb_l" \
			make -s BIN=runlimit-debflags STATIC=0 runlimit-debflags >/dev/null 2>&1 &&
		cp runlimit-debflags "$work/rl-deb" &&
		cc $deb_c $deb_p $deb_l -o "$work/floor-deb" bench/benchrun.c 2>/dev/null; then
		set -- "$@" :: "$work/rl-deb" 10 true :: "$work/floor-deb" guarded 10 true
		names="$names debflags"
	fi
	echo "builds: $n_builds rounds of bare true, GNU timeout and each build beside its floor..." >&2
	times=$("$br" runs "$n_builds" true :: /usr/bin/timeout 10 true :: "$@" | col 1 | tr '\n' ' ')
	echo
	echo "Start-up of the builds users get, each beside the guarded floor built the same way, over a"
	echo "bare \`true\` (µs, median of $n_builds interleaved rounds; one rotation for all):"
	echo
	echo "| build | runlimit | its floor | runlimit / floor | GNU timeout | runlimit / GNU | system calls |"
	echo "|---|---|---|---|---|---|---|"
	k=3
	for name in $names; do
		case $name in
		default) bin=$runlimit ;;
		musl) bin=$work/rl-musl ;;
		debflags) bin=$work/rl-deb ;;
		esac
		calls=n/a
		command -v strace >/dev/null && calls=$(start_syscalls "$bin")
		echo "$times" | awk -v k="$k" -v n="$name" -v c="$calls" '{ b = $1; g = $2 - b
			r = $k - b; f = $(k + 1) - b
			printf "| %s | %.0f | %.0f | %.2f | %.0f | %.2f | %s |\n", n, r, f, r / f, g, r / g, c }'
		k=$((k + 2))
	done
}

if [ "$builds_only" = 1 ]; then
	builds_section
	exit 0
fi
if [ "$relay_only" = 1 ]; then
	relay_section
	exit 0
fi
if [ "$cgroup_only" = 1 ]; then
	cgroup_section
	exit 0
fi
if [ "$budget_only" = 1 ]; then
	budget_section
	exit 0
fi
if [ "$ref_only" = 1 ]; then
	ref_section
	exit 0
fi

echo "Benchmarking: $tools (runlimit = $runlimit)" >&2

# 1. Overhead: "X 10 true" against bare "true".
echo "overhead ($n_over runs each, interleaved)..." >&2
# The floor supervisor (fork, setpgid, execvp, alarm, waitpid) runs in the same rotation, and
# the floor of runlimit's contract on groups (the same with a guard leading the group).
# Where musl-gcc is, the same pair built with musl too (its static start costs far less than
# glibc's): runlimit's ratio to the guarded floor with each C library.
musl_pair=""
if command -v musl-gcc >/dev/null &&
	make -s BIN=runlimit-musl CC=musl-gcc STATIC=1 runlimit-musl >/dev/null 2>&1 &&
	cp runlimit-musl "$work/runlimit-musl" &&
	musl-gcc -O2 -static -o "$work/benchrun-musl" bench/benchrun.c 2>/dev/null; then
	musl_pair=" :: $work/runlimit-musl 10 true :: $work/benchrun-musl guarded 10 true"
fi
over=$(BARE=1 EXTRA="$br supervise 10 true :: $br guarded 10 true$musl_pair" runs_of "$n_over" 10 true)
musl_line="n/a (no musl-gcc)"
if [ -n "$musl_pair" ]; then
	musl_line=$(echo "$over" | tail -n 2 | col 1 | tr '\n' ' ' | awk -v b="$(echo "$over" | sed -n 1p | col 1)" '{
		printf "runlimit %.0f µs, benchrun guarded %.0f µs: %.2f ×", $1 - b, $2 - b, ($1 - b) / ($2 - b) }')
	over=$(echo "$over" | sed '$d' | sed '$d')
fi
base=$(echo "$over" | sed -n 1p | col 1)
floor_over=$(echo "$over" | tail -n 2 | head -n 1 | col 1 | awk -v b="$base" '{ printf "%.0f", $1 - b }')
guarded_over=$(echo "$over" | tail -n 1 | col 1 | awk -v b="$base" '{ printf "%.0f", $1 - b }')
over=$(echo "$over" | sed '1d' | sed '$d' | sed '$d' | col 1 | awk -v b="$base" '{ printf "%.0f ", $1 - b }')

# hyperfine, where installed, as a cross-check: it runs each command's batch in turn, so it
# is run in 5 rounds with the order rotated, and the median of the rounds' medians is kept.
hyper=""
if command -v hyperfine >/dev/null; then
	echo "overhead again with hyperfine (5 rounds)..." >&2
	names="bare $tools" round=0
	for name in $names; do : >"$work/hf-$name"; done
	while [ "$round" -lt 5 ]; do
		set --
		# shellcheck disable=SC2086
		rotated=$(echo $names $names | awk -v r="$round" '{ n = NF / 2; r %= n
			for (i = r + 1; i <= r + n; i++) printf "%s ", $i }')
		for name in $rotated; do
			if [ "$name" = bare ]; then cmd=true; else cmd="$(tool "$name" 10) true"; fi
			set -- "$@" -n "$name" "$cmd"
		done
		hyperfine -N -w 10 -r $((n_over / 5)) --export-json "$work/h.json" "$@" >/dev/null 2>&1 || true
		[ -s "$work/h.json" ] && awk -F'"' -v dir="$work" '
			/"command":/ { name = $4 }
			/"median":/ { split($0, a, ":"); sub(/,.*/, "", a[2]); print a[2] * 1e6 >> (dir "/hf-" name) }' "$work/h.json"
		round=$((round + 1))
	done
	med() { sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
	b=$(med "$work/hf-bare")
	[ -n "$b" ] && for t in $tools; do
		m=$(med "$work/hf-$t")
		hyper="$hyper $(awk -v m="$m" -v b="$b" 'BEGIN { if (m == "") print "n/a"; else printf "%.0f", m - b }')"
	done
fi

# 2. Deadline lateness: "X 0.2 sleep 5", wall time minus 0.2 s.
echo "deadline lateness ($n_late runs each)..." >&2
# The floor, a minimal static supervisor (fork, exec, sleep, SIGTERM, wait), runs in the
# same rotation, as the last command.
late=$(EXTRA="$br floor 0.2 sleep 5" runs_of "$n_late" 0.2 sleep 5 | col 1 |
	awk '{ printf "%.0f ", $1 - 200000 }')
floor_wall=${late% }
floor_wall=${floor_wall##* }
late=${late% "$floor_wall" }

# interleaved MODE N D: benchrun MODE (signal or exit) one run at a time, tool after tool,
# N rounds; the median per tool, in tool order.
interleaved() {
	mode=$1 n=$2 d=$3 r=0
	for t in $tools; do : >"$work/il-$t"; done
	: >"$work/il-floor"
	while [ "$r" -lt "$n" ]; do
		[ "$mode" = signal ] && "$br" signal 1 "$d" "$br" floor "$d" >>"$work/il-floor"
		for t in $tools; do
			if [ "$mode" = signal ]; then
				# shellcheck disable=SC2046
				"$br" signal 1 "$d" $(tool "$t" "$d") >>"$work/il-$t"
			else
				# shellcheck disable=SC2046
				"$br" exit 1 $(tool "$t" "$d") >>"$work/il-$t"
			fi
		done
		r=$((r + 1))
	done
	for t in $tools; do
		grep -v n/a "$work/il-$t" | sort -n | awk '{ v[NR] = $1 } END {
			if (NR == 0) { printf "n/a " } else if (NR % 2) { printf "%.0f ", v[(NR + 1) / 2] }
			else { printf "%.0f ", (v[NR / 2] + v[NR / 2 + 1]) / 2 } }'
	done
}

echo "signal lateness ($n_late runs each)..." >&2
siglate=$(interleaved signal "$n_late" 0.2)

floor_sig=$(sort -n "$work/il-floor" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.0f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }')

# 3. Exit latency: from the command's exit to the tool's, measured directly; and "X 10
# sleep 0.2" against bare "sleep 0.2", which also counts the tool's start.
echo "exit latency ($n_exit runs each)..." >&2
exitlat=$(interleaved exit "$n_exit" 10)
echo "exit latency ($n_exit runs each)..." >&2
ex=$(BARE=1 runs_of "$n_exit" 10 sleep 0.2)
base=$(echo "$ex" | sed -n 1p | col 1)
ex=$(echo "$ex" | sed 1d | col 1 | awk -v b="$base" '{ printf "%.0f ", $1 - b }')

# 4. Wake-ups: system calls by the tool's own processes (not the command's) while waiting.
wakes() { # TOOL DURATION SLEEP OUT
	# shellcheck disable=SC2046
	strace -f -qq -o "$4" $(tool "$1" "$2") sleep "$3" 2>/dev/null || true
	awk '
		/execve\(".*\/sleep"/ { cmd[$1] = 1 }
		$1 in cmd { next }
		$2 ~ /^[a-z_0-9]+\(/ { n++ }
		END { print n + 0 }' "$4"
}
short="" long=""
if command -v strace >/dev/null; then
	echo "system calls while waiting (2 s and $long_wait s)..." >&2
	# Both waits run in the background, so that both inherit the same signal dispositions (a
	# background job has SIGINT and SIGQUIT ignored, which changes what a tool sets up).
	for t in $tools; do
		wakes "$t" 60 "$long_wait" "$work/long-$t" >"$work/long-$t.n" &
	done
	for t in $tools; do
		wakes "$t" 5 2 "$work/short-$t" >"$work/short-$t.n" &
		wait $!
	done
	wait
	for t in $tools; do
		short="$short $(cat "$work/short-$t.n")"
		long="$long $(cat "$work/long-$t.n")"
	done
fi

# 5. Peak RSS of the tool's own process while it waits.
echo "peak RSS ($n_rss runs each)..." >&2
rss=""
for t in $tools; do
	# shellcheck disable=SC2046
	rss="$rss $("$br" rss "$n_rss" $(tool "$t" 10) sleep 0.3)"
done

# 6. Tree kill: 200 processes, 50 of them setsid escapees, KILL at the deadline.
echo "tree kill ($n_tree runs each)..." >&2
tree=""
for t in $tools; do
	# shellcheck disable=SC2046
	r=$(BENCH_DEADLINE=3 "$br" tree "$n_tree" $(tool "$t" 3 kill))
	ms=${r% *} left=${r#* }
	if [ "$left" -gt 0 ]; then tree="$tree ${left}_left"; else tree="$tree $ms"; fi
done

# 7. The tree-kill series: 10, 100, 200, 1,000 and 5,000 processes (all ignoring TERM, half
# setsid'd, 50 forking every 50 ms), from the deadline to the tool's return; the peers only up
# to 1,000 (they leave the escapees running, and 5,000 of them cost minutes to clean up).
sizes="10 100 200 1000 5000"
[ "$quick" = 1 ] && sizes="10 100 200 1000"
echo "tree-kill series ($n_tree runs each): $sizes..." >&2
: >"$work/series"
for size in $sizes; do
	d=$((3 + size / 1000))
	for t in $tools; do
		case " $ours " in *" $t "*) ;; *) [ "$size" -gt 1000 ] && continue ;; esac
		# shellcheck disable=SC2046
		r=$(BENCH_DEADLINE=$d "$br" series "$n_tree" "$size" $(tool "$t" "$d" kill))
		echo "$t $size $r" >>"$work/series"
	done
done
# 7b. The floor of those kills: the same tree in a cgroup of its own, ended by one write to
# cgroup.kill and waited for until the cgroup is empty (benchrun killfloor; root and cgroup
# v2 only, else n/a).  It waits for every process's death, which runlimit's return does not
# (the dead are collected, the dying are not waited for), so the ratio flatters neither.
: >"$work/killfloor"
for size in $sizes; do
	echo "$size $("$br" killfloor "$n_tree" "$size")" >>"$work/killfloor"
done
# 8. The same for runlimit alone with two CPU-bound hogs running: the loaded machine.
hog_sizes="200 1000 5000"
[ "$quick" = 1 ] && hog_sizes="200 1000"
echo "tree-kill series with two CPU hogs ($n_tree runs each): $hog_sizes..." >&2
for _ in 1 2; do
	sh -c 'while :; do :; done' &
	hogs="$hogs $!"
done
: >"$work/series-hogs"
for size in $hog_sizes; do
	d=$((3 + size / 1000))
	for t in $ours; do
		# shellcheck disable=SC2046
		r=$(BENCH_DEADLINE=$d "$br" series "$n_tree" "$size" $(tool "$t" "$d" kill))
		echo "$t $size $r" >>"$work/series-hogs"
	done
done
# shellcheck disable=SC2086
kill $hogs
hogs=""

# 9. What --report costs a run: runlimit with and without it, interleaved.
echo "report cost ($n_over runs each)..." >&2
report_cost=$("$br" runs "$n_over" "$runlimit" 10 true :: "$runlimit" --report="$work/report.json" 10 true |
	col 1 | awk 'NR == 1 { a = $1 } NR == 2 { printf "%.0f", $1 - a }')

# 10. What a report costs the first signal, which waits for the snapshot of the tree
# (tree_at_limit) and for nothing else of the report: the deadline's TERM under a forking
# tree of 1,000 processes, runlimit with and without --report, interleaved (two of each, so
# that the spread between equal commands shows the noise).
n_fork=15
[ "$quick" = 1 ] && n_fork=5
echo "signal under a forking tree, with and without --report (the snapshot) ($n_fork rounds)..." >&2
forksig=$(BENCH_DEADLINE=1 "$br" forksig "$n_fork" 1000 "$runlimit" -k 0.2 1 :: \
	"$runlimit" --report="$work/fork.json" -k 0.2 1 :: "$runlimit" -k 0.2 1 :: \
	"$runlimit" --report="$work/fork.json" -k 0.2 1 | tr '\n' ' ')

# What any /proc walk of such a tree pays before it can signal anything: each process's stat
# and children file read once, cold (the kernel makes their entries on the first look) and
# warm, and the snapshot's read of arguments from memory.
procread=$("$br" procread 1000)

relay_table=$(relay_section)
builds_table=$(builds_section)
ref_table=$(ref_section)
budget_line=$(budget_section)
cgroup_line=$(cgroup_section)

svg=${BENCH_SVG:-bench/bench-tree.svg}
bench/bench-plot.sh "$work/series" >"$svg" && echo "wrote $svg" >&2

# The table.
header="| | " sep="|---|"
for t in $tools; do header="$header$t | "; sep="$sep---|"; done
cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
echo
echo "Machine: $(uname -srm), $(getconf _NPROCESSORS_ONLN) CPUs ($cpu); $(date -u +%Y-%m-%d)."
echo "Versions: runlimit $("$runlimit" --version | sed -n '1s/.* //p'), GNU timeout $(/usr/bin/timeout --version | sed -n '1s/.* //p')$(
	case " $tools " in *" busybox "*) echo ", busybox $(busybox 2>&1 | sed -n '1s/^BusyBox v\([^ ]*\).*/\1/p')" ;; esac)$(
	case " $tools " in *" uutils "*) echo ", uutils $("$UU" --version | sed 's/.* //')" ;; esac)$(
	case " $tools " in *" timelimit "*) echo ", timelimit $(dpkg-query -W -f '${Version}' timelimit 2>/dev/null || echo '?')" ;; esac)."
echo
echo "${header% }"
echo "$sep"
row() { # LABEL VALUES UNIT
	line="| $1 |"
	for v in $2; do line="$line $v$3 |"; done
	echo "$line"
}
row "overhead of \`X 10 true\` (µs over bare \`true\`)" "$over" ""
ratio=$(echo "$over" | awk '{ for (i = 1; i <= NF; i++) printf "%.2f ", $i / $2 }')
row "overhead, ratio to GNU" "$ratio" "×"
[ -n "$hyper" ] && row "overhead, by hyperfine (µs, median of 5 rotated rounds)" "$hyper" ""
row "deadline lateness, \`X 0.2 sleep 5\` (µs)" "$late" ""
row "signal lateness: the command gets the signal, after fork + 0.2 s (µs)" "$siglate" ""
row "exit latency: command's exit to the tool's (µs)" "$exitlat" ""
row "\`X 10 sleep 0.2\` minus bare \`sleep 0.2\` (µs)" "$ex" ""
[ -n "$short" ] && row "system calls, \`X 5 sleep 2\`" "$short" ""
[ -n "$long" ] && row "system calls, \`X 60 sleep $long_wait\`" "$long" ""
row "peak RSS (kB)" "$rss" ""
row "tree kill, 200 procs, 50 \`setsid\` (ms after the deadline)" "$tree" ""
echo
echo "Tree kill, from the deadline to the tool's return (ms; N_left: processes still alive):"
echo
echo "| processes | $(echo "$tools" | sed 's/ / | /g') |"
echo "|---$(echo "$tools" | sed 's/[^ ]*/|---/g; s/ //g')|"
for size in $sizes; do
	line="| $size |"
	for t in $tools; do
		v=$(awk -v t="$t" -v s="$size" '$1 == t && $2 == s { if ($4 > 0) print $4 "_left"; else print $3 }' "$work/series")
		line="$line ${v:-n/a} |"
	done
	echo "$line"
done
echo
echo "The floor, the same trees ended by cgroup.kill until the cgroup is empty (ms), and runlimit's"
echo "ratio to it:"
echo
echo "| processes | floor | runlimit / floor |"
echo "|---|---|---|"
for size in $sizes; do
	f=$(awk -v s="$size" '$1 == s { print $2 }' "$work/killfloor")
	r=$(awk -v s="$size" '$1 == "runlimit" && $2 == s { print $3 }' "$work/series")
	ratio=$(echo "${r:-x} ${f:-x}" | awk '$1 + 0 > 0 && $2 + 0 > 0 { printf "%.2f", $1 / $2; exit } { print "n/a" }')
	echo "| $size | ${f:-n/a} | $ratio |"
done
echo
echo "With two CPU-bound hogs running, runlimit (ms; target: twice the idle target):"
echo
echo "| processes | $(echo "$ours" | sed 's/ / | /g') | target |"
echo "|---$(echo "$ours" | sed 's/[^ ]*/|---/g; s/ //g')|---|"
for size in $hog_sizes; do
	line="| $size |"
	for t in $ours; do
		v=$(awk -v t="$t" -v s="$size" '$1 == t && $2 == s { if ($4 > 0) print $4 "_left"; else print $3 }' "$work/series-hogs")
		line="$line ${v:-n/a} |"
	done
	case $size in 200) target=50 ;; 1000) target=200 ;; *) target=900 ;; esac
	echo "$line $target |"
done
echo
echo "--report=FILE adds $report_cost µs to \`runlimit 10 true\` (with and without it, interleaved)."
echo
# shellcheck disable=SC2086
set -- $forksig
echo "The deadline's TERM under a forking tree of 1,000 processes, from the deadline to the"
echo "command's receiving it (µs, median of $n_fork): without --report $1 and $3, with it $2 and $4"
echo "(the difference: the snapshot of the tree, tree_at_limit, taken before the first signal)."
# shellcheck disable=SC2086
set -- $procread
echo "The floor of that snapshot on this machine, 1,000 idle processes (benchrun procread, ms):"
echo "each one's stat and children file read once, cold $1 (as at a deadline), warm $2; their"
echo "arguments from memory (process_vm_readv) $3."
echo
echo "Floors on this machine, minimal static supervisors measured in the same rotation as the"
echo "tools: benchrun floor (fork, exec, sleep, SIGTERM, wait): wall time minus 0.2 s ="
echo "$floor_wall µs; signal lateness = $floor_sig µs.  benchrun supervise (fork, setpgid, exec,"
echo "alarm, wait): overhead of \`supervise 10 true\` = $floor_over µs; runlimit's is $(echo "$over" | awk -v f="$floor_over" '{ printf "%.2f", $1 / f }') × that."
echo "With a guard leading the command's group and sending it TERM if the supervisor dies, as"
echo "runlimit's contract asks (benchrun guarded): overhead of \`guarded 10 true\` = $guarded_over µs;"
echo "runlimit's is $(echo "$over" | awk -v f="$guarded_over" '{ printf "%.2f", $1 / f }') × that (target: at most 1.30)."
echo "Both built with musl (static), in the same rotation: $musl_line."
echo
echo "$builds_table"
echo
echo "$relay_table"
echo
echo "$ref_table"
echo
echo "$budget_line"
echo
echo "$cgroup_line"
echo
echo "Targets: overhead ≤ 1.3 × benchrun guarded's and below every peer's that keeps the command"
echo "in a group of its own (GNU timeout, timelimit); lateness ≤ GNU's; exit latency ≤ 1000 µs;"
echo "system calls the same for both waits; peak RSS ≤ GNU; the relay ≥ 0.95 × the bare pipeline"
echo "in both shapes; tree kill 200 ≤ 25 ms, 1,000 ≤ 100 ms, 5,000 ≤ 450 ms on both drivers"
echo "(benchrun series, treekill.py), none left."
