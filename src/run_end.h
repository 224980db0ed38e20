/* How a run ends, in one record: what happened (supervise.c and finish.c fill it in as the
 * run goes), what is left of the tree, and the verdict that run_decide draws from it by the
 * rules of the manual's EXIT STATUS table: runlimit's exit status (or the signal it dies
 * of) and the run report's outcome, whose words are one table (run_end.c), as are those of
 * the reasons runlimit acts for.  The deciding is pure: no system call, no message (the
 * supervisor says what there is to say). */
#ifndef RUNLIMIT_RUN_END_H
#define RUNLIMIT_RUN_END_H

#include <stdbool.h>
#include <sys/types.h>

#include "budget_table.h"

struct tree_id;     /* os/os.h */
struct relay_stats; /* relay.h */

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

struct run_end {
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

	/* What is left (finish.c). */
	pid_t *unkilled;      /* what runlimit sent SIGKILL and left alive when the settle gave
	                         up (a process in an uninterruptible wait); malloc'd */
	long nunkilled;
	bool unkilled_more;   /* others of the command's group may be alive too, which nothing
	                         here can list (no process table) */
	struct tree_id *survivors; /* the tree's processes alive at the end, if the report wants
	                              them (report_wants_survivors); malloc'd */
	long nsurvivors;      /* how many (-1: not known) */
	const struct relay_stats *output; /* what the relay saw (NULL: nothing was relayed) */

	/* The verdict (run_decide). */
	enum outcome outcome;
	int status;           /* runlimit's exit status */
	int die;              /* the signal runlimit dies of instead (0: it exits with status) */
};

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
