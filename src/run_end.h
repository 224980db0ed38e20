/* How a run ends, in one record: what happened (supervise.c and signal_out.c write it as the
 * run goes: with a report, every signal sent and what it reached too), what is left of the
 * tree, and the verdict that run_decide draws from it by the rules of the manual's EXIT
 * STATUS table: runlimit's exit status (or the signal it dies of) and the run report's
 * outcome, whose words are one table (run_end.c), as are those of the reasons runlimit acts
 * for.  The deciding is pure: no system call, no message (the supervisor says what there is
 * to say). */
#ifndef RUNLIMIT_RUN_END_H
#define RUNLIMIT_RUN_END_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "budget_table.h"

struct config;      /* cli.h */
struct tree_id;     /* os/os.h */
struct tree_seen;   /* os/os.h */

/* The report's one word for how the run went (outcome_word). */
enum outcome {
	OUTCOME_EXITED,       /* the command exited of itself */
	OUTCOME_SIGNALLED,    /* it died of a signal no limit or request sent */
	OUTCOME_TIMED_OUT,    /* a limit ran out, and it ended of that */
	OUTCOME_KILLED,       /* a limit ran out, and it died of SIGKILL */
	OUTCOME_INTERRUPTED,  /* a signal or a cancel from outside asked the run to end */
	OUTCOME_NOT_FOUND,    /* the command could not be found (127) */
	OUTCOME_NOT_RUNNABLE, /* it was found but could not be run (126) */
	OUTCOME_ERROR,        /* runlimit failed (125), or a wait status no rule knows */
	OUTCOMES
};

/* Why runlimit sent a signal, or a limit ran out; the report says it in words (in
 * parentheses). */
enum reason {
	REASON_DEADLINE,  /* the time limit passed ("deadline") */
	REASON_ALARM,     /* SIGALRM came from outside ("alarm") */
	REASON_GRACE,     /* the grace after the first signal ran out ("grace") */
	REASON_NO_OUTPUT, /* the output was silent for --no-output-timeout ("no-output") */
	REASON_CANCEL,    /* a --cancel ("cancel") */
	REASON_FORWARDED, /* a signal from outside, passed on ("forwarded") */
	REASON_LEFTOVERS, /* --kill-leftovers, once the command exited ("leftovers") */
	REASON_RESUME,    /* the group continued after a stop ("resume") */
	REASON_PARENT,    /* --die-with-parent: the process that started runlimit ended ("parent") */
	REASON_BUDGET,    /* a budget ran out: one reason per budget, from here on, in the order
	                     of budget_table.h's table, worded by its row ("memory", "procs", ...) */
	REASONS = (int)REASON_BUDGET + (int)BUDGET_KINDS - 1
};

/* The signals listed at most: a caller that sends runlimit thousands (a resize storm) gets
 * the first ones and a count of the rest. */
#define MAX_SENT 256

/* A signal runlimit sent: when (clock_now()), which, to whom ("tree", "group", "command",
 * "leftovers") and why. */
struct sent {
	int64_t at;
	int sig;
	const char *target;
	enum reason reason;
};

struct run_end {
	bool recording;       /* a report is wanted: what only it reads is collected */

	/* What happened. */
	bool refused;         /* runlimit failed before the command could run (error says why) */
	const char *error;    /* why runlimit failed (with refused), else NULL */
	pid_t pid;            /* the command (0: it never started) */
	bool has_tree;        /* the command had a tree of its own (not --foreground) */
	int exec_error;       /* the errno of a failed exec, else 0: wait_status is the command's */
	int wait_status;      /* the command's, from waitpid (unless unreaped) */
	bool unreaped;        /* it was sent SIGKILL and had not died when runlimit returned (in
	                         an uninterruptible wait): taken as dead of that KILL */
	bool timed_out;       /* a limit ran out: the deadline, or SIGALRM from outside */
	bool preserve_status; /* -p */
	bool kill_asked;      /* -k or -s KILL was given: the grace's KILL is the caller's */
	bool kill_needed;     /* the final KILL of a grace went out (the default's, or -k's) */
	bool forwarded;       /* the signal that ended the command came from outside, passed on */
	bool keyboard_death;  /* it died of INT or QUIT typed at the terminal its group had */
	bool interrupted;     /* a signal from outside asked the run to end */
	int late_signal;      /* INT or QUIT that came once the command had exited and ended
	                         the rest of the run, or the signal of a cancel that came before
	                         the command started (0: none): runlimit dies of it */
	enum reason limit;    /* with timed_out: the limit that ran out */
	bool cancelled;       /* ended by a --cancel (or one came before the command started) */
	bool parent_gone;     /* ended by the end of the process that started runlimit
	                         (--die-with-parent), or it had ended before the command started */

