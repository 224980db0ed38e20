/* Linux: runlimit is a child subreaper (prctl PR_SET_CHILD_SUBREAPER), children are tied to it
 * with PR_SET_PDEATHSIG, and the guard is cloned sharing runlimit's memory (as the command's
 * child is: linux_child.c); the relay moves
 * bytes with splice(2); /proc/self/fd reopens a file; SO_PEERCRED names a socket's peer; the
 * processor counts come from the affinity mask, /sys and the cgroup quota.  The tree walk is
 * linux_tree.c. */
#define _GNU_SOURCE
#include "os.h"
#include "cpufiles.h"
#include "linux_sys.h"
#include "../test_hooks.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

void os_init(void)
{
	/* Test builds only: no subreaper, as under qemu-user, which does not pass it on. */
	if (test_hook_on(TEST_NO_SUBREAPER))
		return;
	prctl(PR_SET_CHILD_SUBREAPER, 1);
}

bool os_has_death_signal(void)
{
	return true;
}

int os_watch_exit(pid_t pid)
{
	/* A pidfd is the process's, not its thread's (PR_SET_PDEATHSIG's trap: it fires when the
	 * thread that forked runlimit ends, a Python worker's), readable once it has exited, and
	 * close-on-exec from the start. */
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

void os_sharpen_waits(void)
{
	prctl(PR_SET_TIMERSLACK, 1UL);
}

/* The guard, cloned with CLONE_VM: it runs on a stack of its own but shares runlimit's
 * memory and even its thread data (errno), so it makes raw system calls only, through sys()
 * (linux_sys.h), which leaves errno alone (libc's syscall() sets it on a failure: the wait's
 * EINTR when the guard is stopped and continued, a getpgid of a sender gone), and touches
 * nothing of runlimit's but its own arguments.  It does what the core's forked guard does
 * (guard.c), on Linux's own terms.  The sanitizers cannot follow such a child, and without
 * close_range the guard could not give up the standard descriptors without libc: those
 * builds fork it. */
#if defined(LINUX_CLONE_SHARED) && defined(SYS_close_range)
#define GUARD_CLONE 1
#endif
#ifdef GUARD_CLONE
#define KERNEL_SIGSET_SIZE (_NSIG / 8)
static _Alignas(16) char guard_stack[16384];
static struct {
	int sig;
	pid_t parent;
	bool in_parents;
	sigset_t wake; /* SIGUSR1 (runlimit's death) and the relayed signals */
	sigset_t relay;
	int late_ms; /* test builds only (TEST_RELAY_LATE_MS) */
	int cgroup_kill; /* the run's cgroup.kill (-1: none) */
} guard_args;

static int guard_body(void *arg)
{
	(void)arg;
	int sig = guard_args.sig;
	pid_t parent = guard_args.parent;
	/* Every signal blocked, the two glibc keeps for itself (which its sigfillset leaves out,
	 * and whose default would end the guard) too: the kernel blocks all but KILL and STOP. */
	sigset_t all;
	memset(&all, 0xff, sizeof all);
	sys(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all, 0, KERNEL_SIGSET_SIZE);
	/* No setpgid here: runlimit makes the group (guard.c says why). */
	sys(SYS_close_range, 0U, 2U, 0U, 0); /* never hold the caller's terminal or pipes */
	sys(SYS_prctl, PR_SET_PDEATHSIG, SIGUSR1, 0, 0);
	/* SIGUSR1 forwarded to the group reaches the guard too: only a new parent counts.  A
	 * signal of the relayed set goes on to runlimit by guard.c's guard_relays: sent by a
	 * process (SI_USER, SI_QUEUE) other than runlimit, to a group runlimit is not in, by no
	 * member of the guard's own group (a sender gone counts as none). */
	siginfo_t info;
	while (sys(SYS_getppid, 0, 0, 0, 0) == parent) {
		long got = sys(SYS_rt_sigtimedwait, (long)&guard_args.wake, (long)&info, 0,
		               KERNEL_SIGSET_SIZE);
		if (got <= 0 || sys(SYS_getppid, 0, 0, 0, 0) != parent ||
		    !sigismember(&guard_args.relay, (int)got) ||
		    (info.si_code != SI_USER && info.si_code != SI_QUEUE) || info.si_pid == parent)
			continue;
		if (guard_args.late_ms > 0) {
			struct timespec late = {guard_args.late_ms / 1000,
			                        guard_args.late_ms % 1000 * 1000000L};
			sys(SYS_nanosleep, (long)&late, 0, 0, 0);
		}
		long theirs = sys(SYS_getpgid, parent, 0, 0, 0), mine = sys(SYS_getpgid, 0, 0, 0, 0);
		long senders = info.si_pid > 0 ? sys(SYS_getpgid, info.si_pid, 0, 0, 0) : -1;
		if (theirs <= 0 || theirs == mine || senders == mine)
			continue;
		/* As sigqueue() would: the sender's group, or minus its pid where it is gone, for
		 * runlimit to tell the hook's and the command's own from the others' (guard.c). */
		siginfo_t out;
		memset(&out, 0, sizeof out);
		out.si_signo = (int)got;
		out.si_code = SI_QUEUE;
		out.si_pid = (pid_t)sys(SYS_getpid, 0, 0, 0, 0);
		out.si_uid = (uid_t)sys(SYS_getuid, 0, 0, 0, 0);
		out.si_value.sival_int = senders > 0 ? (int)senders : -info.si_pid;
		if (sys(SYS_rt_sigqueueinfo, parent, got, (long)&out, 0) != 0)
			sys(SYS_kill, parent, got, 0, 0);
	}
	/* The group to end, as guard.c's guard_end_group chooses it: the one runlimit made with
	 * its own pid, which the guard joins again first (refused where it is gone: its id is
	 * then nobody's to signal); else the one the guard leads. */
	long group = guard_args.in_parents ? parent : sys(SYS_getpid, 0, 0, 0, 0);
	if (guard_args.in_parents && sys(SYS_getpgid, 0, 0, 0, 0) != group &&
	    sys(SYS_setpgid, 0, group, 0, 0) != 0)
		sys(SYS_exit, 0, 0, 0, 0);
	/* Where the run has a cgroup, its whole tree: what left the group too. */
	if (guard_args.cgroup_kill >= 0)
		sys(SYS_write, guard_args.cgroup_kill, (long)"1", 1, 0);
	if (sig > 0)
		sys(SYS_kill, -group, sig, 0, 0);
	sys(SYS_kill, -group, SIGCONT, 0, 0);
	sys(SYS_exit, 0, 0, 0, 0);
	return 0;
}
#endif

pid_t os_guard_start(int sig, pid_t parent, bool in_parents, const sigset_t *relay,
                     int late_ms, int kill_fd)
{
#ifdef GUARD_CLONE
	guard_args.late_ms = late_ms;
	guard_args.cgroup_kill = kill_fd;
	guard_args.sig = sig;
	guard_args.parent = parent;
	guard_args.in_parents = in_parents;
	sigemptyset(&guard_args.relay);
	if (relay)
		guard_args.relay = *relay;
	guard_args.wake = guard_args.relay;
	sigaddset(&guard_args.wake, SIGUSR1);
	/* Test builds only: the clone refused, as qemu-user refuses it. */
	if (test_hook_on(TEST_CLONE_EINVAL)) {
		errno = EINVAL;
		return -1;
	}
	return clone(guard_body, guard_stack + sizeof guard_stack, CLONE_VM | SIGCHLD, NULL);
#else
	(void)sig;
	(void)parent;
	(void)in_parents;
	(void)relay;
	(void)late_ms;
	(void)kill_fd;
	return 0;
#endif
}

bool os_dumped_core(int status)
{
	return WCOREDUMP(status) != 0;
}

/* ru_maxrss counts KiB here. */
long os_maxrss_kib(long ru_maxrss)
{
	return ru_maxrss;
}

/* The peer of a socket: SO_PEERCRED. */
int peer_uid(int fd, uid_t *uid)
{
	struct ucred cred;
	socklen_t len = sizeof cred;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof cred)
		return -1;
	*uid = cred.uid;
	return 1;
}

