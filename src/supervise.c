/* The run as a state machine, after s6-supervise's: a phase, a fixed set of events, and one
 * total table of small actions, one for each event in each phase (ignore where an event
 * means nothing in a phase).  Each action is the whole of a transition: only actions change
 * the phase (start_grace, over, killed and exited are parts of actions, called by them
 * alone), and they own every signal sent, the grace, and the report's record of them;
 * predicates only read.  loop() waits for the next event in the kernel (clock_wait, which
 * also watches the relay's pipes and the control socket); then each pass first gathers the
 * news, every look that asks the system something (a child's exit, the hook's end, a
 * budget's measure, the relay, what is left of the tree), and then dispatches each event
 * the news and the run's state make due.  A pass that acted is followed by another before
 * the next wait: what an action changed may make another event due. */
/* ru_maxrss is no POSIX field: macOS shows it only with its extensions asked for. */
#define _DARWIN_C_SOURCE
#include "supervise.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "budget.h"
#include "budget_cgroup.h"
#include "escalation.h"
#include "guard.h"
#include "hook.h"
#include "jobctl.h"
#include "msg.h"
#include "named_control.h"
#include "nested.h"
#include "parent.h"
#include "os/os.h"
#include "quote.h"
#include "relay.h"
#include "report_file.h"
#include "run_end.h"
#include "signal_in.h"
#include "signal_out.h"
#include "snapshot.h"
#include "start.h"
#include "start_exec.h"
#include "test_hooks.h"
#include "tty.h"

enum phase {
	RUNNING,  /* the command runs, and nothing has asked it to end */
	HOOKING,  /* a limit ran out: the --on-timeout hook runs before the first signal */
	ENDING,   /* it was asked to end (a time-out, a request, its leftovers): the grace runs */
	KILLED,   /* the final KILL has gone out: the command's end is awaited (the settle) */
	DRAINING, /* the command is reaped; what it left running has the rest of the grace */
	SETTLING, /* the command is reaped: what was KILLed (the tree, the hook) is dying */
	FLUSHING, /* the tree is done with; the relay has the output grace (relay.h) */
	DONE,
	PHASES
};

enum event {
	AHEAD,      /* a limit whose time is known is a snapshot's reading away (snapshot.h) */
	DEADLINE,   /* the time limit passed */
	SILENT,     /* the output was silent for the --no-output-timeout (the relay's) */
	BUDGET,     /* the tree exceeded a budget (budget.h; r->budget says which) */
	GRACE_OVER, /* the grace after the first signal ran out */
	EXITED,     /* the command has been reaped */
	STOPPED,    /* the command stopped (r->stopped_by) */
	DRAINED,    /* nothing of its tree is left */
	FLUSHED,    /* the relay has written out, or dropped, all it owed */
	ALARM,      /* SIGALRM came from outside: as with GNU timeout, time is up now (before
	               the first signal), or the grace is (after it) */
	REQUEST,    /* a signal asking the run to end came from outside (r->sig, r->sig_why) */
	FORWARD,    /* a signal from outside, to pass on as it is (r->sig, r->reach) */
	HOOK_OVER,  /* the --on-timeout hook exited, or was KILLed at its limit (hook.h) */
	EVENTS
};

struct run {
	const struct config *cfg;
	enum phase phase;
	struct target target;      /* the command and its group (os/os.h) */
	int64_t deadline;          /* the time limit (CLOCK_NEVER: none, or it has passed) */
	int64_t began;             /* the run's start, which the deadline counts from */
	bool read_ahead;           /* the tree is read ahead of a limit whose time is known */
	int64_t last_ahead;        /* when it last was (INT64_MIN: never) */
	int64_t grace_end;         /* the final KILL's time (CLOCK_NEVER: none due); once it went
	                              out, the settle's end */
	int64_t settle_end;        /* the final KILL's time + SETTLE_MAX (CLOCK_NEVER: none yet) */
	bool gave_up;              /* the settle ended with something KILLed still alive */
	int sig;                   /* the signal of the REQUEST or FORWARD being dispatched */
	enum reason sig_why;       /* a REQUEST's reason in the report: forwarded, or a cancel */
	enum reach reach;          /* how far a FORWARD goes */
	struct escalation esc;     /* the steps a limit sends (a cancel may change the grace) */
	size_t next;               /* the step due at grace_end (0: none sent yet) */
	int stopped_by;            /* the command is stopped, by this signal (0: running) */
	enum event limit;          /* while HOOKING: the limit that ran out */
	enum reason budget;        /* the reason of a BUDGET: the budget exceeded */
	bool polling;              /* the leftovers' exits wake nothing: look again soon */
	bool kill_sent;            /* the final KILL went out (the tree's zombies go to init) */
	bool child_news;           /* SIGCHLD came since the last reap (or none was tried yet) */
	bool look_again;           /* an action took time (a stop): look again before waiting */
	bool last_look;            /* done, and the signals that came meanwhile were let in */
	bool parent_ended;         /* --die-with-parent: the caller's end came, to be taken */
	struct run_end end;        /* how the run ended (run_end.h), recorded as it goes */
	bool received[DISP_SLOTS]; /* signals that came from outside and were passed on */
	bool sent_direct[DISP_SLOTS]; /* ... of them, those a process sent runlimit itself */
	pid_t hook_group;          /* the --on-timeout hook's pid, its group's id, once started */
};

static bool reaped(const struct run *r)
{
	return r->target.reaped;
}

/* The first step went out (a limit's, or a request's own signal in its place): the next
 * step is due its delay from now, or sooner if already due sooner: a grace that runs is
 * never made longer, but a cancel with a shorter one (-k 0: "now") brings the KILL forward;
 * and the final KILL no later than an inherited deadline allows (nested.h), the steps
 * between skipped if they do not fit. */
static void start_grace(struct run *r)
{
	const struct escalation *e = &r->esc;
	if (r->next == 0)
		r->next = 1;
	if (r->next < e->n) {
		int64_t end = clock_after(clock_now(), e->step[r->next].after);
		if (clock_after(end, escalation_span_from(e, r->next)) > nested_kill_by()) {
			end = nested_kill_by();
			r->next = e->n - 1;
		}
		if (end < r->grace_end)
			r->grace_end = end;
	}
	if (r->phase == RUNNING)
		r->phase = ENDING;
}

/* The run is over but for its output: the relay gets its grace, if it relays anything.
 * What the command wrote before its exit is relayed in full however slowly the caller
 * reads, but only while no limit has run out and no request to end has come, and not past
 * the deadline: from then on it gets the output grace too and is then dropped, so that
 * runlimit never outlasts the deadline, the kill grace and the output grace together. */