	/* What runlimit sent (signal_out.c), while recording: the list is sent, last below. */
	size_t nsent, omitted;      /* how many are listed, and how many more went out */
	struct signalled *targets;  /* the processes the walks that sent them found (run_end.c),
	                               sorted (run_end_targets); malloc'd */
	size_t ntargets;
	bool targets_unknown; /* a walk could not list them: the counts are not known */
	long kill_left;       /* a final KILL short of memory looked until none was alive (0), or
	                         gave up with this many (-1: none such): where nothing lists */
	long alive_at_exit;   /* the tree's processes alive when the command was reaped (-1: not
	                         known, or not recording) */

	/* What is left (supervise.c, at the end). */
	pid_t *unkilled;      /* what runlimit sent SIGKILL and left alive when the settle gave
	                         up (a process in an uninterruptible wait); malloc'd */
	long nunkilled;
	bool unkilled_more;   /* others of the command's group may be alive too, which nothing
	                         here can list (no process table) */
	long ended;           /* how many processes runlimit asked to end are gone (run_end_count;
	                         -1: not known) */
	long left;            /* the tree's processes still alive at the end, but those that
	                         were KILLed (-1: not known) */

	/* The other modules' figures, asked for once, when the record is completed (leave()),
	 * while recording; NULL where there are none. */
	const struct relay_stats *output;       /* relay.h: what the relay saw */
	const struct inherited *inherited;      /* nested.h: taken from RUNLIMIT_DEADLINE */
	const struct budget_figures *budgets;   /* budget.h: the budgets asked, their peaks */
	int64_t oom_kills;                      /* the kernel's OOM kills in the run's cgroup
	                                           (-1: not known) */
	const struct snapshot_figures *tree_at_limit; /* snapshot.h */
	const struct hook_figures *on_timeout;  /* hook.h: the --on-timeout hook, if it ran */
	bool have_usage;      /* what runlimit's children used (getrusage) is known: */
	int64_t user_ns, system_ns; /* their CPU times */
	long max_rss_kib;     /* the largest resident set among them */
	int64_t finished, finished_wall; /* clock_now() and clock_wall() then */

	/* The verdict (run_decide). */
	enum outcome outcome;
	int status;           /* runlimit's exit status */
	int die;              /* the signal runlimit dies of instead (0: it exits with status) */

	/* Last: run_end_start leaves it as it is (nsent says how much is written), so that a
	 * start does not write its 8 KB, two pages more to touch (docs/performance.md). */
	struct sent sent[MAX_SENT]; /* in order (run_end_sent) */
};

/* A record for the run cfg asks for, nothing happened yet. */
void run_end_start(struct run_end *e, const struct config *cfg);

/* While recording: runlimit sent sig to target ("tree", "group", "command", "leftovers"),
 * for why, now. */
void run_end_sent(struct run_end *e, int sig, const char *target, enum reason why);

/* While recording: runlimit has asked the tree to end (kill: with SIGKILL), and its walk
 * found seen's processes, which count among those runlimit ended unless they are alive at
 * the end.  seen's list is sorted in place. */
void run_end_targets(struct run_end *e, struct tree_seen *seen, bool kill);

/* Does the count at the end (run_end_count) need the list of the tree's processes still
 * alive?  Not when nothing was left at the command's exit and nothing was asked to end: the
 * listing is then skipped. */
bool run_end_wants_survivors(const struct run_end *e);

/* ended and left, from the tree's n processes alive at the end (alive; n -1: not known),
 * with what runlimit asked to end and what outlived its KILL (unkilled). */
void run_end_count(struct run_end *e, const struct tree_id *alive, long n);

/* GNU's exit status for a command that could not be run (err: exec's errno): 127 not
 * found, else 126. */
int exec_error_status(int err);

/* The verdict, from what happened: e's outcome, status and die. */
void run_decide(struct run_end *e);

/* The report's word for an outcome: exited, signalled, timed-out, killed, interrupted,
 * not-found, not-runnable, error. */
const char *outcome_word(enum outcome o);

/* The reason of a budget that ran out. */
enum reason budget_reason(enum budget_kind kind);

/* The report's word for a reason ("deadline", "no-output", ...; a budget's, its row's). */
const char *reason_word(enum reason why);

#endif
