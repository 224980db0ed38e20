#include "guard.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "os/os.h"
#include "signal_in.h"
#include "signal_names.h"
#include "start_exec.h"
#include "test_hooks.h"

static pid_t guard;
static pid_t lodge; /* see guard_leave_group */
static bool left_group;
static int tie = -1; /* where the OS has no parent-death signal: EOF on it means runlimit died */
static pid_t caller_group; /* runlimit's caller's group (home) while the command's is to be made */
static pid_t runlimit_pid; /* the id of that group, once made */
static pid_t guard_of;   /* in the guard: runlimit's pid, for relay() */
static int relay_late_ms; /* test builds only: TEST_RELAY_LATE_MS */
static sigset_t relayed; /* the signals the guard passes on to runlimit (guard_relay_set) */

/* Does the guard, in own_group, pass on to runlimit (parent, in parents_group) a signal that
 * reached it with info, from a sender in senders_group (-1: gone, or none named)?
 * linux.c's cloned guard keeps the same rule. */
static bool guard_relays(const siginfo_t *info, pid_t parent, pid_t parents_group,
                         pid_t senders_group, pid_t own_group)
{
	/* Sent by a process (kill, sigqueue), not a key typed at a terminal nor the kernel's.
	 * Linux's SI_USER is 0; macOS's kill() gives 0 too, with the sender's pid where it
	 * records it: one it does not name may be runlimit's, and is not passed on. */
	bool sent = info->si_code == SI_USER || info->si_code == SI_QUEUE ||
	            (info->si_code == 0 && info->si_pid > 0);
	/* Not runlimit's own; runlimit not where it went, so that it cannot have had it
	 * itself; and not from a member of the guard's own group, the command's tree signalling
	 * its own group (kill 0, a `trap 'kill 0' EXIT`): what it does to itself is its own. */
	return sent && info->si_pid != parent && parents_group > 0 && parents_group != own_group &&
	       senders_group != own_group;
}

/* What the guard tells runlimit of a signal's sender, in its si_value (guard.h): the
 * sender's group (> 0), or, the sender gone, minus its pid. */
static int guard_sender(pid_t senders_group, pid_t sender)
{
	return senders_group > 0 ? senders_group : -sender;
}

/* The forked guard's handler: a signal the command's group got from another process is
 * passed on to runlimit.  runlimit's pid cannot be another process's: it is the id of the
 * group the guard is in, or, in the moment runlimit makes that group, runlimit is checked
 * to be the guard's parent first. */
static void relay(int sig, siginfo_t *info, void *context)
{
	(void)context;
	int saved = errno;
	if (sigismember(&relayed, sig) == 1 && getppid() == guard_of) {
		if (relay_late_ms > 0) /* test builds only */
			nanosleep(&(struct timespec){relay_late_ms / 1000,
			                             relay_late_ms % 1000 * 1000000L}, NULL);
		pid_t sender = info->si_pid > 0 ? getpgid(info->si_pid) : -1;
		if (guard_relays(info, guard_of, getpgid(guard_of), sender, getpgrp()))
			os_relay_signal(guard_of, sig, guard_sender(sender, info->si_pid));
	}
	errno = saved;
}

/* The forked guard's signals: SIGUSR1 (runlimit's death, where the system sends it) and, in
 * a group made with runlimit's pid, the relayed ones, caught by relay().  Returns the mask
 * that lets them in. */
static sigset_t relay_in(bool relaying)
{
	if (!relaying)
		sigemptyset(&relayed);
	sigset_t in;
	sigfillset(&in);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = relay;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	for (int sig = 1; sig < DISP_SLOTS; sig++) {
		if ((sig == SIGUSR1 || sigismember(&relayed, sig) == 1) && sigaction(sig, &sa, NULL) == 0)
			sigdelset(&in, sig);
	}
	return in;
}

static void guard_main(int sig, pid_t parent, int tie_read, bool in_parents, int kill_fd)
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
	guard_of = parent;
	/* SIGUSR1 wakes the guard where runlimit's death sends it; forwarded to the group, or
	 * sent to it, it reaches the guard too: only a new parent counts. */
	sigset_t in = relay_in(in_parents);
	int armed = os_child_prepare(SIGUSR1, parent);
	if (armed > 0) {
		while (getppid() == parent)
			sigsuspend(&in);
	} else if (armed == 0 && tie_read >= 0) {
		char c;
		sigprocmask(SIG_SETMASK, &in, NULL);
		while (read(tie_read, &c, 1) < 0 && errno == EINTR)
			;
		sigprocmask(SIG_SETMASK, &all, NULL);
	} else if (armed == 0) {
		for (;;) /* nothing tells the guard of runlimit's death: just hold the id */
			sigsuspend(&in);
	}
	/* The group that runlimit made with its own pid is joined again first (the guard may
	 * have been moved out to tell whether it was empty): that is refused where it is gone,
	 * and its id, runlimit's pid, may then be anyone's.  While it has members, the kernel
	 * gives its id to no new process, so what is signalled is the command's. */
	pid_t target = in_parents ? parent : getpid();
	if (in_parents && getpgrp() != target && setpgid(0, target) != 0)
		_exit(0);
	/* Where the run has a cgroup, its whole tree: what left the group too. */
	ssize_t wrote = kill_fd >= 0 ? write(kill_fd, "1", 1) : 0;
	(void)wrote; /* refused: the group below is what can be reached */
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
	disp_relayer(0);
	end(&guard);
	if (tie >= 0)
		close(tie);
	tie = -1;
}

