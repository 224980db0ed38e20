#include "supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "guard.h"
#include "msg.h"
#include "quote.h"
#include "report.h"
#include "signals.h"
#include "spawn.h"
#include "status.h"
#include "tree.h"
#include "tty.h"

/* Enough slots for every signal number of every supported system (Linux tops out at 64,
 * MIPS at 128). */
#define SLOTS 129

/* Written by handlers, read by the loop: which signals arrived since the loop last looked. */
static volatile sig_atomic_t arrived[SLOTS];
static pid_t self; /* runlimit's pid: its handlers may also run in the command, see on_signal */
/* ... and which of them some process sent (kill, a supervisor), not the terminal's keys. */
static volatile sig_atomic_t sent_by_process[SLOTS];

/* What runlimit inherited, so the command can get it back. */
static struct sigaction inherited[SLOTS];
static bool changed[SLOTS];
static sigset_t inherited_mask;
/* The signals runlimit catches stay blocked except while it waits (clock_wait): waitmask. */
static sigset_t caught, waitmask;
static pid_t child_group; /* for child_setup: the group the command joins (0: none;
                            SPAWN_OWN_GROUP: its own) */
static int timeout_signal;
static int resize_signal = -1; /* SIGWINCH */
static int info_signal = -1;   /* SIGINFO, where it exists */

struct run {
	const struct config *cfg;
	pid_t pid;                 /* the command */
	pid_t pgid;                /* its process group, led by the guard (0: --foreground) */
	bool leads_group;          /* no guard could be made: the command leads its group */
	bool reaped;
	int status;
	bool timed_out;            /* the deadline passed, or SIGALRM came from outside */
	bool signalled;            /* runlimit has sent the command a terminating signal */
	bool killed;               /* the final KILL has gone out */
	int64_t deadline;
	int64_t kill_deadline;
	bool received[SLOTS];      /* signals that came from outside and were passed on */
	bool keyboard_death;       /* died of INT or QUIT while its group had the terminal */
	bool interrupted;          /* a signal from outside asked the run to end */
	int stopped_by;            /* the command is stopped, by this signal (0: running) */
	bool polling;              /* the leftovers' exits wake nothing: look again soon */
	bool continued;            /* runlimit got SIGCONT since this was last cleared */
};

static bool is_fault(int sig)
{
	return sig == SIGILL || sig == SIGTRAP || sig == SIGABRT || sig == SIGBUS ||
	       sig == SIGFPE || sig == SIGSEGV || sig == SIGSYS;
}

/* Signals that start the grace period when passed on: the ones that ask a command to end. */
static bool is_termination(int sig)
{
	return sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT;
}

/* The keys that the terminal turns into signals for its foreground group (Ctrl-C, Ctrl-\). */
static bool is_keyboard(int sig)
{
	return sig == SIGINT || sig == SIGQUIT;
}

static void on_signal(int sig, siginfo_t *info, void *context)
{
	(void)context;
	int saved = errno;
	if (getpid() != self) {
		/* In the command between its last unblock and exec (it keeps runlimit's handlers,
		 * which exec resets): the signal was sent to it, so act as its default would.
		 * kill, not raise: should the child ever share runlimit's memory (a vfork-style
		 * spawn), musl's raise would read runlimit's cached thread id. */
		struct sigaction dfl;
		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		sigaction(sig, &dfl, NULL);
		kill(getpid(), sig);
		errno = saved;
		return;
	}
	if (is_fault(sig)) {
		/* A fault signal: runlimit's own (a bad access, its abort) or sent by another
		 * process with kill().  No si_code tells them apart on every system (macOS fills
		 * it in from the machine state whoever sent the signal), so the handler steps
		 * aside: with the default action back, a real fault happens again as soon as
		 * this returns and ends runlimit at once, and one sent from outside is simply
		 * noted, passed on by the loop, and the handler put back (rearm). */
		struct sigaction dfl;
		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		sigaction(sig, &dfl, NULL);
	}
	if (sig > 0 && sig < SLOTS) {
		arrived[sig] = 1;
		if (!tty_signal_typed(info))
			sent_by_process[sig] = 1;
	}
	clock_wake();
	errno = saved;
}

