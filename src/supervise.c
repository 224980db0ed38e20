/* The run as a state machine.  Its phase is one of six; the events are the deadline, a
 * SIGALRM from outside, a request to end passed on from outside, the end of the grace, the
 * command's exit, its leftovers' end and the output's silence (--no-output-timeout); after
 * them the relay (relay.h) may have its output grace.  The loop waits for the next event in the kernel (clock_wait, which also watches
 * the relay's pipes) and dispatches it through one table of small actions, each the whole of
 * a transition, which own every signal sent, the grace, and the report's record of them;
 * predicates only ask. */
#include "supervise.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "control.h"
#include "deliver.h"
#include "finish.h"
#include "dispositions.h"
#include "guard.h"
#include "jobctl.h"
#include "launch.h"
#include "os/os.h"
#include "reap.h"
#include "relay.h"
#include "report.h"
#include "spawn.h"
#include "status.h"
#include "tty.h"

enum phase {
	RUNNING,  /* the command runs, and nothing has asked it to end */
	ENDING,   /* it was asked to end (a time-out, a request, its leftovers): the grace runs */
	KILLED,   /* the final KILL has gone out: only the command's status is awaited */
	DRAINING, /* the command is reaped; what it left running has the rest of the grace */
	FLUSHING, /* the tree is done with; the relay has the output grace (relay.h) */
	DONE,
	PHASES
};

enum event {
	DEADLINE,   /* the time limit passed */
	ALARM,      /* SIGALRM came from outside: as with GNU timeout, time is up now */
	REQUEST,    /* a signal asking the run to end came from outside (r->request) */
	GRACE_OVER, /* the grace after the first signal ran out */
	EXITED,     /* the command has been reaped */
	DRAINED,    /* nothing of its tree is left */
	SILENT,     /* the output was silent for the --no-output-timeout */
	EVENTS
};

struct run {
	const struct config *cfg;
	enum phase phase;
	struct recipient to;       /* the command, its group (see to()) */
	int64_t deadline;          /* the time limit (CLOCK_NEVER: none, or it has passed) */
	int64_t silence;           /* the no-output limit (0: none, or it has passed) */
	int64_t grace_end;         /* the final KILL's time (CLOCK_NEVER: none due) */
	int request;               /* the signal of the REQUEST being dispatched */
	const char *request_why;   /* its reason in the report: "forwarded", "cancel" */
	int64_t kill_after;        /* the grace before the final KILL (a cancel may change it) */
	int stopped_by;            /* the command is stopped, by this signal (0: running) */
	bool polling;              /* the leftovers' exits wake nothing: look again soon */
	bool kill_sent;            /* the final KILL went out (the tree's zombies go to init) */
	bool child_news;           /* SIGCHLD came since the last reap (or none was tried yet) */
	bool last_look;            /* done, and the signals that came meanwhile were let in */
	struct run_end end;        /* what the exit-status rules (status.h) ask of the run */
	bool received[DISP_SLOTS]; /* signals that came from outside and were passed on */
};

static bool reaped(const struct run *r)
{
	return r->phase >= DRAINING;
}

/* Whom runlimit's signals are for, as deliver.h needs to know it now. */
static const struct recipient *to(struct run *r)
{
	r->to.reaped = reaped(r);
	return &r->to;
}

/* The final KILL is due kill_after from now, or sooner if already due sooner: a grace
 * that runs is never made longer, but a cancel with a shorter one (-k 0: "now") brings
 * the KILL forward. */
static void start_grace(struct run *r)
{
	int64_t end = r->kill_after > 0 ? clock_after(clock_now(), r->kill_after) : CLOCK_NEVER;
	if (end < r->grace_end)
		r->grace_end = end;
	if (r->phase == RUNNING)
		r->phase = ENDING;
}

/* The run is over but for its output: the relay gets its grace, if it relays anything.
 * What the command wrote before its exit is relayed in full however slowly the caller
 * reads, but only while no limit has run out and no request to end has come, and not past
 * the deadline: from then on it gets the output grace too and is then dropped, so that
 * runlimit never outlasts the deadline, the kill grace and the output grace together. */
