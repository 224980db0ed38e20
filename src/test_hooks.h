/* The test hooks: a real fault, a refused call or a bad moment on demand, for the tests that
 * show runlimit still keeps its promises when one comes.  Every hook is listed here, with the
 * environment variable that sets it, where it acts and why; a production file asks for one by
 * name (test_hook_on, test_hook_number, test_hook_value) and holds no #ifdef and no getenv of
 * its own.
 *
 * Only the hooks build reads the variables: runlimit-hooks, built with -DRUNLIMIT_TEST_HOOKS
 * (Makefile), never installed, which the tests run as $RUNLIMIT_HOOKS.  In every other build
 * the functions are constants (false, 0, NULL), the hooks' code is dead, and the binary holds
 * no variable's name (`strings runlimit | grep RUNLIMIT_TEST` prints nothing).
 *
 * A leaf, with libc alone: the platform (src/os/) includes it as the core does, the one core
 * header it may (scripts/check-includes.py). */
#ifndef RUNLIMIT_TEST_HOOKS_H
#define RUNLIMIT_TEST_HOOKS_H

#include <stdbool.h>
#include <stdlib.h>
#ifdef RUNLIMIT_TEST_HOOKS
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#endif

/* Each hook: where it acts, what it does, and the tests that set it (tests/). */
enum test_hook {
	/* RUNLIMIT_TEST_NO_SUBREAPER, os/linux.c: no subreaper, as under qemu-user, which does
	 * not pass it on (tree.bats, atlimit.bats). */
	TEST_NO_SUBREAPER,
	/* RUNLIMIT_TEST_CLONE_EINVAL, os/linux.c and os/linux_child.c: the clones that share
	 * runlimit's memory (the guard's, the command's child's) refused (EINVAL), as qemu-user
	 * refuses them, so that the fork fallbacks run (safety.bats, tree.bats, startup.bats). */
	TEST_CLONE_EINVAL,
	/* RUNLIMIT_TEST_GUARD_LATE, guard.c: a guard that runs 300 ms late, as on a loaded
	 * machine (tree.bats). */
	TEST_GUARD_LATE,
	/* RUNLIMIT_TEST_CHILD_SIGNAL, start_exec.c: the child sends itself SIGUSR1 after its last
	 * unblock, before exec, where runlimit's handler still runs (signals.bats). */
	TEST_CHILD_SIGNAL,
	/* RUNLIMIT_TEST_CHILD_STOP, start_exec.c: the child stops itself (SIGSTOP) after its last
	 * unblock, before exec: runlimit must not wait on it (startup.bats). */
	TEST_CHILD_STOP,
	/* RUNLIMIT_TEST_CGROUP_MOVE_REFUSED, start_exec.c: the child's move into the run's
	 * cgroup fails (EBADF), as a cgroup gone or refusing would (cgroup.bats). */
	TEST_CGROUP_MOVE_REFUSED,
	/* RUNLIMIT_TEST_KERNEL_RELEASE, os/linux_child.c: the kernel's release as uname would
	 * give it (5.15.0: one whose core dumps end every process sharing the memory), so that
	 * the choice between a clone and a fork is tested on any kernel (startup.bats). */
	TEST_KERNEL_RELEASE,
	/* RUNLIMIT_TEST_FAULT, signal_in.c (disp_test_fault): on SIGUSR2, a genuine SIGSEGV
	 * inside runlimit, which must end it rather than be taken for one sent (signals.bats). */
	TEST_FAULT,
	/* RUNLIMIT_TEST_WAIT_LATE, os/selfpipe.c: a wait that starts 100 ms late, so that a
	 * signal comes before it (safety.bats). */
	TEST_WAIT_LATE,
	/* RUNLIMIT_TEST_STOP_LATE_MS, jobctl.c: runlimit stops this many ms late, after its
	 * timer's wake (signals.bats). */
	TEST_STOP_LATE_MS,
	/* RUNLIMIT_TEST_COLLECT_LATE_MS, supervise.c: the children are collected this many ms
	 * late while the --on-timeout hook runs, so that it exits between the look that starts
	 * a collection and the collection (atlimit.bats). */
	TEST_COLLECT_LATE_MS,
	/* RUNLIMIT_TEST_CGROUP_KILL_ONLY, signal_out.c: the final KILL is cgroup.kill alone, no
	 * walk nor group, to show it ends it all (vm/budget-cgroup.bats). */
	TEST_CGROUP_KILL_ONLY,
	/* RUNLIMIT_TEST_FILL_BEFORE_WRITE, nowait.c: another writer fills the pipe or socket
	 * after runlimit found room in it and before it writes (relay-bound.bats). */
	TEST_FILL_BEFORE_WRITE,
	/* RUNLIMIT_TEST_MOVE_REFUSED, os/linux.c: the relay's pipe widened at once and the
	 * splice refused once it holds more than 64 KiB, so that the relay copies out of its
	 * widened pipe (relay-bound.bats). */
	TEST_MOVE_REFUSED,
	/* RUNLIMIT_TEST_SNAP_MAX, snapshot.c: a lower cap on the processes described at a
	 * limit, to show the omitted count without starting a thousand (atlimit.bats). */
	TEST_SNAP_MAX,
	/* RUNLIMIT_TEST_SNAP_LEAD_MS, snapshot.c: the tree read this many ms ahead of the
	 * deadline, so that a test can act between the reading and the limit without a race
	 * (atlimit.bats, tty.bats). */
	TEST_SNAP_LEAD_MS,
	/* RUNLIMIT_TEST_SNAP_VANISH, os/walk.c: the process whose pid the named file holds is
	 * KILLed between the walk that found it and its description, as a short-lived process
	 * may end (atlimit.bats). */
	TEST_SNAP_VANISH,
	/* RUNLIMIT_TEST_MIDDLE_STEP_MS, escalation.c: a step between the first and the final
	 * KILL, SIGINT this many ms after the first, which -s and -k cannot ask for, so that the
	 * phases' walk of the list is seen past two steps (escalation.bats). */
	TEST_MIDDLE_STEP_MS,
	/* RUNLIMIT_TEST_CGROUP_BLIND, budget_cgroup.c: a mask of the figures (1 << enum
	 * usage_figure) the cgroup mechanism says it cannot measure, as a mechanism for a new
	 * figure would, so that the sampled one is seen measuring them beside it (cgroup.bats). */
	TEST_CGROUP_BLIND,
	/* RUNLIMIT_TEST_GROUP_WINDOW_MS, guard.c: runlimit stays out of its caller's group this
	 * many ms after the command's fork, so that a signal sent to that group meanwhile is
	 * seen passed on to it by the guard, and a command that leaves its group at once is seen
	 * to wait for the guard there first (group.bats). */
	TEST_GROUP_WINDOW_MS,
	/* RUNLIMIT_TEST_CLOSE_LATE_MS, named_control.c: a named run that is ending holds its
	 * lock this many ms after its socket is gone, as a slow machine may, so that a --cancel
	 * comes between the two (named.bats). */
	TEST_CLOSE_LATE_MS,
	/* RUNLIMIT_TEST_RELAY_LATE_MS, guard.c and os/linux.c: the guard looks at the sender of
	 * a signal this many ms late, as on a loaded machine, so that a sender that exits at
	 * once is gone, and reaped, by then (group.bats). */
	TEST_RELAY_LATE_MS,
	/* RUNLIMIT_TEST_PARENT_READ, parent.c: --die-with-parent, once it has read its parent's
	 * pid, makes the file this names and waits (at most 10 s) until it is gone before it
	 * watches the parent, so that the parent can end in between (parent.bats). */
	TEST_PARENT_READ,
	/* RUNLIMIT_TEST_CANCEL_LOOKED, named_client.c: --cancel, once it has looked at the name
	 * (and left its marker, if it does), makes the file this names and waits (at most 10 s)
	 * until it is gone before it tries to reach the run, so that the run it saw can end, and
	 * another start, in between (named.bats). */
	TEST_CANCEL_LOOKED,
	TEST_HOOKS_N
};