/* Signals runlimit catches and passes on: every one whose default action would end it. */
static bool is_forwarded(int sig)
{
	switch (sig) {
	case SIGKILL: case SIGSTOP: case SIGCHLD: case SIGCONT: case SIGTSTP:
	case SIGTTIN: case SIGTTOU: case SIGURG:
		return false;
	default:
		return !sig_ignored_by_default(sig);
	}
}

static void set_disposition(int sig, void (*handler)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigaction(sig, &sa, NULL);
}

/* Catch sig, noting in inherited[sig] what was there before (one system call). */
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
			inherited[sig] = before;
		changed[sig] = true;
		sigaddset(&caught, sig);
	}
}

/* Put back what sig had when runlimit started (it was caught by catch()). */
static void uncatch(int sig)
{
	sigaction(sig, &inherited[sig], NULL);
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
 * set to be ignored needs putting back. */
static void reset_signals_in_child(void)
{
	static const int ignored[] = {SIGTTIN, SIGTTOU};
	for (size_t k = 0; k < sizeof ignored / sizeof ignored[0]; k++)
		if (changed[ignored[k]])
			sigaction(ignored[k], &inherited[ignored[k]], NULL);
}

static void child_setup(void)
{
	tty_child_take(child_group == SPAWN_OWN_GROUP ? getpid() : child_group);
	reset_signals_in_child();
}

static void setup_signals(const struct config *cfg)
{
	clock_init();
	self = getpid();
	timeout_signal = cfg->signal;
	resize_signal = sig_parse("WINCH"); /* not POSIX 2008 names: -1 where unknown */
	info_signal = sig_parse("INFO");
	/* Everything blocked while the handlers go in: a signal that was ignored and is caught
	 * for a moment (below) stays pending, and is dropped when the ignore is put back. */
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &inherited_mask);

	sigemptyset(&caught);
	for (int sig = sig_next(0); sig > 0 && sig < SLOTS; sig = sig_next(sig)) {
		if (!is_forwarded(sig))
			continue;
		catch(sig);
		/* An inherited ignore (nohup, a shell's background job) is honoured: not caught,
		 * not passed on, and the command inherits it.  The exceptions must always work:
		 * SIGALRM and the time-out signal, and TERM, INT and HUP, with which a supervisor
		 * cancels a run (a runner started in the background has INT ignored, one under
		 * nohup HUP).  "runlimit 1h nohup cmd" keeps a command immune to hangups. */
		if (inherited[sig].sa_handler == SIG_IGN && sig != SIGALRM && sig != cfg->signal &&
		    !always_forwarded(sig))
			uncatch(sig);
	}
	/* An inherited SIGCHLD ignore would make the kernel reap the command behind runlimit's
	 * back; an inherited block would hide its exit.  Neither is kept. */
	catch(SIGCHLD);
	/* Job control: SIGTSTP (Ctrl-Z) is passed to the command, whose stop then stops
	 * runlimit; SIGCONT tells runlimit it was resumed; SIGWINCH (a resize) is passed on to
	 * a command that does not own the terminal.  With --foreground the command shares
	 * runlimit's group and the terminal does all this itself. */
	if (!cfg->foreground) {
		const int job_signals[] = {SIGTSTP, SIGCONT, resize_signal};
		for (size_t k = 0; k < sizeof job_signals / sizeof job_signals[0]; k++) {
			int sig = job_signals[k];
			if (sig <= 0)
				continue;
			catch(sig);
			if (inherited[sig].sa_handler == SIG_IGN)
				uncatch(sig);
		}
	}
	/* runlimit never stops for touching the terminal from the background. */
	static const int tty_signals[] = {SIGTTIN, SIGTTOU};
	for (size_t k = 0; k < sizeof tty_signals / sizeof tty_signals[0]; k++) {
		int sig = tty_signals[k];
		struct sigaction ign;
		memset(&ign, 0, sizeof ign);
		ign.sa_handler = SIG_IGN;
		sigaction(sig, &ign, &inherited[sig]);
		changed[sig] = true;
	}
	/* From here on the caught signals wait, blocked, until runlimit sleeps in clock_wait:
	 * nothing that arrives is lost, and the loop never races with a handler. */
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

/* The command's process group may be signalled while its id cannot have been reused: the
 * process that leads it is still runlimit's, unreaped (the guard, or without one the
 * command itself). */
static bool group_held(const struct run *r)
{
	return r->pgid > 0 && (r->leads_group ? !r->reaped : guard_holds_group());
}

static void signal_group(const struct run *r, int sig)
{
	if (group_held(r))
		kill(-r->pgid, sig);
}

/* Who a send reaches, for the run report. */
static const char *send_target(const struct run *r, bool whole_tree)
{
	if (r->cfg->foreground)
		return "command";
	if (r->reaped)
		return "leftovers";
	return whole_tree ? "tree" : "group";
}

static struct tree_target target(const struct run *r)
{
	struct tree_target t = {.command = r->pid, .group = r->pgid, .reaped = r->reaped};
	return t;
}

/* Send sig to the command and, unless --foreground, to its process group; with whole_tree
 * also to every descendant found outside the group.  then_continue follows it with SIGCONT,
 * since a stopped process cannot act on a signal until it runs again.  The report's record
 * of the targets comes from the walk that sends: asking for a report delays no signal. */
static void send(struct run *r, int sig, bool whole_tree, bool then_continue, const char *why)
{
	struct tree_target t = target(r);
	bool cont = then_continue && sig != SIGKILL && sig != SIGCONT;
	bool walk = whole_tree && !r->cfg->foreground && sig != 0;
	if (report_wanted() && sig != 0 && !(r->cfg->foreground && r->reaped)) {
		report_signal(sig, send_target(r, whole_tree), why);
		if (cont && !r->cfg->foreground)
			report_signal(SIGCONT, send_target(r, whole_tree), why);
	}
	if (r->cfg->verbose) {
		char name[16];
		msg("sending signal %s to command %s", sig_name(sig, name, sizeof name),
		    quote(r->cfg->command[0]));
	}
	if (!r->reaped)
		kill(r->pid, sig);
	if (r->cfg->foreground)
		return;
	signal_group(r, sig);
	if (walk) {
		struct tree_seen seen = {NULL, 0, 0, false};
		int flags = (cont ? TREE_CONTINUE : 0) | (sig == SIGKILL ? TREE_FREEZE : TREE_SOFT);
		long left = tree_signal(&t, sig, flags, report_wanted() ? &seen : NULL);
		if (report_wanted())
			report_targets(&seen, sig == SIGKILL);
		free(seen.ids);
		if (left > 0)
			msg("out of memory: %ld processes of the command's tree may still be alive",
			    left);
		if (left >= 0)
			report_kill_left(left);
	}
	if (cont) {
		if (!r->reaped)
			kill(r->pid, SIGCONT);
		signal_group(r, SIGCONT);
	}
}

static void start_grace(struct run *r)
{
	if (r->cfg->kill_after > 0 && r->kill_deadline == CLOCK_NEVER && !r->killed) {
		int64_t now = clock_now();
		r->kill_deadline = r->cfg->kill_after > CLOCK_NEVER - now ? CLOCK_NEVER - 1
		                                                          : now + r->cfg->kill_after;
	}
}

static void time_out(struct run *r, const char *why)
{
	r->timed_out = true;
	send(r, r->cfg->signal, true, true, why);
	if (r->cfg->signal == SIGKILL)
		r->killed = true;
	/* "-s 0" sends nothing: only an explicit -k makes it escalate (as in GNU), not the
	 * default grace, so "runlimit -s 0 D cmd" just reports 124 once cmd ends. */
	if (r->cfg->signal != 0 || r->cfg->kill_after_given) {
		r->signalled = true;
		start_grace(r);
	}
}

static void final_kill(struct run *r, const char *why)
{
	r->killed = true;
	send(r, SIGKILL, true, false, why);
}

static void handle_arrivals(struct run *r)
{
	for (int sig = 1; sig < SLOTS; sig++) {
		if (!arrived[sig])
			continue;
		arrived[sig] = 0;
		if (sig == SIGCHLD)
			continue;
		if (sig == SIGCONT) {
			r->continued = true;
			continue;
		}
		if (sig == SIGTSTP || sig == resize_signal) {
			/* Not signals to end anything: the group only, no grace, no SIGCONT.  A
			 * stop of the command then stops runlimit (see suspend). */
			signal_group(r, sig);
			report_signal(sig, "group", "forwarded");
			continue;
		}
		if (sig == SIGALRM) {
			/* As with GNU timeout, SIGALRM from anyone means "time is up now". */
			if (!r->timed_out)
				time_out(r, "alarm");
			continue;
		}
		if (is_fault(sig))
			catch(sig); /* it came from outside: see on_signal */
#ifdef RUNLIMIT_TEST_HOOKS
		/* Test builds only (runlimit-hooks): a genuine fault inside runlimit, on demand, to
		 * show that it still ends runlimit rather than being taken for one sent to it. */
		if (sig == SIGUSR2 && getenv("RUNLIMIT_TEST_FAULT")) {
			/* With SIGSEGV let through, so that the handler sees the fault: the loop
			 * otherwise keeps it blocked, and the kernel would end runlimit by itself. */
			sigset_t segv;
			sigemptyset(&segv);
			sigaddset(&segv, SIGSEGV);
			sigprocmask(SIG_UNBLOCK, &segv, NULL);
			volatile int *nowhere = NULL;
			*nowhere = 1;
		}
#endif
		/* A request to end (kill, a supervisor) goes to the whole tree and starts the grace.
		 * Ctrl-C or Ctrl-\ typed at the terminal is interaction, not a request: it goes
		 * where the terminal would have sent it, the command's group, and a program that
		 * handles it (a REPL) goes on undisturbed. */
		bool request = is_termination(sig) && (sent_by_process[sig] || !is_keyboard(sig));
		sent_by_process[sig] = 0;
		r->received[sig] = true;
		send(r, sig, request, request, "forwarded");
		if (request) {
			r->interrupted = true;
			r->signalled = true;
			start_grace(r);
		}
	}
}

/* Reap everything that has ended: the command, and (as a subreaper) orphans adopted from
 * its tree, whose statuses do not matter. */
static void reap(struct run *r)
{
	int status;
	pid_t pid;
	/* After the final KILL only the command's status matters: whatever else of the tree
	 * lies dead is left to init, however many, rather than reaped one by one before
	 * runlimit may return. */
	pid_t which = r->killed && !r->reaped ? r->pid : -1;
	while ((pid = waitpid(which, &status, WNOHANG | WUNTRACED)) > 0) {
		if (pid != r->pid) {
			/* Only an exit or a death is a reaping: a guard stopped with the group
			 * (kill -STOP -PGID) still holds the group's id. */
			if (!WIFSTOPPED(status))
				guard_reaped(pid);
			continue;
		}
		if (WIFSTOPPED(status)) {
			r->stopped_by = WSTOPSIG(status);
		} else {
			r->reaped = true;
			r->status = status;
			/* Killed by a key typed at the terminal runlimit gave its group: as far as the
			 * calling shell can tell, runlimit was hit too (see exit_status). */
			r->keyboard_death = WIFSIGNALED(status) && is_keyboard(WTERMSIG(status)) &&
			                    r->pgid > 0 && tty_owned_by(r->pgid);
			if (report_wanted() && !r->cfg->foreground) {
				struct tree_target t = target(r);
				report_command_ended(&t);
			}
		}
	}
}

/* Once the command has been reaped: is anything of its tree still alive?  Without a process
 * table, the group tells, once the guard has stepped out of it; without the guard, whose
 * group id may then be someone else's, nothing tells: take it as gone. */
static bool leftovers_alive(const struct run *r)
{
	struct tree_target t = target(r);
	int alive = tree_alive(&t);
	if (alive >= 0)
		return alive;
	guard_leave_group();
	return group_held(r) && !(kill(-r->pgid, 0) < 0 && errno == ESRCH);
}

/* Once the command has exited: is there anything left to wait for? */
static bool finished(struct run *r)
{
	const struct config *cfg = r->cfg;
	if (!r->signalled && cfg->kill_leftovers && !cfg->foreground && leftovers_alive(r)) {
		/* --kill-leftovers: what the command left running gets the same treatment as a
		 * time-out (TERM, grace, KILL), but the status stays the command's. */
		r->signalled = true;
		send(r, SIGTERM, true, true, "leftovers");
		start_grace(r);
	}
	if (!r->signalled || r->killed || cfg->foreground || r->kill_deadline == CLOCK_NEVER)
		return true;
	/* The command was told to end: give the rest of its tree the grace period too, and
	 * return as soon as it is gone: woken by the exits where the OS tells of them, else
	 * by looking again every few milliseconds, during the grace only. */
	if (!leftovers_alive(r))
		return true;
	struct tree_target t = target(r);
	r->polling = !tree_watch_exits(&t);
	return false;
}

/* How often runlimit looks at the leftovers when their exits wake nothing. */
#define LEFTOVER_POLL ((int64_t)10 * 1000000)

/* When runlimit next has something to do on its own: the deadline, or the final KILL. */
static int64_t next_wake(const struct run *r)
{
	int64_t wake = r->killed ? CLOCK_NEVER : r->kill_deadline;
	if (!r->timed_out && r->deadline < wake)
		wake = r->deadline;
	if (r->polling && !r->killed) {
		int64_t soon = clock_now() + LEFTOVER_POLL;
		if (soon < wake)
			wake = soon;
	}
	return wake;
}

/* While runlimit is stopped it cannot keep the deadline: a small child waits for it and
 * continues runlimit when it comes.  It holds nothing open but the read end of a pipe whose
 * write end runlimit keeps (*tie): should runlimit die meanwhile, end-of-file wakes the timer,
 * which then exits without signalling a pid that may no longer be runlimit's. */
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
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	close(link[1]);
	for (int fd = 0; fd <= STDERR_FILENO; fd++)
		if (fd != link[0])
			close(fd); /* never hold the caller's pipes */
	clock_wait_fd(link[0], wake);
	if (getppid() == parent)
		kill(parent, SIGCONT);
	_exit(0);
}