pid_t peer_pid(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof cred;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof cred)
		return 0;
	return cred.pid > 0 ? cred.pid : 0;
}

/* splice(2) between two pipes moves page references, not bytes, and with SPLICE_F_NONBLOCK
 * waits on neither pipe, even when the caller's description of out is blocking (which
 * runlimit may not change: the caller shares it); tee(2) does the same without taking them
 * out of the first.  Both move whole buffers of the pipe (a buffer is cut only where max
 * ends), and a write of at most PIPE_BUF bytes lies whole in one buffer. */
bool pipe_can_move(int in, int out)
{
	struct stat a, b;
	return fstat(in, &a) == 0 && S_ISFIFO(a.st_mode) && fstat(out, &b) == 0 &&
	       S_ISFIFO(b.st_mode);
}

/* Test builds only: the pipe widened at once, as a fast command's would be by then, and the
 * move refused once `in` holds more than 64 KiB, so that the relay goes on copying out of
 * its widened pipe (TEST_MOVE_REFUSED). */
static bool move_refused(int in)
{
	int unread = 0;
	if (!test_hook_on(TEST_MOVE_REFUSED))
		return false;
	pipe_widen(in);
	if (ioctl(in, FIONREAD, &unread) != 0 || unread <= 65536)
		return false;
	errno = EINVAL;
	return true;
}

