#!/bin/bash
# make check-vm: the tests that need a real cgroup v2 hierarchy with every controller (the
# memory and pids controllers are on v1 on some hosts, this CI machine's among them), run on
# a second, real kernel: Debian's own cloud kernel (the linux-image-*-cloud-amd64 package,
# fetched with apt-get download into a cache and unpacked, never installed) booted under
# qemu-system-x86_64 with plain emulation (TCG: no KVM needed), with an initramfs built here
# each run.  The VM's /init mounts proc, sys, dev, /tmp and cgroup2 with every controller
# enabled in the root's cgroup.subtree_control, runs the bats files as root, prints their TAP
# and a status line on the serial console, then execs runlimit as the VM's PID 1 (a command
# that leaves a setsid'd child and times out): the kernel's panic at PID 1's exit tells its
# status.  This script reads the console, checks both, and exits with the tests' status.
#
# Usage: scripts/check-vm.sh [BATS_FILE]...   (default: tests/vm/*.bats, and the tests of
#        VM_SUITE_FILES whose names match VM_SUITE_FILTER)
# Environment:
#   RUNLIMIT_VM_CACHE    where the kernel is kept between runs (default
#                        ${XDG_CACHE_HOME:-$HOME/.cache}/runlimit-vm; CI caches it)
#   RUNLIMIT_VM_KERNEL   a kernel image to boot instead of Debian's package
#   RUNLIMIT_VM_KERNEL_PACKAGE  the metapackage whose kernel is booted (default: Debian's
#                        linux-image-cloud-amd64, Ubuntu's linux-image-kvm)
#   RUNLIMIT_VM_TIMEOUT  seconds the VM may run before it is killed (default 600)
#   RUNLIMIT_VM_ACCEL    qemu's accelerator (default tcg, plain emulation: nested KVM fails
#                        on this project's machines; kvm where it works is far faster)
#   CI=true              what cannot be had (qemu, the kernel package...) fails the gate
#                        instead of skipping it
# Exit status: the tests' (0 or 1); 77, with a "SKIP:" line, where the VM cannot be made
# here (outside CI); 1 if the VM did not finish or a check failed.
set -euo pipefail
# The whole script is one compound command, read before any of it runs: a run is not
# disturbed by an edit of this file while it boots its VM.
{
cd "$(dirname "$0")/.." || exit 1

# What of the existing suite runs in the VM besides tests/vm/: the tree's handling on a second,
# real kernel (its /proc and children lists, the subreaper, the final KILL), a part only:
# under emulation each test costs seconds, and the whole of tree.bats about 5 minutes.
VM_SUITE_FILES=${VM_SUITE_FILES-tests/tree.bats}
VM_SUITE_FILTER=${VM_SUITE_FILTER-setsid child survives GNU|double-forked daemon is gone|escapees whose names|stopped themselves|returns as soon as the tree is gone}
timeout=${RUNLIMIT_VM_TIMEOUT:-600}
accel=${RUNLIMIT_VM_ACCEL:-tcg}
cache=${RUNLIMIT_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/runlimit-vm}
# The kernel package: Debian's cloud flavour (what the issue tried: the 6.1 kernel boots in
# about 3 s under TCG), Ubuntu's kvm flavour (GitHub's runners); any other metapackage whose
# kernel has cgroup2, devtmpfs and the 8250 serial console built in will do.
distro=$(sed -n 's/^ID="\{0,1\}\([a-z]*\).*/\1/p' /etc/os-release 2>/dev/null) || distro=
case $distro in
ubuntu) meta=${RUNLIMIT_VM_KERNEL_PACKAGE:-linux-image-kvm} ;;
*) meta=${RUNLIMIT_VM_KERNEL_PACKAGE:-linux-image-cloud-amd64} ;;
esac

fail() { echo "check-vm: $*" >&2; exit 1; }
# skip REASON: what the VM needs cannot be had here; in CI that is a failure.
skip() {
	if [ "${CI:-}" = true ]; then
		fail "cannot run (CI=true, so this fails instead of skipping): $*"
	fi
	echo "SKIP: check-vm: $*" >&2
	exit 77
}

# ---- what the VM needs from this host ------------------------------------------------------

[ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] ||
	skip "the VM runs an x86_64 static runlimit: needs an x86_64 Linux host, not $(uname -s)-$(uname -m)"