/* Stop runlimit with sig, the way the command stopped, so that the calling shell sees a
 * stopped job; the terminal goes back to runlimit's group first.  Returns after SIGCONT
 * (fg, bg, or the deadline's timer), true if runlimit really was stopped (a process group
 * with no parent in the session ignores terminal stops). */
static bool suspend(struct run *r, int sig, int64_t wake)
{
	tty_take_back(r->pgid, false);
	int tie;
	pid_t timer = start_timer(wake, &tie);
	int stop = sig == SIGSTOP ? SIGTSTP : sig;
	struct sigaction saved;
	sigaction(stop, NULL, &saved);
	set_disposition(stop, SIG_DFL);
	r->continued = false;
	/* SIGCONT is let through with the stop: its handler then runs as soon as runlimit is
	 * resumed, before raise returns. */
	sigset_t only, before;
	sigemptyset(&only);
	sigaddset(&only, stop);
	sigaddset(&only, SIGCONT);
	sigprocmask(SIG_UNBLOCK, &only, &before);
	raise(stop);
	sigprocmask(SIG_SETMASK, &before, NULL);
	sigaction(stop, &saved, NULL);
	if (timer > 0) {
		kill(timer, SIGKILL);
		waitpid(timer, NULL, 0);
		close(tie);
	}
	if (arrived[SIGCONT]) {
		arrived[SIGCONT] = 0;
		r->continued = true;
	}
	return r->continued;
}