ssize_t pipe_move(int in, int out, size_t max)
{
	if (move_refused(in))
		return -1;
	return splice(in, NULL, out, NULL, max, SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
}

/* tee(2) returns 0 at end-of-file, but also when out filled up between its look and its
 * move (another process writes to out: the kernel's link_pipe, unlike splice's move, does
 * not retry): bytes still in `in` tell the two apart, and a full out is EAGAIN. */
ssize_t pipe_tee(int in, int out, size_t max)
{
	if (move_refused(in))
		return -1;
	ssize_t got = tee(in, out, max, SPLICE_F_NONBLOCK);
	int unread = 0;
	if (got == 0 && ioctl(in, FIONREAD, &unread) == 0 && unread > 0) {
		errno = EAGAIN;
		return -1;
	}
	return got;
}

void pipe_widen(int fd)
{
	/* Over pipe-max-size an unprivileged user gets EPERM, and past the soft quota of pipe
	 * pages (pipe-user-pages-soft) the kernel keeps the pipe at its size: try less. */
	for (int size = PIPE_WIDEST; size >= PIPE_WIDEST / 4; size >>= 1)
		if (fcntl(fd, F_SETPIPE_SZ, size) >= size)
			return;
}

int os_pipe_cloexec(int ends[2])
{
	return pipe2(ends, O_CLOEXEC);
}

int os_open_here(void)
{
	return os_open_dir(".");
}

int os_open_dir(const char *path)
{
	return open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* Reopening: /proc/self/fd/N names the open file itself, not a path that could have been
 * replaced since. */
int reopen_fd(int fd, int access)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	return open(path, access | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
}

/* Processor counts: the affinity mask, /sys for the processors online and installed, and
 * the cgroup CPU quota.  /sys is read directly rather than through sysconf because musl's
 * sysconf answers with the affinity count for both, and 1 when the mask has more than 1024
 * CPUs. */
#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif
#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

/* sched_getaffinity with a set that grows until the kernel's CPU count fits. */
static unsigned long affinity_count(void)
{
	for (int ncpus = 1024; ncpus <= (1 << 22); ncpus *= 2) {
		cpu_set_t *set = CPU_ALLOC((size_t)ncpus);
		if (!set)
			return 0;
		size_t size = CPU_ALLOC_SIZE((size_t)ncpus);
		CPU_ZERO_S(size, set);
		if (sched_getaffinity(0, size, set) == 0) {
			int n = CPU_COUNT_S(size, set);
			CPU_FREE(set);
			return n > 0 ? (unsigned long)n : 0;
		}
		int err = errno;
		CPU_FREE(set);
		if (err != EINVAL)
			return 0;
	}
	return 0;
}

static unsigned long sysconf_count(int name)
{
	long n = sysconf(name);
	return n > 0 ? (unsigned long)n : 0;
}

static unsigned long online_count(void)
{
	/* Only a whole list: a cut-off one ("0,2,4,...,40") would still parse, as fewer CPUs. */
	char buf[65536];
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	if (f) {
		size_t n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[n] = '\0';
		unsigned long count = n > 0 && n < sizeof buf - 1 && buf[n - 1] == '\n'
			? cpulist_count(buf) : 0;
		if (count)
			return count;
	}
	return sysconf_count(_SC_NPROCESSORS_ONLN);
}

unsigned long ncpu_available(void)
{
	unsigned long online = online_count(), mask = affinity_count();
	if (online && mask)
		return mask < online ? mask : online;
	return online ? online : mask;
}

/* The cpuN directories of /sys/devices/system/cpu: one per processor installed. */
static unsigned long sysfs_cpu_dirs(void)
{
	DIR *d = opendir("/sys/devices/system/cpu");
	if (!d)
		return 0;
	unsigned long n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		const char *s = e->d_name;
		if (strncmp(s, "cpu", 3) != 0 || s[3] == '\0')
			continue;
		s += 3;
		while (*s >= '0' && *s <= '9')
			s++;
		if (*s == '\0')
			n++;
	}
	closedir(d);
	return n;
}

unsigned long ncpu_installed(void)
{
	unsigned long n = sysfs_cpu_dirs();
	if (n == 0)
		n = sysconf_count(_SC_NPROCESSORS_CONF);
	unsigned long available = ncpu_available();
	return n > available ? n : available;
}

unsigned long ncpu_quota(void)
{
	/* A real-time task is not throttled by the CFS quota (GNU nproc agrees).  The system
	 * call, because musl's sched_getscheduler() always fails with ENOSYS. */
	int policy = (int)syscall(SYS_sched_getscheduler, 0);
	if (policy != -1)
		policy &= ~SCHED_RESET_ON_FORK; /* a flag that sched_getscheduler may add */
	if (policy == -1 || policy == SCHED_FIFO || policy == SCHED_RR || policy == SCHED_DEADLINE)
		return ULONG_MAX;
	return cgroup_cpu_quota("/proc/self/cgroup", "/proc/self/mountinfo", "/sys/fs/cgroup");
}

int os_relay_signal(pid_t pid, int sig, int value)
{
	return sigqueue(pid, sig, (union sigval){.sival_int = value});
}