command -v qemu-system-x86_64 >/dev/null 2>&1 || skip "no qemu-system-x86_64 (apt-get install qemu-system-x86)"
command -v musl-gcc >/dev/null 2>&1 || skip "no musl-gcc for the static runlimit (apt-get install musl-tools)"
static_exe() { [ -x "$1" ] && LC_ALL=C file -b "$1" 2>/dev/null | grep -q 'statically linked'; }
busybox=/bin/busybox
static_exe "$busybox" || skip "no static $busybox (apt-get install busybox-static)"
bash_static=/bin/bash-static
static_exe "$bash_static" || skip "no $bash_static (apt-get install bash-static)"
bats=$(command -v bats 2>/dev/null) || skip "no bats (apt-get install bats)"

# bats-core's own files: the bats script, and the directories it finds beside it (Debian's
# /usr/lib/bats-core and /usr/libexec/bats-core; npm and Homebrew put them elsewhere).
bats=$(readlink -f "$bats")
bats_prefix=$(dirname "$(dirname "$bats")")
[ -d "$bats_prefix/libexec/bats-core" ] || skip "bats at $bats has no libexec/bats-core beside it"

# ---- the kernel ----------------------------------------------------------------------------

# kernel_image: the path of the kernel to boot, fetched into the cache if need be: the
# versioned package the metapackage depends on now, else the newest one cached.  The cache
# must be this user's own and closed to others: the kernel booted decides the gate.
kernel_image() {
	if [ -n "${RUNLIMIT_VM_KERNEL:-}" ]; then
		[ -r "$RUNLIMIT_VM_KERNEL" ] || fail "RUNLIMIT_VM_KERNEL: no such file: $RUNLIMIT_VM_KERNEL"
		echo "$RUNLIMIT_VM_KERNEL"
		return
	fi
	local pkg img
	pkg=$(apt-cache depends "$meta" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1) || pkg=
	if [ -z "$pkg" ]; then
		# No apt, or it does not know the package: what an earlier run left, if anything.
		img=$(find "$cache" -path '*/boot/vmlinuz-*' -type f 2>/dev/null | sort -V | tail -n 1)
		[ -n "$img" ] || skip "apt does not know $meta (not Debian? apt-get update?) and $cache holds no kernel"
		echo "$img"
		return
	fi
	img=$(find "$cache/$pkg/boot" -name 'vmlinuz-*' -type f 2>/dev/null | head -n 1)
	if [ -z "$img" ]; then
		echo "check-vm: fetching $pkg into $cache" >&2
		mkdir -p "$cache"
		chmod go-w "$cache"
		[ -O "$cache" ] || fail "$cache is not this user's: set RUNLIMIT_VM_CACHE"
		local tmp
		tmp=$(mktemp -d "$cache/fetch.XXXXXX")
		if ! (cd "$tmp" && apt-get download "$pkg" >/dev/null 2>&1); then
			# Stale package lists name a version the mirror no longer has.
			if [ "$(id -u)" = 0 ]; then
				apt-get update -qq >/dev/null 2>&1 || true
			fi
			(cd "$tmp" && apt-get download "$pkg" >/dev/null 2>&1) || {
				rm -rf "$tmp"
				skip "apt-get download $pkg failed"
			}
		fi
		# Only the kernel image and its config: the modules (most of the package) are not
		# needed, everything the tests use is built in.
		mkdir "$tmp/x"
		dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -x -C "$tmp/x" --wildcards './boot/*' ||
			{ rm -rf "$tmp"; fail "cannot unpack $pkg"; }
		rm -rf "${cache:?}/$pkg"
		mv "$tmp/x" "$cache/$pkg"
		rm -rf "$tmp"
		img=$(find "$cache/$pkg/boot" -name 'vmlinuz-*' -type f | head -n 1)
		[ -n "$img" ] || fail "$pkg holds no boot/vmlinuz-*"
	fi
	echo "$img"
}
kernel=$(kernel_image)

# ---- the initramfs -------------------------------------------------------------------------

