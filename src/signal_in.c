/* Signal dispositions: which signals runlimit catches and how (signal_in.h). */
#include "signal_in.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "os/os.h"
#include "signal_names.h"
#include "test_hooks.h"
#include "tty.h"

#define SLOTS DISP_SLOTS

/* Written by handlers, read by the loop: which signals arrived since the loop last looked. */
static volatile sig_atomic_t arrived[SLOTS];
static pid_t self; /* runlimit's pid: its handlers may also run in the command, see on_signal */
/* ... and which of them some process sent (kill, a supervisor), not the terminal's keys. */
static volatile sig_atomic_t sent_by_process[SLOTS];
/* ... and which came, at least once, from elsewhere than the guard's passing on (guard.h),
 * and what the guard said of the sender of the last it passed on. */
static volatile sig_atomic_t direct[SLOTS];
static volatile sig_atomic_t relayed_from[SLOTS];
static volatile pid_t relayer; /* the guard, which passes on what the command's group gets */

static int resize_signal = -1; /* SIGWINCH */

/* What runlimit inherited, so the command can get it back: ignored, or the default (exec
 * leaves a program nothing else, and no flags).  A flag a signal, not a struct sigaction: 129
 * of those are 19 KB, five pages that every start would touch (docs/performance.md). */
static bool inherited_ignore[SLOTS];
static bool changed[SLOTS];
static sigset_t inherited_mask;
static sigset_t command_mask; /* the inherited one, SIGALRM and SIGCHLD taken out */
/* The signals runlimit catches stay blocked except while it waits (clock_wait): waitmask. */
static sigset_t caught, waitmask;

bool disp_is_termination(int sig)
{
	return sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT;
}

bool disp_is_keyboard(int sig)
{
	return sig == SIGINT || sig == SIGQUIT;
}

bool disp_is_fault(int sig)
{
	return sig == SIGILL || sig == SIGTRAP || sig == SIGABRT || sig == SIGBUS ||
	       sig == SIGFPE || sig == SIGSEGV || sig == SIGSYS;
}

static void on_signal(int sig, siginfo_t *info, void *context)
{
	(void)context;
	if (os_child_getpid() != self) {
		/* In the command between its last unblock and exec (it keeps runlimit's handlers,
		 * which exec resets): the signal was sent to it, so act as its default would.  With
		 * the child's own calls, and errno neither read nor written: on Linux the child
		 * shares runlimit's memory (os.h, os_spawn_shared), errno too. */
		os_child_disposition(sig, false);
		os_child_kill((pid_t)os_child_getpid(), sig);
		return;
	}
	int saved = errno;
	if (disp_is_fault(sig)) {
		/* A fault signal: runlimit's own (a bad access, its abort) or sent by another
		 * process with kill().  No si_code tells them apart on every system (macOS fills
		 * it in from the machine state whoever sent the signal), so the handler steps
		 * aside: with the default action back, a real fault happens again as soon as
		 * this returns and ends runlimit at once, and one sent from outside is simply
		 * noted, passed on by the loop, and the handler put back (rearm). */
		disp_set(sig, SIG_DFL);
	}
	if (sig > 0 && sig < SLOTS) {
		arrived[sig] = 1;
		if (!tty_signal_typed(info))
			sent_by_process[sig] = 1;
		if (!info || relayer <= 0 || info->si_pid != relayer)
			direct[sig] = 1;
		else
			relayed_from[sig] = info->si_code == SI_QUEUE ? info->si_value.sival_int
			                                              : DISP_SENDER_UNKNOWN;
	}
	clock_wake();
	errno = saved;
}

bool disp_is_forwarded(int sig)
{
	switch (sig) {
	case SIGKILL: case SIGSTOP: case SIGCHLD: case SIGCONT: case SIGTSTP:
	case SIGTTIN: case SIGTTOU: case SIGURG:
		return false;
	default:
		return !sig_ignored_by_default(sig);
	}
}

/* Async-signal-safe: on_signal calls it. */
void disp_set(int sig, void (*handler)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigaction(sig, &sa, NULL);
}

