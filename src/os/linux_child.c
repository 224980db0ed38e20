/* Linux: the command's child (os.h, "The command's child"), cloned sharing runlimit's memory
 * where the machine's system call is written (linux_sys.h) and no sanitizer is built in; and
 * the system calls it makes before its exec, raw, since it shares runlimit's errno (in a
 * forked child, where the core forks it, they are as good). */
#define _GNU_SOURCE
#include "os.h"
#include "linux_sys.h"
#include "../test_hooks.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#define KERNEL_SIGSET_SIZE (_NSIG / 8)

#ifdef LINUX_CLONE_SHARED
/* The child's own stack, with no guard page below it: its frames (some 5 KiB, the PATH
 * search's buffer included), a script's argument list for the shell (8 KiB at most,
 * start_exec.c) and a handler of runlimit's with the kernel's signal frame (some 4 KiB)
 * come to 13-25 KiB.  Pages of it are touched only as used. */
static _Alignas(16) char child_stack[65536];
static void (*child_fn)(void *);

static int child_body(void *arg)
{
	child_fn(arg); /* execs or exits */
	return 0;
}

/* The number at *s, and s moved past it (and past one '.' after it). */
static unsigned long number(const char **s)
{
	unsigned long n = 0;
	for (; **s >= '0' && **s <= '9' && n < 100000; (*s)++)
		n = n * 10 + (unsigned long)(**s - '0');
	if (**s == '.')
		(*s)++;
	return n;
}

/* Before Linux 5.16 a core dump ended every process that shared the dumper's memory: a
 * child that dies of QUIT (say) between its unblock and its exec, as its default says,
 * would take runlimit with it.  Those kernels get a fork.  The release read by hand:
 * sscanf costs a glibc build some 45 µs a start (the pages of its code). */
static bool dumps_alone(void)
{
	static int known = -1;
	if (known < 0) {
		struct utsname u;
		const char *release = test_hook_value(TEST_KERNEL_RELEASE);
		if (!release)
			release = uname(&u) == 0 ? u.release : "";
		unsigned long major = number(&release), minor = number(&release);
		known = major > 5 || (major == 5 && minor >= 16);
	}
	return known == 1;
}
#endif

pid_t os_spawn_shared(void (*fn)(void *), void *arg)
{
#ifdef LINUX_CLONE_SHARED
	/* No CLONE_VFORK: runlimit runs on (start_exec.c says why).  Test builds only: the
	 * clone refused, as qemu-user refuses it. */
	if (!dumps_alone() || test_hook_on(TEST_CLONE_EINVAL))
		return 0;
	child_fn = fn;
	pid_t pid = clone(child_body, child_stack + sizeof child_stack, CLONE_VM | SIGCHLD, arg);
	/* Refused (qemu-user; a seccomp filter, EPERM or ENOSYS): a fork may still be had. */
	return pid < 0 && (errno == EINVAL || errno == EPERM || errno == ENOSYS) ? 0 : pid;
#else
	(void)fn;
	(void)arg;
	return 0;
#endif
}

int os_child_prepare(int sig, pid_t parent_pid)
{
	if (sig > 0)
		sys(SYS_prctl, PR_SET_PDEATHSIG, sig, 0, 0);
	/* Compare with runlimit's own pid, not with 1: runlimit may itself be PID 1 of a
	 * container, or live under another subreaper. */
	if (os_child_getppid() != parent_pid)
		return -1;
	return sig > 0;
}

long os_child_write(int fd, const void *buf, size_t len)
{
	return sys(SYS_write, fd, (long)buf, (long)len, 0);
}

long os_child_setpgid(pid_t pid, pid_t pgid)
{
	return sys(SYS_setpgid, pid, pgid, 0, 0);
}

long os_child_getpgid(pid_t pid)
{
	return sys(SYS_getpgid, pid, 0, 0, 0);
}

/* On a machine with no raw system call written here the child is always forked: libc's
 * calls are as good there, where a raw one's form differs by machine (alpha has no getpid
 * or getppid by those names; MIPS and SPARC take struct sigaction otherwise). */
long os_child_getpid(void)
{
#ifdef LINUX_SYS_RAW
	return sys(SYS_getpid, 0, 0, 0, 0);
#else
	return getpid();
#endif
}

long os_child_getppid(void)
{
#ifdef LINUX_SYS_RAW
	return sys(SYS_getppid, 0, 0, 0, 0);
#else
	return getppid();
#endif
}

long os_child_yield(void)
{
	return sys(SYS_sched_yield, 0, 0, 0, 0);
}

long os_child_tcsetpgrp(int fd, pid_t pgid)
{
	return sys(SYS_ioctl, fd, TIOCSPGRP, (long)&pgid, 0);
}

#ifdef LINUX_SYS_RAW
/* The kernel's struct sigaction on x86-64 and arm64: no handler is ever set here, so no
 * restorer is needed. */
struct kernel_sigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned char mask[KERNEL_SIGSET_SIZE];
};
#endif

long os_child_disposition(int sig, bool ignore)
{
#ifdef LINUX_SYS_RAW
	struct kernel_sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.handler = ignore ? SIG_IGN : SIG_DFL;
	return sys(SYS_rt_sigaction, sig, (long)&sa, 0, KERNEL_SIGSET_SIZE);
#else
	int saved = errno;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = ignore ? SIG_IGN : SIG_DFL;
	long ret = sigaction(sig, &sa, NULL) == 0 ? 0 : -errno;
	errno = saved;
	return ret;
#endif
}

long os_child_dup2(int from, int to)
{
	if (from == to) /* dup2's answer for one descriptor: is it open? */
		return sys(SYS_fcntl, from, F_GETFD, 0, 0) < 0 ? -EBADF : to;
	return sys(SYS_dup3, from, to, 0, 0);
}

long os_child_sigmask(const sigset_t *mask)
{
	return sys(SYS_rt_sigprocmask, SIG_SETMASK, (long)mask, 0, KERNEL_SIGSET_SIZE);
}

long os_child_kill(pid_t pid, int sig)
{
	return sys(SYS_kill, pid, sig, 0, 0);
}

long os_child_execve(const char *path, char *const argv[], char *const envp[])
{
	return sys(SYS_execve, (long)path, (long)argv, (long)envp, 0);
}

void os_child_exit(int status)
{
	for (;;)
		sys(SYS_exit_group, status, 0, 0, 0);
}