work=$(mktemp -d "${TMPDIR:-/tmp}/check-vm.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{bin,sbin,usr/bin,usr/lib,usr/libexec,proc,sys,dev,tmp,run,root,etc}

# A static runlimit (and its test-hooks build), musl's, built beside the others.
make -s BIN=runlimit-vm CC=musl-gcc STATIC=1 HOOKS_BIN=runlimit-vm-hooks runlimit-vm runlimit-vm-hooks
static_exe runlimit-vm || fail "runlimit-vm is not statically linked"

cp "$busybox" "$root/bin/busybox"
for applet in $("$busybox" --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
rm -f "$root/bin/bash"
cp "$bash_static" "$root/bin/bash"
ln -s ../../bin/bash "$root/usr/bin/bash"
# Where busybox's applet differs from what the suite expects (ps -p, -o ucomm; setpriv
# --reuid; a sleep that a copy under another name still runs), this host's own program, with
# the shared libraries it loads, found by its loader (ldd).
host_tool() {
	local exe lib
	exe=$(type -P "$1") || fail "no $1 on this host, for the VM"
	exe=$(readlink -f "$exe")
	mkdir -p "$root$(dirname "$exe")"
	rm -f "$root$exe" # never through a link already there (to busybox)
	cp "$exe" "$root$exe"
	[ "$exe" = "/usr/bin/${1##*/}" ] || ln -sf "$exe" "$root/usr/bin/${1##*/}"
	for lib in $(ldd "$exe" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
# GNU coreutils whole (date +%N, stat -f, sleep run as a copy under another name...), GNU
# find (-lname), grep and sed, awk, procps' ps (-p, -o ucomm) and util-linux's setpriv
# (--reuid) and setsid.
coreutils=$(dpkg -L coreutils 2>/dev/null | sed -n 's|^\(/usr\)\{0,1\}/bin/\([^/]*\)$|\2|p') || coreutils=
for tool in $coreutils find xargs grep sed awk ps setpriv setsid; do
	host_tool "$tool"
done
# /bin/sh: this host's dash where it has one, as Debian's /bin/sh is; busybox's sh runs its
# own applets before what PATH finds (exec setpriv in a script would run busybox's).
if type -P dash >/dev/null; then
	host_tool dash
	ln -sf "$(readlink -f "$(type -P dash)")" "$root/bin/sh"
fi
# Python, for the suite's tools (tests/tools/*.py) and the tests that run them: Debian's
# python3 with its standard library, less what no test imports (the static libpython, the
# test suite, the tools for packaging and 2to3), with its compiled modules: under emulation
# compiling them again at each start would cost seconds.
python=/usr/bin/python3
if [ -x "$python" ]; then
	host_tool "$python"
	pylib=$("$python" -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')
	mkdir -p "$root$pylib"
	tar -C "$pylib" -c --exclude='./config-*' --exclude=./test --exclude=./idlelib \
		--exclude=./tkinter --exclude=./ensurepip --exclude=./lib2to3 --exclude=./distutils \
		--exclude=./pydoc_data --exclude=./site-packages --exclude='*.opt-?.pyc' . |
		tar -C "$root$pylib" -x
	for lib in "$pylib"/lib-dynload/*.so; do
		ldd "$lib" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p'
	done | sort -u | while read -r lib; do
		[ -e "$root$lib" ] || cp -L "$lib" "$root$lib"
	done
fi
cp "$bats" "$root/usr/bin/bats"
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' \
	>"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
cp -R "$bats_prefix/libexec/bats-core" "$root/usr/libexec/"
[ ! -d "$bats_prefix/lib/bats-core" ] || cp -R "$bats_prefix/lib/bats-core" "$root/usr/lib/"

# The source tree's tests, where the suite looks for the binary (tests/../runlimit).
mkdir -p "$root/src/tests"
cp runlimit-vm "$root/src/runlimit"
cp runlimit-vm-hooks "$root/src/runlimit-hooks"
cp tests/helpers.bash "$root/src/tests/"
mkdir -p "$root/src/tests/vm"
cp tests/vm/*.bash "$root/src/tests/vm/"
cp -R tests/tools "$root/src/tests/"

# copy_tests FILE...: the bats files into the VM's tree; their paths, each after a space.
copy_tests() {
	local f
	for f in "$@"; do
		[ -f "$f" ] || fail "no such test file: $f"
		mkdir -p "$root/src/$(dirname "$f")"
		cp "$f" "$root/src/$f"
		printf ' %s' "$f"
	done
}
if [ "$#" -gt 0 ]; then
	vm_files=$(copy_tests "$@")
	suite_files=
else
	vm_files=$(copy_tests tests/vm/*.bats)
	# shellcheck disable=SC2086 # a list of paths, split on purpose
	suite_files=$(copy_tests $VM_SUITE_FILES)
fi
printf '%s\n' "$VM_SUITE_FILTER" >"$root/src/suite-filter"

cat >"$root/init" <<EOF
#!/bin/sh
# The VM's init (written by scripts/check-vm.sh).
export PATH=/usr/bin:/bin:/sbin HOME=/root TERM=dumb LC_ALL=C
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm
ln -s /proc/self/fd /dev/fd
ln -s fd/0 /dev/stdin
ln -s fd/1 /dev/stdout
ln -s fd/2 /dev/stderr
mount -t devpts devpts /dev/pts
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
mount -t cgroup2 cgroup2 /sys/fs/cgroup
# Every controller the kernel has, for the cgroups below the root (the root itself is
# exempt from the rule that a cgroup with processes enables none for its children).
for c in \$(cat /sys/fs/cgroup/cgroup.controllers); do
	echo "+\$c" >/sys/fs/cgroup/cgroup.subtree_control
done
echo "runlimit-vm: kernel \$(uname -r); cgroup2 controllers: \$(cat /sys/fs/cgroup/cgroup.subtree_control)"
cd /src
RUNLIMIT=/src/runlimit RUNLIMIT_HOOKS=/src/runlimit-hooks RUNLIMIT_LIBC=musl \\
	RUNLIMIT_EXPECT="sessions orphans counts readback splice peercred searchcwd snapshot hooktail" \\
	RUNLIMIT_VM=1
export RUNLIMIT RUNLIMIT_HOOKS RUNLIMIT_LIBC RUNLIMIT_EXPECT RUNLIMIT_VM
status=0
bats --tap --timing$vm_files || status=1
if [ -n "$suite_files" ]; then
	bats --tap --timing --filter "\$(cat /src/suite-filter)"$suite_files || status=1
fi
echo "runlimit-vm: bats status \$status"
# runlimit as the VM's PID 1: a command that leaves a setsid'd child, an orphan (which PID 1
# adopts, as it adopts every orphan of the system) and a child in its group, and times
# out.  When PID 1 exits the kernel panics, saying PID 1's exit status.
# The report goes to the second serial port, which nothing else writes to (the panic's
# lines on the console would cut into it), and whose last close waits until it is sent.
echo "runlimit-vm: runlimit as PID 1"
exec /src/runlimit -v -k 2 --report=/dev/ttyS1 2 sh -c 'setsid sleep 300 & (sleep 300 &); sleep 300 & exec sleep 300'
EOF
chmod 755 "$root/init"

(cd "$root" && find . | "$busybox" cpio -o -H newc -R 0:0 2>/dev/null) >"$work/initrd"

# ---- the run -------------------------------------------------------------------------------

echo "check-vm: built in ${SECONDS}s; booting $kernel under qemu ($accel), at most ${timeout}s"
log=$work/console
start=$SECONDS
status=0
# Bounded by the static runlimit just built: a hung VM never hangs the gate.
./runlimit-vm -k 10 "$timeout" qemu-system-x86_64 -accel "$accel" -cpu max -m 1G -smp 2 \
	-display none -monitor none -serial stdio -serial "file:$work/pid1.json" -no-reboot -kernel "$kernel" -initrd "$work/initrd" \
	-append "console=ttyS0 quiet panic=-1" </dev/null | tee "$log" || status=$?
echo "check-vm: the VM ran $((SECONDS - start))s (qemu status $status)"

bats_status=$(tr -d '\r' <"$log" | sed -n 's/^runlimit-vm: bats status \([0-9]*\)$/\1/p')
[ -n "$bats_status" ] || fail "the VM did not finish the tests (timed out or crashed): see above"
result=$bats_status
# runlimit as PID 1: it timed out (124), ended the whole tree, and returned.
pid1_ok=1
grep -q 'Attempted to kill init! exitcode=0x00007c00' "$log" || pid1_ok=0
report=$(tr -d '\r' <"$work/pid1.json")
echo "check-vm: runlimit as PID 1 reported: $report"
case $report in *'"exit_status":124,'*'"ended":4,"left_running":0,'*) ;; *) pid1_ok=0 ;; esac
if [ "$pid1_ok" = 1 ]; then
	echo "check-vm: ok: runlimit as PID 1 timed out (124) and left nothing running"
else
	echo "check-vm: not ok: runlimit as PID 1 did not time out cleanly (exit 124, nothing left)"
	result=1
fi
exit "$result"
}