/* Catch sig, noting in inherited_ignore[sig] what was there before (one system call). */
static void catch(int sig)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	struct sigaction before;
	if (sigaction(sig, &sa, &before) == 0) {
		if (!changed[sig])
			inherited_ignore[sig] = before.sa_handler == SIG_IGN;
		changed[sig] = true;
		sigaddset(&caught, sig);
	}
}

/* Put back what sig had when runlimit started (it was caught by catch()). */
static void uncatch(int sig)
{
	disp_set(sig, inherited_ignore[sig] ? SIG_IGN : SIG_DFL);
	changed[sig] = false;
	sigdelset(&caught, sig);
}

/* The signals a supervisor must always be able to end the command with, and that the
 * command therefore starts with at their default action, whatever runlimit inherited. */
static bool always_forwarded(int sig)
{
	return sig == SIGTERM || sig == SIGINT || sig == SIGHUP;
}

/* In the child, before exec: the command starts with what runlimit inherited, except that
 * SIGCHLD, SIGALRM, the time-out signal and TERM, INT and HUP are left at their defaults (as
 * GNU does), so the time-out and a cancel can always reach it.  exec itself puts every
 * caught signal back to its default, which is what each of them needs (runlimit catches a
 * signal only if it was at its default, or is one of those exceptions): only what runlimit
 * set to be ignored, and SIGCONT, caught even where it was ignored, need putting back. */
size_t disp_child_resets(struct spawn_disp *disp, size_t max)
{
	static const int ignored[] = {SIGTTIN, SIGTTOU, SIGCONT};
	size_t n = 0;
	for (size_t k = 0; k < sizeof ignored / sizeof ignored[0] && n < max; k++)
		if (changed[ignored[k]])
			disp[n++] = (struct spawn_disp){ignored[k], inherited_ignore[ignored[k]]};
	return n;
}

void disp_child_reset(void)
{
	struct spawn_disp disp[SPAWN_MAX_DISPS];
	size_t n = disp_child_resets(disp, SPAWN_MAX_DISPS);
	for (size_t k = 0; k < n; k++)
		os_child_disposition(disp[k].sig, disp[k].ignore);
}

void disp_test_fault(int sig)
{
	if (sig == SIGUSR2 && test_hook_on(TEST_FAULT)) {
		/* With SIGSEGV let through, so that the handler sees the fault: the loop
		 * otherwise keeps it blocked, and the kernel would end runlimit by itself. */
		sigset_t segv;
		sigemptyset(&segv);
		sigaddset(&segv, SIGSEGV);
		sigprocmask(SIG_UNBLOCK, &segv, NULL);
		volatile int *nowhere = NULL;
		/* The fault is the point (cppcheck now sees the test build's code too). */
		// cppcheck-suppress nullPointer
		*nowhere = 1;
	}
}

/* The signals passed on to the command. */
static void catch_forwarded(const struct config *cfg)
{
	for (int sig = sig_next(0); sig > 0 && sig < SLOTS; sig = sig_next(sig)) {
		if (!disp_is_forwarded(sig))
			continue;
		catch(sig);
		/* An inherited ignore (nohup, a shell's background job) is honoured: not caught,
		 * not passed on, and the command inherits it.  The exceptions must always work:
		 * SIGALRM and the time-out signal, and TERM, INT and HUP, with which a supervisor
		 * cancels a run (a runner started in the background has INT ignored, one under
		 * nohup HUP).  "runlimit 1h nohup cmd" keeps a command immune to hangups. */
		if (inherited_ignore[sig] && sig != SIGALRM && sig != cfg->signal &&
		    !always_forwarded(sig))
			uncatch(sig);
	}
}

/* Job control: SIGTSTP (Ctrl-Z) is passed to the command, whose stop then stops runlimit;
 * SIGCONT tells runlimit it was resumed; SIGWINCH (a resize) is passed on to a command that
 * does not own the terminal.  With --foreground the command shares runlimit's group and the
 * terminal does all this itself. */