/* The command stopped.  Terminal stops propagate to runlimit (the shell's job); a read or
 * write of the terminal from the background gets the terminal when runlimit's job has it. */
static void command_stopped(struct run *r, int64_t wake)
{
	int sig = r->stopped_by;
	r->stopped_by = 0; /* seen; waitpid reports the next stop afresh */
	bool owns_tty = tty_owned_by(r->pgid);
	bool tty_access = sig == SIGTTIN || sig == SIGTTOU;
	if (tty_access && !owns_tty && tty_in_foreground()) {
		tty_give(r->pgid);
	} else if (sig == SIGTSTP || tty_access || (sig == SIGSTOP && owns_tty)) {
		bool had_tty = owns_tty || tty_access;
		if (!suspend(r, sig, wake))
			return; /* could not stop: leave the command stopped, the deadline decides */
		if (had_tty && tty_in_foreground())
			tty_give(r->pgid);
	} else {
		return; /* a plain SIGSTOP from someone: not runlimit's business */
	}
	signal_group(r, SIGCONT);
	report_signal(SIGCONT, "group", "resume");
}

static void loop(struct run *r)
{
	for (;;) {
		handle_arrivals(r);
		int64_t now = clock_now();
		if (!r->timed_out && now >= r->deadline) {
			if (!r->reaped)
				time_out(r, "deadline");
			else if (r->signalled && !r->killed)
				final_kill(r, "deadline"); /* --kill-leftovers: the deadline bounds the clean-up */
			else
				r->deadline = CLOCK_NEVER;
		}
		if (!r->killed && now >= r->kill_deadline)
			final_kill(r, "grace");
		reap(r);
		if (r->stopped_by && !r->reaped && !r->cfg->foreground) {
			command_stopped(r, next_wake(r));
			continue;
		}
		if (r->reaped && finished(r)) {
			if (!r->killed)
				reap(r); /* leave no zombie of the tree to init */
			return;
		}
		clock_wait(next_wake(r), &waitmask);
	}
}