/* The guard's process.  The platform offers its cheaper way first (os_guard_start: Linux
 * clones it sharing runlimit's memory, a guard of raw system calls); the fork below is the
 * way of every system, and stays here, in the core, because the guard it runs is the core's
 * (guard_main, with spawn_helper_detach and the test hooks), and the platform includes no
 * core header.  Born in the caller's group: guard_start has it lead the command's, or
 * guard_group_close moves it into the one runlimit made. */
static pid_t start(int sig, pid_t parent, bool in_parents)
{
	int kill_fd = cgroup_kill_fd();
	pid_t cloned = os_guard_start(sig, parent, in_parents, in_parents ? &relayed : NULL,
	                              relay_late_ms, kill_fd);
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
		guard_main(sig, parent, link[0], in_parents, kill_fd);
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

/* The guard leads the command's group (before the command joins it). */
static pid_t lead(pid_t pid, pid_t *made)
{
	setpgid(pid, pid);
	*made = pid;
	return pid;
}

/* The signals the guard passes on to runlimit: those runlimit passes on to the command
 * (signal_in.h), which a member of the group, as GNU's timeout is, would have received. */
static void guard_relay_set(void)
{
	relay_late_ms = test_hook_number(TEST_RELAY_LATE_MS);
	sigemptyset(&relayed);
	for (int sig = sig_next(0); sig > 0 && sig < DISP_SLOTS; sig = sig_next(sig))
		if (disp_is_forwarded(sig))
			sigaddset(&relayed, sig);
}

/* The one place the guard is started.  Where runlimit is a member of its caller's group
 * (home), the command's group is to have runlimit's own pid as its id, as GNU timeout's
 * (which leads it), for its clients' `kill -- -PID`: runlimit makes it at the command's
 * fork (guard_group_open), and the guard stays in home until then.  Where runlimit leads
 * its group already (an interactive job, setsid), a signal to that group reaches it and it
 * forwards it: the guard leads the command's group, as where runlimit's group is outside
 * its pid namespace (getpgrp() says 0). */
pid_t guard_start(int sig, pid_t parent, pid_t *made)
{
	caller_group = getpgrp();
	bool in_parents = caller_group > 0 && caller_group != parent;
	guard_relay_set();
	pid_t pid = start(sig, parent, in_parents);
	runlimit_pid = parent;
	if (pid > 0 && in_parents) {
		disp_relayer(pid);
		*made = parent;
		return pid;
	}
	caller_group = 0;
	return pid < 0 ? -1 : lead(pid, made);
}

bool guard_group_open(void)
{
	/* The group is made with runlimit in it, and runlimit stays there across the fork, so
	 * that the command is born a member: then the group never lacks a member (the command
	 * keeps it, as its zombie does), while the guard, still in home, keeps home, whose last
	 * member runlimit may be (`echo hi | runlimit ...` once echo has exited).  Left empty for
	 * a moment, home would be gone for good, and with it the terminal's foreground group: a
	 * typed Ctrl-C or Ctrl-Z would reach nobody. */
	return caller_group > 0 && setpgid(0, 0) == 0;
}

void guard_group_close(pid_t command)
{
	if (caller_group <= 0)
		return;
	/* Test builds only: the moment out of home, the command forked, made long enough to
	 * send a signal in, or for the command to leave its group. */
	int ms = test_hook_number(TEST_GROUP_WINDOW_MS);
	if (ms > 0)
		nanosleep(&(struct timespec){.tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L}, NULL);
	/* A guard KILLed meanwhile (it blocks every other signal) means the job was: a KILL
	 * sent to home while runlimit was out of it, which runlimit would have died of there.
	 * It dies of it now, with the command, the group it is still in holding nothing else.
	 * (The guard's zombie keeps home, so the step back alone would not tell.) */
	siginfo_t info;
	info.si_pid = 0;
	if (guard > 0 && waitid(P_PID, (id_t)guard, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
	    info.si_pid == guard && info.si_code == CLD_KILLED && info.si_status == SIGKILL)
		kill(0, SIGKILL);
	/* Back into home, which the guard (or its zombie) kept: refused only where home is gone
	 * all the same, which such a KILL would explain; taken as it. */
	if (setpgid(0, caller_group) != 0)
		kill(0, SIGKILL);
	/* The guard joins the command's group, which the command keeps alive (unreaped, even
	 * dead): a signal sent to the group reaches the guard, which relays it to runlimit. */
	if (command > 0 && guard > 0)
		setpgid(guard, runlimit_pid);
	caller_group = 0;
}

pid_t guard_lead_instead(int sig, pid_t parent, pid_t *made)
{
	end_guard();
	caller_group = 0;
	pid_t pid = start(sig, parent, false);
	return pid < 0 ? -1 : lead(pid, made);
}

void guard_reaped(pid_t pid)
{
	if (pid > 0 && pid == guard) {
		guard = 0;
		disp_relayer(0); /* its pid may now be another's */
	}
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
