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
#include "dispositions.h"
#include "guard.h"
#include "jobctl.h"
#include "msg.h"
#include "os.h"
#include "quote.h"
#include "report.h"
#include "signals.h"
#include "spawn.h"
#include "status.h"
#include "tree.h"
#include "tty.h"

static pid_t child_group; /* for child_setup: the group the command joins (0: none;
                            SPAWN_OWN_GROUP: its own) */

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
	bool received[DISP_SLOTS]; /* signals that came from outside and were passed on */
	bool keyboard_death;       /* died of INT or QUIT while its group had the terminal */
	bool interrupted;          /* a signal from outside asked the run to end */
	int stopped_by;            /* the command is stopped, by this signal (0: running) */
	bool polling;              /* the leftovers' exits wake nothing: look again soon */
};

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

static void child_setup(void)
{
	tty_child_take(child_group == SPAWN_OWN_GROUP ? getpid() : child_group);
	disp_child_reset();
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
	for (int sig = 1; sig < DISP_SLOTS; sig++) {
		bool by_process;
		if (!disp_take(sig, &by_process))
			continue;
		if (sig == SIGCHLD)
			continue;
		if (sig == SIGCONT)
			continue; /* resumed: what matters of it, suspend() sees */
		if (sig == SIGTSTP || sig == disp_resize()) {
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
		if (disp_is_fault(sig))
			disp_rearm(sig); /* it came from outside: see dispositions.c */
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
		bool request = is_termination(sig) && (by_process || !is_keyboard(sig));
		r->received[sig] = true;
		send(r, sig, request, request, "forwarded");
		if (request) {
			r->interrupted = true;
			r->signalled = true;
			start_grace(r);
		}
	}
}

/* For the report: how many processes of the tree are alive (-1: not known). */
static long count_alive(const struct run *r)
{
	struct tree_target t = target(r);
	struct tree_id *ids;
	long n = tree_list(&t, &ids);
	free(ids);
	return n;
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
			if (report_wanted() && !r->cfg->foreground)
				report_command_ended(count_alive(r));
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

/* The command stopped: job control (jobctl.h) decides, and the group is continued after. */
static void command_stopped(struct run *r, int64_t wake)
{
	int sig = r->stopped_by;
	r->stopped_by = 0; /* seen; waitpid reports the next stop afresh */
	if (!job_command_stopped(r->pgid, sig, wake))
		return;
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
		clock_wait(next_wake(r), disp_waitmask(), NULL, 0);
	}
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
		.forwarded = sig > 0 && sig < DISP_SLOTS && r->received[sig],
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
	else if (WIFSIGNALED(st) && os_dumped_core(st))
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
static pid_t start_command(struct run *r, pid_t self)
{
	const struct config *cfg = r->cfg;
	int guard_error = 0;
	if (!cfg->foreground) {
		r->pgid = guard_start(cfg->signal, self); /* the guard makes the group */
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
			.mask = disp_inherited_mask(),
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
	disp_setup(cfg);
	pid_t self = getpid();
	tree_init(self);
	os_init();

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
	r.pid = start_command(&r, self);
	int fork_error = errno;
	os_sharpen_waits();
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
		struct tree_id *alive = NULL;
		long nalive = -1;
		if (!cfg->foreground && report_wants_survivors())
			nalive = tree_list(&t, &alive);
		struct report_end e = {
			.outcome = run_outcome(&end),
			.exit_status = v.status,
			.die_signal = v.die,
			.pid = r.pid,
			.have_status = !exec_error,
			.status = r.status,
			.timed_out = r.timed_out,
			.error = exec_error ? strerror(exec_error) : NULL,
			.has_tree = !cfg->foreground,
			.survivors = alive,
			.nsurvivors = nalive,
		};
		report_finish(&e);
		free(alive);
	}
	if (v.die)
		disp_die_of(v.die);
	return v.status;
}