static void die_of(int sig)
{
	/* Dying of the signal lets a calling shell see it (bash's wait-and-cooperative-exit
	 * rule: Ctrl-C then ends a script's loop), but runlimit must not dump core for it. */
	struct rlimit none = {0, 0};
	setrlimit(RLIMIT_CORE, &none);
	set_disposition(sig, SIG_DFL);
	sigset_t only;
	sigemptyset(&only);
	sigaddset(&only, sig);
	sigprocmask(SIG_UNBLOCK, &only, NULL);
	raise(sig);
}

/* What the run's end comes to, for the exit-status rules (status.h). */
static struct run_end run_end_of(const struct run *r, int exec_error)
{
	int sig = WIFSIGNALED(r->status) ? WTERMSIG(r->status) : 0;
	struct run_end e = {
		.exec_error = exec_error,
		.wait_status = r->status,
		.timed_out = r->timed_out,
		.preserve_status = r->cfg->preserve_status,
		.forwarded = sig > 0 && sig < SLOTS && r->received[sig],
		.keyboard_death = r->keyboard_death,
		.interrupted = r->interrupted,
	};
	return e;
}

/* What the end has to say on stderr: why the command could not run, a status no rule
 * knows, a core dump. */
static void say_end(const struct config *cfg, const struct run_end *e)
{
	int st = e->wait_status;
	if (e->exec_error)
		spawn_say_failed(cfg->command[0], e->exec_error);
	else if (!WIFEXITED(st) && !WIFSIGNALED(st))
		msg("unknown status from command (%d)", st);
	else if (WIFSIGNALED(st) && tree_dumped_core(st))
		msg("the monitored command dumped core");
}

