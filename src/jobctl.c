/* Job control (jobctl.h): runlimit stops when its command does, as its shell expects. */
/* Apart from tty.c: it needs signal_in.h, whose signal_in.c needs tty.h (a cycle). */
#include "jobctl.h"

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "os/os.h"
#include "signal_in.h"
#include "start_exec.h"
#include "test_hooks.h"
#include "tty.h"

/* How often the timer sends its SIGCONT again until runlimit, running, ends it. */
#define TIMER_AGAIN ((int64_t)5 * 1000000)

/* Has the other end of the timer's pipe closed (nothing is ever written into it)? */
static bool hung_up(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	return poll(&p, 1, 0) == 1;
}

/* While runlimit is stopped it cannot keep the deadline: a small child waits for it and
 * continues runlimit when it comes.  It holds nothing open but the read end of a pipe whose
 * write end runlimit keeps (*tie): should runlimit die meanwhile, end-of-file wakes the timer,
 * which then exits without signalling a pid that may no longer be runlimit's.  The wake may
 * come before runlimit has stopped (it was near, or past, when the command stopped), and a
 * SIGCONT then continues nothing: so it is sent again every TIMER_AGAIN until runlimit,
 * continued, kills the timer. */
static pid_t start_timer(int64_t wake, int *tie)
{
	*tie = -1;
	int link[2];
	if (wake == CLOCK_NEVER || pipe(link) < 0)
		return 0;
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid != 0) {
		close(link[0]);
		if (pid < 0) {
			close(link[1]);
			return 0;
		}
		*tie = link[1];
		return pid;
	}
	close(link[1]);
	spawn_helper_detach(link[0]);
	while (clock_now() < wake && !hung_up(link[0]))
		clock_wait_fd(link[0], wake); /* poll's wait may end before a far wake */
	while (getppid() == parent && !hung_up(link[0])) {
		kill(parent, SIGCONT);
		clock_wait_fd(link[0], clock_now() + TIMER_AGAIN);
	}
	_exit(0);
}

/* Stop runlimit with sig, the way the command stopped, so that the calling shell sees a
 * stopped job; the terminal goes back to runlimit's group first.  Returns after SIGCONT
 * (fg, bg, or the deadline's timer), true if runlimit really was stopped (a process group
 * with no parent in the session ignores terminal stops). */
static bool suspend(pid_t pgid, int sig, int64_t wake)
{
	tty_take_back(pgid, false);
	int tie;
	pid_t timer = start_timer(wake, &tie);
	int stop = sig == SIGSTOP ? SIGTSTP : sig;
	struct sigaction saved;
	sigaction(stop, NULL, &saved);
	disp_set(stop, SIG_DFL);
	/* SIGCONT is let through with the stop: its handler then runs as soon as runlimit is
	 * resumed, before raise returns. */
	sigset_t only, before;
	sigemptyset(&only);
	sigaddset(&only, stop);
	sigaddset(&only, SIGCONT);
	sigprocmask(SIG_UNBLOCK, &only, &before);
	/* Test builds only: runlimit stops late, after its timer's wake (TEST_STOP_LATE_MS). */
	for (int64_t end = clock_now() + test_hook_number(TEST_STOP_LATE_MS) * (int64_t)1000000;
	     clock_now() < end;)
		nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
	raise(stop);
	/* The stop blocked again and its action back; the timer ended while SIGCONT is still
	 * let in, so that a SIGCONT it sent late is taken here, never left pending for the next
	 * stop (where it would say runlimit was stopped when it could not be). */
	sigdelset(&only, SIGCONT);
	sigprocmask(SIG_BLOCK, &only, NULL);
	sigaction(stop, &saved, NULL);
	if (timer > 0) {
		kill(timer, SIGKILL);
		waitpid(timer, NULL, 0);
		close(tie);
	}
	sigprocmask(SIG_SETMASK, &before, NULL);
	return disp_take(SIGCONT, NULL, NULL);
}

/* The command stopped.  Terminal stops propagate to runlimit (the shell's job); a read or
 * write of the terminal from the background gets the terminal when runlimit's job has it. */
bool job_command_stopped(pid_t pgid, int sig, int64_t wake)
{
	bool owns_tty = tty_owned_by(pgid);
	bool tty_access = sig == SIGTTIN || sig == SIGTTOU;
	if (tty_access && !owns_tty && tty_in_foreground()) {
		tty_give(pgid);
	} else if (sig == SIGTSTP || tty_access || (sig == SIGSTOP && owns_tty)) {
		bool had_tty = owns_tty || tty_access;
		if (!suspend(pgid, sig, wake))
			return false; /* could not stop: leave the command stopped, the deadline decides */
		if (had_tty && tty_in_foreground())
			tty_give(pgid);
	} else {
		return false; /* a plain SIGSTOP from someone: not runlimit's business */
	}
	return true;
}