static void over(struct run *r)
{
	if (relay_active() && r->phase != FLUSHING) {
		int64_t now = clock_now(), grace = r->cfg->output_grace;
		int64_t from = r->end.timed_out || r->end.interrupted || r->deadline < now
		                   ? now : r->deadline;
		r->phase = FLUSHING;
		/* The tree is done with: a deadline or a grace still to come means nothing now,
		 * and left standing, once passed, it would end every wait at once. */
		r->deadline = r->grace_end = CLOCK_NEVER;
		relay_command_exited(now, grace, from == CLOCK_NEVER ? CLOCK_NEVER
		                                                     : clock_after(from, grace));
	} else {
		r->phase = DONE;
	}
}

static void killed(struct run *r)
{
	r->kill_sent = true;
	r->grace_end = CLOCK_NEVER;
	if (reaped(r))
		over(r);
	else
		r->phase = KILLED;
}

/* The report's reason for what an event sends. */
static const char *why(enum event ev)
{
	return ev == ALARM ? "alarm" : ev == GRACE_OVER ? "grace" : ev == SILENT ? "no-output"
	                                                                         : "deadline";
}

static void time_out(struct run *r, enum event ev)
{
	r->end.timed_out = true;
	r->deadline = CLOCK_NEVER;
	r->silence = 0; /* one limit runs out, once */
	report_timed_out_by(why(ev));
	deliver(to(r), r->cfg->signal, REACH_TREE, true, why(ev));
	if (r->cfg->signal == SIGKILL)
		killed(r);
	/* "-s 0" sends nothing: only an explicit -k makes it escalate (as in GNU), not the
	 * default grace, so "runlimit -s 0 D cmd" just reports 124 once cmd ends. */
	else if (r->cfg->signal != 0 || r->cfg->kill_after_given)
		if (r->phase != KILLED)
			start_grace(r);
}

/* A request to end (kill, a supervisor) goes to the whole tree and starts the grace. */
static void request(struct run *r, enum event ev)
{
	(void)ev;
	deliver(to(r), r->request, REACH_TREE, true, r->request_why);
	r->end.interrupted = true;
	if (r->phase != KILLED && r->phase != FLUSHING && r->phase != DONE)
		start_grace(r);
}

/* While the output is relayed, a request to end is passed on and ends the relaying too. */
static void cut_off(struct run *r, enum event ev)
{
	request(r, ev);
	relay_close();
	r->phase = DONE;
}

/* At the end of the grace; and while draining (--kill-leftovers), at the deadline too. */
static void final_kill(struct run *r, enum event ev)
{
	deliver(to(r), SIGKILL, REACH_TREE, false, why(ev));
	r->end.kill_needed = true;
	killed(r);
}

static void done(struct run *r, enum event ev)
{
	(void)ev;
	over(r);
}

/* What every exit does first: the command is reaped, and the report counts what it left.
 * The terminal comes back to runlimit's job now, not when runlimit returns: a key typed
 * while leftovers have their grace or the output is relayed is then runlimit's to act on
 * (see arrived), not a leftover's. */
static void exited(struct run *r)
{
	r->phase = DRAINING;
	r->silence = 0; /* the no-output limit is the command's: it runs while it lives */
	if (!r->cfg->foreground)
		tty_take_back(r->to.pgid, r->end.timed_out || WIFSIGNALED(r->end.wait_status));
	if (report_wanted() && !r->cfg->foreground) {
		struct tree_target t = deliver_target(to(r));
		struct tree_id *ids;
		report_command_ended(tree_list(&t, &ids));
		free(ids);
	}
}

/* The command exited of itself.  --kill-leftovers: what it left running gets the same
 * treatment as a time-out (TERM, grace, KILL), but the status stays the command's. */