static void catch_job_signals(void)
{
	const int job_signals[] = {SIGTSTP, SIGCONT, resize_signal};
	for (size_t k = 0; k < sizeof job_signals / sizeof job_signals[0]; k++) {
		int sig = job_signals[k];
		if (sig <= 0)
			continue;
		catch(sig);
		/* SIGCONT is caught even where it was ignored: it is how runlimit learns that it
		 * was continued (fg, bg), and it continues the process whatever its action; the
		 * command gets the ignore back (disp_child_reset). */
		if (inherited_ignore[sig] && sig != SIGCONT)
			uncatch(sig);
	}
}

/* runlimit never stops for touching the terminal from the background. */
static void ignore_tty_signals(void)
{
	static const int tty_signals[] = {SIGTTIN, SIGTTOU};
	struct sigaction ign, before;
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	for (size_t k = 0; k < sizeof tty_signals / sizeof tty_signals[0]; k++) {
		if (sigaction(tty_signals[k], &ign, &before) == 0)
			inherited_ignore[tty_signals[k]] = before.sa_handler == SIG_IGN;
		changed[tty_signals[k]] = true;
	}
}

/* From here on the caught signals wait, blocked, until runlimit sleeps in clock_wait:
 * nothing that arrives is lost, and the loop never races with a handler. */
static void block_caught(void)
{
	waitmask = inherited_mask;
	sigset_t working = inherited_mask;
	for (int sig = 1; sig < SLOTS; sig++) {
		if (sigismember(&caught, sig)) {
			sigdelset(&waitmask, sig);
			sigaddset(&working, sig);
		}
	}
	sigprocmask(SIG_SETMASK, &working, NULL);
}

void disp_setup(const struct config *cfg, pid_t runlimit)
{
	clock_init();
	self = runlimit;
	resize_signal = sig_parse("WINCH"); /* not a POSIX 2008 name: -1 where unknown */
	/* Everything blocked while the handlers go in: a signal that was ignored and is caught
	 * for a moment (below) stays pending, and is dropped when the ignore is put back. */
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &inherited_mask);
	/* The command starts with the caller's mask, but with SIGALRM and SIGCHLD unblocked, as
	 * under GNU timeout (9.5 and later; 9.1 unblocks SIGCHLD only): both are runlimit's to
	 * have blocked, as they are its own, never the caller's wish for the command. */
	command_mask = inherited_mask;
	sigdelset(&command_mask, SIGALRM);
	sigdelset(&command_mask, SIGCHLD);
	sigemptyset(&caught);
	catch_forwarded(cfg);
	/* An inherited SIGCHLD ignore would make the kernel reap the command behind runlimit's
	 * back; an inherited block would hide its exit.  Neither is kept. */
	catch(SIGCHLD);
	if (!cfg->foreground)
		catch_job_signals();
	ignore_tty_signals();
	block_caught();
}

void disp_die_of(int sig)
{
	/* Dying of the signal lets a calling shell see it (bash's wait-and-cooperative-exit
	 * rule: Ctrl-C then ends a script's loop), but runlimit must not dump core for it. */
	struct rlimit none = {0, 0};
	setrlimit(RLIMIT_CORE, &none);
	disp_set(sig, SIG_DFL);
	sigset_t only;
	sigemptyset(&only);
	sigaddset(&only, sig);
	sigprocmask(SIG_UNBLOCK, &only, NULL);
	raise(sig);
}

int disp_resize(void)
{
	return resize_signal;
}

const sigset_t *disp_waitmask(void)
{
	return &waitmask;
}

const sigset_t *disp_command_mask(void)
{
	return &command_mask;
}

void disp_rearm(int sig)
{
	catch(sig);
}

bool disp_take(int sig, bool *by_process, int *relayed)
{
	if (sig <= 0 || sig >= SLOTS || !arrived[sig])
		return false;
	arrived[sig] = 0;
	if (by_process)
		*by_process = sent_by_process[sig];
	if (relayed)
		*relayed = direct[sig] ? 0 : (int)relayed_from[sig];
	sent_by_process[sig] = 0;
	direct[sig] = 0;
	return true;
}

void disp_relayer(pid_t guard)
{
	relayer = guard;
}