static void settle(struct run *r);

static void over(struct run *r)
{
	/* The hook was KILLed and is not dead yet: it is waited for as the tree is (settle). */
	if (r->phase != SETTLING && r->phase != FLUSHING && hook_dying_since() != CLOCK_NEVER) {
		settle(r);
		return;
	}
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

/* How long runlimit waits, after the final KILL, for what it KILLed to die: the settle. */
#define SETTLE_MAX ((int64_t)1000 * 1000000)

/* Is something runlimit KILLed still alive: the command's tree after the final KILL (the
 * command itself is awaited in KILLED), or the hook after its KILL? */
static bool dying(struct run *r)
{
	if (hook_dying_since() != CLOCK_NEVER)
		return true;
	return r->kill_sent && !r->cfg->foreground && deliver_leftovers_alive(&r->target);
}

/* The command is reaped, and something runlimit KILLed may still be alive.  It cannot run
 * again, but it is not gone until the kernel has torn it down (its memory freed, its files,
 * pipes and ports closed), which a loaded machine may take milliseconds to do: runlimit
 * waits for that, until SETTLE_MAX after the KILL (a process in an uninterruptible wait, on
 * a hung file system, may never die: then it gives up, see give_up), so that nothing of
 * the tree is left when it returns, and it collects the dead itself.  The hook was KILLed
 * before the tree's final KILL, if both were: the later end of the two serves both. */
static void settle(struct run *r)
{
	if (!dying(r)) {
		over(r);
		return;
	}
	int64_t end = r->kill_sent ? r->settle_end : INT64_MIN, hook = hook_dying_since();
	if (hook != CLOCK_NEVER && clock_after(hook, SETTLE_MAX) > end)
		end = clock_after(hook, SETTLE_MAX);
	r->phase = SETTLING;
	r->grace_end = end;
	r->polling = !tree_watch_exits(&r->target);
}

/* The final KILL went out: the command's end is awaited as the rest's is, until the settle's
 * end (a command that cannot die does not hold runlimit past the bound either). */
static void killed(struct run *r)
{
	r->kill_sent = true;
	r->next = r->esc.n;
	if (r->settle_end == CLOCK_NEVER)
		r->settle_end = clock_after(clock_now(), SETTLE_MAX);
	r->grace_end = r->settle_end;
	if (reaped(r))
		settle(r);
	else
		r->phase = KILLED;
}

/* The report's reason for what a limit's event sends (escalation as data; the other
 * events send for reasons of their own); a BUDGET's is the budget's (reason). */
static const enum reason reason_of[EVENTS] = {
	[DEADLINE] = REASON_DEADLINE, [SILENT] = REASON_NO_OUTPUT,
	[GRACE_OVER] = REASON_GRACE,  [ALARM] = REASON_ALARM,
};

static enum reason reason(const struct run *r, enum event ev)
{
	return ev == BUDGET ? r->budget : reason_of[ev];
}

/* An event that means nothing in the phase it comes in. */
static void ignore(struct run *r, enum event ev)
{
	(void)r;
	(void)ev;
}

static void done(struct run *r, enum event ev);

/* The first step (-s's signal) for the limit ev to the tree (what is left of it, once the
 * command has been reaped), and the grace to the next. */
static void first_signal(struct run *r, enum event ev)
{
	int sig = r->esc.step[0].sig;
	deliver(r->cfg, &r->target, &r->end, sig, REACH_TREE, true, reason(r, ev));
	if (sig == SIGKILL)
		killed(r);
	/* "-s 0" sends nothing: only an explicit -k makes it escalate (as in GNU), not the
	 * default grace, so "runlimit -s 0 D cmd" just reports 124 once cmd ends. */
	else if (sig != 0 || r->esc.kill_asked)
		if (r->phase != KILLED)
			start_grace(r);
}

/* A limit ran out: the snapshot of the tree as it stands, then, the first time and while
 * nothing has asked the run to end, the --on-timeout hook, which the first signal waits for
 * (HOOKING, until HOOK_OVER). */
static void time_out(struct run *r, enum event ev)
{
	const char *why = reason_word(reason(r, ev));
	r->end.timed_out = true;
	r->deadline = CLOCK_NEVER;
	relay_stop_timing(); /* one limit runs out, once */
	budget_stop();       /* the tree measured for the last time, before the hook starts */
	r->end.limit = reason(r, ev);
	snapshot_take(r->cfg, &r->target, why);
	if (r->phase == RUNNING && (r->target.hook = hook_start(r->cfg, &r->target, why)) > 0) {
		r->hook_group = r->target.hook;
		r->limit = ev;
		r->phase = HOOKING;
		return;
	}
	first_signal(r, ev);
}

static int64_t ahead_at(const struct run *r, int64_t *lead);

/* A limit is near: the tree is read now, and described when the limit runs out (or another
 * limit or a request comes first, while the reading is fresh). */
static void read_ahead(struct run *r, enum event ev)
{
	(void)ev;
	int64_t lead = SNAPSHOT_LEAD;
	ahead_at(r, &lead);
	r->last_ahead = clock_now();
	snapshot_read_ahead(r->cfg, &r->target, lead);
}

/* The hook is over: the first signal goes out as the limit would have sent it; to what the
 * command left, if it ended meanwhile. */
static void after_hook(struct run *r, enum event ev)
{
	if (!reaped(r)) {
		r->phase = RUNNING;
		first_signal(r, r->limit);
		return;
	}
	r->phase = DRAINING;
	if (r->cfg->foreground || !deliver_leftovers_alive(&r->target)) {
		done(r, ev);
		return;
	}
	first_signal(r, r->limit);
	if (r->phase == DRAINING && r->grace_end == CLOCK_NEVER)
		done(r, ev);
}

/* A request to end (kill, a supervisor) goes to the whole tree and starts the grace. */
static void request(struct run *r, enum event ev)
{
	(void)ev;
	if (r->phase == RUNNING)
		snapshot_take(r->cfg, &r->target, reason_word(r->sig_why));
	deliver(r->cfg, &r->target, &r->end, r->sig, REACH_TREE, true, r->sig_why);
	r->end.interrupted = true;
	if (r->phase != KILLED && r->phase != SETTLING && r->phase != FLUSHING && r->phase != DONE)
		start_grace(r);
}

/* The settle ran out with something runlimit KILLed still alive (the command itself, in
 * KILLED): it is left behind, and named at the end (find_unkilled).  The command's
 * status is then that of a death by the KILL. */
static void give_up(struct run *r, enum event ev)
{
	(void)ev;
	r->gave_up = true;
	r->end.unreaped = !reaped(r);
	r->phase = SETTLING;
	over(r);
}

/* A request to end while what was KILLed dies: passed on (it changes nothing there), and
 * runlimit waits no more. */
static void settle_cut(struct run *r, enum event ev)
{
	request(r, ev);
	if (r->phase == KILLED || dying(r))
		give_up(r, ev);
	else
		done(r, ev);
}

/* While the output is relayed, a request to end is passed on and ends the relaying too. */
static void cut_off(struct run *r, enum event ev)
{
	request(r, ev);
	relay_close();
	r->phase = DONE;
}

/* A request to end while the hook runs: the hook is KILLed, and the request is taken at once,
 * as it would have been without the hook. */
static void request_hooking(struct run *r, enum event ev)
{
	hook_kill();
	r->phase = reaped(r) ? DRAINING : RUNNING;
	request(r, ev);
}

/* At the end of the grace; and while draining (--kill-leftovers), at the deadline too. */
static void final_kill(struct run *r, enum event ev)
{
	deliver(r->cfg, &r->target, &r->end, SIGKILL, REACH_TREE, false, reason(r, ev));
	r->end.kill_needed = true;
	killed(r);
}

/* SIGALRM before the first signal: the deadline is now, as GNU timeout takes it.  A limit
 * runs out once: after one, SIGALRM means nothing here (-s 0's time-out leaves the run
 * RUNNING, having sent nothing and started no grace). */
static void alarm_limit(struct run *r, enum event ev)
{
	if (!r->end.timed_out)
		time_out(r, ev);
}

/* SIGALRM once the first signal went out (a limit's, a request's, --kill-leftovers' TERM):
 * GNU timeout then takes it as the end of -k's grace, and so does runlimit, of whatever
 * grace runs (-k's or the default's): the final KILL at once, as at the grace's own end (its
 * reason, its status), the steps still due before it skipped.  Where no final KILL is due
 * (-k 0) no grace runs, and SIGALRM is what it is before the first signal. */
static void alarm_grace(struct run *r, enum event ev)
{
	if (r->grace_end == CLOCK_NEVER || escalation_grace(&r->esc) == 0) {
		alarm_limit(r, ev);
		return;
	}
	final_kill(r, GRACE_OVER);
}

/* A step's time came: the final KILL, or a step before it, which the next one follows. */
static void next_step(struct run *r, enum event ev)
{
	if (r->next >= r->esc.n || escalation_is_final(&r->esc, r->next)) {
		final_kill(r, ev);
		return;
	}
	deliver(r->cfg, &r->target, &r->end, r->esc.step[r->next].sig, REACH_TREE, true,
	        reason(r, ev));
	r->next++;
	r->grace_end = CLOCK_NEVER;
	start_grace(r);
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
	snapshot_forget_ahead(); /* a tree read ahead is of a command that is gone */
	relay_stop_timing(); /* the no-output limit is the command's: it runs while it lives */
	if (!r->cfg->foreground)
		tty_take_back(r->target.group, r->end.timed_out || WIFSIGNALED(r->end.wait_status));
	if (r->end.recording && !r->cfg->foreground) {
		struct tree_id *ids;
		r->end.alive_at_exit = tree_list(&r->target, &ids);
		free(ids);
	}
}

/* The command exited of itself.  --kill-leftovers: what it left running gets the same
 * treatment as a time-out (TERM, grace, KILL), but the status stays the command's. */
static void exit_running(struct run *r, enum event ev)
{
	const struct config *cfg = r->cfg;
	exited(r);
	if (!cfg->kill_leftovers || cfg->foreground || !deliver_leftovers_alive(&r->target)) {
		done(r, ev);
		return;
	}
	deliver(r->cfg, &r->target, &r->end, SIGTERM, REACH_TREE, true, REASON_LEFTOVERS);
	start_grace(r);
	if (r->grace_end == CLOCK_NEVER)
		done(r, ev);
}

/* The command was told to end: give the rest of its tree the grace period too. */
static void exit_ending(struct run *r, enum event ev)
{
	exited(r);
	if (r->cfg->foreground || r->grace_end == CLOCK_NEVER)
		done(r, ev);
}

static void exit_killed(struct run *r, enum event ev)
{
	(void)ev;
	exited(r);
	settle(r);
}

/* The command died after the settle had given up on it: it is reaped now (its pid may be
 * someone else's from here on), and its own status stands. */
static void exit_late(struct run *r, enum event ev)
{
	(void)ev;
	r->end.unreaped = false;
}

/* The command ended while the hook ran: the hook runs on to its end (after_hook). */
static void exit_hooking(struct run *r, enum event ev)
{
	(void)ev;
	exited(r);
	r->phase = HOOKING;
}

static int64_t next_wake_but_budgets(const struct run *r);

/* The command stopped: job control (jobctl.h) decides, and the group is continued after.
 * Time passed meanwhile: everything is looked at again before the next wait.  The budgets
 * do not wake a stopped run (a stopped tree grows in nothing, and the wake would continue
 * it each interval): they are measured again once it runs.  Nor does the reading ahead of
 * a limit (a Ctrl-Z'd job would be continued that much before its deadline). */
static void stopped(struct run *r, enum event ev)
{
	(void)ev;
	int sig = r->stopped_by;
	r->stopped_by = 0; /* seen; waitpid reports the next stop afresh */
	if (job_command_stopped(r->target.group, sig, next_wake_but_budgets(r)))
		deliver(r->cfg, &r->target, &r->end, SIGCONT, REACH_GROUP, false, REASON_RESUME);
	r->look_again = true;
}

/* The relay has written out what it owed: the run is over. */
static void flushed(struct run *r, enum event ev)
{
	(void)ev;
	r->phase = DONE;
}

/* A signal from outside that asks nothing of the run, passed on as it is. */
static void forward(struct run *r, enum event ev)
{
	(void)ev;
	deliver(r->cfg, &r->target, &r->end, r->sig, r->reach, false, REASON_FORWARDED);
}

typedef void (*action)(struct run *, enum event);

/* While HOOKING no limit is left to run out (the deadline and the silence are spent, and no
 * grace runs), a stop of the command waits for the first signal's SIGCONT, and the command's
 * exit is noted for after_hook.  Once the final KILL went out (KILLED, SETTLING) a SIGALRM
 * has no grace left to end, and is no limit either: what ended the run stands. */
static const action table[EVENTS][PHASES] = {
	/*             RUNNING      HOOKING          ENDING       KILLED       DRAINING    SETTLING    FLUSHING DONE */
	[AHEAD]      = {read_ahead, ignore,          ignore,      ignore,      ignore,     ignore,     ignore,  ignore},
	[DEADLINE]   = {time_out,   ignore,          time_out,    time_out,    final_kill, ignore,     ignore,  ignore},
	[SILENT]     = {time_out,   ignore,          time_out,    time_out,    ignore,     ignore,     ignore,  ignore},
	[BUDGET]     = {time_out,   ignore,          time_out,    time_out,    ignore,     ignore,     ignore,  ignore},
	[GRACE_OVER] = {ignore,     ignore,          next_step,   give_up,     next_step,  give_up,    ignore,  ignore},
	[EXITED]     = {exit_running, exit_hooking,  exit_ending, exit_killed, ignore,     ignore,     exit_late, exit_late},
	[STOPPED]    = {stopped,    ignore,          stopped,     stopped,     ignore,     ignore,     ignore,  ignore},
	[DRAINED]    = {ignore,     ignore,          ignore,      ignore,      done,       done,       ignore,  ignore},
	[FLUSHED]    = {ignore,     ignore,          ignore,      ignore,      ignore,     ignore,     flushed, ignore},
	[ALARM]      = {alarm_limit, ignore,         alarm_grace, ignore,      alarm_grace, ignore,    ignore,  ignore},
	/* In DONE: ended by a signal taken in this pass, the requests taken with it still go
	 * out; while FLUSHING, a request ends the relaying too. */
	[REQUEST]    = {request,    request_hooking, request,     settle_cut,  request,    settle_cut, cut_off, request},
	[FORWARD]    = {forward,    forward,         forward,     forward,     forward,    forward,    forward, forward},
	[HOOK_OVER]  = {ignore,     after_hook,      ignore,      ignore,      ignore,     ignore,     ignore,  ignore},
};

/* Run ev's action in the current phase; true unless the phase ignores it. */
static bool dispatch(struct run *r, enum event ev)
{
	action act = table[ev][r->phase];
	act(r, ev);
	/* What an event sent may already have ended a child: look before the next wait, whose
	 * SIGCHLD may otherwise be noticed late (the portable wait without its self-pipe). */
	r->child_news = true;
	return act != ignore;
}

/* A signal from outside.  Ctrl-C or Ctrl-\ typed at the terminal is interaction, not a
 * request: it goes where the terminal would have sent it, the command's group, and a
 * program that handles it (a REPL) goes on undisturbed. */
/* Passed on by the guard (guard.h), with what it said of the sender (disp_take): what
 * another process sent the command's group, taken as sent to runlimit, but not what the
 * --on-timeout hook sent (it may signal the group itself: a thread dump by SIGQUIT to
 * RUNLIMIT_PGID), nor what the command sent its own group (kill 0) and was reaped for
 * before the guard could look, nor a request runlimit had already had from its sender:
 * pkill reaches runlimit and the guard alike, and is one request, not two. */
static bool relayed_not_taken(const struct run *r, int sig, int from)
{
	pid_t hook = r->hook_group;
	if (from == DISP_SENDER_UNKNOWN) /* macOS: the hook's only while it runs */
		return r->phase == HOOKING || r->sent_direct[sig];
	if (from > 0)
		return (hook > 0 && from == hook) || r->sent_direct[sig];
	return -from == r->target.command || (hook > 0 && -from == hook) || r->sent_direct[sig];
}

static void arrived(struct run *r, int sig, bool by_process, int relayed)
{
	r->child_news = r->child_news || sig == SIGCHLD;
	if (sig == SIGCHLD || sig == SIGCONT)
		return; /* reap and suspend see to what they mean */
	if (relayed != 0 && relayed_not_taken(r, sig, relayed))
		return;
	if (relayed == 0 && by_process)
		r->sent_direct[sig] = true;
	r->sig = sig;
	if (sig == SIGTSTP || sig == disp_resize()) {
		/* Not signals to end anything: the group only, no grace, no SIGCONT.  A stop of
		 * the command then stops runlimit (see stopped). */
		r->reach = REACH_GROUP;
		dispatch(r, FORWARD);
		return;
	}
	if (sig == SIGALRM) {
		dispatch(r, ALARM);
		return;
	}
	if (disp_is_fault(sig))
		disp_rearm(sig); /* it came from outside: see signal_in.c */
	disp_test_fault(sig);
	r->received[sig] = true;
	/* Once the command has exited, Ctrl-C or Ctrl-\ has nothing to interact with: it asks
	 * the run to end, what is left of it (the leftovers' grace, the relaying), and runlimit
	 * then dies of it, so that a loop typed around it stops as around the bare command.
	 * (The same when sent: macOS cannot tell a typed one.) */
	if (disp_is_keyboard(sig) && reaped(r))
		r->end.late_signal = sig;
	if (disp_is_termination(sig) && (by_process || !disp_is_keyboard(sig) || reaped(r))) {
		r->sig_why = REASON_FORWARDED;
		dispatch(r, REQUEST);
	} else {
		r->reach = REACH_COMMAND;
		dispatch(r, FORWARD);
	}
}

/* The signals that came, each an event. */
static void take_signals(struct run *r)
{
	for (int sig = 1; sig < DISP_SLOTS; sig++) {
		bool by_process;
		int relayed;
		if (disp_take(sig, &by_process, &relayed))
			arrived(r, sig, by_process, relayed);
	}
}

/* The grace of a cancel when neither it nor the run gives one: a cancel always ends the
 * tree, TERM-ignoring processes included. */
#define CANCEL_GRACE ((int64_t)5 * 1000000000)

/* A --cancel (named_control.h): the REQUEST of that signal sent to runlimit by a process,
 * with the cancel's grace (0: the final KILL at once). */
static void cancelled(struct run *r, const struct control_request *q)
{
	r->end.cancelled = true;
	int64_t have = escalation_grace(&r->esc);
	int64_t grace = q->grace >= 0 ? q->grace : have > 0 ? have : CANCEL_GRACE;
	escalation_set_grace(&r->esc, grace > 0 ? grace : 1);
	if (q->sig > 0 && q->sig < DISP_SLOTS)
		r->received[q->sig] = true;
	r->sig = q->sig;
	r->sig_why = REASON_CANCEL;
	dispatch(r, REQUEST);
	/* The longest the run may now take to end: what is left of the grace, the settle after
	 * its KILL, then the output grace (a cancel waits that long, and a margin, before it
	 * gives up on a stopped run). */
	int64_t left = r->grace_end == CLOCK_NEVER ? 0 : r->grace_end - clock_now();
	if (r->grace_end != CLOCK_NEVER) /* the steps after the one due, while one is */
		left = clock_after(left > 0 ? left : 0, escalation_span_from(&r->esc, r->next));
	left = clock_after(left > 0 ? left : 0, SETTLE_MAX);
	if (r->cfg->relay)
		left = clock_after(left > 0 ? left : 0, r->cfg->output_grace);
	control_taken(left);
}
/* --die-with-parent (parent.h): the caller ended.  A cancel's REQUEST, of the -s signal, with
 * the run's grace (a cancel's where it has none: the tree is always ended), and a reason of
 * its own in the report. */
static void parent_died(struct run *r)
{
	r->end.parent_gone = true;
	int64_t have = escalation_grace(&r->esc);
	escalation_set_grace(&r->esc, have > 0 ? have : CANCEL_GRACE);
	int sig = r->cfg->signal;
	if (sig > 0 && sig < DISP_SLOTS)
		r->received[sig] = true;
	r->sig = sig;
	r->sig_why = REASON_PARENT;
	dispatch(r, REQUEST);
}


/* Test builds only: the children are collected late (TEST_COLLECT_LATE_MS) while
 * the hook runs, so that it exits between the look that starts a collection and the
 * collection, as it may anywhere. */
static void collect_late(void)
{
	int ms = test_hook_number(TEST_COLLECT_LATE_MS);
	struct timespec ts = {0, 0};
	if (ms <= 0)
		return;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	ts.tv_sec = ms / 1000;
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Collect one child's exit or stop without waiting: its pid (0: none has news, -1: no
 * child), its wait status in *st.  While the hook runs, the next news is looked at before it
 * is collected, and the hook's exit is left to hook_over, which KILLs what the hook left in
 * its group while its id is still held and then reaps it: a wait for any child would collect
 * the hook first whenever it exits after the last look at it, and its group would be left
 * running, with no id runlimit may signal. */
static pid_t collect(struct target *t, bool command_only, int *st)
{
	const int flags = WNOHANG | WUNTRACED;
	if (command_only)
		return waitpid(t->command, st, flags);
	if (t->hook > 0)
		collect_late();
	while (t->hook > 0) {
		siginfo_t info;
		memset(&info, 0, sizeof info);
		if (waitid(P_ALL, 0, &info, WEXITED | WSTOPPED | WNOHANG | WNOWAIT) != 0)
			break; /* no child (the wait below says so), or no such look here */
		if (info.si_pid <= 0) {
			if (info.si_signo == 0)
				return 0; /* no news */
			break; /* news without its pid (older xnu): the wait below collects it */
		}
		if (info.si_pid == t->hook) {
			hook_over(clock_now());
			t->hook = hook_pid();
			if (t->hook != info.si_pid)
				continue; /* it was collected: what else has news? */
		}
		/* Any news but the hook's exit, which cannot be collected but by its pid now. */
		pid_t pid = waitpid(info.si_pid, st, flags);
		if (pid != 0)
			return pid;
		break; /* a look its wait does not bear out (a stop already collected) */
	}
	return waitpid(-1, st, flags);
}

/* Collecting runlimit's children: the command's exit or stop, and (as a subreaper) the
 * orphans adopted from its tree, whose statuses do not matter.  Without waiting, whatever
 * has ended or stopped; with command_only, the command alone (after the final KILL the dead
 * rest of the tree waits for the last look before runlimit returns, which collects it all
 * at once).  A stop of the command sets *stopped_by.  True when the command's end was
 * collected now, its wait status in *status. */
static bool reap_children(struct target *t, bool command_only, int *status, int *stopped_by)
{
	int st;
	pid_t pid, command = t->command;
	bool ended = false;
	while ((pid = collect(t, command_only, &st)) > 0) {
		if (pid != command) {
			if (!WIFSTOPPED(st) && hook_reaped(pid, st))
				t->hook = 0;
			/* Only an exit or a death is a reaping: a guard stopped with the group
			 * (kill -STOP -PGID) still holds the group's id. */
			if (!WIFSTOPPED(st))
				guard_reaped(pid);
			if (!WIFSTOPPED(st) && pid == t->guard)
				t->guard = 0;
		} else if (WIFSTOPPED(st)) {
			*stopped_by = WSTOPSIG(st);
		} else {
			ended = true;
			*status = st;
		}
	}
	return ended;
}

/* Collect what has ended or stopped; true when the command's end is seen now.  Its pid is
 * taken as reaped from here (the one place: it may be someone else's from now on), before
 * the EXITED that tells the run of it is dispatched. */
static bool reap(struct run *r)
{
	r->child_news = false; /* reap_children collects every change there is */
	int *st = &r->end.wait_status;
	if (!reap_children(&r->target, r->kill_sent, st, &r->stopped_by))
		return false;
	r->target.reaped = true;
	/* Killed by a key typed at the terminal runlimit gave its group: as far as the calling
	 * shell can tell, runlimit was hit too (see run_end.c). */
	r->end.keyboard_death = WIFSIGNALED(*st) && disp_is_keyboard(WTERMSIG(*st)) &&
	                        r->target.group > 0 && tty_owned_by(r->target.group);
	return true;
}

/* While the leftovers have the grace: are they all gone?  If not, their exits wake the next
 * wait where the OS tells of them, else it looks again every few milliseconds. */
static bool leftovers_gone(struct run *r)
{
	if (!deliver_leftovers_alive(&r->target))
		return true;
	r->polling = !tree_watch_exits(&r->target);
	return false;
}

/* While settling: is all that was KILLed gone?  The hook's death wakes the wait (SIGCHLD);
 * the tree's as for leftovers_gone. */
static bool settled(struct run *r)
{
	if (hook_dying_since() != CLOCK_NEVER)
		return false;
	return !r->kill_sent || r->cfg->foreground || leftovers_gone(r);
}

/* The events that do not come as signals, in the order a pass looks for them: what one's
 * action does may make the next one due, or not (a time-out ends the no-output limit). */
static const enum event order[] = {AHEAD,  DEADLINE,  SILENT,  BUDGET,  GRACE_OVER,
                                   EXITED, HOOK_OVER, STOPPED, DRAINED, FLUSHED};

/* What a pass found out, before any of its actions runs (gather).  Each look is made in
 * the phase the pass began in; an action that changes the phase makes the pass after it
 * look again. */
struct news {
	int64_t now;
	enum phase phase;       /* the phase when it was gathered */
	bool ran;               /* the command was not reaped when the pass began */
	bool exited;            /* its end was collected now (r->end.wait_status) */
	bool hook_over;         /* HOOKING: the hook has exited, or was KILLed at its limit */
	enum reason budget;     /* the budget exceeded (REASONS: none) */
	enum relay_due relay;   /* the relay's silence, or (FLUSHING) its end */
	bool drained;           /* DRAINING, SETTLING: nothing of what is waited for is alive */
};

/* Gather the news.  The order is that of the events: a budget measured before the
 * command's end is collected (a tree exceeding a budget as the command exits is a limit that
 * ran out, as when the budget is found first); the hook's end after the reaping, which may
 * be what collected it. */
static void gather(struct run *r, struct news *n)
{
	*n = (struct news){.now = clock_now(), .phase = r->phase, .ran = !reaped(r),
	                   .budget = REASONS, .relay = RELAY_NOTHING};
	if (n->ran) { /* the budgets are the command's tree's while the command lives */
		enum budget_kind kind = budget_check(n->now);
		if (kind != BUDGET_NONE)
			n->budget = budget_reason(kind);
	}
	if (n->ran || n->phase == FLUSHING)
		n->relay = relay_due(n->now);
	/* A child's exit or stop always sends SIGCHLD: nothing to collect without. */
	n->exited = r->child_news && reap(r);
	if (n->phase == HOOKING && hook_over(n->now)) {
		n->hook_over = true;
		r->target.hook = hook_pid();
	}
	if (n->phase == SETTLING)
		n->drained = settled(r);
	else if (n->phase == DRAINING)
		n->drained = leftovers_gone(r);
}

/* Has ev come?  Read from the news and the run as the actions before it in this pass left
 * it: a limit runs out once (a time-out ends the no-output limit and the budgets), and the
 * relay's silence and the budgets are the live command's. */
static bool due(const struct run *r, const struct news *n, enum event ev)
{
	switch (ev) {
	case AHEAD:
		return n->now >= ahead_at(r, NULL);
	case DEADLINE:
		return n->now >= r->deadline;
	case SILENT:
		return n->ran && n->relay == RELAY_SILENT && !r->end.timed_out;
	case BUDGET:
		return n->ran && n->budget != REASONS && !r->end.timed_out;
	case GRACE_OVER:
		return n->now >= r->grace_end;
	case EXITED:
		return n->exited;
	case STOPPED:
		return r->stopped_by && !reaped(r) && !r->cfg->foreground;
	case HOOK_OVER:
		return n->hook_over && r->phase == HOOKING;
	case DRAINED:
		return n->drained && r->phase == n->phase;
	case FLUSHED:
		return r->phase == FLUSHING && n->phase == FLUSHING && n->relay == RELAY_FINISHED;
	default:
		return false;
	}
}

/* When to read the tree ahead of the next limit whose time is known (the deadline; the
 * no-output limit's, while no output comes), and how long before it (*lead).  CLOCK_NEVER
 * for a limit a reading ahead is near enough to serve (snapshot.h), and in every phase but
 * RUNNING: once a limit ran out or a request came, the snapshot is taken. */
static int64_t ahead_at(const struct run *r, int64_t *lead)
{
	const int64_t limits[][2] = {
		{r->deadline, r->deadline - r->began},
		{relay_silence_end(), r->cfg->silence},
	};
	int64_t at = CLOCK_NEVER;
	if (!r->read_ahead || r->phase != RUNNING)
		return at;
	for (size_t k = 0; k < sizeof limits / sizeof *limits; k++) {
		if (limits[k][0] == CLOCK_NEVER)
			continue;
		int64_t l = snapshot_lead(limits[k][1]), a = limits[k][0] - l;
		if (a < at && (r->last_ahead == INT64_MIN || r->last_ahead < a - SNAPSHOT_SLACK)) {
			at = a;
			if (lead)
				*lead = l;
		}
	}
	return at;
}

/* How often runlimit looks at the leftovers when their exits wake nothing. */
#define LEFTOVER_POLL ((int64_t)10 * 1000000)

/* When runlimit next has something to do on its own: the deadline or the final KILL, what
 * the relay has to do, a look at the leftovers, the control socket's, the hook's limit... */
static int64_t next_wake_but_budgets(const struct run *r)
{
	/* Once what was KILLed is settling, a deadline passed means nothing (it would end
	 * every wait at once); over() still needs it, to bound the output grace. */
	int64_t deadline = r->phase == SETTLING ? CLOCK_NEVER : r->deadline;
	int64_t wake = deadline < r->grace_end ? deadline : r->grace_end;
	if (relay_next_wake() < wake)
		wake = relay_next_wake();
	if (r->polling && (r->phase == DRAINING || r->phase == SETTLING)) {
		int64_t soon = clock_now() + LEFTOVER_POLL;
		if (soon < wake)
			wake = soon;
	}
	if (r->cfg->name && control_next_wake() < wake)
		wake = control_next_wake();
	if (r->cfg->die_with_parent && parent_next_wake() < wake)
		wake = parent_next_wake();
	if (r->phase == HOOKING && hook_deadline() < wake)
		wake = hook_deadline();
	return wake;
}

/* ...and the budgets' next measure (the one periodic wake-up, and only with a budget) and
 * the reading ahead of a limit (CLOCK_NEVER without either). */
static int64_t next_wake(const struct run *r)
{
	int64_t wake = next_wake_but_budgets(r);
	if (!reaped(r) && budget_next_wake() < wake)
		wake = budget_next_wake();
	int64_t ahead = ahead_at(r, NULL);
	return ahead < wake ? ahead : wake;
}

/* Wait for the next event: the clock, a signal, the relay's pipes, the control socket (a
 * cancel, into q: true).  Once done, only the signals that came meanwhile are let in: they
 * are pending, blocked, and a Ctrl-C typed as the relay ends is still a Ctrl-C typed at
 * runlimit (see arrived). */
static bool wait_next(struct run *r, struct control_request *q)
{
	if (r->phase == DONE) {
		r->last_look = true;
		clock_wait(0, disp_waitmask(), NULL, 0);
		return false;
	}
	struct pollfd fds[RELAY_MAX_FDS + CONTROL_MAX_FDS + CGROUP_MAX_FDS + PARENT_MAX_FDS];
	size_t n = relay_fds(fds);
	size_t m = control_fds(fds + n);
	size_t g = budget_cgroup_fds(fds + n + m);
	size_t p = parent_fds(fds + n + m + g);
	clock_wait(next_wake(r), disp_waitmask(), fds, n + m + g + p);
	relay_pump(fds, n);
	budget_cgroup_pump(fds + n + m, g);
	if (r->cfg->die_with_parent && parent_gone(fds + n + m + g, p, clock_now()))
		r->parent_ended = true;
	return control_pump(fds + n, m, q);
}

static void loop(struct run *r)
{
	struct control_request cancel;
	bool cancel_came = false;
	for (;;) {
		if (cancel_came)
			cancelled(r, &cancel);
		if (r->parent_ended) {
			r->parent_ended = false;
			parent_died(r);
		}
		take_signals(r);
		struct news n;
		gather(r, &n);
		if (n.budget != REASONS)
			r->budget = n.budget; /* kept: a hook may delay the limit's first signal */
		bool acted = false;
		for (size_t k = 0; k < sizeof order / sizeof *order; k++)
			if (due(r, &n, order[k]))
				acted = dispatch(r, order[k]) || acted;
		if (r->phase == DONE && r->last_look) {
			/* Every dead process of the tree is collected before runlimit returns, after a
			 * final KILL too: thousands left to init would make runlimit's own exit
			 * reparent them, which costs more than collecting them (docs/performance.md,
			 * the figures behind the code). */
			if (reap_children(&r->target, false, &r->end.wait_status, &r->stopped_by)) {
				r->target.reaped = true; /* the command the settle gave up on died since */
				exit_late(r, EXITED);
			}
			return;
		}
		cancel_came = false;
		if (r->look_again || acted)
			r->look_again = false;
		else
			cancel_came = wait_next(r, &cancel);
	}
}

/* How long the command's group is kept after a key typed at the terminal ended the run. */
#define TYPED_LINGER ((int64_t)100 * 1000000)

/* A key typed at the terminal (INT, QUIT) reached runlimit through its caller's group and,
 * passed on, ended the command.  The caller got the same key, and may be passing it on now
 * to the command's group by runlimit's pid, as a client of GNU timeout does (wait-for-it's
 * trap: kill -INT -PID), a moment after runlimit's own: the group is kept that moment, by
 * the guard in it, so that the caller's kill finds it rather than failing (once runlimit is
 * gone its group is too).  Never past the deadline: the bound is kept. */
static void linger_for_caller(const struct run *r)
{
	int st = r->end.wait_status;
	if (!r->target.group_mine || r->target.guard <= 0 || r->end.timed_out ||
	    r->end.unreaped || !WIFSIGNALED(st) || !disp_is_keyboard(WTERMSIG(st)) ||
	    !r->received[WTERMSIG(st)])
		return;
	int64_t until = clock_after(clock_now(), TYPED_LINGER);
	if (r->deadline < until)
		until = r->deadline;
	int64_t left;
	while ((left = until - clock_now()) > 0) {
		struct timespec ts = {(time_t)(left / 1000000000), (long)(left % 1000000000)};
		nanosleep(&ts, NULL);
	}
}

/* --die-with-parent: the process that started runlimit had ended before the command
 * started, which then never runs (said with -v). */
static void parent_gone_early(const struct config *cfg, struct run_end *e)
{
	if (cfg->verbose)
		msg("the process that started this one has ended: not running %s",
		    quote(cfg->command[0]));
	e->parent_gone = true;
	/* As a cancel that came first: runlimit ends as by the -s signal (TERM with -s 0). */
	e->interrupted = true;
	e->late_signal = cfg->signal > 0 ? cfg->signal : SIGTERM;
}

/* A cancel came before the command started (named_control.h): the command never runs, and
 * the run ends as a cancelled run does, runlimit dying of the cancel's signal. */
static void cancelled_early(const struct config *cfg, struct run_end *e)
{
	if (cfg->verbose)
		msg("a cancel came before the command started: not running %s", quote(cfg->command[0]));
	e->cancelled = true;
	/* Ended as by a signal from outside once nothing is left to run: runlimit dies of it. */
	e->interrupted = true;
	e->late_signal = control_early_signal();
}

/* Set up the run and start the command: NULL, or why runlimit cannot run it (said already;
 * r->end records it).  A cancel that came before the command started ends the run too:
 * r->end says so, and the command never runs. */
static const char *set_up(struct run *r, pid_t self)
{
	const struct config *cfg = r->cfg;
	bool parent_lives = parent_watch(cfg); /* first: the caller may be ending as we start */
	const char *refused = budget_cgroup_prepare(cfg);
	if (!refused)
		refused = budget_prepare(cfg);
	if (refused) {
		msg("%s", refused);
		return refused;
	}
	/* The run's deadline, and RUNLIMIT_DEADLINE taken in (said with -v, warned of). */
	r->began = cfg->started ? cfg->started : clock_now();
	r->deadline = cfg->duration == 0 || cfg->duration > CLOCK_NEVER - r->began
	                  ? CLOCK_NEVER : r->began + cfg->duration;
	r->deadline = nested_deadline(cfg, r->deadline);
	if (!parent_lives) {
		parent_gone_early(cfg, &r->end);
		return NULL;
	}
	enum control_state named = cfg->name ? control_open(cfg) : CONTROL_READY;
	if (named == CONTROL_FAILED)
		return "the run could not be registered under its name";
	if (named == CONTROL_CANCELLED) {
		cancelled_early(cfg, &r->end);
		return NULL;
	}
	bool relay_failed;
	r->target = start_command(cfg, self, &relay_failed);
	if (r->target.command < 0) {
		const char *why = strerror(errno);
		msg("%s: %s", relay_failed ? "cannot make the output relay's pipes"
		                           : "fork system call failed", why);
		return why;
	}
	budget_start(&r->target);
	return NULL;
}

/* The last words on stderr of a command that ran: why it could not run, a status no rule
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

/* At most this many pids are named on stderr; the report has them all. */
#define UNKILLED_SAID 8

static void say_unkilled(const struct run_end *e, pid_t command, pid_t hook)
{
	char line[512];
	size_t len = 0;
	line[0] = '\0';
	for (long k = 0; k < e->nunkilled && k < UNKILLED_SAID; k++) {
		const char *who = e->unkilled[k] == command ? " (the command)"
		                  : e->unkilled[k] == hook  ? " (--on-timeout)" : "";
		int w = snprintf(line + len, sizeof line - len, "%s%ld%s", k ? ", " : "",
		                 (long)e->unkilled[k], who);
		if (w > 0 && (size_t)w < sizeof line - len)
			len += (size_t)w;
	}
	if (e->nunkilled > UNKILLED_SAID)
		snprintf(line + len, sizeof line - len, " and %ld more", e->nunkilled - UNKILLED_SAID);
	else if (e->unkilled_more)
		snprintf(line + len, sizeof line - len, "%sprocesses of its group",
		         e->nunkilled ? " and " : "");
	msg("still alive after SIGKILL (an uninterruptible wait?), left behind: %s", line);
}

/* The settle gave up (give_up): what it left alive, found now, said on stderr and kept in
 * the record's unkilled: the command if it is not reaped (unreaped), what of its tree is
 * alive after its final KILL, and the hook after its KILL. */
static void find_unkilled(struct run *r)
{
	struct run_end *e = &r->end;
	const struct target *t = &r->target;
	struct tree_id *ids = NULL;
	long n = r->kill_sent && !r->cfg->foreground ? tree_list(t, &ids) : 0;
	if (n < 0) {
		/* No process table: the command's group tells only whether something is left. */
		e->unkilled_more = deliver_leftovers_alive(t);
		n = 0;
	}
	e->unkilled = malloc((size_t)(n + 2) * sizeof *e->unkilled);
	if (!e->unkilled) {
		free(ids);
		e->unkilled_more = true;
		say_unkilled(e, 0, 0);
		return;
	}
	/* The command first, as the list names it; the walk never lists the hook. */
	pid_t command = e->unreaped && !t->reaped ? t->command : 0;
	if (command)
		e->unkilled[e->nunkilled++] = command;
	for (long k = 0; k < n; k++)
		if (ids[k].pid != command)
			e->unkilled[e->nunkilled++] = ids[k].pid;
	free(ids);
	pid_t hook = hook_dying_since() != CLOCK_NEVER ? hook_pid() : 0;
	if (hook > 0)
		e->unkilled[e->nunkilled++] = hook;
	if (e->nunkilled > 0 || e->unkilled_more)
		say_unkilled(e, command, hook);
}

static int64_t timeval_ns(struct timeval tv)
{
	return (int64_t)tv.tv_sec * 1000000000 + (int64_t)tv.tv_usec * 1000;
}

/* The report's end (with one), of the run decided: the record is completed, the one place
 * where the other modules are asked for their figures (the relay's, if the command
 * started; the inherited deadline, the budgets, the snapshot, the hook), with what of the
 * tree is still alive, counted, what the children used and the time; then it is written.
 * Its lists are freed, report or not. */
static void report_end(struct run *r)
{
	struct run_end *e = &r->end;
	struct tree_id *alive = NULL;
	struct rusage ru;
	if (e->recording) {
		bool list = e->has_tree && run_end_wants_survivors(e);
		long n = list ? tree_list(&r->target, &alive) : -1;
		run_end_count(e, alive, n);
		e->output = r->cfg->relay && e->pid > 0 ? relay_get_stats() : NULL;
		e->inherited = nested_taken();
		e->budgets = budget_figures();
		e->oom_kills = e->budgets ? budget_cgroup_oom_kills() : -1;
		e->tree_at_limit = snapshot_figures();
		e->on_timeout = hook_figures();
		e->have_usage = getrusage(RUSAGE_CHILDREN, &ru) == 0;
		if (e->have_usage) {
			e->user_ns = timeval_ns(ru.ru_utime);
			e->system_ns = timeval_ns(ru.ru_stime);
			e->max_rss_kib = os_maxrss_kib(ru.ru_maxrss);
		}
		e->finished = clock_now();
		e->finished_wall = clock_wall();
		report_file_write(r->cfg, e);
	}
	free(alive);
	free(e->targets);
	free(e->unkilled);
	e->targets = NULL;
	e->unkilled = NULL;
}

/* The one way out: what was set up is undone, whether the command ran or not, the run's end
 * is decided, said and reported, and runlimit's status returned (or it dies of its signal). */
static int leave(struct run *r)
{
	const struct config *cfg = r->cfg;
	struct run_end *e = &r->end;
	bool ran = r->target.command > 0;
	/* What the settle gave up on is found (and said) while the guard still holds the group. */
	if (r->gave_up)
		find_unkilled(r);
	linger_for_caller(r);
	guard_stop();
	r->target.guard = 0;
	/* The tree is gone, or the settle is over: its cgroup goes, all runlimit changed undone. */
	budget_cgroup_end(r->kill_sent && !r->gave_up ? r->settle_end : 0);
	if (ran && !cfg->foreground)
		tty_take_back(r->target.group, e->timed_out || WIFSIGNALED(e->wait_status));
	if (ran) {
		int sig = WIFSIGNALED(e->wait_status) ? WTERMSIG(e->wait_status) : 0;
		e->forwarded = sig > 0 && sig < DISP_SLOTS && r->received[sig];
		e->exec_error = spawn_exec_error(e->wait_status);
		e->pid = r->target.command;
		e->has_tree = !cfg->foreground;
		say_end(cfg, e);
	}
	run_decide(e);
	report_end(r);
	control_close(); /* after the report: a --cancel returns once it is written */
	if (e->die)
		disp_die_of(e->die);
	return e->status;
}

int supervise(const struct config *cfg)
{
	pid_t self = getpid();
	if (!cfg->foreground)
		tty_init();
	disp_setup(cfg, self);
	tree_init(self);
	os_init();
	/* Static, zero from the start: an initializer on the stack would write all of it, the
	 * record's list of signals sent (8 KB) too, pages every start would touch.  Once only. */
	static struct run r;
	r.cfg = cfg;
	r.phase = RUNNING;
	r.grace_end = r.settle_end = CLOCK_NEVER;
	r.last_ahead = INT64_MIN;
	r.child_news = true;
	run_end_start(&r.end, cfg);
	escalation_of(cfg, &r.esc);
	r.end.kill_asked = r.esc.kill_asked;
	/* Not with a hook: the first signal waits for it anyway, and it is to see the tree as
	 * the limit finds it (RUNLIMIT_PIDS). */
	r.read_ahead = snapshot_wanted(cfg) && !cfg->on_timeout;
	const char *refused = set_up(&r, self);
	r.end.refused = refused != NULL;
	r.end.error = refused;
	if (r.target.command > 0) {
		loop(&r);
		budget_stop(); /* the report's last figures, before the guard is collected */
		if (cfg->verbose && cfg->relay)
			relay_tell_dropped();
	}
	return leave(&r);
}

int supervise_refused(const struct config *cfg, const char *why)
{
	struct run r = {.cfg = cfg};
	run_end_start(&r.end, cfg);
	r.end.refused = true;
	r.end.error = why;
	run_decide(&r.end);
	report_end(&r);
	return r.end.status;
}