static void on_exit_running(struct run *r, enum event ev)
{
	const struct config *cfg = r->cfg;
	exited(r);
	if (!cfg->kill_leftovers || cfg->foreground || !deliver_leftovers_alive(to(r))) {
		done(r, ev);
		return;
	}
	deliver(to(r), SIGTERM, REACH_TREE, true, "leftovers");
	start_grace(r);
	if (r->grace_end == CLOCK_NEVER)
		done(r, ev);
}

/* The command was told to end: give the rest of its tree the grace period too. */
static void on_exit_ending(struct run *r, enum event ev)
{
	exited(r);
	if (r->cfg->foreground || r->grace_end == CLOCK_NEVER)
		done(r, ev);
}

static void on_exit_killed(struct run *r, enum event ev)
{
	exited(r);
	done(r, ev);
}

typedef void (*action)(struct run *, enum event);

static const action table[PHASES][EVENTS] = {
	/*            DEADLINE    ALARM     REQUEST  GRACE_OVER  EXITED           DRAINED SILENT */
	[RUNNING]  = {time_out,   time_out, request, NULL,       on_exit_running, NULL, time_out},
	[ENDING]   = {time_out,   time_out, request, final_kill, on_exit_ending,  NULL, time_out},
	[KILLED]   = {time_out,   time_out, request, NULL,       on_exit_killed,  NULL, time_out},
	[DRAINING] = {final_kill, time_out, request, final_kill, NULL,            done, NULL},
	[FLUSHING] = {NULL,       NULL,     cut_off, NULL,       NULL,            NULL, NULL},
	/* Ended by a signal taken in this pass: the requests taken with it still go out. */
	[DONE]     = {NULL,       NULL,     request, NULL,       NULL,            NULL, NULL},
};

static void dispatch(struct run *r, enum event ev)
{
	action act = table[r->phase][ev];
	if (act)
		act(r, ev);
	/* What an event sent may already have ended a child: look before the next wait, whose
	 * SIGCHLD may otherwise be noticed late (the portable wait without its self-pipe). */
	r->child_news = true;
}

/* A signal from outside, passed on.  Ctrl-C or Ctrl-\ typed at the terminal is interaction,
 * not a request: it goes where the terminal would have sent it, the command's group, and a
 * program that handles it (a REPL) goes on undisturbed. */
static void arrived(struct run *r, int sig, bool by_process)
{
	r->child_news = r->child_news || sig == SIGCHLD;
	if (sig == SIGCHLD || sig == SIGCONT)
		return; /* reap and suspend see to what they mean */
	if (sig == SIGTSTP || sig == disp_resize()) {
		/* Not signals to end anything: the group only, no grace, no SIGCONT.  A stop of
		 * the command then stops runlimit (see command_stopped). */
		deliver(to(r), sig, REACH_GROUP, false, "forwarded");
		return;
	}
	if (sig == SIGALRM) {
		if (!r->end.timed_out)
			dispatch(r, ALARM);
		return;
	}
	if (disp_is_fault(sig))
		disp_rearm(sig); /* it came from outside: see dispositions.c */
	disp_test_fault(sig);
	r->received[sig] = true;
	/* Once the command has exited, Ctrl-C or Ctrl-\ has nothing to interact with: it asks
	 * the run to end, what is left of it (the leftovers' grace, the relaying), and runlimit
	 * then dies of it, so that a loop typed around it stops as around the bare command.
	 * (The same when sent: macOS cannot tell a typed one.) */
	if (disp_is_keyboard(sig) && reaped(r))
		r->end.late_signal = sig;
	if (disp_is_termination(sig) && (by_process || !disp_is_keyboard(sig) || reaped(r))) {
		r->request = sig;
		r->request_why = "forwarded";
		dispatch(r, REQUEST);
	} else {
		deliver(to(r), sig, REACH_COMMAND, false, "forwarded");
	}
}

static void handle_arrivals(struct run *r)
{
	for (int sig = 1; sig < DISP_SLOTS; sig++) {
		bool by_process;
		if (disp_take(sig, &by_process))
			arrived(r, sig, by_process);
	}
}