/* runlimit failed before the command could run: report it, and return 125. */
static int failed(const struct run *r, const char *what, int err)
{
	msg("%s: %s", what, strerror(err));
	struct report_end e = {.outcome = "error", .exit_status = EXIT_RUNLIMIT_FAILED,
	                       .pid = r->pid > 0 ? r->pid : 0, .error = strerror(err)};
	report_finish(&e);
	return EXIT_RUNLIMIT_FAILED;
}

/* Start the guard, then the command as a member of the guard's group.  Where no guard can
 * be made, or it took the last process the user may have (ulimit -u) so that the command
 * cannot be, the command runs all the same, as GNU's would, and is still timed out: it
 * leads a group of its own, and stderr says what that costs.  Returns its pid, or -1 with
 * errno.  Every signal is blocked. */
static pid_t start_command(struct run *r)
{
	const struct config *cfg = r->cfg;
	int guard_error = 0;
	if (!cfg->foreground) {
		r->pgid = guard_start(cfg->signal); /* the guard makes the group */
		guard_error = r->pgid < 0 ? errno : 0;
	}
	pid_t pid;
	for (;;) {
		r->leads_group = !cfg->foreground && r->pgid < 0;
		child_group = r->leads_group ? SPAWN_OWN_GROUP : r->pgid;
		struct spawn_req req = {
			.argv = cfg->command,
			.group = child_group,
			.death_signal = cfg->signal,
			.mask = &inherited_mask,
			.child_setup = child_setup,
		};
		pid = spawn(&req);
		if (pid < 0 && errno == EAGAIN && r->pgid > 0) {
			guard_error = errno;
			guard_stop(); /* its process slot is the command's */
			r->pgid = -1;
			continue;
		}
		break;
	}
	int err = errno;
	if (r->leads_group) {
		r->pgid = pid > 0 ? pid : 0;
		if (pid > 0)
			msg("cannot start the guard (%s): the command leads its own process group, "
			    "where setsid fails", strerror(guard_error));
	}
	errno = err;
	return pid;
}

