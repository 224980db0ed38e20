#include "guard.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "os/os.h"
#include "start_exec.h"
#include "test_hooks.h"

static pid_t guard;
static pid_t lodge; /* see guard_leave_group */
static bool left_group;
static int tie = -1; /* where the OS has no parent-death signal: EOF on it means runlimit died */

static void guard_main(int sig, pid_t parent, int tie_read, bool in_parents)
{
	spawn_helper_detach(tie_read);
	/* Test builds only: a guard that runs late, as on a loaded machine. */
	if (test_hook_on(TEST_GUARD_LATE))
		nanosleep(&(struct timespec){.tv_nsec = 300000000}, NULL);
	/* Its group is made by runlimit (guard_start), never here: run late, a setpgid of
	 * its own would take the guard back into the command's group after runlimit had
	 * moved it out (guard_leave_group), and the group would look alive for good. */
	sigset_t all;
	sigfillset(&all);
	int armed = os_child_prepare(SIGUSR1, parent);
	if (armed > 0) {
		sigset_t wake;
		sigemptyset(&wake);
		sigaddset(&wake, SIGUSR1);
		int got;
		/* SIGUSR1 forwarded to the group reaches the guard too: only a new parent counts. */
		while (getppid() == parent)
			sigwait(&wake, &got);
	} else if (armed == 0 && tie_read >= 0) {
		char c;
		while (read(tie_read, &c, 1) < 0 && errno == EINTR)
			;
	} else if (armed == 0) {
		for (;;) /* nothing tells the guard of runlimit's death: just hold the id */
			sigsuspend(&all);
	}
	/* The group that runlimit made with its own pid is joined again first (the guard may
	 * have been moved out to tell whether it was empty): that is refused where it is gone,
	 * and its id, runlimit's pid, may then be anyone's.  While it has members, the kernel
	 * gives its id to no new process, so what is signalled is the command's. */
	pid_t target = in_parents ? parent : getpid();
	if (in_parents && getpgrp() != target && setpgid(0, target) != 0)
		_exit(0);
	if (sig > 0)
		kill(-target, sig);
	kill(-target, SIGCONT);
	_exit(0);
}

static void end(pid_t *pid)
{
	if (*pid > 0) {
		kill(*pid, SIGKILL);
		while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	*pid = 0;
}

/* Kill and reap the guard, and let go of its tie. */
static void end_guard(void)
{
	end(&guard);
	if (tie >= 0)
		close(tie);
	tie = -1;
}

/* The guard's process.  The platform offers its cheaper way first (os_guard_start: Linux
 * clones it sharing runlimit's memory, a guard of raw system calls); the fork below is the
 * way of every system, and stays here, in the core, because the guard it runs is the core's
 * (guard_main, with spawn_helper_detach and the test hooks), and the platform includes no
 * core header.  In the caller's group, which guard_start then changes. */
static pid_t start(int sig, pid_t parent, bool in_parents)
{
	pid_t cloned = os_guard_start(sig, parent, in_parents);
	if (cloned > 0) {
		guard = cloned;
		return cloned;
	}
	/* No cheaper way here (0), or the system refused it (-1: qemu-user, for one, takes
	 * clone's CLONE_VM only with CLONE_THREAD): a fork does the same, at a fork's price. */
	int link[2] = {-1, -1};
	if (!os_has_death_signal() && pipe(link) == 0)
		fcntl(link[1], F_SETFD, FD_CLOEXEC);
	pid_t pid = fork();
	if (pid == 0) {
		if (link[1] >= 0)
			close(link[1]);
		guard_main(sig, parent, link[0], in_parents);
	}
	int saved = errno;
	if (link[0] >= 0)
		close(link[0]);
	if (pid < 0) {
		if (link[1] >= 0)
			close(link[1]);
		errno = saved;
		return -1;
	}
	guard = pid;
	tie = link[1];
	return pid;
}

/* The command's group with runlimit's own pid as its id, as GNU timeout's (which leads it),
 * for its clients' `kill -- -PID`: runlimit makes it, puts the guard in it and steps back
 * into its caller's group (home), so that a signal to home and a typed Ctrl-C still reach it
 * (docs/design.md, The guard and the process group: the microsecond out of home).  False
 * where home is gone (runlimit was its last member, the guard aside): runlimit then leads
 * the group it made, as an interactive job's leader does. */
static bool made_by_runlimit(pid_t pid, pid_t self, pid_t home)
{
	if (setpgid(0, 0) != 0)
		return false; /* still in home: the guard makes the group */
	if (setpgid(pid, self) != 0) {
		setpgid(0, home);
		return false;
	}
	return setpgid(0, home) == 0;
}

/* The one place the guard is started, and the command's group made.  Where runlimit leads
 * its group already (an interactive job, setsid), a signal to that group reaches it and it
 * forwards it: the guard leads the command's group, as where runlimit's group is outside
 * its pid namespace (getpgrp() says 0) or the group with runlimit's pid cannot be made. */
pid_t guard_start(int sig, pid_t parent, pid_t *made)
{
	pid_t home = getpgrp();
	bool in_parents = home > 0 && home != parent;
	pid_t pid = start(sig, parent, in_parents);
	if (pid > 0 && in_parents && made_by_runlimit(pid, parent, home)) {
		*made = parent;
		return pid;
	}
	if (pid > 0 && in_parents) {
		/* Refused, or home is gone: a guard that ends its own group, which it leads. */
		end_guard();
		pid = start(sig, parent, false);
	}
	if (pid < 0)
		return -1;
	setpgid(pid, pid); /* before the command joins it */
	*made = pid;
	return pid;
}

void guard_reaped(pid_t pid)
{
	if (pid > 0 && pid == guard)
		guard = 0;
	if (pid > 0 && pid == lodge)
		lodge = 0;
}

/* A child that only leads a process group of its own and dies with runlimit. */
static pid_t lodge_start(void)
{
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		spawn_helper_detach(-1);
		setpgid(0, 0);
		sigset_t all;
		sigfillset(&all);
		if (os_child_prepare(SIGKILL, parent) >= 0)
			sigsuspend(&all);
		_exit(0);
	}
	if (pid > 0)
		setpgid(pid, pid);
	return pid;
}

static void guard_leave_group(void)
{
	if (guard <= 0 || left_group)
		return;
	/* runlimit's own group, or, where that lies outside runlimit's pid namespace (runlimit
	 * is PID 1 of one, and getpgrp() says 0), a group of a child made for the purpose. */
	pid_t home = getpgrp();
	if (home <= 0 && lodge <= 0)
		lodge = lodge_start();
	if (home <= 0)
		home = lodge;
	left_group = home > 0 && setpgid(guard, home) == 0;
}

bool guard_group_alive(pid_t pgid)
{
	/* Out for good: should runlimit die, the guard joins a group with runlimit's pid again
	 * before it ends it (guard_main); the one it leads keeps its pid as its id anyway. */
	guard_leave_group();
	return !(kill(-pgid, 0) < 0 && errno == ESRCH);
}

void guard_stop(void)
{
	end_guard();
	end(&lodge);
}