/* Collect what has ended or stopped; true when the command's end is seen now. */
static bool reap(struct run *r)
{
	r->child_news = false; /* reap_children collects every change there is */
	int *st = &r->end.wait_status;
	if (!reap_children(r->to.pid, r->kill_sent, st, &r->stopped_by))
		return false;
	/* Killed by a key typed at the terminal runlimit gave its group: as far as the calling
	 * shell can tell, runlimit was hit too (see status.c). */
	r->end.keyboard_death = WIFSIGNALED(*st) && disp_is_keyboard(WTERMSIG(*st)) &&
	                        r->to.pgid > 0 && tty_owned_by(r->to.pgid);
	return true;
}

/* How often runlimit looks at the leftovers when their exits wake nothing. */
#define LEFTOVER_POLL ((int64_t)10 * 1000000)

/* When runlimit next has something to do on its own: the deadline, or the final KILL. */
static int64_t next_wake(const struct run *r)
{
	int64_t wake = r->deadline < r->grace_end ? r->deadline : r->grace_end;
	if (relay_deadline() < wake)
		wake = relay_deadline();
	if (r->silence && relay_silence_end(r->silence) < wake)
		wake = relay_silence_end(r->silence);
	if (r->silence && relay_next_look() < wake)
		wake = relay_next_look();
	if (r->polling && r->phase == DRAINING) {
		int64_t soon = clock_now() + LEFTOVER_POLL;
		if (soon < wake)
			wake = soon;
	}
	if (r->cfg->name && control_next_wake() < wake)
		wake = control_next_wake();
	return wake;
}

/* The grace of a cancel when neither it nor the run gives one: a cancel always ends the
 * tree, TERM-ignoring processes included. */
#define CANCEL_GRACE ((int64_t)5 * 1000000000)

/* A --cancel (control.h): handled as that signal sent to runlimit by a process, with the
 * cancel's grace (0: the final KILL at once). */
static void cancelled(struct run *r, const struct control_request *q)
{
	report_cancelled();
	int64_t grace = q->grace >= 0 ? q->grace : r->kill_after > 0 ? r->kill_after : CANCEL_GRACE;
	r->kill_after = grace > 0 ? grace : 1;
	if (q->sig > 0 && q->sig < DISP_SLOTS)
		r->received[q->sig] = true;
	r->request = q->sig;
	r->request_why = "cancel";
	dispatch(r, REQUEST);
	/* The longest the run may now take to end: what is left of the grace, then the output
	 * grace (a cancel waits that long, and a margin, before it gives up on a stopped run). */
	int64_t left = r->grace_end == CLOCK_NEVER ? 0 : r->grace_end - clock_now();
	if (r->cfg->relay)
		left = clock_after(left > 0 ? left : 0, r->cfg->output_grace);
	control_taken(left);
}

/* Wait for the next event: the clock, a signal, the relay's pipes, the control socket. */
static void wait_next(struct run *r)
{
	struct pollfd fds[RELAY_MAX_FDS + CONTROL_MAX_FDS];
	size_t n = relay_fds(fds);
	size_t m = control_fds(fds + n);
	clock_wait(next_wake(r), disp_waitmask(), fds, n + m);
	relay_pump(fds, n);
	struct control_request q;
	if (control_pump(fds + n, m, &q))
		cancelled(r, &q);
}

/* The command stopped: job control (jobctl.h) decides, and the group is continued after. */
static void command_stopped(struct run *r, int64_t wake)
{
	int sig = r->stopped_by;
	r->stopped_by = 0; /* seen; waitpid reports the next stop afresh */
	if (job_command_stopped(r->to.pgid, sig, wake))
		deliver(to(r), SIGCONT, REACH_GROUP, false, "resume");
}

/* While the leftovers have the grace: woken by their exits where the OS tells of them,
 * else by looking again every few milliseconds. */
