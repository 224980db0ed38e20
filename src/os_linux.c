/* Linux: runlimit is a child subreaper (prctl PR_SET_CHILD_SUBREAPER), children are tied to it
 * with PR_SET_PDEATHSIG, and the guard is cloned sharing runlimit's memory. */
#define _GNU_SOURCE
#include "os.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

void os_init(void)
{
#ifdef RUNLIMIT_TEST_HOOKS
	/* Test builds only: no subreaper, as under qemu-user, which does not pass it on. */
	if (getenv("RUNLIMIT_TEST_NO_SUBREAPER"))
		return;
#endif
	prctl(PR_SET_CHILD_SUBREAPER, 1);
}

bool os_has_death_signal(void)
{
	return true;
}

int os_child_prepare(int sig, pid_t parent_pid)
{
	if (sig > 0)
		prctl(PR_SET_PDEATHSIG, sig);
	/* Compare with runlimit's own pid, not with 1: runlimit may itself be PID 1 of a
	 * container, or live under another subreaper. */
	if (getppid() != parent_pid)
		return -1;
	return sig > 0;
}

void os_sharpen_waits(void)
{
	prctl(PR_SET_TIMERSLACK, 1UL);
}

/* The guard, cloned with CLONE_VM: it runs on a stack of its own but shares runlimit's
 * memory and even its thread data (errno), so it makes raw system calls only, none of which
 * fails while runlimit lives, and touches nothing of runlimit's but its own arguments.  It
 * does what guard.c's forked guard does (see there), on Linux's own terms.  The sanitizers
 * cannot follow such a child, and without close_range the guard could not give up the
 * standard descriptors without libc: those builds fork it (guard.c). */
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) && defined(SYS_close_range)
#define GUARD_CLONE 1
#endif
#ifdef GUARD_CLONE
#define KERNEL_SIGSET_SIZE (_NSIG / 8)
static _Alignas(16) char guard_stack[16384];
static struct {
	int sig;
	pid_t parent;
} guard_args;

static int guard_body(void *arg)
{
	(void)arg;
	int sig = guard_args.sig;
	pid_t parent = guard_args.parent;
	sigset_t all, wake;
	sigfillset(&all);
	sigemptyset(&wake);
	sigaddset(&wake, SIGUSR1);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, NULL, KERNEL_SIGSET_SIZE);
	/* No setpgid here: runlimit makes the group (guard.c says why). */
	syscall(SYS_close_range, 0U, 2U, 0U); /* never hold the caller's terminal or pipes */
	syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGUSR1, 0, 0, 0);
	/* SIGUSR1 forwarded to the group reaches the guard too: only a new parent counts. */
	while (syscall(SYS_getppid) == parent)
		syscall(SYS_rt_sigtimedwait, &wake, NULL, NULL, KERNEL_SIGSET_SIZE);
	long group = syscall(SYS_getpid);
	if (sig > 0)
		syscall(SYS_kill, -group, sig);
	syscall(SYS_kill, -group, SIGCONT);
	syscall(SYS_exit, 0);
	return 0;
}
#endif

pid_t os_guard_clone(int sig, pid_t parent)
{
#ifdef GUARD_CLONE
	guard_args.sig = sig;
	guard_args.parent = parent;
#ifdef RUNLIMIT_TEST_HOOKS
	/* Test builds only: the clone refused, as qemu-user refuses it. */
	if (getenv("RUNLIMIT_TEST_GUARD_CLONE_EINVAL")) {
		errno = EINVAL;
		return -1;
	}
#endif
	return clone(guard_body, guard_stack + sizeof guard_stack, CLONE_VM | SIGCHLD, NULL);
#else
	(void)sig;
	(void)parent;
	return 0;
#endif
}

bool os_dumped_core(int status)
{
	return WCOREDUMP(status) != 0;
}