#ifdef RUNLIMIT_TEST_HOOKS
/* The hook's variable's value; NULL when it is not set. */
static inline const char *test_hook_value(enum test_hook h)
{
	static const char *const var[TEST_HOOKS_N] = {
	    [TEST_NO_SUBREAPER] = "RUNLIMIT_TEST_NO_SUBREAPER",
	    [TEST_CLONE_EINVAL] = "RUNLIMIT_TEST_CLONE_EINVAL",
	    [TEST_GUARD_LATE] = "RUNLIMIT_TEST_GUARD_LATE",
	    [TEST_CHILD_SIGNAL] = "RUNLIMIT_TEST_CHILD_SIGNAL",
	    [TEST_CHILD_STOP] = "RUNLIMIT_TEST_CHILD_STOP",
	    [TEST_CGROUP_MOVE_REFUSED] = "RUNLIMIT_TEST_CGROUP_MOVE_REFUSED",
	    [TEST_KERNEL_RELEASE] = "RUNLIMIT_TEST_KERNEL_RELEASE",
	    [TEST_FAULT] = "RUNLIMIT_TEST_FAULT",
	    [TEST_WAIT_LATE] = "RUNLIMIT_TEST_WAIT_LATE",
	    [TEST_STOP_LATE_MS] = "RUNLIMIT_TEST_STOP_LATE_MS",
	    [TEST_COLLECT_LATE_MS] = "RUNLIMIT_TEST_COLLECT_LATE_MS",
	    [TEST_CGROUP_KILL_ONLY] = "RUNLIMIT_TEST_CGROUP_KILL_ONLY",
	    [TEST_FILL_BEFORE_WRITE] = "RUNLIMIT_TEST_FILL_BEFORE_WRITE",
	    [TEST_MOVE_REFUSED] = "RUNLIMIT_TEST_MOVE_REFUSED",
	    [TEST_SNAP_MAX] = "RUNLIMIT_TEST_SNAP_MAX",
	    [TEST_SNAP_LEAD_MS] = "RUNLIMIT_TEST_SNAP_LEAD_MS",
	    [TEST_SNAP_VANISH] = "RUNLIMIT_TEST_SNAP_VANISH",
	    [TEST_MIDDLE_STEP_MS] = "RUNLIMIT_TEST_MIDDLE_STEP_MS",
	    [TEST_CGROUP_BLIND] = "RUNLIMIT_TEST_CGROUP_BLIND",
	    [TEST_GROUP_WINDOW_MS] = "RUNLIMIT_TEST_GROUP_WINDOW_MS",
	    [TEST_CLOSE_LATE_MS] = "RUNLIMIT_TEST_CLOSE_LATE_MS",
	    [TEST_RELAY_LATE_MS] = "RUNLIMIT_TEST_RELAY_LATE_MS",
	    [TEST_PARENT_READ] = "RUNLIMIT_TEST_PARENT_READ",
	    [TEST_CANCEL_LOOKED] = "RUNLIMIT_TEST_CANCEL_LOOKED",
	};
	return getenv(var[h]);
}
#else
static inline const char *test_hook_value(enum test_hook h)
{
	(void)h;
	return NULL;
}
#endif

/* The hook is set (to anything, the empty string too). */
static inline bool test_hook_on(enum test_hook h)
{
	return test_hook_value(h) != NULL;
}

/* The hook's number (atoi of its value); 0 when it is not set. */
static inline int test_hook_number(enum test_hook h)
{
	const char *v = test_hook_value(h);
	return v ? atoi(v) : 0;
}

/* A hook whose value is a file: make that file, then wait (at most 10 s) until it is gone, so
 * that the test acts at this moment, and says when it is done. */
#ifdef RUNLIMIT_TEST_HOOKS
static inline void test_hook_hold(enum test_hook h)
{
	const char *path = test_hook_value(h);
	int fd = path ? open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600) : -1;
	if (fd < 0)
		return;
	close(fd);
	for (int k = 0; k < 1000 && access(path, F_OK) == 0; k++)
		nanosleep(&(struct timespec){0, 10000000}, NULL);
}
#else
static inline void test_hook_hold(enum test_hook h)
{
	(void)h;
}
#endif

#endif