static void watch_leftovers(struct run *r)
{
	if (!deliver_leftovers_alive(to(r))) {
		dispatch(r, DRAINED);
		return;
	}
	struct tree_target t = deliver_target(to(r));
	r->polling = !tree_watch_exits(&t);
}

static void loop(struct run *r)
{
	for (;;) {
		handle_arrivals(r);
		int64_t now = clock_now();
		if (now >= r->deadline)
			dispatch(r, DEADLINE);
		if (r->silence)
			relay_look(now);
		if (r->silence && now >= relay_silence_end(r->silence))
			dispatch(r, SILENT);
		if (now >= r->grace_end)
			dispatch(r, GRACE_OVER);
		if (r->child_news && reap(r)) /* a child's exit or stop always sends SIGCHLD: */
			dispatch(r, EXITED);       /* nothing to collect without one */
		if (r->stopped_by && !reaped(r) && !r->cfg->foreground) {
			command_stopped(r, next_wake(r));
			continue;
		}
		if (r->phase == DRAINING)
			watch_leftovers(r);
		if (r->phase == FLUSHING && relay_finished(clock_now()))
			r->phase = DONE;
		if (r->phase == DONE && !r->last_look) {
			/* A signal that came since the last wait is pending, blocked: let its handler
			 * run, and take it, before returning (a Ctrl-C typed as the relay ends is
			 * still a Ctrl-C typed at runlimit: see arrived). */
			r->last_look = true;
			clock_wait(0, disp_waitmask(), NULL, 0);
			continue;
		}
		if (r->phase == DONE) {
			/* Every dead process of the tree is collected before runlimit returns, after a
			 * final KILL too: one by one that costs some 5 us each, while thousands left
			 * to init made runlimit's own exit reparent them (5,000: 330-540 ms from the
			 * deadline to the return, against 220 ms collected; benchrun series). */
			reap_children(r->to.pid, false, &r->end.wait_status, &r->stopped_by);
			return;
		}
		wait_next(r);
	}
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
	struct run r = {.cfg = cfg, .to = {.cfg = cfg}, .phase = RUNNING, .grace_end = CLOCK_NEVER,
	                .silence = cfg->silence, .child_news = true, .kill_after = cfg->kill_after,
	                .end = {.preserve_status = cfg->preserve_status,
	                        .kill_asked = cfg->kill_after_given || cfg->signal == SIGKILL}};
	int64_t began = cfg->started ? cfg->started : clock_now();
	r.deadline = cfg->duration == 0 || cfg->duration > CLOCK_NEVER - began
	                 ? CLOCK_NEVER : began + cfg->duration;
	enum control_state named = cfg->name ? control_open(cfg) : CONTROL_READY;
	if (named == CONTROL_FAILED)
		return finish_refused("the run could not be registered under its name");
	if (named == CONTROL_CANCELLED)
		finish_cancelled_early(cfg); /* does not return */
	struct launch l = launch_command(cfg, self);
	if (l.pid < 0) {
		int err = errno;
		guard_stop();
		control_close();
		return finish_failed(l.relay_failed ? "cannot make the output relay's pipes"
		                                    : "fork system call failed", err);
	}
	r.to.pid = l.pid;
	r.to.pgid = l.pgid;
	r.to.leads_group = l.leads_group;
	loop(&r);
	if (cfg->verbose && cfg->relay)
		relay_tell_dropped();
	guard_stop();
	if (!cfg->foreground)
		tty_take_back(r.to.pgid, r.end.timed_out || WIFSIGNALED(r.end.wait_status));
	struct run_end *end = &r.end;
	int sig = WIFSIGNALED(end->wait_status) ? WTERMSIG(end->wait_status) : 0;
	end->forwarded = sig > 0 && sig < DISP_SLOTS && r.received[sig];
	end->exec_error = spawn_exec_error();
	finish_say(cfg, end);
	struct verdict v = run_verdict(end);
	finish_report(to(&r), end, v);
	control_close(); /* after the report: a --cancel returns once it is written */
	if (v.die)
		disp_die_of(v.die);
	return v.status;
}