int supervise(const struct config *cfg)
{
	if (!cfg->foreground)
		tty_init();
	setup_signals(cfg);
	tree_init();

	report_start(cfg);
	struct run r = {.cfg = cfg, .kill_deadline = CLOCK_NEVER};
	int64_t start = cfg->started ? cfg->started : clock_now();
	r.deadline = cfg->duration == 0 || cfg->duration > CLOCK_NEVER - start
	                 ? CLOCK_NEVER : start + cfg->duration;

	/* Every signal stays blocked across the forks: none can be lost, or reach a handler in
	 * a child, before each side has set itself up. */
	sigset_t all, working;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &working);
	r.pid = start_command(&r);
	int fork_error = errno;
	clock_sharpen();
	if (r.pid > 0 && r.pgid > 0 && tty_leading())
		tty_give(r.pgid); /* the child takes it too: whichever runs first */
	sigprocmask(SIG_SETMASK, &working, NULL);
	if (r.pid < 0) {
		guard_stop();
		return failed(&r, "fork system call failed", fork_error);
	}

	loop(&r);
	guard_stop();
	if (!cfg->foreground)
		tty_take_back(r.pgid, r.timed_out || WIFSIGNALED(r.status));
	int exec_error = spawn_exec_error();
	struct run_end end = run_end_of(&r, exec_error);
	say_end(cfg, &end);
	struct verdict v = run_verdict(&end);
	if (report_wanted()) {
		struct tree_target t = target(&r);
		struct report_end e = {
			.outcome = run_outcome(&end),
			.exit_status = v.status,
			.die_signal = v.die,
			.pid = r.pid,
			.have_status = !exec_error,
			.status = r.status,
			.timed_out = r.timed_out,
			.error = exec_error ? strerror(exec_error) : NULL,
			.tree = cfg->foreground ? NULL : &t,
		};
		report_finish(&e);
	}
	if (v.die)
		die_of(v.die);
	return v.status;
}
